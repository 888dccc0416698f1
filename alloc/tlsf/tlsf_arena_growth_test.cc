// Copyright 2026 The Tessera Authors.
//
// TlsfArena's growth: regions mapped from system memory or handed in by the
// caller, each checked and each released.

#include "alloc/tlsf/tlsf_arena.h"

#include <cstddef>
#include <cstring>
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

// ---- Growth. ----

TEST(TlsfArenaTest, ArenaThatMayNotGrowNeverCallsSystemMemory) {
  CountingSystem system;
  TlsfArenaOptions options;
  options.system_memory = system.hooks();
  {
    Buffer buffer(64 * kKiB);
    absl::StatusOr<std::unique_ptr<TlsfArena>> arena =
        TlsfArena::CreateOver(buffer.data, buffer.size, {}, options);
    ASSERT_TRUE(arena.ok());
    Handle h;
    while ((*arena)->TryAlloc(1000, &h)) {
    }
    EXPECT_FALSE((*arena)->Alloc(1000).ok());
  }
  EXPECT_EQ(system.maps, 0);
  EXPECT_EQ(system.unmaps, 0);
  options.arena_bytes = 64 * kKiB;
  {
    auto arena = MakeArena(64 * kKiB, options);
    EXPECT_EQ(system.maps, 1);
    Handle h;
    while (arena->TryAlloc(1000, &h)) {
    }
    EXPECT_EQ(system.maps, 1);
  }
  EXPECT_EQ(system.unmaps, 1);
}

TEST(TlsfArenaTest, GrowingArenaMapsRegionsAndChecksEachOne) {
  CountingSystem system;
  TlsfArenaOptions options;
  options.system_memory = system.hooks();
  options.grow = true;
  options.growth_region_bytes = 256 * kKiB;
  {
    auto arena = MakeArena(128 * kKiB, options);
    std::vector<Handle> live;
    for (int i = 0; i < 100; ++i) {
      absl::StatusOr<Handle> h = arena->Alloc(10000);
      ASSERT_TRUE(h.ok()) << i << h.status();
      std::memset(h->address(), i, h->size());
      live.push_back(*h);
    }
    // A request larger than the growth size gets a region of its own.
    absl::StatusOr<Handle> big = arena->Alloc(1 * kMiB);
    ASSERT_TRUE(big.ok()) << big.status();
    live.push_back(*big);
    const TlsfStats stats = arena->Stats();
    EXPECT_GE(stats.regions, 4u);
    EXPECT_EQ(system.maps, static_cast<int>(stats.regions));
    EXPECT_TRUE(arena->CheckIntegrity().ok()) << arena->CheckIntegrity();
    for (const Handle& h : live) ASSERT_TRUE(arena->Free(h.address()).ok());
    EXPECT_EQ(arena->Stats().free_blocks, stats.regions);
    EXPECT_TRUE(arena->CheckIntegrity().ok());
  }
  EXPECT_EQ(system.unmaps, system.maps);
}

TEST(TlsfArenaTest, CallerRegionsAreUsedAndReleasedOnDestruction) {
  Buffer first(64 * kKiB), second(64 * kKiB);
  int released = 0;
  {
    absl::StatusOr<std::unique_ptr<TlsfArena>> made = TlsfArena::CreateOver(
        first.data, first.size, [&](void*, size_t) { ++released; });
    ASSERT_TRUE(made.ok());
    TlsfArena& arena = **made;
    EXPECT_THAT(Message(arena.AddRegion(second.data, 100, {})),
                HasSubstr("too small"));
    ASSERT_TRUE(arena.AddRegion(second.data, second.size,
                                [&](void*, size_t) { ++released; })
                    .ok());
    std::vector<Handle> live;
    Handle h;
    while (arena.TryAlloc(4000, &h)) live.push_back(h);
    EXPECT_GT(live.size(), 20u);  // both regions were used
    EXPECT_TRUE(arena.CheckIntegrity().ok()) << arena.CheckIntegrity();
    EXPECT_EQ(arena.Stats().regions, 2u);
  }
  EXPECT_EQ(released, 2);
}

}  // namespace
}  // namespace tlsf_test
}  // namespace tessera
