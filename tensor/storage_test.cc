// Copyright 2026 The Tessera Authors.
//
// The default backing of large tensors (storage.h): which allocator owned
// storage comes from, that it is freed through that allocator, and that the
// cache of idle buffers is bounded.

#include "tensor/storage.h"

#include <cstdint>
#include <string>
#include <vector>

#include "alloc/default_allocator.h"
#include "alloc/pool/buffer_cache.h"
#include "alloc/system/system_allocator.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tensor/binary.h"
#include "tensor/tensor.h"
#include "tensor/testing/counting_allocator.h"

namespace tessera {
namespace {

using testing::CountingAllocator;

BufferCache& Cache() { return static_cast<BufferCache&>(TensorBufferCache()); }

// float32 elements of a tensor whose data is `bytes` long.
int64_t Floats(size_t bytes) { return static_cast<int64_t>(bytes / 4); }

TEST(StorageBackingTest, LargeDefaultTensorsComeFromTheCacheAndGoBack) {
  const int64_t n = Floats(kCachedMinBytes) * 4;  // 256 KiB
  const BufferCacheStats before = Cache().cache_stats();
  const void* first_data;
  {
    auto t = empty({n}, DType::kFloat32);
    ASSERT_TRUE(t.ok()) << t.status();
    EXPECT_EQ(&t->allocator(), &TensorBufferCache());
    first_data = t->data();
    EXPECT_EQ(Cache().cache_stats().live_buffers, before.live_buffers + 1);
  }
  // Freed: back in the cache, still mapped.
  EXPECT_EQ(Cache().cache_stats().live_buffers, before.live_buffers);
  EXPECT_GE(Cache().cache_stats().cached_buffers, 1u);
  // The next tensor of that size reuses the buffer.
  auto again = empty({n}, DType::kFloat32);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->data(), first_data);
  EXPECT_GT(Cache().cache_stats().hits, before.hits);
}

TEST(StorageBackingTest, SmallAndZeroedTensorsUseTheDefaultAllocator) {
  auto small = empty({Floats(kCachedMinBytes) - 1}, DType::kFloat32);
  ASSERT_TRUE(small.ok());
  EXPECT_EQ(&small->allocator(), &GlobalMallocAllocator());
  // Zeroed storage keeps calloc's lazily mapped zero pages.
  auto z = zeros({Floats(kCachedMinBytes) * 4}, DType::kFloat32);
  ASSERT_TRUE(z.ok());
  EXPECT_EQ(&z->allocator(), &GlobalMallocAllocator());
  EXPECT_THAT(z->ToVector<float>(), ::testing::Each(0.0f));
}

TEST(StorageBackingTest, SmallDefaultTensorsReuseBlocksOfTheirThread) {
  const void* first_data;
  {
    auto t = full({1000}, 7.0f, DType::kFloat32);
    ASSERT_TRUE(t.ok());
    EXPECT_EQ(&t->allocator(), &TensorSmallBlockCache());
    first_data = t->data();
  }
  // The dirty block comes back for the next tensor of its size, and zeros()
  // clears it.
  auto z = zeros({1000}, DType::kFloat32);
  ASSERT_TRUE(z.ok());
  EXPECT_EQ(&z->allocator(), &TensorSmallBlockCache());
  if (kSystemThreadCacheEnabled) {
    EXPECT_EQ(z->data(), first_data);
  }
  EXPECT_THAT(z->ToVector<float>(), ::testing::Each(0.0f));
  *z = Tensor();
  EXPECT_TRUE(TensorSmallBlockCache().CheckIntegrity().ok());
  // Released: malloc gets the thread's idle small blocks back.
  ReleaseTensorBufferCache();
  EXPECT_EQ(TensorSmallBlockCache().stats().bytes_in_use, 0u);
}

TEST(StorageBackingTest, AnExplicitOrScopedAllocatorIsAlwaysUsed) {
  const int64_t n = Floats(kCachedMinBytes) * 4;
  CountingAllocator counting;
  {
    auto explicit_alloc = empty({n}, DType::kFloat32, &counting);
    ASSERT_TRUE(explicit_alloc.ok());
    EXPECT_EQ(&explicit_alloc->allocator(), &counting);
    ScopedDefaultAllocator scope(counting);
    auto scoped = arange(0, n, 1, DType::kFloat32);
    ASSERT_TRUE(scoped.ok());
    EXPECT_EQ(&scoped->allocator(), &counting);
    auto sum = add(*scoped, *scoped);  // a large temporary result
    ASSERT_TRUE(sum.ok());
    EXPECT_EQ(&sum->allocator(), &counting);
    EXPECT_EQ(counting.stats().live_allocations(), 3u);
    // Small tensors too: nothing bypasses the scoped allocator.
    auto small = zeros({10}, DType::kFloat32);
    ASSERT_TRUE(small.ok());
    EXPECT_EQ(&small->allocator(), &counting);
  }
  EXPECT_EQ(counting.stats().live_allocations(), 0u);
  EXPECT_EQ(counting.stats().bytes_in_use, 0u);
  EXPECT_TRUE(counting.CheckIntegrity().ok());
}

// Large zeroed storage keeps its header out of the data's block, so the
// lazily zeroed pages an allocator returns are not touched by the header;
// both blocks go back to the allocator, and a failed header frees the data.
TEST(StorageBackingTest, LargeZeroedStorageHasItsHeaderInABlockOfItsOwn) {
  const int64_t n = Floats(Storage::kSeparateHeaderZeroedBytes);
  CountingAllocator counting;
  {
    auto z = zeros({n}, DType::kFloat32, &counting);
    ASSERT_TRUE(z.ok()) << z.status();
    EXPECT_EQ(counting.stats().live_allocations(), 2u);  // data + header
    EXPECT_EQ(counting.zeroed_allocations(), 1u);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(z->data()) % Storage::kLargeAlignment,
              0u);
    EXPECT_TRUE(z->owns_data());
    EXPECT_THAT(z->ToVector<float>(), ::testing::Each(0.0f));
    // Just below the threshold: one block, header in front.
    auto below = zeros({n - 1}, DType::kFloat32, &counting);
    ASSERT_TRUE(below.ok());
    EXPECT_EQ(counting.stats().live_allocations(), 3u);
  }
  EXPECT_EQ(counting.stats().live_allocations(), 0u);
  EXPECT_EQ(counting.stats().bytes_in_use, 0u);
  // The header is the second request: refuse it, and the data goes back.
  counting.set_fail_after(counting.stats().allocations + 1);
  auto refused = zeros({n}, DType::kFloat32, &counting);
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(std::string(refused.status().message()),
              ::testing::HasSubstr("header"));
  EXPECT_EQ(counting.stats().live_allocations(), 0u);
  EXPECT_TRUE(counting.CheckIntegrity().ok());
}

// NEP 49: storage goes back to the allocator that made it, whatever the
// scoped default is when it is freed.
TEST(StorageBackingTest, CachedStorageIsFreedToTheCacheUnderAnotherScope) {
  const int64_t n = Floats(kCachedMinBytes) * 8;
  auto t = empty({n}, DType::kFloat32);
  ASSERT_TRUE(t.ok());
  ASSERT_EQ(&t->allocator(), &TensorBufferCache());
  const uint64_t live = Cache().cache_stats().live_buffers;
  CountingAllocator counting;
  {
    ScopedDefaultAllocator scope(counting);
    *t = Tensor();  // drop the last reference inside the scope
  }
  EXPECT_EQ(counting.stats().deallocations, 0u);
  EXPECT_EQ(Cache().cache_stats().live_buffers, live - 1);
  EXPECT_TRUE(Cache().CheckIntegrity().ok()) << Cache().CheckIntegrity();

  // And the other way round: storage made under the scope goes back to the
  // scoped allocator after the scope has ended.
  Tensor scoped_tensor;
  {
    ScopedDefaultAllocator scope(counting);
    scoped_tensor = *empty({n}, DType::kFloat32);
  }
  EXPECT_EQ(counting.stats().live_allocations(), 1u);
  scoped_tensor = Tensor();
  EXPECT_EQ(counting.stats().live_allocations(), 0u);
}

TEST(StorageBackingTest, IdleBuffersAreBounded) {
  const BufferCacheOptions& options = Cache().options();
  EXPECT_LE(Cache().cache_stats().cached_bytes, options.budget_bytes);
  // More same-size tensors freed at once than a class may keep: the extra
  // ones are unmapped, not cached.
  const int64_t n = Floats(kCachedMinBytes) * 2 + 1;
  const size_t keep = options.max_buffers_per_class;
  const BufferCacheStats before = Cache().cache_stats();
  {
    std::vector<Tensor> tensors;
    for (size_t i = 0; i < keep + 4; ++i) {
      tensors.push_back(*empty({n}, DType::kFloat32));  // never touched
    }
  }
  const BufferCacheStats after = Cache().cache_stats();
  EXPECT_GE(after.evictions, before.evictions + 4);
  EXPECT_LE(after.cached_bytes, options.budget_bytes);
  EXPECT_TRUE(Cache().CheckIntegrity().ok()) << Cache().CheckIntegrity();
  // Release unmaps every idle buffer.
  EXPECT_GT(ReleaseTensorBufferCache(), 0u);
  EXPECT_EQ(Cache().cache_stats().cached_buffers, 0u);
  EXPECT_EQ(Cache().cache_stats().cached_bytes, 0u);
}

TEST(StorageBackingTest, ReleaseAlsoUnmapsTheMallocAllocatorsKeptBlocks) {
  // Large zeroed storage comes from the malloc allocator, whose freed blocks
  // of 4 MiB and more stay mapped for the next one.
  { Tensor big = *zeros({int64_t{10'000'000}}, DType::kFloat32); }
  if (kSystemThreadCacheEnabled) {
    EXPECT_GE(GlobalMallocAllocator().cached_mapping_bytes(), size_t{40'000'000});
  }
  ReleaseTensorBufferCache();
  EXPECT_EQ(GlobalMallocAllocator().cached_mapping_bytes(), 0u);
}

}  // namespace
}  // namespace tessera
