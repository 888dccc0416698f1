// Copyright 2026 The Tessera Authors.
//
// Standard-library adapters over any Tessera allocator:
//
//   tessera::AlignedAllocator aligned(64);
//   tessera::MemoryResource resource(aligned);
//   std::pmr::vector<int> v(&resource);
//
//   std::vector<float, tessera::StdAllocator<float>> w(
//       tessera::StdAllocator<float>(aligned));
//
// Both throw std::bad_alloc when the allocator returns nullptr, as the
// standard requires of them; the allocator still counts the failure. Neither
// owns the allocator, which must outlive every container using it.

#ifndef TESSERA_ALLOC_MEMORY_RESOURCE_H_
#define TESSERA_ALLOC_MEMORY_RESOURCE_H_

#include <cstddef>
#include <limits>
#include <memory_resource>
#include <new>

#include "alloc/allocator.h"
#include "alloc/default_allocator.h"

namespace tessera {

class MemoryResource final : public std::pmr::memory_resource {
 public:
  explicit MemoryResource(Allocator& allocator) : allocator_(&allocator) {}

  Allocator& allocator() const { return *allocator_; }

 private:
  void* do_allocate(size_t bytes, size_t alignment) override {
    void* ptr = allocator_->Allocate(bytes, alignment);
    if (ptr == nullptr) throw std::bad_alloc();
    return ptr;
  }
  void do_deallocate(void* ptr, size_t bytes, size_t alignment) override {
    allocator_->Deallocate(ptr, bytes, alignment);
  }
  bool do_is_equal(const std::pmr::memory_resource& other) const
      noexcept override {
    const auto* same = dynamic_cast<const MemoryResource*>(&other);
    return same != nullptr && same->allocator_ == allocator_;
  }

  Allocator* allocator_;
};

template <typename T>
class StdAllocator {
 public:
  using value_type = T;

  // Uses the calling thread's default allocator at construction time.
  StdAllocator() noexcept : allocator_(&DefaultAllocator()) {}
  explicit StdAllocator(Allocator& allocator) noexcept
      : allocator_(&allocator) {}
  template <typename U>
  StdAllocator(const StdAllocator<U>& other) noexcept  // NOLINT: rebinding
      : allocator_(&other.allocator()) {}

  T* allocate(size_t n) {
    if (n > std::numeric_limits<size_t>::max() / sizeof(T)) {
      throw std::bad_array_new_length();
    }
    void* ptr = allocator_->Allocate(n * sizeof(T), alignof(T));
    if (ptr == nullptr) throw std::bad_alloc();
    return static_cast<T*>(ptr);
  }
  void deallocate(T* ptr, size_t n) noexcept {
    allocator_->Deallocate(ptr, n * sizeof(T), alignof(T));
  }

  Allocator& allocator() const noexcept { return *allocator_; }

  template <typename U>
  bool operator==(const StdAllocator<U>& other) const noexcept {
    return allocator_ == &other.allocator();
  }
  template <typename U>
  bool operator!=(const StdAllocator<U>& other) const noexcept {
    return !(*this == other);
  }

 private:
  Allocator* allocator_;
};

}  // namespace tessera

#endif  // TESSERA_ALLOC_MEMORY_RESOURCE_H_
