// Copyright 2026 The Tessera Authors.
//
// -----------------------------------------------------------------------------
// File: internal/subjects.h
// -----------------------------------------------------------------------------
//
// What a workload calls: a "subject" is any type with
//   void* Alloc(size_t n, size_t alignment = kDefaultAlignment);
//   void  Free(void* p, size_t n, size_t alignment = kDefaultAlignment);
//   void* Realloc(void* p, size_t old_n, size_t n, size_t alignment);
//   void  Touch(void* p, size_t offset, size_t len);
// Workloads are templates over it, so each call devirtualises as it would in
// a caller that knows its allocator. `Validating` wraps any subject for the
// validation pass; `LockedSubject` puts a single-threaded one behind a mutex
// for the threaded trace replay.

#ifndef TESSERA_BENCH_SHOOTOUT_INTERNAL_SUBJECTS_H_
#define TESSERA_BENCH_SHOOTOUT_INTERNAL_SUBJECTS_H_

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <iterator>
#include <map>
#include <mutex>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "alloc/allocator.h"
#include "alloc/pool/stacked_pool.h"

namespace tessera {
namespace shootout {
namespace internal {

// The process's malloc: glibc, or the peer LD_PRELOAD put in its place.
// Every subject writes into its blocks through Touch, so that the validation
// wrapper can keep its pattern intact while the workload writes.
inline void TouchBytes(void* p, size_t offset, size_t len) {
  volatile char* bytes = static_cast<volatile char*>(p) + offset;
  for (size_t i = 0; i < len; ++i) bytes[i] = 1;
}

// Trace replay also needs aligned allocation and realloc; the other
// workloads only Alloc/Free at the default alignment.
struct GlobalMalloc {
  void* Alloc(size_t n, size_t alignment = kDefaultAlignment) {
    if (alignment <= kDefaultAlignment) return std::malloc(n);
    void* p = nullptr;
    return posix_memalign(&p, alignment, n) == 0 ? p : nullptr;
  }
  void Free(void* p, size_t, size_t = kDefaultAlignment) { std::free(p); }
  void* Realloc(void* p, size_t, size_t n, size_t) {
    return std::realloc(p, n);
  }
  void Touch(void* p, size_t offset, size_t len) { TouchBytes(p, offset, len); }
};

// A Tessera allocator through the Allocator interface. `A` is the final
// class, so the calls devirtualise as they would in a caller that knows it.
template <typename A>
struct TesseraSubject {
  A* allocator;
  void* Alloc(size_t n, size_t alignment = kDefaultAlignment) {
    return allocator->Allocate(n, alignment);
  }
  void Free(void* p, size_t n, size_t alignment = kDefaultAlignment) {
    allocator->Deallocate(p, n, alignment);
  }
  void* Realloc(void* p, size_t old_n, size_t n, size_t alignment) {
    return allocator->Reallocate(p, old_n, n, alignment);
  }
  void Touch(void* p, size_t offset, size_t len) { TouchBytes(p, offset, len); }
};

struct PoolSubject {
  static constexpr size_t kCell = 64;
  StackedPool* pool;
  void* Alloc(size_t n, size_t alignment = kDefaultAlignment) {
    return n <= kCell && alignment <= 16 ? pool->Take() : nullptr;
  }
  void Free(void* p, size_t, size_t = kDefaultAlignment) { pool->Return(p); }
  void* Realloc(void*, size_t, size_t, size_t) { return nullptr; }  // cells
  void Touch(void* p, size_t offset, size_t len) { TouchBytes(p, offset, len); }
};

// A single-threaded subject behind one mutex, for the threaded trace replay.
template <typename S>
class LockedSubject {
 public:
  explicit LockedSubject(S& inner) : inner_(inner) {}
  void* Alloc(size_t n, size_t alignment = kDefaultAlignment) {
    std::lock_guard<std::mutex> lock(mu_);
    return inner_.Alloc(n, alignment);
  }
  void Free(void* p, size_t n, size_t alignment = kDefaultAlignment) {
    std::lock_guard<std::mutex> lock(mu_);
    inner_.Free(p, n, alignment);
  }
  void* Realloc(void* p, size_t old_n, size_t n, size_t alignment) {
    std::lock_guard<std::mutex> lock(mu_);
    return inner_.Realloc(p, old_n, n, alignment);
  }
  void Touch(void* p, size_t offset, size_t len) {
    inner_.Touch(p, offset, len);
  }

 private:
  S& inner_;
  std::mutex mu_;
};

// Wraps a subject for the validation pass: writes a pattern over every block,
// checks it is intact at free, and checks each new block against the live
// ones. Thread-safe (a mutex around the bookkeeping) for two_thread.
template <typename S>
class Validating {
 public:
  explicit Validating(S& inner) : inner_(inner) {}

  void* Alloc(size_t n, size_t alignment = kDefaultAlignment) {
    void* p = inner_.Alloc(n, alignment);
    std::lock_guard<std::mutex> lock(mu_);
    if (p == nullptr) {
      Fail(absl::StrFormat("allocation of %d bytes returned nullptr", n));
      return nullptr;
    }
    const uintptr_t a = reinterpret_cast<uintptr_t>(p);
    // malloc owes a block only the alignment an object of its size can
    // need: jemalloc and mimalloc give 8-byte requests 8-byte alignment.
    size_t need = alignment;
    if (alignment == kDefaultAlignment) {
      while (need > 1 && need > n) need >>= 1;
    }
    if (a % need != 0) {
      Fail(absl::StrFormat("block %p (%d bytes) is not aligned to %d", p, n,
                           need));
    }
    auto next = live_.upper_bound(a);
    if (next != live_.end() && next->first < a + n) {
      Fail(absl::StrFormat("block %p+%d overlaps live block at %#x", p, n,
                           next->first));
    }
    if (next != live_.begin()) {
      auto prev = std::prev(next);
      if (prev->first + prev->second > a) {
        Fail(absl::StrFormat("block %p+%d overlaps live block %#x+%d", p, n,
                             prev->first, prev->second));
      }
    }
    live_[a] = n;
    Pattern(p, n, /*write=*/true);
    return p;
  }

  // Validation needs no in-place growth: a new block, then the old freed.
  void* Realloc(void* p, size_t old_n, size_t n, size_t alignment) {
    void* q = Alloc(n, alignment);
    if (q != nullptr) Free(p, old_n, alignment);
    return q;
  }

  void Free(void* p, size_t n, size_t alignment = kDefaultAlignment) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = live_.find(reinterpret_cast<uintptr_t>(p));
      if (it == live_.end() || it->second != n) {
        Fail(absl::StrFormat("free of %p (%d bytes) that is not live", p, n));
        return;
      }
      if (!Pattern(p, n, /*write=*/false)) {
        Fail(absl::StrFormat("block %p (%d bytes) was overwritten while live",
                             p, n));
      }
      live_.erase(it);
    }
    inner_.Free(p, n, alignment);
  }

  // The workload's writes keep the pattern: each byte written is the byte
  // the pattern wants there, so overlap and corruption remain detectable.
  void Touch(void* p, size_t offset, size_t len) {
    auto* bytes = static_cast<unsigned char*>(p);
    const uintptr_t a = reinterpret_cast<uintptr_t>(p);
    for (size_t i = offset; i < offset + len; ++i) bytes[i] = PatternByte(a, i);
  }

  absl::Status status() const {
    std::lock_guard<std::mutex> lock(mu_);
    if (!error_.empty()) return absl::InternalError(error_);
    if (!live_.empty()) {
      return absl::InternalError(absl::StrFormat(
          "%d blocks still live after the workload", live_.size()));
    }
    return absl::OkStatus();
  }

 private:
  void Fail(std::string why) {
    if (error_.empty()) error_ = absl::StrCat("validation: ", why);
  }
  // Every byte of small blocks, every 509th byte and the last of large ones.
  static unsigned char PatternByte(uintptr_t block, size_t i) {
    return static_cast<unsigned char>((block >> 4) + i * 7);
  }
  static bool Pattern(void* p, size_t n, bool write) {
    auto* bytes = static_cast<unsigned char*>(p);
    const uintptr_t a = reinterpret_cast<uintptr_t>(p);
    const size_t step = n <= 4096 ? 1 : 509;
    bool ok = true;
    auto visit = [&](size_t i) {
      const unsigned char want = PatternByte(a, i);
      if (write) {
        bytes[i] = want;
      } else if (bytes[i] != want) {
        ok = false;
      }
    };
    for (size_t i = 0; i < n; i += step) visit(i);
    if (n != 0) visit(n - 1);
    return ok;
  }

  S& inner_;
  mutable std::mutex mu_;
  std::map<uintptr_t, size_t> live_;
  std::string error_;
};

}  // namespace internal
}  // namespace shootout
}  // namespace tessera

#endif  // TESSERA_BENCH_SHOOTOUT_INTERNAL_SUBJECTS_H_
