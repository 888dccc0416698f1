// Copyright 2026 The Tessera Authors.

#include "alloc/malloc/tessera_malloc.h"

#include <cstring>

#include "absl/strings/str_format.h"
#include "alloc/malloc/internal/engine.h"

namespace tessera {
namespace {

namespace mi = malloc_internal;

// The interface's AllocatorStats are exact (see mi::Counting).
constexpr mi::Counting kCounting = mi::Counting::kExact;

void ForwardViolation(mi::Violation violation, const void* ptr,
                      const char* detail) {
  ContractViolation kind = ContractViolation::kForeignPointer;
  switch (violation) {
    case mi::Violation::kDoubleFree: kind = ContractViolation::kDoubleFree; break;
    case mi::Violation::kSizeMismatch: kind = ContractViolation::kSizeMismatch; break;
    case mi::Violation::kForeignPointer:
    case mi::Violation::kInteriorPointer:
    // A write into a free cell: reported as the pointer it planted.
    case mi::Violation::kCorruptFreeList: kind = ContractViolation::kForeignPointer; break;
  }
  ReportContractViolation("tessera_malloc", kind, ptr, detail);
}

absl::Status IntegrityStatus(const char* error) {
  if (error == nullptr) return absl::OkStatus();
  return absl::InternalError(absl::StrFormat("tessera_malloc: %s", error));
}

}  // namespace

TesseraMalloc::TesseraMalloc() : Allocator("tessera_malloc") {
  // Through the interface, violations go to Tessera's handler (which tests
  // and fuzzers replace); the override keeps the engine's print-and-abort.
  mi::SetViolationHook(&ForwardViolation);
}

void* TesseraMalloc::DoAllocate(size_t bytes, size_t alignment) noexcept {
  return alignment <= kDefaultAlignment ? mi::Allocate<kCounting>(bytes)
                                        : mi::AllocateAligned<kCounting>(bytes, alignment);
}

void* TesseraMalloc::DoAllocateZeroed(size_t bytes, size_t alignment) noexcept {
  if (alignment <= kDefaultAlignment) return mi::AllocateZeroed<kCounting>(bytes);
  void* p = mi::AllocateAligned<kCounting>(bytes, alignment);
  if (p != nullptr) std::memset(p, 0, bytes);
  return p;
}

void* TesseraMalloc::DoReallocate(void* ptr, size_t old_bytes, size_t new_bytes,
                                  size_t alignment) noexcept {
  if (alignment <= kDefaultAlignment) return mi::Reallocate<kCounting>(ptr, new_bytes);
  return Allocator::DoReallocate(ptr, old_bytes, new_bytes, alignment);
}

void TesseraMalloc::DoDeallocate(void* ptr, size_t bytes,
                                 size_t alignment) noexcept {
  mi::FreeSized<kCounting>(ptr, bytes, alignment);
}

absl::Status TesseraMalloc::CheckOwnership(const void* ptr, size_t bytes,
                                           size_t alignment) const {
  if (mi::Owns(ptr)) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrFormat(
      "tessera_malloc: %p is not a live block (foreign, interior or already "
      "freed)",
      ptr));
}

void* TesseraMalloc::CountFailure() noexcept {
  mi::NoteFailure();
  return nullptr;
}

AllocatorStats TesseraMalloc::stats() const {
  const mi::EngineStats e = mi::Stats();
  AllocatorStats s;
  s.bytes_in_use = e.bytes_in_use;
  s.peak_bytes_in_use = e.peak_bytes_in_use;
  s.allocations = e.allocations;
  s.deallocations = e.deallocations;
  s.reallocations = e.reallocations;
  s.failed_requests = e.failed_requests;
  return s;
}

TesseraMallocStats TesseraMalloc::detailed_stats() const {
  const mi::EngineStats e = mi::Stats();
  TesseraMallocStats s;
  s.segments = e.segments;
  s.segments_outside_range = e.segments_outside_range;
  s.huge_blocks = e.huge_blocks;
  s.huge_bytes = e.huge_bytes;
  s.huge_cached_bytes = e.huge_cached_bytes;
  s.heaps = e.heaps;
  s.abandoned_heaps = e.abandoned_heaps;
  s.purged_bytes = e.purged_bytes;
  s.remote_frees = e.remote_frees;
  return s;
}

absl::Status TesseraMalloc::CheckIntegrity() const {
  int invariant = 0;
  return IntegrityStatus(mi::CheckThreadHeap(&invariant));
}

absl::Status TesseraMalloc::CheckAllHeaps() const {
  int invariant = 0;
  return IntegrityStatus(mi::CheckAllHeaps(&invariant));
}

size_t TesseraMalloc::UsableSize(const void* ptr) { return mi::UsableSize(ptr); }
bool TesseraMalloc::FreesInteriorPointers(const void* ptr) {
  return mi::FreesInteriorPointers(ptr);
}
void TesseraMalloc::Collect(bool force) { mi::Collect(force); }
void TesseraMalloc::SetPurgeDelayMs(uint32_t ms) { mi::SetPurgeDelayMs(ms); }

TesseraMalloc& GlobalTesseraMalloc() {
  static TesseraMalloc* const instance = new TesseraMalloc();
  return *instance;
}

}  // namespace tessera
