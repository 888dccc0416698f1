// Copyright 2026 The Tessera Authors.
//
// -----------------------------------------------------------------------------
// File: system_allocator.h
// -----------------------------------------------------------------------------
//
// Tessera allocators over the C library's heap (glibc malloc on Debian):
//
//   * `MallocAllocator`: malloc/calloc/realloc/free. Alignments above 16 go to
//     posix_memalign, which is what .NET's NativeMemory.AlignedAlloc does and
//     what glibc makes slow (38 ns per 64-byte round trip vs 7 ns for malloc
//     on this hardware). Kept as the baseline: glibc's own paths below 64 KiB;
//     from 64 KiB to 4 MiB its freed blocks also go through the per-thread
//     big-block cache below (a zeroed one is then a memset of memory still
//     in cache rather than glibc's calloc), and from 4 MiB up they are mapped
//     blocks (below).
//   * `AlignedAllocator`: every block aligned to at least a fixed alignment
//     (default 64, any power of two), without glibc's memalign path: it
//     over-allocates by the alignment with malloc and keeps a 16-byte header
//     just below the block. Freed blocks are recycled through a per-thread
//     cache, as glibc's tcache does for malloc, so an aligned round trip
//     costs about what a malloc round trip costs: up to 16 blocks per size
//     class for blocks <= 1 KiB at alignment 32..256, and the 4 most recent
//     larger blocks (below 4 MiB, 64 MiB in all; a big block is reused for a
//     request of at least half its size). The cache holds memory after
//     Deallocate: `CallingThreadCacheUsage()` says how much,
//     `ReleaseCallingThreadCache()` returns it, and thread exit frees it.
//   * `ZeroedAllocator`: every block reads as zero (calloc underneath, and
//     mapped blocks from 4 MiB: large blocks are zeroed lazily by the kernel
//     and pay at first touch).
//
// All three are thread-safe (glibc's heap is) and keep statistics with
// per-thread counters (internal/stats_recorder.h).
//
// Complexity: that of glibc malloc, plus O(1) bookkeeping. With
// `track_live_blocks` (default in debug and sanitizer builds) each call also
// takes a mutex and a hash-table update.
//
// Blocks of 4 MiB and more, in all three: not glibc's. Each is mapped on its
// own, 2 MiB-aligned, and up to four freed ones (128 MiB) stay mapped for
// reuse (alloc/internal/mapped_blocks.h): glibc maps and unmaps a block that
// large on every call, and on these VMs the fresh mapping's first touch and
// its unmapping cost 50-80 us (NumPy's zeros of 40 MB is that calloc). A
// zeroed reuse gives the block's 2 MiB pages back with one MADV_DONTNEED, an
// unzeroed one costs no system call. `ReleaseCachedMappings()` unmaps the
// kept ones. Sanitizer builds leave these blocks to glibc, where ASan
// watches them.
//
// Huge pages: a block of at least `huge_page_threshold` bytes (4 MiB, as in
// NumPy) gets madvise(MADV_HUGEPAGE) on its whole pages, which on these VMs
// cuts the first touch of a 40 MB buffer from ~140 ms to ~6.5 ms. On by
// default; off with `huge_pages = false`, or for every default-constructed
// options struct with the environment variable TESSERA_HUGE_PAGES=0.
//
// Bad input: an invalid alignment or an overflowing size returns nullptr
// (hot path) or InvalidArgument (checked path); out of memory returns nullptr
// or ResourceExhausted. A pointer freed twice or not from this allocator is
// reported through ReportContractViolation when `track_live_blocks` is on;
// `AlignedAllocator` also checks its header on every free, in every build, so
// most foreign pointers and double frees are caught even in release.
//
// Invariants (CheckIntegrity):
//   1. With `track_live_blocks`, the registry holds exactly
//      `stats().live_allocations()` blocks.
//   2. bytes_in_use is zero when no block is live.
//   3. The mapped blocks keep the invariants of internal/mapped_blocks.h
//      (2 MiB-aligned whole huge pages; the cache list is exactly the cached
//      blocks, within its bounds; no more live mapped blocks than live
//      blocks).

#ifndef TESSERA_ALLOC_SYSTEM_SYSTEM_ALLOCATOR_H_
#define TESSERA_ALLOC_SYSTEM_SYSTEM_ALLOCATOR_H_

#include <cstddef>
#include <memory>

#include "alloc/allocator.h"
#include "alloc/internal/live_block_registry.h"
#include "alloc/internal/mapped_blocks.h"
#include "alloc/internal/stats_recorder.h"

namespace tessera {

// Whether AlignedAllocator/ZeroedAllocator recycle small blocks through a
// per-thread cache. Off in sanitizer builds, where it would hide
// use-after-free from ASan.
#if defined(TESSERA_SANITIZER_BUILD)
inline constexpr bool kSystemThreadCacheEnabled = false;
#else
inline constexpr bool kSystemThreadCacheEnabled = true;
#endif

// What the calling thread's cache of freed header blocks holds (see above).
// Zero in sanitizer builds, which have no cache.
struct SystemThreadCacheUsage {
  size_t blocks = 0;
  size_t bytes = 0;  // usable bytes of the cached blocks
};
SystemThreadCacheUsage CallingThreadCacheUsage();

// Returns every block in the calling thread's cache to glibc (free()).
void ReleaseCallingThreadCache();

// Blocks at least this large get MADV_HUGEPAGE by default (NumPy's threshold).
inline constexpr size_t kDefaultHugePageThreshold = size_t{4} << 20;

// Whether huge-page advice is on by default: true unless the environment sets
// TESSERA_HUGE_PAGES=0.
bool HugePagesEnabledByDefault();

struct SystemAllocatorOptions {
  bool huge_pages = HugePagesEnabledByDefault();
  size_t huge_page_threshold = kDefaultHugePageThreshold;
  // Keep a registry of live blocks to report double frees, foreign pointers
  // and size mismatches. Costs a mutex and a hash update per call.
  bool track_live_blocks = internal::kTrackLiveBlocksByDefault;
};

namespace system_internal {
// Reaches into private state to corrupt it on purpose, so that
// system_allocator_test.cc can show CheckIntegrity names each invariant.
class IntegrityTestPeer;
}  // namespace system_internal

// Shared implementation of the three system allocators.
class SystemAllocator : public Allocator {
 public:
  AllocatorStats stats() const override { return stats_.stats(); }
  absl::Status CheckIntegrity() const override;
  size_t max_allocation_size() const override;

  size_t min_alignment() const { return min_alignment_; }
  const SystemAllocatorOptions& options() const { return options_; }

  // Unmaps the freed blocks of 4 MiB and more kept for reuse; returns their
  // bytes.
  size_t ReleaseCachedMappings();
  // Bytes of freed blocks of 4 MiB and more kept mapped for reuse.
  size_t cached_mapping_bytes() const;

 protected:
  enum class AlignedPath {
    kPosixMemalign,  // glibc's memalign family for alignments above 16
    kHeader,         // malloc(bytes + alignment) and a header below the block
  };

  SystemAllocator(absl::string_view name, size_t min_alignment,
                  AlignedPath aligned_path, bool zero_every_block,
                  const SystemAllocatorOptions& options);

  void* DoAllocate(size_t bytes, size_t alignment) noexcept override;
  void* DoAllocateZeroed(size_t bytes, size_t alignment) noexcept override;
  void* DoReallocate(void* ptr, size_t old_bytes, size_t new_bytes,
                     size_t alignment) noexcept override;
  void DoDeallocate(void* ptr, size_t bytes, size_t alignment) noexcept override;
  absl::Status CheckOwnership(const void* ptr, size_t bytes,
                              size_t alignment) const override;
  // CheckOwnership, also saying which contract a bad pointer breaks.
  absl::Status CheckBlock(const void* ptr, size_t bytes, size_t alignment,
                          ContractViolation* violation) const;
  void* CountFailure() noexcept override {
    stats_.RecordFailure();
    return nullptr;
  }

 private:
  friend class system_internal::IntegrityTestPeer;

  size_t EffectiveAlignment(size_t alignment) const {
    return alignment > min_alignment_ ? alignment : min_alignment_;
  }
  bool UsesHeader(size_t effective_alignment) const {
    return aligned_path_ == AlignedPath::kHeader &&
           effective_alignment > kDefaultAlignment;
  }
  void* AllocateImpl(size_t bytes, size_t alignment, bool zero) noexcept;
  __attribute__((noinline)) void* AllocateFromMalloc(size_t bytes,
                                                    size_t alignment) noexcept;
  __attribute__((noinline)) void* AllocateSlow(size_t bytes, size_t alignment,
                                               bool zero) noexcept;
  // A block of `request` (> 0) bytes at `effective` alignment, from wherever
  // its size and alignment say, counted nowhere; nullptr if none.
  void* AllocateBlock(size_t request, size_t effective, bool zero) noexcept;
  __attribute__((noinline)) void DeallocateSlow(void* ptr, size_t bytes,
                                                size_t alignment) noexcept;
  __attribute__((noinline, cold)) bool EraseFromRegistry(
      void* ptr, size_t bytes, size_t alignment) noexcept;
  __attribute__((noinline, cold)) void ReportBadHeader(
      void* ptr, bool cached) const noexcept;
  void MaybeAdviseHugePages(void* ptr, size_t bytes) const noexcept;

  const size_t min_alignment_;
  const AlignedPath aligned_path_;
  const bool zero_every_block_;
  const SystemAllocatorOptions options_;
  internal::MappedBlocks mapped_;  // blocks of 4 MiB and more
  internal::ConcurrentStatsRecorder stats_;
  std::unique_ptr<internal::LiveBlockRegistry> registry_;  // if tracking
  // Which thread-cache lists serve requests at `min_alignment_`, or -1 when
  // this allocator's hot path does not use the cache (no header, zeroing,
  // registry, or an alignment outside 32..256).
  const int cache_alignment_index_;
};

// glibc malloc; posix_memalign for alignments above 16.
class MallocAllocator final : public SystemAllocator {
 public:
  explicit MallocAllocator(const SystemAllocatorOptions& options = {})
      : SystemAllocator("malloc", kDefaultAlignment,
                        AlignedPath::kPosixMemalign, false, options) {}
};

// Every block aligned to at least `min_alignment` (a power of two; 32 and 64
// are the usual SIMD and cache-line choices). Invalid `min_alignment` values
// are rounded up to the next power of two (and at least 16); use
// `AlignedAllocator::Create` to have them rejected instead.
class AlignedAllocator final : public SystemAllocator {
 public:
  explicit AlignedAllocator(size_t min_alignment = 64,
                            const SystemAllocatorOptions& options = {});

  // Returns InvalidArgument naming `min_alignment` unless it is a valid
  // alignment.
  static absl::StatusOr<std::unique_ptr<AlignedAllocator>> Create(
      size_t min_alignment, const SystemAllocatorOptions& options = {});
};

// Every block reads as zero. calloc underneath: large blocks come straight
// from the kernel as zero pages and pay for the zeroing at first touch.
class ZeroedAllocator final : public SystemAllocator {
 public:
  explicit ZeroedAllocator(size_t min_alignment = kDefaultAlignment,
                           const SystemAllocatorOptions& options = {});
};

// A process-wide MallocAllocator with default options: the default allocator
// when no scope sets another (see default_allocator.h). Never destroyed.
MallocAllocator& GlobalMallocAllocator();

}  // namespace tessera

#endif  // TESSERA_ALLOC_SYSTEM_SYSTEM_ALLOCATOR_H_
