// Copyright 2026 The Tessera Authors.

#include "alloc/allocator.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace tessera {
namespace {

void DefaultContractViolationHandler(absl::string_view allocator_name,
                                     ContractViolation violation,
                                     const void* ptr,
                                     absl::string_view detail) {
  // No heap use: the heap may be the thing that is broken.
  std::fprintf(stderr, "tessera: %.*s: %.*s of %p: %.*s\n",
               static_cast<int>(allocator_name.size()), allocator_name.data(),
               static_cast<int>(ContractViolationName(violation).size()),
               ContractViolationName(violation).data(), ptr,
               static_cast<int>(detail.size()), detail.data());
  std::fflush(stderr);
  std::abort();
}

std::atomic<ContractViolationHandler> g_violation_handler{
    &DefaultContractViolationHandler};

}  // namespace

absl::string_view ContractViolationName(ContractViolation violation) {
  switch (violation) {
    case ContractViolation::kDoubleFree:
      return "double free";
    case ContractViolation::kForeignPointer:
      return "foreign pointer";
    case ContractViolation::kSizeMismatch:
      return "size mismatch";
  }
  return "unknown violation";
}

ContractViolationHandler SetContractViolationHandler(
    ContractViolationHandler handler) {
  if (handler == nullptr) handler = &DefaultContractViolationHandler;
  return g_violation_handler.exchange(handler);
}

void ReportContractViolation(absl::string_view allocator_name,
                             ContractViolation violation, const void* ptr,
                             absl::string_view detail) {
  g_violation_handler.load()(allocator_name, violation, ptr, detail);
}

void* Allocator::DoAllocateZeroed(size_t bytes, size_t alignment) noexcept {
  void* ptr = DoAllocate(bytes, alignment);
  if (ptr != nullptr && bytes != 0) std::memset(ptr, 0, bytes);
  return ptr;
}

void* Allocator::DoReallocate(void* ptr, size_t old_bytes, size_t new_bytes,
                              size_t alignment) noexcept {
  void* fresh = DoAllocate(new_bytes, alignment);
  if (fresh == nullptr) return nullptr;
  const size_t keep = old_bytes < new_bytes ? old_bytes : new_bytes;
  if (keep != 0) std::memcpy(fresh, ptr, keep);
  DoDeallocate(ptr, old_bytes, alignment);
  return fresh;
}

absl::Status Allocator::ValidateRequest(size_t bytes, size_t alignment) const {
  if (!IsValidAlignment(alignment)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: alignment %u is not a power of two no larger than %u", name(),
        alignment, kMaxAlignment));
  }
  size_t rounded;
  const size_t granule = alignment > kDefaultAlignment ? alignment
                                                       : kDefaultAlignment;
  if (!RoundUpChecked(bytes, granule, &rounded)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: size %u rounded up to alignment %u overflows size_t", name(),
        bytes, granule));
  }
  if (bytes > max_allocation_size()) {
    return absl::ResourceExhaustedError(absl::StrFormat(
        "%s: size %u exceeds the largest possible allocation (%u bytes)",
        name(), bytes, max_allocation_size()));
  }
  return absl::OkStatus();
}

absl::StatusOr<void*> Allocator::AllocateChecked(size_t bytes,
                                                 size_t alignment) {
  if (absl::Status s = ValidateRequest(bytes, alignment); !s.ok()) {
    CountFailure();
    return s;
  }
  void* ptr = DoAllocate(bytes, alignment);
  if (ptr == nullptr) {
    return absl::ResourceExhaustedError(absl::StrFormat(
        "%s: out of memory allocating %u bytes aligned to %u", name(), bytes,
        alignment));
  }
  return ptr;
}

absl::StatusOr<void*> Allocator::AllocateZeroedChecked(size_t bytes,
                                                       size_t alignment) {
  if (absl::Status s = ValidateRequest(bytes, alignment); !s.ok()) {
    CountFailure();
    return s;
  }
  void* ptr = DoAllocateZeroed(bytes, alignment);
  if (ptr == nullptr) {
    return absl::ResourceExhaustedError(absl::StrFormat(
        "%s: out of memory allocating %u zeroed bytes aligned to %u", name(),
        bytes, alignment));
  }
  return ptr;
}

absl::StatusOr<void*> Allocator::ReallocateChecked(void* ptr, size_t old_bytes,
                                                   size_t new_bytes,
                                                   size_t alignment) {
  if (absl::Status s = ValidateRequest(new_bytes, alignment); !s.ok()) {
    CountFailure();
    return s;
  }
  if (ptr == nullptr) return AllocateChecked(new_bytes, alignment);
  if (absl::Status s = CheckOwnership(ptr, old_bytes, alignment); !s.ok()) {
    CountFailure();
    return s;
  }
  void* fresh = DoReallocate(ptr, old_bytes, new_bytes, alignment);
  if (fresh == nullptr) {
    return absl::ResourceExhaustedError(absl::StrFormat(
        "%s: out of memory reallocating %p from %u to %u bytes (aligned to "
        "%u); the old block is still valid",
        name(), ptr, old_bytes, new_bytes, alignment));
  }
  return fresh;
}

absl::Status Allocator::DeallocateChecked(void* ptr, size_t bytes,
                                          size_t alignment) {
  if (ptr == nullptr) return absl::OkStatus();
  if (!IsValidAlignment(alignment)) {
    CountFailure();
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: alignment %u of freed block %p is not a valid alignment", name(),
        alignment, ptr));
  }
  if (absl::Status s = CheckOwnership(ptr, bytes, alignment); !s.ok()) {
    CountFailure();
    return s;
  }
  DoDeallocate(ptr, bytes, alignment);
  return absl::OkStatus();
}

}  // namespace tessera
