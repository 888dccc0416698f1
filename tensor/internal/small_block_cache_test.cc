// Copyright 2026 The Tessera Authors.

#include "tensor/internal/small_block_cache.h"

#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

#include "alloc/allocator.h"
#include "alloc/system/system_allocator.h"
#include "gtest/gtest.h"

namespace tessera {
namespace internal {
namespace {

using Cache = SmallBlockCache;

// Each test owns its upstream, so that its statistics show exactly what the
// cache kept and returned.
class SmallBlockCacheTest : public ::testing::Test {
 protected:
  MallocAllocator upstream_;
};

TEST_F(SmallBlockCacheTest, FreedBlockIsReusedForItsSizeClass) {
  Cache cache(upstream_);
  void* a = cache.Allocate(4000);
  ASSERT_NE(a, nullptr);
  cache.Deallocate(a, 4000);
  void* b = cache.Allocate(3900);  // same 256-byte class as 4000
  if (kSystemThreadCacheEnabled) {
    EXPECT_EQ(a, b);
    EXPECT_EQ(upstream_.stats().allocations, 1u);
  }
  cache.Deallocate(b, 3900);
  EXPECT_TRUE(cache.CheckIntegrity().ok()) << cache.CheckIntegrity();
  cache.ReleaseCallingThread();
  EXPECT_EQ(upstream_.stats().bytes_in_use, 0u);
}

TEST_F(SmallBlockCacheTest, ZeroedBlockFromTheCacheReadsAsZero) {
  Cache cache(upstream_);
  auto* dirty = static_cast<unsigned char*>(cache.Allocate(1000));
  ASSERT_NE(dirty, nullptr);
  std::memset(dirty, 0xAB, 1000);
  cache.Deallocate(dirty, 1000);
  auto* zeroed = static_cast<unsigned char*>(cache.AllocateZeroed(1000));
  ASSERT_NE(zeroed, nullptr);
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(zeroed[i], 0) << "byte " << i;
  cache.Deallocate(zeroed, 1000);
  cache.ReleaseCallingThread();
}

int clear_calls = 0;
void CountingClear(void* block, size_t bytes) {
  ++clear_calls;
  std::memset(block, 0, bytes);
}

TEST_F(SmallBlockCacheTest, ReusedZeroedBlockIsClearedByTheGivenFunction) {
  Cache cache(upstream_, &CountingClear);
  clear_calls = 0;
  auto* dirty = static_cast<unsigned char*>(cache.Allocate(3000));
  std::memset(dirty, 0x5A, 3000);
  cache.Deallocate(dirty, 3000);
  auto* zeroed = static_cast<unsigned char*>(cache.AllocateZeroed(3000));
  ASSERT_NE(zeroed, nullptr);
  for (int i = 0; i < 3000; ++i) ASSERT_EQ(zeroed[i], 0) << "byte " << i;
  // Reused (so cleared here) only when the cache is on.
  EXPECT_EQ(clear_calls, kSystemThreadCacheEnabled ? 1 : 0);
  cache.Deallocate(zeroed, 3000);
  cache.ReleaseCallingThread();
}

TEST_F(SmallBlockCacheTest, ListsAndThreadTotalStayWithinTheirBounds) {
  Cache cache(upstream_);
  std::vector<void*> blocks;
  // 3x the per-class bound of one class, then many classes: the thread total.
  for (int i = 0; i < 3 * static_cast<int>(Cache::kMaxBlocksPerClass); ++i) {
    blocks.push_back(cache.Allocate(512));
  }
  for (void* p : blocks) cache.Deallocate(p, 512);
  EXPECT_LE(cache.CallingThreadCachedBlocks(), Cache::kMaxBlocksPerClass);
  blocks.clear();
  for (size_t bytes = Cache::kGranule; bytes <= Cache::kMaxBlockBytes;
       bytes += Cache::kGranule) {
    for (int k = 0; k < 4; ++k) blocks.push_back(cache.Allocate(bytes));
  }
  size_t i = 0;
  for (size_t bytes = Cache::kGranule; bytes <= Cache::kMaxBlockBytes;
       bytes += Cache::kGranule) {
    for (int k = 0; k < 4; ++k) cache.Deallocate(blocks[i++], bytes);
  }
  EXPECT_LE(cache.CallingThreadCachedBytes(), Cache::kMaxCachedBytes);
  ASSERT_TRUE(cache.CheckIntegrity().ok()) << cache.CheckIntegrity();
  // Everything not cached went back; the rest goes back on release.
  EXPECT_EQ(upstream_.stats().bytes_in_use, cache.CallingThreadCachedBytes());
  const size_t cached = cache.CallingThreadCachedBytes();
  EXPECT_EQ(cache.ReleaseCallingThread(), cached);
  EXPECT_EQ(upstream_.stats().bytes_in_use, 0u);
  EXPECT_EQ(cache.stats().bytes_in_use, 0u);
}

TEST_F(SmallBlockCacheTest, LargeAndOverAlignedRequestsPassThrough) {
  Cache cache(upstream_);
  void* big = cache.Allocate(Cache::kMaxBlockBytes + 1);
  ASSERT_NE(big, nullptr);
  cache.Deallocate(big, Cache::kMaxBlockBytes + 1);
  void* aligned = cache.Allocate(256, 64);
  ASSERT_NE(aligned, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(aligned) % 64, 0u);
  cache.Deallocate(aligned, 256, 64);
  EXPECT_EQ(cache.CallingThreadCachedBlocks(), 0u);
  EXPECT_EQ(upstream_.stats().bytes_in_use, 0u);
}

TEST_F(SmallBlockCacheTest, ThreadExitReturnsItsBlocks) {
  Cache cache(upstream_);
  std::thread worker([&] {
    void* p = cache.Allocate(2048);
    cache.Deallocate(p, 2048);
    if (kSystemThreadCacheEnabled) {
      EXPECT_EQ(cache.CallingThreadCachedBlocks(), 1u);
    }
  });
  worker.join();
  EXPECT_EQ(upstream_.stats().bytes_in_use, 0u);
}

TEST_F(SmallBlockCacheTest, BlockFreedOnAnotherThreadJoinsThatThreadsLists) {
  Cache cache(upstream_);
  void* p = cache.Allocate(700);
  std::thread worker([&] { cache.Deallocate(p, 700); });
  worker.join();  // the worker cached it, then returned it on exit
  EXPECT_EQ(upstream_.stats().bytes_in_use, 0u);
  EXPECT_EQ(cache.stats().bytes_in_use, 0u);
}

TEST_F(SmallBlockCacheTest, SecondInstanceOnTheSameThreadPassesThrough) {
  MallocAllocator other_upstream;
  Cache first(upstream_);
  void* a = first.Allocate(300);
  first.Deallocate(a, 300);  // the thread's lists now belong to `first`
  {
    Cache second(other_upstream);
    void* b = second.Allocate(300);
    ASSERT_NE(b, nullptr);
    second.Deallocate(b, 300);
    EXPECT_EQ(second.CallingThreadCachedBlocks(), 0u);
    EXPECT_EQ(other_upstream.stats().bytes_in_use, 0u);
  }
  first.ReleaseCallingThread();
  EXPECT_EQ(upstream_.stats().bytes_in_use, 0u);
}

TEST_F(SmallBlockCacheTest, ReallocateKeepsTheContents) {
  Cache cache(upstream_);
  auto* p = static_cast<unsigned char*>(cache.Allocate(100));
  for (int i = 0; i < 100; ++i) p[i] = static_cast<unsigned char>(i);
  auto* same_class = static_cast<unsigned char*>(cache.Reallocate(p, 100, 200));
  ASSERT_EQ(same_class, p);
  auto* moved =
      static_cast<unsigned char*>(cache.Reallocate(same_class, 200, 5000));
  ASSERT_NE(moved, nullptr);
  for (int i = 0; i < 100; ++i) ASSERT_EQ(moved[i], i);
  cache.Deallocate(moved, 5000);
  cache.ReleaseCallingThread();
  EXPECT_EQ(upstream_.stats().bytes_in_use, 0u);
  EXPECT_TRUE(cache.CheckIntegrity().ok());
}

TEST_F(SmallBlockCacheTest, DestroyingTheCacheReturnsTheCallingThreadsBlocks) {
  {
    Cache cache(upstream_);
    void* p = cache.Allocate(1024);
    cache.Deallocate(p, 1024);
  }
  EXPECT_EQ(upstream_.stats().bytes_in_use, 0u);
  // The thread's lists are free for another instance now.
  Cache next(upstream_);
  void* q = next.Allocate(1024);
  next.Deallocate(q, 1024);
  if (kSystemThreadCacheEnabled) {
    EXPECT_EQ(next.CallingThreadCachedBlocks(), 1u);
  }
  next.ReleaseCallingThread();
}

}  // namespace
}  // namespace internal
}  // namespace tessera
