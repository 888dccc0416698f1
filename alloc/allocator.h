// Copyright 2026 The Tessera Authors.
//
// -----------------------------------------------------------------------------
// File: allocator.h
// -----------------------------------------------------------------------------
//
// `tessera::Allocator` is the one interface every Tessera allocator implements
// and the tensor engine consumes. It follows NumPy's NEP 49 handler (a name, a
// context, malloc/calloc/realloc/free where free is sized) and Highway's
// `aligned_allocator.h` (see `AllocatorHandler` in handler.h for the function
// pointer form).
//
// Two layers:
//
//   * The hot path (`Allocate`, `AllocateZeroed`, `Reallocate`, `Deallocate`)
//     never throws, never uses the heap on its own behalf, and reports failure
//     as `nullptr`. Every failed request is counted in `stats().failed_requests`.
//   * The checked path (`AllocateChecked`, ...) returns `absl::StatusOr` with a
//     message naming the bad value: `InvalidArgument` for an alignment that is
//     not a power of two (or above `kMaxAlignment`) or a size whose rounding
//     overflows, `ResourceExhausted` when the allocator is out of memory.
//
// Conventions shared by all allocators:
//
//   * `alignment` is any power of two up to `kMaxAlignment`. Requests with a
//     smaller alignment than `kDefaultAlignment` still get at least
//     `kDefaultAlignment` unless an allocator documents otherwise.
//   * `bytes == 0` is a request for a minimal block: it returns a unique,
//     non-null pointer that must be deallocated (with `bytes == 0`) like any
//     other. It never fails for lack of a size.
//   * `Deallocate(nullptr, ...)` does nothing.
//   * `Deallocate` is sized: the caller passes the `bytes` and `alignment` it
//     allocated with. Allocators may use them (pools do) or check them.
//   * A pointer that did not come from this allocator, or one freed twice, is a
//     contract violation. Allocators that can see it report it through
//     `ReportContractViolation` (which aborts with a message by default) on
//     the hot path, and as `FailedPrecondition` on the checked path.

#ifndef TESSERA_ALLOC_ALLOCATOR_H_
#define TESSERA_ALLOC_ALLOCATOR_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace tessera {

// What `malloc` guarantees on x86-64 glibc, and what every Tessera allocator
// gives a request that asks for less.
inline constexpr size_t kDefaultAlignment = alignof(std::max_align_t);

// The largest alignment any Tessera allocator accepts (1 GiB): beyond it the
// over-allocation needed to honour the alignment is itself unreasonable.
inline constexpr size_t kMaxAlignment = size_t{1} << 30;

// True if `alignment` is a power of two no larger than `kMaxAlignment`.
constexpr bool IsValidAlignment(size_t alignment) {
  return alignment != 0 && (alignment & (alignment - 1)) == 0 &&
         alignment <= kMaxAlignment;
}

// Rounds `value` up to a multiple of the power of two `alignment`. Returns
// false (leaving `*out` untouched) if the result would overflow `size_t`.
inline bool RoundUpChecked(size_t value, size_t alignment, size_t* out) {
  const size_t mask = alignment - 1;
  if (value > SIZE_MAX - mask) return false;
  *out = (value + mask) & ~mask;
  return true;
}

// Statistics every allocator keeps. Counts are cumulative since construction.
struct AllocatorStats {
  // Bytes currently handed out, as requested by callers (not rounded).
  uint64_t bytes_in_use = 0;
  // Largest `bytes_in_use` seen. Exact for single-threaded use; see
  // internal/stats_recorder.h for what it means under concurrency.
  uint64_t peak_bytes_in_use = 0;
  // Successful Allocate/AllocateZeroed calls (and reallocations of nullptr).
  uint64_t allocations = 0;
  // Deallocate calls with a non-null pointer.
  uint64_t deallocations = 0;
  // Successful Reallocate calls of a non-null pointer.
  uint64_t reallocations = 0;
  // Requests that returned nullptr or an error: bad arguments or no memory.
  uint64_t failed_requests = 0;

  // Blocks currently live.
  uint64_t live_allocations() const { return allocations - deallocations; }
};

// What a contract violation was.
enum class ContractViolation {
  kDoubleFree,
  kForeignPointer,
  kSizeMismatch,
};

absl::string_view ContractViolationName(ContractViolation violation);

// Called when an allocator detects a violation it cannot report through a
// return value (double free, foreign pointer). The default handler prints
// "tessera: <allocator>: <violation> of <ptr>: <detail>" to stderr and aborts.
using ContractViolationHandler = void (*)(absl::string_view allocator_name,
                                          ContractViolation violation,
                                          const void* ptr,
                                          absl::string_view detail);

// Installs `handler` process-wide (nullptr restores the default) and returns
// the previous one. Tests and fuzzers install a recording handler.
ContractViolationHandler SetContractViolationHandler(
    ContractViolationHandler handler);

// Reports a violation through the installed handler.
void ReportContractViolation(absl::string_view allocator_name,
                             ContractViolation violation, const void* ptr,
                             absl::string_view detail);

// The interface. Implementations override the `Do*` hooks; the public
// non-virtual functions validate arguments and count failures, so that every
// allocator behaves the same on bad input.
class Allocator {
 public:
  explicit Allocator(absl::string_view name) : name_(name) {}
  virtual ~Allocator() = default;

  Allocator(const Allocator&) = delete;
  Allocator& operator=(const Allocator&) = delete;

  // A short, stable name ("malloc", "aligned64", "tlsf", ...).
  absl::string_view name() const { return name_; }

  // ---- Hot path: nullptr on failure, never throws. ----

  // Returns `bytes` of uninitialised memory aligned to `alignment`, or nullptr.
  void* Allocate(size_t bytes, size_t alignment = kDefaultAlignment) noexcept {
    if (!IsValidAlignment(alignment)) return CountFailure();
    return DoAllocate(bytes, alignment);
  }

  // Like `Allocate`, but the memory reads as zero.
  void* AllocateZeroed(size_t bytes,
                       size_t alignment = kDefaultAlignment) noexcept {
    if (!IsValidAlignment(alignment)) return CountFailure();
    return DoAllocateZeroed(bytes, alignment);
  }

  // Resizes a block allocated here with (`old_bytes`, `alignment`) to
  // `new_bytes`, keeping its first min(old, new) bytes and its alignment.
  // `ptr == nullptr` allocates. On failure returns nullptr and the old block
  // is untouched and still owned by the caller.
  void* Reallocate(void* ptr, size_t old_bytes, size_t new_bytes,
                   size_t alignment = kDefaultAlignment) noexcept {
    if (!IsValidAlignment(alignment)) return CountFailure();
    if (ptr == nullptr) return DoAllocate(new_bytes, alignment);
    return DoReallocate(ptr, old_bytes, new_bytes, alignment);
  }

  // Frees a block allocated here with (`bytes`, `alignment`). nullptr is a
  // no-op. A foreign pointer or a double free is reported (see above).
  void Deallocate(void* ptr, size_t bytes,
                  size_t alignment = kDefaultAlignment) noexcept {
    if (ptr != nullptr) DoDeallocate(ptr, bytes, alignment);
  }

  // ---- Checked path: absl::Status with a message naming the bad value. ----

  absl::StatusOr<void*> AllocateChecked(size_t bytes,
                                        size_t alignment = kDefaultAlignment);
  absl::StatusOr<void*> AllocateZeroedChecked(
      size_t bytes, size_t alignment = kDefaultAlignment);
  absl::StatusOr<void*> ReallocateChecked(void* ptr, size_t old_bytes,
                                          size_t new_bytes,
                                          size_t alignment = kDefaultAlignment);
  // Returns FailedPrecondition for a pointer this allocator can tell it does
  // not own or has already freed (allocators that cannot tell say so in their
  // header), leaving the allocator untouched.
  absl::Status DeallocateChecked(void* ptr, size_t bytes,
                                 size_t alignment = kDefaultAlignment);

  // ---- Introspection. ----

  virtual AllocatorStats stats() const = 0;

  // Verifies the allocator's documented invariants; OK for allocators with no
  // internal state beyond their statistics.
  virtual absl::Status CheckIntegrity() const { return absl::OkStatus(); }

  // Largest request the allocator could ever satisfy (SIZE_MAX when unknown).
  virtual size_t max_allocation_size() const { return SIZE_MAX; }

 protected:
  // Called with a valid alignment. Must count failures (see CountFailure).
  virtual void* DoAllocate(size_t bytes, size_t alignment) noexcept = 0;
  // Default: DoAllocate + memset.
  virtual void* DoAllocateZeroed(size_t bytes, size_t alignment) noexcept;
  // Default: DoAllocate + memcpy + DoDeallocate.
  virtual void* DoReallocate(void* ptr, size_t old_bytes, size_t new_bytes,
                             size_t alignment) noexcept;
  virtual void DoDeallocate(void* ptr, size_t bytes,
                            size_t alignment) noexcept = 0;

  // Whether `ptr` is a live block of this allocator, for DeallocateChecked.
  // Returns OK when it is, or when the allocator cannot tell; otherwise a
  // FailedPrecondition naming the pointer.
  virtual absl::Status CheckOwnership(const void* ptr, size_t bytes,
                                      size_t alignment) const {
    return absl::OkStatus();
  }

  // Records one failed request and returns nullptr.
  virtual void* CountFailure() noexcept = 0;

 private:
  absl::Status ValidateRequest(size_t bytes, size_t alignment) const;

  std::string name_;
};

}  // namespace tessera

#endif  // TESSERA_ALLOC_ALLOCATOR_H_
