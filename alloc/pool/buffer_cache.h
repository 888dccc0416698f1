// Copyright 2026 The Tessera Authors.
//
// -----------------------------------------------------------------------------
// File: buffer_cache.h
// -----------------------------------------------------------------------------
//
// `BufferCache` is a `tessera::Allocator` for large buffers (tensor storage
// and temporaries). It maps each buffer of at least `min_buffer_bytes`
// (64 KiB) with mmap, advises transparent huge pages on it, and when the
// buffer is freed keeps it mapped, already faulted in, for the next request
// of the same size class, up to a byte budget. Smaller requests go to an
// upstream allocator.
//
// Why: on these VMs the first touch of a fresh 4 KiB page costs about 13 us,
// so allocating and writing a new 40 MB buffer costs ~140 ms with glibc
// (which munmaps it on free and maps it again), ~15 ms with huge pages, and
// ~3.7 ms when the same buffer is reused. NumSharp's SizeBucketedBufferPool
// and NumPy's small cache do the same for the same reason.
//
// Size classes: four per doubling (a request in (2^(k-1), 2^k] is rounded up
// to a multiple of 2^(k-3)), so a cached buffer is at most 25% larger than the
// request it serves; pages never touched cost no memory. A freed buffer only
// serves requests of its own class (and alignment).
//
// Complexity: a hit is O(cached buffers) under one mutex (a short scan; the
// cache holds at most `max_buffers_per_class` per class and `budget_bytes` in
// all). A miss adds one mmap; a free that evicts adds one munmap per evicted
// buffer. Thread-safe.
//
// Eviction: a freed buffer is cached unless its class already holds
// `max_buffers_per_class` buffers or the buffer alone exceeds the budget (then
// it is unmapped at once, counted as an eviction). To make room, the buffers
// freed longest ago are unmapped first. `Release()` unmaps every cached
// buffer.
//
// Invariants (CheckIntegrity, numbered in its messages):
//   1. The cached bytes are the sum of the cached buffers' class sizes and do
//      not exceed `budget_bytes`.
//   2. No buffer is both live and cached, and none is cached twice.
//   3. No class holds more than `max_buffers_per_class` cached buffers.
//   4. Live mapped buffers plus live upstream blocks equal
//      `stats().live_allocations()`.
//   5. `stats().bytes_in_use` is zero when nothing is live.
//
// Bad input:
//   * Options: `min_buffer_bytes` below one page: InvalidArgument.
//   * Invalid alignment, or a size above `max_allocation_size()` (2^46): nullptr
//     and a counted failure (InvalidArgument/ResourceExhausted on the checked
//     path). mmap failure: nullptr, counted.
//   * A large buffer freed twice, a pointer this cache did not map, or a free
//     whose size or alignment differs from the allocation: reported through
//     ReportContractViolation (kDoubleFree, kForeignPointer, kSizeMismatch)
//     and ignored, in every build: the cache keeps a table of its live buffers
//     (on the heap, one entry per live buffer), because unmapping a wrong
//     range would corrupt someone else's memory. `DeallocateChecked` returns
//     FailedPrecondition instead. Small blocks are checked by upstream.

#ifndef TESSERA_ALLOC_POOL_BUFFER_CACHE_H_
#define TESSERA_ALLOC_POOL_BUFFER_CACHE_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "alloc/allocator.h"
#include "alloc/internal/stats_recorder.h"
#include "alloc/system/system_allocator.h"

namespace tessera {

namespace pool_internal {
// Reaches into the pools' private state to corrupt it on purpose, so that
// pool_integrity_test.cc can show CheckIntegrity names each broken invariant.
class IntegrityTestPeer;
}  // namespace pool_internal

struct BufferCacheOptions {
  // Requests below `min_buffer_bytes` go here. Not owned; nullptr means
  // GlobalMallocAllocator().
  Allocator* upstream = nullptr;
  // Requests of at least this many bytes are mapped and cached. At least one
  // page.
  size_t min_buffer_bytes = size_t{64} << 10;
  // Most bytes (by class size) kept mapped while idle. 0 caches nothing.
  size_t budget_bytes = size_t{256} << 20;
  // Most idle buffers kept per size class (NumSharp keeps 8).
  size_t max_buffers_per_class = 8;
  // MADV_HUGEPAGE on every mapped buffer, and 2 MiB alignment for buffers of
  // at least 2 MiB so that whole huge pages fit. Default: on unless the
  // environment sets TESSERA_HUGE_PAGES=0.
  bool huge_pages = HugePagesEnabledByDefault();
};

struct BufferCacheStats {
  uint64_t hits = 0;       // large requests served by a cached buffer
  uint64_t misses = 0;     // large requests that mapped a new buffer
  uint64_t evictions = 0;  // freed buffers unmapped to respect the limits
  uint64_t released = 0;   // cached buffers unmapped by Release()
  uint64_t cached_buffers = 0;
  uint64_t cached_bytes = 0;  // by class size
  uint64_t live_buffers = 0;  // mapped buffers handed out
  uint64_t mapped_bytes = 0;  // live + cached, by class size
};

class BufferCache final : public Allocator {
 public:
  // The largest request served (larger ones fail): 64 TiB.
  static constexpr size_t kMaxBufferBytes = size_t{1} << 46;

  static absl::StatusOr<std::unique_ptr<BufferCache>> Create(
      const BufferCacheOptions& options = {});
  // Unmaps every cached buffer. Live buffers must have been freed.
  ~BufferCache() override;

  // The mapped size serving a request of `bytes` (>= min_buffer_bytes).
  static size_t ClassBytes(size_t bytes);

  // Unmaps every cached buffer; returns how many bytes (by class size).
  size_t Release();

  BufferCacheStats cache_stats() const;
  AllocatorStats stats() const override { return stats_.stats(); }
  absl::Status CheckIntegrity() const override;
  size_t max_allocation_size() const override { return kMaxBufferBytes; }

  const BufferCacheOptions& options() const { return options_; }

 protected:
  void* DoAllocate(size_t bytes, size_t alignment) noexcept override;
  void* DoAllocateZeroed(size_t bytes, size_t alignment) noexcept override;
  void* DoReallocate(void* ptr, size_t old_bytes, size_t new_bytes,
                     size_t alignment) noexcept override;
  void DoDeallocate(void* ptr, size_t bytes, size_t alignment) noexcept override;
  absl::Status CheckOwnership(const void* ptr, size_t bytes,
                              size_t alignment) const override;
  void* CountFailure() noexcept override {
    stats_.RecordFailure();
    return nullptr;
  }

 private:
  friend class pool_internal::IntegrityTestPeer;

  struct LiveBuffer {
    size_t bytes;        // as requested
    size_t alignment;    // as requested
    size_t class_bytes;  // as mapped
  };
  struct CachedBuffer {
    void* ptr;
    size_t class_bytes;
  };

  explicit BufferCache(const BufferCacheOptions& options);

  size_t MapAlignment(size_t class_bytes, size_t alignment) const;
  // Takes a cached buffer of `class_bytes` aligned to `alignment`, or nullptr.
  // Functions named *Locked and TakeCached need mu_ held.
  void* TakeCached(size_t class_bytes, size_t alignment);
  // The request without statistics: nullptr on failure (not counted).
  void* AllocateUnrecorded(size_t bytes, size_t alignment, bool zero) noexcept;
  void* AllocateLarge(size_t bytes, size_t alignment, bool zero) noexcept;
  // Frees without statistics; false (after reporting it) on a bad pointer.
  bool FreeUnrecorded(void* ptr, size_t bytes, size_t alignment) noexcept;
  absl::Status CheckLiveLocked(const void* ptr, size_t bytes, size_t alignment,
                               ContractViolation* violation) const;
  void EvictOldestLocked();
  size_t CachedInClassLocked(size_t class_bytes) const;

  const BufferCacheOptions options_;
  Allocator* const upstream_;
  internal::ConcurrentStatsRecorder stats_;

  // std::mutex rather than absl::Mutex: Debian's Abseil has no TSan
  // annotations, so TSan would not see absl::Mutex's happens-before edges.
  // libstdc++'s mutex has no capability annotation either, so the members
  // below say in words what they are guarded by: everything up to
  // `released_` is guarded by mu_.
  mutable std::mutex mu_;
  absl::flat_hash_map<void*, LiveBuffer> live_;
  // Idle buffers, oldest first (eviction order); hits take the newest.
  std::vector<CachedBuffer> cached_;
  uint64_t cached_bytes_ = 0;
  uint64_t live_mapped_bytes_ = 0;
  // Small blocks live upstream; counted without the lock.
  std::atomic<uint64_t> upstream_live_{0};
  uint64_t hits_ = 0;
  uint64_t misses_ = 0;
  uint64_t evictions_ = 0;
  uint64_t released_ = 0;
};

}  // namespace tessera

#endif  // TESSERA_ALLOC_POOL_BUFFER_CACHE_H_
