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

#include <sys/mman.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iterator>
#include <map>
#include <mutex>
#include <string>
#include <utility>

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

// Memory for the validation wrapper's own bookkeeping, mapped from the OS,
// never taken from the subject under test: the wrapper's map nodes (48 bytes
// a live block) would otherwise count in the subject's peak RSS, where the
// trace replay measures it (a fifth of the compiler trace's live bytes), and
// share its pages with the program's blocks. Not thread-safe (the wrapper
// holds its mutex). Freed blocks of one size are kept for that size.
class BookkeepingArena {
 public:
  BookkeepingArena() = default;
  BookkeepingArena(const BookkeepingArena&) = delete;
  BookkeepingArena& operator=(const BookkeepingArena&) = delete;
  ~BookkeepingArena() {
    while (chunks_ != nullptr) {
      Chunk* next = chunks_->next;
      munmap(chunks_, chunks_->bytes);
      chunks_ = next;
    }
  }

  // Maps and writes room for `bytes` now, so that a measurement that starts
  // after this sees none of it as growth.
  void Reserve(size_t bytes) {
    if (bytes > left_) NewChunk(bytes, /*populate=*/true);
  }

  void* Allocate(size_t bytes) {
    bytes = Rounded(bytes);
    if (bytes == kept_bytes_ && kept_ != nullptr) {
      FreeBlock* b = kept_;
      kept_ = b->next;
      return b;
    }
    if (bytes > left_) NewChunk(std::max(bytes, kChunkBytes), false);
    void* p = next_;
    next_ += bytes;
    left_ -= bytes;
    return p;
  }

  // Blocks of the first size freed are kept for reuse; others (std::map
  // frees only its nodes) stay in their chunk until the arena goes.
  void Deallocate(void* p, size_t bytes) {
    bytes = Rounded(bytes);
    if (kept_bytes_ == 0) kept_bytes_ = bytes;
    if (bytes != kept_bytes_) return;
    auto* b = static_cast<FreeBlock*>(p);
    b->next = kept_;
    kept_ = b;
  }

 private:
  struct Chunk {
    Chunk* next;
    size_t bytes;
  };
  struct FreeBlock {
    FreeBlock* next;
  };
  static constexpr size_t kChunkBytes = size_t{1} << 20;
  static size_t Rounded(size_t bytes) {
    return (std::max(bytes, sizeof(FreeBlock)) + 15) & ~size_t{15};
  }
  void NewChunk(size_t bytes, bool populate) {
    const size_t total = (bytes + sizeof(Chunk) + 4095) & ~size_t{4095};
    void* m = mmap(nullptr, total, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) std::abort();  // the harness is out of memory
    if (populate) std::memset(m, 0, total);
    auto* c = static_cast<Chunk*>(m);
    c->next = chunks_;
    c->bytes = total;
    chunks_ = c;
    next_ = static_cast<char*>(m) + ((sizeof(Chunk) + 15) & ~size_t{15});
    left_ = total - static_cast<size_t>(next_ - static_cast<char*>(m));
  }

  Chunk* chunks_ = nullptr;
  char* next_ = nullptr;
  size_t left_ = 0;
  FreeBlock* kept_ = nullptr;
  size_t kept_bytes_ = 0;
};

// A standard allocator over a BookkeepingArena.
template <typename T>
struct BookkeepingAllocator {
  using value_type = T;
  BookkeepingArena* arena;
  explicit BookkeepingAllocator(BookkeepingArena* a) : arena(a) {}
  template <typename U>
  BookkeepingAllocator(const BookkeepingAllocator<U>& other)  // NOLINT
      : arena(other.arena) {}
  T* allocate(size_t n) {
    return static_cast<T*>(arena->Allocate(n * sizeof(T)));
  }
  void deallocate(T* p, size_t n) { arena->Deallocate(p, n * sizeof(T)); }
  template <typename U>
  bool operator==(const BookkeepingAllocator<U>& other) const {
    return arena == other.arena;
  }
  template <typename U>
  bool operator!=(const BookkeepingAllocator<U>& other) const {
    return arena != other.arena;
  }
};

// Wraps a subject for the validation pass: writes a pattern over every block,
// checks it is intact at free, and checks each new block against the live
// ones. Thread-safe (a mutex around the bookkeeping) for two_thread. Its
// bookkeeping is outside the subject (BookkeepingArena), and room for
// `expected_live` blocks is mapped and written before the workload runs.
template <typename S>
class Validating {
 public:
  explicit Validating(S& inner, size_t expected_live = 0)
      : inner_(inner), live_(BookkeepingAllocator<Live>(&arena_)) {
    // A map node: the tree's links and colour, then the pair.
    arena_.Reserve(expected_live * (4 * sizeof(void*) + sizeof(Live)));
  }

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

  using Live = std::pair<const uintptr_t, size_t>;
  S& inner_;
  mutable std::mutex mu_;
  BookkeepingArena arena_;  // before live_, which frees into it
  std::map<uintptr_t, size_t, std::less<uintptr_t>, BookkeepingAllocator<Live>>
      live_;
  std::string error_;
};

}  // namespace internal
}  // namespace shootout
}  // namespace tessera

#endif  // TESSERA_BENCH_SHOOTOUT_INTERNAL_SUBJECTS_H_
