// Proves an importing workspace can build against and allocate through Tessera.

#include <cstdint>
#include <memory_resource>
#include <vector>

#include "alloc/default_allocator.h"
#include "alloc/memory_resource.h"
#include "alloc/system/system_allocator.h"
#include "gtest/gtest.h"

TEST(ConsumerTest, AllocatesThroughTessera) {
  tessera::AlignedAllocator allocator(64);
  void* block = allocator.Allocate(1000, 64);
  ASSERT_NE(block, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(block) % 64, 0u);
  allocator.Deallocate(block, 1000, 64);

  tessera::MemoryResource resource(allocator);
  std::pmr::vector<double> values(1000, 2.0, &resource);
  EXPECT_EQ(values[999], 2.0);
  EXPECT_EQ(allocator.stats().live_allocations(), 1u);

  tessera::ScopedDefaultAllocator scope(allocator);
  EXPECT_EQ(&tessera::DefaultAllocator(), &allocator);
}
