// Copyright 2026 The Tessera Authors.
//
// Test helper: an upstream allocator over aligned_alloc that tracks every
// live block (so tests can assert what reached upstream and that nothing
// leaked) and can be told to fail after a number of allocations.

#ifndef TESSERA_ALLOC_POOL_INTERNAL_TEST_ALLOCATOR_H_
#define TESSERA_ALLOC_POOL_INTERNAL_TEST_ALLOCATOR_H_

#include <cstdlib>
#include <mutex>

#include "absl/container/flat_hash_map.h"
#include "alloc/allocator.h"

namespace tessera {
namespace pool_internal {

class TestAllocator final : public Allocator {
 public:
  TestAllocator() : Allocator("test_upstream") {}
  ~TestAllocator() override {
    for (auto& [ptr, bytes] : live_) std::free(ptr);
  }

  // Allocations after the next `n` successful ones fail (SIZE_MAX: never).
  void FailAfter(size_t n) {
    std::lock_guard<std::mutex> lock(mu_);
    budget_ = n;
  }

  size_t live_blocks() const {
    std::lock_guard<std::mutex> lock(mu_);
    return live_.size();
  }
  bool IsLive(const void* ptr) const {
    std::lock_guard<std::mutex> lock(mu_);
    return live_.contains(const_cast<void*>(ptr));
  }
  size_t bad_frees() const {
    std::lock_guard<std::mutex> lock(mu_);
    return bad_frees_;
  }

  AllocatorStats stats() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return stats_;
  }

 protected:
  void* DoAllocate(size_t bytes, size_t alignment) noexcept override {
    std::lock_guard<std::mutex> lock(mu_);
    if (budget_ == 0) {
      ++stats_.failed_requests;
      return nullptr;
    }
    if (budget_ != SIZE_MAX) --budget_;
    if (alignment < kDefaultAlignment) alignment = kDefaultAlignment;
    const size_t rounded = ((bytes == 0 ? 1 : bytes) + alignment - 1) &
                           ~(alignment - 1);
    void* ptr = std::aligned_alloc(alignment, rounded);
    if (ptr == nullptr) {
      ++stats_.failed_requests;
      return nullptr;
    }
    live_[ptr] = bytes;
    ++stats_.allocations;
    stats_.bytes_in_use += bytes;
    return ptr;
  }
  void DoDeallocate(void* ptr, size_t bytes, size_t) noexcept override {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = live_.find(ptr);
    if (it == live_.end() || it->second != bytes) {
      ++bad_frees_;  // never free what we did not hand out
      return;
    }
    live_.erase(it);
    ++stats_.deallocations;
    stats_.bytes_in_use -= bytes;
    std::free(ptr);
  }
  void* CountFailure() noexcept override {
    std::lock_guard<std::mutex> lock(mu_);
    ++stats_.failed_requests;
    return nullptr;
  }

 private:
  mutable std::mutex mu_;
  absl::flat_hash_map<void*, size_t> live_;
  AllocatorStats stats_;
  size_t budget_ = SIZE_MAX;
  size_t bad_frees_ = 0;
};

}  // namespace pool_internal
}  // namespace tessera

#endif  // TESSERA_ALLOC_POOL_INTERNAL_TEST_ALLOCATOR_H_
