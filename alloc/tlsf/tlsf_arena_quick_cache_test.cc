// Copyright 2026 The Tessera Authors.
//
// TlsfArena's quick cache of small freed blocks (invariant 8 of
// tlsf_arena.h): what is cached, its bounds, and how Collect and a failing
// allocation empty it.

#include "alloc/tlsf/tlsf_arena.h"

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "alloc/tlsf/tlsf_arena_test_support.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tessera {
namespace tlsf_test {
namespace {

using ::testing::HasSubstr;

// ---- Quick cache. ----

TlsfArenaOptions QuickCache(uint32_t depth) {
  TlsfArenaOptions options;
  options.quick_cache_depth = depth;
  return options;
}

TEST(TlsfQuickCacheTest, FreedSmallBlockIsHandedBackUnmerged) {
  auto arena = MakeArena(1 * kMiB, QuickCache(4));
  Handle a = *arena->Alloc(64), b = *arena->Alloc(100);
  const uint64_t free_blocks = arena->Stats().free_blocks;
  ASSERT_TRUE(arena->Free(a).ok());
  TlsfStats stats = arena->Stats();
  EXPECT_EQ(stats.cached_blocks, 1u);
  EXPECT_EQ(stats.cached_bytes, 64u);
  EXPECT_EQ(stats.free_blocks, free_blocks);  // not merged, not listed
  EXPECT_EQ(stats.bytes_in_use, 128u);
  EXPECT_EQ(stats.live_blocks, 1u);
  EXPECT_TRUE(arena->CheckIntegrity().ok()) << arena->CheckIntegrity();
  absl::StatusOr<Handle> again = arena->Alloc(10);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->address(), a.address());
  EXPECT_EQ(arena->Stats().cached_blocks, 0u);
  // Other sizes and aligned requests do not take it.
  ASSERT_TRUE(arena->Free(*again).ok());
  absl::StatusOr<Handle> other = arena->Alloc(200);
  ASSERT_TRUE(other.ok());
  EXPECT_NE(other->address(), a.address());
  EXPECT_EQ(arena->Stats().cached_blocks, 1u);
  EXPECT_TRUE(arena->Free(b).ok());
  EXPECT_TRUE(arena->CheckIntegrity().ok()) << arena->CheckIntegrity();
}

TEST(TlsfQuickCacheTest, OnlySizesUpToTheConfiguredMaximumAreCached) {
  TlsfArenaOptions options = QuickCache(4);
  options.quick_cache_max_granules = 8;
  auto narrow = MakeArena(1 * kMiB, options);
  options.quick_cache_max_granules = 64;  // the default
  auto wide = MakeArena(1 * kMiB, options);
  for (TlsfArena* arena : {narrow.get(), wide.get()}) {
    Handle small = *arena->Alloc(512), large = *arena->Alloc(1024);
    Handle fence = *arena->Alloc(64);
    ASSERT_TRUE(arena->Free(small).ok());
    ASSERT_TRUE(arena->Free(large).ok());
    EXPECT_TRUE(arena->CheckIntegrity().ok()) << arena->CheckIntegrity();
    (void)fence;
  }
  EXPECT_EQ(narrow->Stats().cached_blocks, 1u);
  EXPECT_EQ(narrow->Stats().cached_bytes, 512u);
  EXPECT_EQ(wide->Stats().cached_blocks, 2u);
  EXPECT_EQ(wide->Stats().cached_bytes, 1536u);
}

TEST(TlsfQuickCacheTest, DoubleFreeOfACachedBlockIsDetected) {
  ViolationRecorder recorder;
  auto arena = MakeArena(1 * kMiB, QuickCache(4));
  Handle a = *arena->Alloc(64);
  ASSERT_TRUE(arena->Free(a).ok());
  EXPECT_THAT(Message(arena->Free(a)), HasSubstr("double free"));
  EXPECT_THAT(Message(arena->Free(a.address())), HasSubstr("double free"));
  arena->Deallocate(a.address(), 64);
  ASSERT_EQ(recorder.violations().size(), 1u);
  EXPECT_EQ(recorder.violations()[0].violation, ContractViolation::kDoubleFree);
  EXPECT_EQ(arena->Stats().cached_blocks, 1u);
  EXPECT_TRUE(arena->CheckIntegrity().ok());
}

TEST(TlsfQuickCacheTest, CacheIsBoundedAndCollectMergesIt) {
  auto arena = MakeArena(1 * kMiB, QuickCache(3));
  std::vector<Handle> blocks;
  for (int i = 0; i < 10; ++i) blocks.push_back(*arena->Alloc(64));
  for (const Handle& h : blocks) ASSERT_TRUE(arena->Free(h).ok());
  EXPECT_EQ(arena->Stats().cached_blocks, 3u);
  EXPECT_TRUE(arena->CheckIntegrity().ok()) << arena->CheckIntegrity();
  arena->Collect();
  const TlsfStats stats = arena->Stats();
  EXPECT_EQ(stats.cached_blocks, 0u);
  EXPECT_EQ(stats.free_blocks, 1u);
  EXPECT_EQ(stats.largest_free_block, stats.free_bytes);
  EXPECT_TRUE(arena->CheckIntegrity().ok());
}

TEST(TlsfQuickCacheTest, CacheHoldsAtMostItsByteLimit) {
  TlsfArenaOptions options;  // default depth: the byte limit binds first
  options.quick_cache_bytes = 1024;
  auto arena = MakeArena(1 * kMiB, options);
  std::vector<Handle> blocks;
  for (int i = 0; i < 10; ++i) blocks.push_back(*arena->Alloc(256));
  Handle fence = *arena->Alloc(64);
  for (const Handle& h : blocks) ASSERT_TRUE(arena->Free(h).ok());
  TlsfStats stats = arena->Stats();
  EXPECT_EQ(stats.cached_bytes, 1024u);
  EXPECT_EQ(stats.cached_blocks, 4u);
  // The six frees past the limit merged into one free block (beside the
  // arena's tail), which a request of exactly that size finds.
  EXPECT_EQ(stats.free_blocks, 2u);
  EXPECT_TRUE(arena->CheckIntegrity().ok()) << arena->CheckIntegrity();
  absl::StatusOr<Handle> run = arena->Alloc(6 * 256);
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->address(), blocks[4].address());
  // Handing one back makes room for a smaller block, not for another 256.
  Handle again = *arena->Alloc(200);
  EXPECT_EQ(arena->Stats().cached_bytes, 768u);
  ASSERT_TRUE(arena->Free(fence).ok());
  EXPECT_EQ(arena->Stats().cached_bytes, 832u);
  // 832 + 256 would pass the limit: that block merges instead.
  ASSERT_TRUE(arena->Free(again).ok());
  EXPECT_EQ(arena->Stats().cached_bytes, 832u);
  EXPECT_TRUE(arena->CheckIntegrity().ok()) << arena->CheckIntegrity();
}

TEST(TlsfQuickCacheTest, AllocationThatWouldFailFlushesTheCacheFirst) {
  Buffer buffer(64 * kKiB);
  TlsfArenaOptions options = QuickCache(64);
  absl::StatusOr<std::unique_ptr<TlsfArena>> made =
      TlsfArena::CreateOver(buffer.data, buffer.size, {}, options);
  ASSERT_TRUE(made.ok());
  TlsfArena& arena = **made;
  std::vector<Handle> blocks;
  Handle h;
  while (arena.TryAlloc(64, &h)) blocks.push_back(h);
  for (int i = 0; i < 32; ++i) ASSERT_TRUE(arena.Free(blocks[i]).ok());
  EXPECT_EQ(arena.Stats().cached_blocks, 32u);
  EXPECT_EQ(arena.Stats().free_bytes, 0u);
  // 32 adjacent cached granules merge into one 2 KiB block on demand.
  absl::StatusOr<Handle> big = arena.Alloc(2048);
  ASSERT_TRUE(big.ok()) << big.status();
  EXPECT_EQ(big->address(), blocks[0].address());
  EXPECT_EQ(arena.Stats().cached_blocks, 0u);
  EXPECT_TRUE(arena.CheckIntegrity().ok()) << arena.CheckIntegrity();
}

}  // namespace
}  // namespace tlsf_test
}  // namespace tessera
