// Copyright 2026 The Tessera Authors.
//
// -----------------------------------------------------------------------------
// File: size_class_pool.h
// -----------------------------------------------------------------------------
//
// `SizeClassPool` is the small-object front end: a `tessera::Allocator` that
// serves requests of up to `kMaxSmallSize` (1 KiB) bytes from one
// `StackedPool` per size class and passes everything larger to an upstream
// allocator. It is for workloads of many tiny, short-lived blocks (SAGE's
// big-integer temporaries, tree nodes), where a malloc/free pair is most of
// the cost, and it is the front end that lets an arena (TLSF) serve small
// objects well: give the arena as `upstream` and as `block_source`.
//
// Size classes: 16, 32, ..., 128 in steps of 16, then four per doubling up to
// 1024 (160, 192, 224, 256, 320, ..., 896, 1024): 20 classes, at most 25%
// internal waste above 128 bytes. A class's cells are aligned to the largest
// power of two dividing its size (16 for 48, 64 for 192, 1024 for 1024).
//
// Complexity: O(1) per call. `Deallocate` is sized, so the class is found from
// `bytes` by one table lookup, and the cell goes back to its block by masking
// its address: no search, no per-block header read beyond the block's own.
// A request costs a class lookup plus a `StackedPool::Take`.
//
// Requests are routed by (`bytes`, `alignment`) alone, so `Deallocate` with
// the same arguments finds the same place:
//   * alignment <= 16 and bytes <= 1024: the smallest class >= bytes (0 bytes
//     gets a unique 16-byte cell).
//   * alignment > 16 and bytes <= 1024: the smallest class >= bytes whose cells
//     are aligned to `alignment`, if there is one; otherwise upstream.
//   * anything else: upstream, with the same arguments.
//
// Invariants (CheckIntegrity, numbered in its messages):
//   1. Every class pool satisfies its own invariants (stacked_pool.h).
//   2. Cells in use over all classes plus live upstream blocks equal
//      `stats().live_allocations()`.
//   3. `stats().bytes_in_use` is zero when nothing is live.
//
// Bad input:
//   * Options: `block_bytes` not a power of two, below 4096 or above 1 GiB:
//     InvalidArgument from `Create`.
//   * Invalid alignment: nullptr and a counted failure (InvalidArgument on the
//     checked path, from `tessera::Allocator`).
//   * Out of memory (block source or upstream): nullptr, counted.
//   * With return checks on (default in debug and sanitizer builds, or
//     `check_returns`): a double free, a foreign or interior pointer, and a
//     pointer freed with a size that maps to another class (kSizeMismatch) are
//     reported through ReportContractViolation and ignored;
//     `DeallocateChecked` returns FailedPrecondition. Blocks above 1 KiB are
//     checked by the upstream allocator, not here.
//
// Not thread-safe: one thread at a time (like the TLSF arena). Put one per
// thread, or use ConcurrentPool for one cell size shared by threads.

#ifndef TESSERA_ALLOC_POOL_SIZE_CLASS_POOL_H_
#define TESSERA_ALLOC_POOL_SIZE_CLASS_POOL_H_

#include <cstddef>
#include <cstdint>
#include <memory>

#include "absl/base/optimization.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "alloc/allocator.h"
#include "alloc/pool/stacked_pool.h"

namespace tessera {

struct SizeClassPoolOptions {
  // Serves requests the classes do not (above 1 KiB, or over-aligned). Not
  // owned; nullptr means GlobalMallocAllocator().
  Allocator* upstream = nullptr;
  // Where the class pools get their blocks (see StackedPoolOptions); nullptr
  // maps them with mmap. Not owned.
  Allocator* block_source = nullptr;
  // Bytes per block in every class: a power of two from 4096 to 1 GiB.
  size_t block_bytes = size_t{64} << 10;
  // High-water trim per class: a Deallocate that leaves a block wholly idle
  // releases it when the class then has more than this many blocks' worth of
  // idle cells. 0 keeps every block until Trim().
  size_t keep_idle_blocks = 0;
  // Detect double frees, foreign pointers and size mismatches (see header).
  bool check_returns = kCheckReturnsByDefault;
};

class SizeClassPool final : public Allocator {
 public:
  static constexpr size_t kMaxSmallSize = 1024;
  static constexpr int kNumClasses = 20;

  static absl::StatusOr<std::unique_ptr<SizeClassPool>> Create(
      const SizeClassPoolOptions& options = {});
  ~SizeClassPool() override;

  // The class serving (`bytes`, `alignment`), or -1 for upstream.
  static int ClassFor(size_t bytes, size_t alignment);
  static size_t ClassSize(int size_class);
  static size_t ClassAlignment(int size_class);

  const StackedPool& class_pool(int size_class) const {
    return *pools_[size_class];
  }
  // Releases every wholly idle block of every class; returns how many.
  size_t Trim();

  AllocatorStats stats() const override;
  absl::Status CheckIntegrity() const override;
  size_t max_allocation_size() const override {
    return upstream_->max_allocation_size();
  }

 protected:
  void* DoAllocate(size_t bytes, size_t alignment) noexcept override {
    // The hot path: a table lookup and a pop, no virtual call when the caller
    // holds a SizeClassPool (the class is final).
    if (ABSL_PREDICT_TRUE(bytes <= kMaxSmallSize &&
                          alignment <= kDefaultAlignment)) {
      void* cell = pools_[kClassOfGranule[(bytes + 15) >> 4]]->Take();
      if (ABSL_PREDICT_TRUE(cell != nullptr)) {
        RecordBytes(bytes);
        return cell;
      }
      return CountFailure();
    }
    return AllocateSlow(bytes, alignment);
  }
  void DoDeallocate(void* ptr, size_t bytes,
                    size_t alignment) noexcept override {
    if (ABSL_PREDICT_TRUE(bytes <= kMaxSmallSize &&
                          alignment <= kDefaultAlignment && !checks_)) {
      pools_[kClassOfGranule[(bytes + 15) >> 4]]->Return(ptr);
      bytes_in_use_ -= bytes;
      return;
    }
    DeallocateSlow(ptr, bytes, alignment);
  }
  void* DoReallocate(void* ptr, size_t old_bytes, size_t new_bytes,
                     size_t alignment) noexcept override;
  absl::Status CheckOwnership(const void* ptr, size_t bytes,
                              size_t alignment) const override;
  void* CountFailure() noexcept override {
    ++failures_;
    return nullptr;
  }

 private:
  friend class pool_internal::IntegrityTestPeer;

  // Class of a request of `(bytes + 15) / 16` granules, bytes <= 1024.
  static const uint8_t kClassOfGranule[kMaxSmallSize / 16 + 1];

  explicit SizeClassPool(const SizeClassPoolOptions& options);

  // Route a request without touching the statistics.
  void* AllocateUnrecorded(size_t bytes, size_t alignment) noexcept;
  void FreeUnrecorded(void* ptr, size_t bytes, size_t alignment) noexcept;
  void* AllocateSlow(size_t bytes, size_t alignment) noexcept;
  void DeallocateSlow(void* ptr, size_t bytes, size_t alignment) noexcept;
  // OK if `ptr` may be returned to `size_class`; otherwise why not, and
  // which violation that is.
  absl::Status ValidateCell(int size_class, const void* ptr, size_t bytes,
                            ContractViolation* violation) const;

  Allocator* const upstream_;
  const bool checks_;
  StackedPool* pools_[kNumClasses] = {};
  std::unique_ptr<StackedPool> owned_pools_[kNumClasses];
  void NoteReallocation(size_t old_bytes, size_t new_bytes) noexcept;
  void RecordBytes(size_t bytes) noexcept {
    bytes_in_use_ += bytes;
    if (bytes_in_use_ > peak_bytes_) peak_bytes_ = bytes_in_use_;
  }

  // Statistics. The hot path only moves bytes_in_use_ (and the peak): the
  // allocation and deallocation counts are derived in stats() from the class
  // pools' own take/return counters and the slow-path counters below, which
  // halves the bookkeeping per call (it showed in the W3 benchmark).
  uint64_t bytes_in_use_ = 0;
  uint64_t peak_bytes_ = 0;
  uint64_t failures_ = 0;
  uint64_t reallocations_ = 0;
  uint64_t upstream_takes_ = 0;   // upstream blocks obtained, for any reason
  uint64_t upstream_frees_ = 0;   // upstream blocks given back, for any reason
  uint64_t realloc_takes_ = 0;    // of the takes (class or upstream): by realloc
  uint64_t realloc_frees_ = 0;    // of the frees (class or upstream): by realloc
};

}  // namespace tessera

#endif  // TESSERA_ALLOC_POOL_SIZE_CLASS_POOL_H_
