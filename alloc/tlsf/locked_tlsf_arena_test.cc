// Copyright 2026 The Tessera Authors.
//
// LockedTlsfArena forwards each call to its TlsfArena under one mutex; these
// tests pin that every forwarded call behaves as the arena's own, and that
// threads sharing one arena keep it whole.

#include "alloc/tlsf/locked_tlsf_arena.h"

#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "alloc/allocator.h"
#include "alloc/tlsf/tlsf_arena.h"
#include "gtest/gtest.h"

namespace tessera {
namespace {

TEST(LockedTlsfArenaTest, ForwardsEveryCallToTheArenaUnderTheLock) {
  TlsfArenaOptions bad;
  bad.granularity = 24;  // not a power of two
  EXPECT_TRUE(absl::IsInvalidArgument(LockedTlsfArena::Create(bad).status()));

  TlsfArenaOptions options;
  options.arena_bytes = size_t{1} << 20;
  options.max_block_size = size_t{256} << 10;
  absl::StatusOr<std::unique_ptr<LockedTlsfArena>> made =
      LockedTlsfArena::Create(options);
  ASSERT_TRUE(made.ok()) << made.status();
  LockedTlsfArena& arena = **made;
  EXPECT_EQ(arena.max_allocation_size(), options.max_block_size);

  Handle tried;
  ASSERT_TRUE(arena.TryAlloc(100, &tried, 256));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(tried.address()) % 256, 0u);
  std::memset(tried.address(), 0x5a, 100);
  absl::StatusOr<Handle> grown = arena.Realloc(tried, 5000);
  ASSERT_TRUE(grown.ok()) << grown.status();
  EXPECT_GE(grown->size(), 5000u);
  EXPECT_EQ(static_cast<unsigned char*>(grown->address())[99], 0x5a);

  void* p = arena.Allocate(300);
  ASSERT_NE(p, nullptr);
  std::memset(p, 0x11, 300);
  void* q = arena.Reallocate(p, 300, 3000);
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(static_cast<unsigned char*>(q)[299], 0x11);

  // The checked path validates ownership under the lock, and counts.
  alignas(64) static unsigned char foreign[64];
  EXPECT_TRUE(absl::IsFailedPrecondition(
      arena.DeallocateChecked(foreign, sizeof(foreign))));
  EXPECT_TRUE(absl::IsResourceExhausted(
      arena.AllocateChecked(options.max_block_size + 1).status()));
  EXPECT_EQ(arena.stats().failed_requests, 2u);

  // Deferred frees (scan window 0) are merged by Collect.
  ASSERT_TRUE(arena.Free(q, /*scan_window=*/0).ok());
  ASSERT_TRUE(arena.Free(*grown, /*scan_window=*/0).ok());
  EXPECT_GT(arena.Stats().pending_free_blocks, 0u);
  const CollectReport report = arena.Collect();
  EXPECT_GT(report.blocks_merged, 0u);
  EXPECT_EQ(arena.Stats().pending_free_blocks, 0u);
  EXPECT_EQ(arena.Stats().free_blocks, 1u);
  EXPECT_TRUE(arena.CheckIntegrity().ok()) << arena.CheckIntegrity();
  EXPECT_EQ(arena.stats().bytes_in_use, 0u);
}

TEST(LockedTlsfArenaTest, ThreadsShareOneArenaSafely) {
  absl::StatusOr<std::unique_ptr<LockedTlsfArena>> made =
      LockedTlsfArena::Create();
  ASSERT_TRUE(made.ok());
  LockedTlsfArena& arena = **made;
  constexpr int kThreads = 4;
  constexpr int kRounds = 500;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&arena, t] {
      std::mt19937 rng(t);
      std::vector<std::pair<Handle, unsigned char>> live;
      for (int i = 0; i < kRounds; ++i) {
        absl::StatusOr<Handle> h = arena.Alloc(16 + rng() % 500);
        ASSERT_TRUE(h.ok());
        const auto tag = static_cast<unsigned char>(t * 31 + i);
        std::memset(h->address(), tag, h->size());
        live.push_back({*h, tag});
        if (live.size() > 8) {
          const auto [old, old_tag] = live.front();
          live.erase(live.begin());
          const auto* bytes = static_cast<unsigned char*>(old.address());
          for (size_t k = 0; k < old.size(); ++k) ASSERT_EQ(bytes[k], old_tag);
          if (i % 2 == 0) {
            ASSERT_TRUE(arena.Free(old).ok());
          } else {
            arena.Deallocate(old.address(), old.size());
          }
        }
      }
      for (const auto& block : live) ASSERT_TRUE(arena.Free(block.first).ok());
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_TRUE(arena.CheckIntegrity().ok()) << arena.CheckIntegrity();
  const AllocatorStats stats = arena.stats();
  EXPECT_EQ(stats.allocations, uint64_t{kThreads * kRounds});
  EXPECT_EQ(stats.deallocations, uint64_t{kThreads * kRounds});
  EXPECT_EQ(arena.Stats().free_blocks, 1u);
  EXPECT_EQ(arena.Allocate(64, 3), nullptr);
  EXPECT_EQ(arena.stats().failed_requests, 1u);
}

}  // namespace
}  // namespace tessera
