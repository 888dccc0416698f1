// Copyright 2026 The Tessera Authors.

#include "alloc/internal/live_block_registry.h"

#include <mutex>

#include "absl/strings/str_format.h"

namespace tessera {
namespace internal {

void LiveBlockRegistry::Insert(const void* ptr, size_t bytes,
                               size_t alignment) {
  std::unique_lock<std::shared_mutex> lock(mu_);
  live_[ptr] = Block{bytes, alignment};
  freed_.erase(ptr);
}

absl::Status LiveBlockRegistry::CheckLocked(
    const void* ptr, size_t bytes, size_t alignment,
    ContractViolation* violation) const {
  auto it = live_.find(ptr);
  if (it == live_.end()) {
    if (freed_.contains(ptr)) {
      *violation = ContractViolation::kDoubleFree;
      return absl::FailedPreconditionError(
          absl::StrFormat("%p was already freed (double free)", ptr));
    }
    *violation = ContractViolation::kForeignPointer;
    return absl::FailedPreconditionError(absl::StrFormat(
        "%p was not allocated by this allocator (foreign or interior pointer)",
        ptr));
  }
  if (it->second.bytes != bytes || it->second.alignment != alignment) {
    *violation = ContractViolation::kSizeMismatch;
    return absl::FailedPreconditionError(absl::StrFormat(
        "%p was allocated with %u bytes aligned to %u but freed as %u bytes "
        "aligned to %u",
        ptr, it->second.bytes, it->second.alignment, bytes, alignment));
  }
  return absl::OkStatus();
}

absl::Status LiveBlockRegistry::Check(const void* ptr, size_t bytes,
                                      size_t alignment,
                                      ContractViolation* violation) const {
  std::shared_lock<std::shared_mutex> lock(mu_);
  return CheckLocked(ptr, bytes, alignment, violation);
}

absl::Status LiveBlockRegistry::Erase(const void* ptr, size_t bytes,
                                      size_t alignment,
                                      ContractViolation* violation) {
  std::unique_lock<std::shared_mutex> lock(mu_);
  absl::Status status = CheckLocked(ptr, bytes, alignment, violation);
  if (!status.ok()) return status;
  live_.erase(ptr);
  RememberFreed(ptr);
  return absl::OkStatus();
}

void LiveBlockRegistry::Move(const void* from, const void* to, size_t bytes,
                             size_t alignment) {
  std::unique_lock<std::shared_mutex> lock(mu_);
  live_.erase(from);
  if (from != to) RememberFreed(from);
  live_[to] = Block{bytes, alignment};
  freed_.erase(to);
}

void LiveBlockRegistry::RememberFreed(const void* ptr) {
  // Bounded: a long-lived allocator that frees many distinct addresses would
  // otherwise grow this set forever. Forgetting old frees only means a very
  // late double free is reported as a foreign pointer, still reported.
  if (freed_.size() >= kMaxRememberedFrees) freed_.clear();
  freed_.insert(ptr);
}

size_t LiveBlockRegistry::live_blocks() const {
  std::shared_lock<std::shared_mutex> lock(mu_);
  return live_.size();
}

}  // namespace internal
}  // namespace tessera
