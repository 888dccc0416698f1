// Copyright 2026 The Tessera Authors.
//
// A test-only `tessera::Allocator` that forwards to malloc and counts every
// byte, so that tests can prove where a tensor's memory came from and that it
// all went back. It can also be told to fail: every request above
// `fail_above_bytes`, or every request after the first `fail_after` successful
// ones, returns nullptr (and is counted as a failure), which is how tests
// reach the ResourceExhausted paths without asking the system for terabytes.
//
// Single-threaded by contract, like the tests that use it.

#ifndef TESSERA_TENSOR_TESTING_COUNTING_ALLOCATOR_H_
#define TESSERA_TENSOR_TESTING_COUNTING_ALLOCATOR_H_

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>

#include "absl/strings/str_format.h"
#include "alloc/allocator.h"

namespace tessera {
namespace testing {

class CountingAllocator final : public Allocator {
 public:
  CountingAllocator() : Allocator("counting") {}
  ~CountingAllocator() override = default;

  AllocatorStats stats() const override { return stats_; }

  // Live blocks must match the statistics; every block is freed with the
  // size and alignment it was allocated with (counted in DoDeallocate).
  absl::Status CheckIntegrity() const override {
    if (live_.size() != stats().live_allocations()) {
      return absl::InternalError(absl::StrFormat(
          "%u live blocks but stats say %u", live_.size(),
          stats().live_allocations()));
    }
    return absl::OkStatus();
  }

  void set_fail_above_bytes(size_t bytes) { fail_above_bytes_ = bytes; }
  void set_fail_after(uint64_t successes) { fail_after_ = successes; }
  uint64_t zeroed_allocations() const { return zeroed_allocations_; }
  uint64_t size_mismatches() const { return size_mismatches_; }
  uint64_t foreign_frees() const { return foreign_frees_; }
  uint64_t alignment_mismatches() const { return alignment_mismatches_; }

 protected:
  void* DoAllocate(size_t bytes, size_t alignment) noexcept override {
    return AllocateImpl(bytes, alignment, false);
  }
  void* DoAllocateZeroed(size_t bytes, size_t alignment) noexcept override {
    return AllocateImpl(bytes, alignment, true);
  }
  void DoDeallocate(void* ptr, size_t bytes,
                    size_t alignment) noexcept override {
    auto it = live_.find(ptr);
    if (it == live_.end()) {
      ++foreign_frees_;
      return;
    }
    if (it->second.bytes != bytes) ++size_mismatches_;
    if (it->second.alignment != alignment) ++alignment_mismatches_;
    live_.erase(it);
    ++stats_.deallocations;
    stats_.bytes_in_use -= bytes;
    std::free(ptr);
  }
  void* CountFailure() noexcept override {
    ++stats_.failed_requests;
    return nullptr;
  }

 private:
  void* AllocateImpl(size_t bytes, size_t alignment, bool zeroed) noexcept {
    if (bytes > fail_above_bytes_ || stats_.allocations >= fail_after_) {
      return CountFailure();
    }
    const size_t align = alignment < kDefaultAlignment ? kDefaultAlignment
                                                       : alignment;
    size_t rounded;
    if (!RoundUpChecked(bytes == 0 ? 1 : bytes, align, &rounded)) {
      return CountFailure();
    }
    void* ptr = std::aligned_alloc(align, rounded);
    if (ptr == nullptr) return CountFailure();
    if (zeroed) {
      std::memset(ptr, 0, rounded);
      ++zeroed_allocations_;
    }
    live_[ptr] = Block{bytes, alignment};
    ++stats_.allocations;
    stats_.bytes_in_use += bytes;
    if (stats_.bytes_in_use > stats_.peak_bytes_in_use) {
      stats_.peak_bytes_in_use = stats_.bytes_in_use;
    }
    return ptr;
  }

  struct Block {
    size_t bytes;
    size_t alignment;
  };
  AllocatorStats stats_;
  std::map<void*, Block> live_;
  size_t fail_above_bytes_ = std::numeric_limits<size_t>::max();
  uint64_t fail_after_ = std::numeric_limits<uint64_t>::max();
  uint64_t zeroed_allocations_ = 0;
  uint64_t size_mismatches_ = 0;
  uint64_t foreign_frees_ = 0;
  uint64_t alignment_mismatches_ = 0;
};

}  // namespace testing
}  // namespace tessera

#endif  // TESSERA_TENSOR_TESTING_COUNTING_ALLOCATOR_H_
