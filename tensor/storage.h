// Copyright 2026 The Tessera Authors.
//
// -----------------------------------------------------------------------------
// File: storage.h
// -----------------------------------------------------------------------------
//
// `Storage` is the reference-counted byte buffer under every tensor, and
// `StorageRef` the counted handle to it. It is what NEP 49 asks of a NumPy
// array's memory: the buffer remembers the `tessera::Allocator` that made it
// and is freed through that same allocator when the last reference goes,
// whatever the scoped default allocator is by then.
//
// Two kinds:
//   * Owned (`Storage::Allocate`): one block from the allocator holds a
//     128-byte header (this object) followed by the data (see kLargeBytes), so a tensor costs one
//     allocation and one free. `zeroed` uses the allocator's zeroed path
//     (calloc-like: large blocks are zero pages the kernel maps lazily).
//   * Wrapped (`Storage::Wrap`): caller memory, never freed by Tessera; an
//     optional release callback runs when the last reference goes. The header
//     is then a separate block from the given allocator.
//
// Complexity: O(1) apart from the allocator's own cost; reference counting is
// one atomic increment/decrement per copy/destruction of a `StorageRef`.
//
// Invariants:
//   1. `data()` is non-null and, for owned storage, aligned to
//      `kDefaultAlignment` (`kLargeAlignment` for data from `kLargeBytes`
//      up, zeroed or not);
//      `size_bytes()` bytes from it are valid.
//   2. The reference count is at least 1 while any `StorageRef` points here;
//      the storage (header and data) is released exactly once, at zero.
//   3. `allocator()` is the allocator the header block came from; the block
//      is returned to it with the same size and alignment.
//
// Default backing of large tensors (`StorageAllocatorFor`): owned,
// uninitialised storage of at least `kCachedMinBytes` that a creating
// function makes with no allocator argument, while no ScopedDefaultAllocator
// is active on the thread, comes from `TensorBufferCache()`, a process-wide
// BufferCache (alloc/pool/buffer_cache.h). Freed, such a buffer stays mapped
// and faulted in for the next tensor of its size class: a 40 MB temporary then
// costs no page faults (~13 us per 4 KiB page on these VMs, i.e. ~10 ms for
// 40 MB). The storage records the cache as its allocator and goes back to it,
// like any other storage. Memory bound: the idle buffers hold at most
// TESSERA_TENSOR_CACHE_MB MiB (read once; default 256, 0 caches nothing),
// at most 8 per size class, oldest unmapped first; `ReleaseTensorBufferCache`
// unmaps them all. Zeroed storage keeps using the default allocator's zeroed
// path: lazily mapped zero pages (calloc's, or from 4 MiB the malloc
// allocator's kept mappings given back with MADV_DONTNEED) are cheaper than
// clearing a reused buffer.
//
// Default backing of small tensors: under the same condition, owned storage
// whose block (header included) is at most 16 KiB, zeroed or not, comes from
// a process-wide internal::SmallBlockCache over the malloc allocator
// (tensor/internal/small_block_cache.h): per-thread lists of freed blocks,
// at most 8 per 256-byte size class and 256 KiB per thread, returned to
// malloc when the thread exits or by `ReleaseTensorBufferCache` (the calling
// thread's). It saves the malloc/free pair of a 1e3-element tensor, whose
// 4 KiB block is above glibc's own per-thread cache, as NumPy's small-buffer
// cache does.
//
// Bad input: a size that overflows with the header returns InvalidArgument;
// an allocator that returns nullptr gives ResourceExhausted naming the bytes
// and the allocator, with nothing allocated.

#ifndef TESSERA_TENSOR_STORAGE_H_
#define TESSERA_TENSOR_STORAGE_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <utility>

#include "absl/status/statusor.h"
#include "alloc/allocator.h"

namespace tessera {

class StorageRef;

class Storage {
 public:
  // Bytes reserved in front of the data of owned storage for this header.
  static constexpr size_t kHeaderBytes = 128;
  // Owned data of at least `kLargeBytes` starts on a cache line
  // (`kLargeAlignment`): 64-byte SIMD loads and stores then never split
  // lines, which on a 1e3-element float add is ~2x and on 1e5 ~20%. The
  // block is still requested with `kDefaultAlignment` (malloc's fast path,
  // not glibc's slower memalign; calloc's lazily mapped zero pages for zeroed
  // blocks) plus `kLargeAlignment - kDefaultAlignment` spare bytes, and the
  // data starts at the first cache line after the header. Smaller data
  // follows the header directly (`kDefaultAlignment`).
  static constexpr size_t kLargeBytes = 256;
  static constexpr size_t kLargeAlignment = 64;

  // Allocates `bytes` of data from `allocator` (uninitialised, or zero when
  // `zeroed`). Zeroed data of `kSeparateHeaderZeroedBytes` or more gets the
  // header in a block of its own (both from `allocator`), so pages the
  // allocator gives back lazily zeroed are not touched until used.
  static constexpr size_t kSeparateHeaderZeroedBytes = size_t{4} << 20;
  static absl::StatusOr<StorageRef> Allocate(size_t bytes,
                                             Allocator& allocator,
                                             bool zeroed);

  // Adopts caller memory [data, data + bytes). `release(data)` runs when the
  // last reference goes (if set). The header comes from `header_allocator`.
  // If the header cannot be allocated, `release` is NOT called and the
  // caller keeps ownership of `data`.
  static absl::StatusOr<StorageRef> Wrap(void* data, size_t bytes,
                                         std::function<void(void*)> release,
                                         Allocator& header_allocator);

  void* data() const { return data_; }
  size_t size_bytes() const { return bytes_; }
  // The allocator this storage is freed through.
  Allocator& allocator() const { return *allocator_; }
  // True for storage made by `Allocate` (the data belongs to `allocator()`).
  bool owns_data() const { return !wrapped_; }
  int64_t ref_count() const { return refs_.load(std::memory_order_acquire); }

  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

 private:
  friend class StorageRef;

  Storage(void* data, size_t bytes, Allocator* allocator, size_t block_bytes,
          size_t alignment, bool wrapped)
      : data_(data),
        bytes_(bytes),
        allocator_(allocator),
        block_bytes_(block_bytes),
        alignment_(alignment),
        wrapped_(wrapped) {}
  ~Storage() = default;

  void Ref() { refs_.fetch_add(1, std::memory_order_relaxed); }
  void Unref();

  std::atomic<int64_t> refs_{1};
  void* data_;
  size_t bytes_;
  Allocator* allocator_;
  // Size of the block this header lives in (header + data when owned).
  size_t block_bytes_;
  // Alignment the block was allocated with (and is freed with).
  size_t alignment_;
  bool wrapped_;
  // Non-null: the block of owned data, apart from this header (the data is
  // its first cache line boundary). Large zeroed storage does this so the
  // allocator's lazily zeroed pages stay untouched until the data is used: a
  // header written in front of them faulted the first (huge) page in at once.
  // Allocated at kDefaultAlignment: a larger alignment would turn malloc's
  // calloc into posix_memalign + memset.
  void* separate_block_ = nullptr;
  size_t separate_block_bytes_ = 0;
  // Wrapped storage only; heap use of std::function for large captures is the
  // caller's choice.
  std::function<void(void*)> release_;
};

// Smallest owned storage (data bytes) served by `TensorBufferCache()` by
// default; the cache's own `min_buffer_bytes`.
inline constexpr size_t kCachedMinBytes = size_t{64} << 10;

// The process-wide cache behind large tensors (see the file comment). Created
// on first use, never destroyed.
Allocator& TensorBufferCache();

// Unmaps the idle buffers of `TensorBufferCache()` (and the freed blocks of
// 4 MiB and more the malloc allocator keeps mapped, see
// alloc/system/system_allocator.h) and returns the calling thread's idle
// small blocks to malloc; returns their bytes.
size_t ReleaseTensorBufferCache();

// The allocator behind the default storage of small tensors (see the file
// comment). Created on first use, never destroyed.
Allocator& TensorSmallBlockCache();

// The allocator owned storage of `bytes` data bytes comes from: `allocator`
// when given; otherwise, while the thread's default allocator is the
// process-wide malloc one (no ScopedDefaultAllocator active),
// `TensorSmallBlockCache()` for storage whose block is at most 16 KiB and
// `TensorBufferCache()` for uninitialised storage of at least
// kCachedMinBytes; else `DefaultAllocator()`.
Allocator& StorageAllocatorFor(Allocator* allocator, size_t bytes,
                               bool zeroed);

// A counted reference to a `Storage`; null when default-constructed.
class StorageRef {
 public:
  StorageRef() = default;
  StorageRef(const StorageRef& other) : storage_(other.storage_) {
    if (storage_ != nullptr) storage_->Ref();
  }
  StorageRef(StorageRef&& other) noexcept
      : storage_(std::exchange(other.storage_, nullptr)) {}
  StorageRef& operator=(StorageRef other) noexcept {
    std::swap(storage_, other.storage_);
    return *this;
  }
  ~StorageRef() {
    if (storage_ != nullptr) storage_->Unref();
  }

  Storage* get() const { return storage_; }
  Storage* operator->() const { return storage_; }
  Storage& operator*() const { return *storage_; }
  explicit operator bool() const { return storage_ != nullptr; }

 private:
  friend class Storage;
  // Adopts one reference.
  explicit StorageRef(Storage* storage) : storage_(storage) {}

  Storage* storage_ = nullptr;
};

}  // namespace tessera

#endif  // TESSERA_TENSOR_STORAGE_H_
