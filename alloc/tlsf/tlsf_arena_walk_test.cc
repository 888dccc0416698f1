// Copyright 2026 The Tessera Authors.

#include <cstdint>
#include <vector>

#include "alloc/tlsf/tlsf_arena.h"
#include "gtest/gtest.h"

namespace tessera {
namespace {

struct Walked {
  std::vector<TlsfRegionInfo> regions;
  std::vector<TlsfBlockInfo> blocks;
};

Walked Walk(const TlsfArena& arena) {
  Walked w;
  arena.WalkBlocks([&](const TlsfRegionInfo& r) { w.regions.push_back(r); },
                   [&](const TlsfBlockInfo& b) { w.blocks.push_back(b); });
  return w;
}

TEST(TlsfArenaWalkTest, BlocksTileTheRegionInAddressOrderWithTheirStates) {
  TlsfArenaOptions options;
  options.arena_bytes = size_t{1} << 20;
  options.quick_cache_depth = 0;  // freed blocks go straight to the lists
  auto arena = TlsfArena::Create(options);
  ASSERT_TRUE(arena.ok()) << arena.status();
  std::vector<Handle> handles;
  for (int i = 0; i < 6; ++i) {
    auto h = (*arena)->Alloc(1000 + 100 * i);
    ASSERT_TRUE(h.ok());
    handles.push_back(*h);
  }
  ASSERT_TRUE((*arena)->Free(handles[1]).ok());
  ASSERT_TRUE((*arena)->Free(handles[3]).ok());

  const Walked w = Walk(**arena);
  ASSERT_EQ(w.regions.size(), 1u);
  const TlsfRegionInfo& region = w.regions[0];
  EXPECT_GT(region.metadata_bytes, 0u);
  // Chained: each block starts where the previous ends, from base to floor.
  const char* at = static_cast<const char*>(region.base);
  uint64_t live = 0, free_bytes = 0, live_blocks = 0, free_blocks = 0;
  for (const TlsfBlockInfo& b : w.blocks) {
    EXPECT_EQ(b.region, 0);
    EXPECT_EQ(b.address, at);
    at += b.size;
    if (b.state == TlsfBlockInfo::State::kLive) {
      live += b.size;
      ++live_blocks;
    } else {
      free_bytes += b.size;
      ++free_blocks;
    }
  }
  EXPECT_EQ(at, region.floor);
  // Blocks 0, 2, 4, 5 live; 1 and 3 free; the tail free.
  ASSERT_EQ(w.blocks.size(), 7u);
  EXPECT_EQ(w.blocks[1].state, TlsfBlockInfo::State::kFree);
  EXPECT_EQ(w.blocks[1].address, handles[1].address());
  EXPECT_EQ(w.blocks[4].state, TlsfBlockInfo::State::kLive);
  EXPECT_EQ(w.blocks[4].address, handles[4].address());
  EXPECT_EQ(w.blocks[6].state, TlsfBlockInfo::State::kFree);
  const TlsfStats stats = (*arena)->Stats();
  EXPECT_EQ(live, stats.bytes_in_use);
  EXPECT_EQ(free_bytes, stats.free_bytes);
  EXPECT_EQ(live_blocks, stats.live_blocks);
  EXPECT_EQ(free_blocks, stats.free_blocks);
}

TEST(TlsfArenaWalkTest, QuickCachedBlocksAreReportedAsCached) {
  TlsfArenaOptions options;
  options.arena_bytes = size_t{1} << 20;
  options.quick_cache_depth = 4;
  auto arena = TlsfArena::Create(options);
  ASSERT_TRUE(arena.ok()) << arena.status();
  auto a = (*arena)->Alloc(64);
  auto b = (*arena)->Alloc(64);
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_TRUE((*arena)->Free(*a).ok());
  const Walked w = Walk(**arena);
  ASSERT_GE(w.blocks.size(), 2u);
  EXPECT_EQ(w.blocks[0].address, a->address());
  EXPECT_EQ(w.blocks[0].state, TlsfBlockInfo::State::kCached);
  EXPECT_EQ(w.blocks[1].state, TlsfBlockInfo::State::kLive);
}

TEST(TlsfArenaWalkTest, GrowthRegionsAreWalkedInOrder) {
  TlsfArenaOptions options;
  options.arena_bytes = size_t{1} << 20;
  options.grow = true;
  options.growth_region_bytes = size_t{1} << 20;
  auto arena = TlsfArena::Create(options);
  ASSERT_TRUE(arena.ok()) << arena.status();
  std::vector<Handle> handles;
  for (int i = 0; i < 3; ++i) {
    auto h = (*arena)->Alloc(700 << 10);
    ASSERT_TRUE(h.ok()) << h.status();
    handles.push_back(*h);
  }
  const Walked w = Walk(**arena);
  ASSERT_GE(w.regions.size(), 3u);
  int last_region = 0;
  int live = 0;
  for (const TlsfBlockInfo& b : w.blocks) {
    EXPECT_GE(b.region, last_region);
    last_region = b.region;
    live += b.state == TlsfBlockInfo::State::kLive;
  }
  EXPECT_EQ(live, 3);
  EXPECT_EQ(static_cast<uint64_t>(w.regions.size()),
            (*arena)->Stats().regions);
}

}  // namespace
}  // namespace tessera
