// Copyright 2026 The Tessera Authors.

#include "alloc/pool/concurrent_pool.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/random/random.h"
#include "absl/strings/str_cat.h"
#include "alloc/pool/internal/violation_recorder.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;
using pool_internal::ViolationRecorder;

ConcurrentPoolOptions Options(size_t cell_size = 32, size_t cache_cells = 8,
                              bool checks = true) {
  ConcurrentPoolOptions options;
  options.depot.cell_size = cell_size;
  options.depot.cells_per_block = 64;
  options.cache_cells = cache_cells;
  options.check_returns = checks;
  return options;
}

std::unique_ptr<ConcurrentPool> Make(const ConcurrentPoolOptions& options) {
  auto pool = ConcurrentPool::Create(options);
  EXPECT_TRUE(pool.ok()) << pool.status();
  return pool.ok() ? std::move(*pool) : nullptr;
}

TEST(ConcurrentPoolOptionsTest, CacheSizeOutOfRangeIsRejected) {
  for (size_t cells : {0, 1, 65537}) {
    ConcurrentPoolOptions options = Options(32, cells);
    auto pool = ConcurrentPool::Create(options);
    EXPECT_EQ(pool.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(pool.status().message(),
                HasSubstr(absl::StrCat("cache_cells ", cells)));
  }
}

TEST(ConcurrentPoolOptionsTest, BadDepotOptionsAreRejected) {
  ConcurrentPoolOptions options = Options(12);
  auto pool = ConcurrentPool::Create(options);
  EXPECT_EQ(pool.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(pool.status().message(), HasSubstr("cell size 12"));
}

TEST(ConcurrentPoolTest, ReturnedCellIsTakenAgainFromTheThreadCache) {
  auto pool = Make(Options());
  void* a = pool->Take();
  ASSERT_NE(a, nullptr);
  pool->Return(a);
  EXPECT_EQ(pool->Take(), a);
  pool->Return(a);
  ConcurrentPoolStats s = pool->stats();
  EXPECT_EQ(s.refills, 1u);  // one batch from the depot served everything
  EXPECT_EQ(s.cells_in_use, 0u);
  EXPECT_EQ(s.cells_in_caches, 4u);  // half a cache came over
  EXPECT_EQ(s.thread_caches, 1u);
  EXPECT_TRUE(pool->CheckIntegrity().ok()) << pool->CheckIntegrity();
}

TEST(ConcurrentPoolTest, CellsAreDistinctAlignedAndKeepTheirContents) {
  ConcurrentPoolOptions options = Options(48, 8);
  options.depot.alignment = 16;
  auto pool = Make(options);
  std::vector<unsigned char*> cells;
  for (int i = 0; i < 300; ++i) {  // many refills and several blocks
    auto* cell = static_cast<unsigned char*>(pool->Take());
    ASSERT_NE(cell, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(cell) % 16, 0u);
    std::memset(cell, i & 0xFF, 48);
    cells.push_back(cell);
  }
  absl::flat_hash_set<unsigned char*> distinct(cells.begin(), cells.end());
  EXPECT_EQ(distinct.size(), cells.size());
  for (int i = 0; i < 300; ++i) {
    for (int b = 0; b < 48; ++b) ASSERT_EQ(cells[i][b], i & 0xFF);
    pool->Return(cells[i]);
  }
  EXPECT_GT(pool->stats().flushes, 0u);
  EXPECT_EQ(pool->stats().cells_in_use, 0u);
  EXPECT_TRUE(pool->CheckIntegrity().ok()) << pool->CheckIntegrity();
}

TEST(ConcurrentPoolTest, CellTakenOnOneThreadCanBeReturnedOnAnother) {
  auto pool = Make(Options());
  std::vector<void*> cells;
  for (int i = 0; i < 50; ++i) cells.push_back(pool->Take());
  std::thread other([&] {
    for (void* cell : cells) pool->Return(cell);
    // This thread's cache now serves its own takes from those cells.
    void* again = pool->Take();
    EXPECT_NE(std::find(cells.begin(), cells.end(), again), cells.end());
    pool->Return(again);
  });
  other.join();
  EXPECT_EQ(pool->stats().cells_in_use, 0u);
  EXPECT_TRUE(pool->CheckIntegrity().ok()) << pool->CheckIntegrity();
}

TEST(ConcurrentPoolTest, ThreadExitFlushesItsCacheToTheDepot) {
  auto pool = Make(Options(32, 16));
  std::thread worker([&] {
    void* cells[10];
    for (void*& c : cells) c = pool->Take();
    for (void* c : cells) pool->Return(c);
    EXPECT_GT(pool->stats().cells_in_caches, 0u);
  });
  worker.join();
  ConcurrentPoolStats s = pool->stats();
  EXPECT_EQ(s.cells_in_caches, 0u);
  EXPECT_EQ(s.thread_caches, 0u);
  EXPECT_EQ(s.depot.cells_in_use, 0u);
  EXPECT_TRUE(pool->CheckIntegrity().ok()) << pool->CheckIntegrity();
  // A new thread reuses the exited thread's cache object.
  std::thread next([&] { pool->Return(pool->Take()); });
  next.join();
  EXPECT_EQ(pool->stats().thread_caches, 0u);
  EXPECT_TRUE(pool->CheckIntegrity().ok());
}

TEST(ConcurrentPoolTest, ExhaustionUnderTheFailPolicyReturnsNullptr) {
  ConcurrentPoolOptions options = Options(32, 8);
  options.depot.overflow = OverflowPolicy::kFail;
  auto pool = Make(options);
  std::vector<void*> cells;
  for (;;) {
    void* cell = pool->Take();
    if (cell == nullptr) break;
    cells.push_back(cell);
    ASSERT_LT(cells.size(), 100000u);
  }
  ConcurrentPoolStats s = pool->stats();
  EXPECT_EQ(cells.size(), s.depot.cells_reserved);
  EXPECT_EQ(s.depot.failures, 1u);
  for (void* cell : cells) pool->Return(cell);
  EXPECT_NE(pool->Take(), nullptr) << "usable again after returns";
}

TEST(ConcurrentPoolTest, TrimFlushesTheCallersCacheAndReleasesIdleBlocks) {
  auto pool = Make(Options(32, 8));
  std::vector<void*> cells;
  for (int i = 0; i < 200; ++i) cells.push_back(pool->Take());
  for (void* cell : cells) pool->Return(cell);
  const uint64_t blocks = pool->stats().depot.blocks;
  EXPECT_GT(blocks, 1u);
  EXPECT_EQ(pool->Trim(), blocks);
  EXPECT_EQ(pool->stats().cells_in_caches, 0u);
  EXPECT_EQ(pool->stats().depot.blocks, 0u);
  EXPECT_NE(pool->Take(), nullptr);
}

TEST(ConcurrentPoolTest, DoubleReturnIsReportedAndIgnored) {
  ViolationRecorder recorder;
  auto pool = Make(Options());
  void* a = pool->Take();
  pool->Return(a);
  pool->Return(a);
  ASSERT_EQ(recorder.violations().size(), 1u);
  EXPECT_EQ(recorder.violations()[0].violation, ContractViolation::kDoubleFree);
  EXPECT_TRUE(pool->CheckIntegrity().ok()) << pool->CheckIntegrity();
}

TEST(ConcurrentPoolTest, ForeignPointerIsReportedAndIgnored) {
  ViolationRecorder recorder;
  auto pool = Make(Options());
  auto other = Make(Options());
  void* theirs = other->Take();
  int on_stack = 0;
  pool->Return(theirs);
  pool->Return(&on_stack);
  ASSERT_EQ(recorder.violations().size(), 2u);
  for (const auto& v : recorder.violations()) {
    EXPECT_EQ(v.violation, ContractViolation::kForeignPointer);
  }
  other->Return(theirs);
  EXPECT_TRUE(pool->CheckIntegrity().ok()) << pool->CheckIntegrity();
  EXPECT_TRUE(other->CheckIntegrity().ok());
}

TEST(ConcurrentPoolTest, AThreadUsingManyPoolsFallsBackToTheDepot) {
  std::vector<std::unique_ptr<ConcurrentPool>> pools;
  for (int i = 0; i < 2 * pool_internal::kPoolSlotsPerThread; ++i) {
    pools.push_back(Make(Options()));
  }
  std::vector<std::pair<ConcurrentPool*, void*>> held;
  for (int round = 0; round < 3; ++round) {
    for (auto& pool : pools) held.push_back({pool.get(), pool->Take()});
  }
  for (auto& [pool, cell] : held) {
    ASSERT_NE(cell, nullptr);
    pool->Return(cell);
  }
  for (auto& pool : pools) {
    EXPECT_EQ(pool->stats().cells_in_use, 0u);
    EXPECT_TRUE(pool->CheckIntegrity().ok()) << pool->CheckIntegrity();
  }
}

TEST(ConcurrentPoolTest, SlotsOfDestroyedPoolsAreReclaimed) {
  for (int i = 0; i < 4 * pool_internal::kPoolSlotsPerThread; ++i) {
    auto pool = Make(Options());
    void* cell = pool->Take();
    pool->Return(cell);
    // With a free slot, the pool got a thread cache rather than the depot.
    EXPECT_EQ(pool->stats().thread_caches, 1u) << i;
  }
}

// ---- Randomised model test (one thread, checks on) ----

TEST(ConcurrentPoolTest, MatchesAShadowSetUnderRandomOperations) {
  ViolationRecorder recorder;
  ConcurrentPoolOptions options = Options(24, 6);
  options.depot.alignment = 8;
  options.depot.cells_per_block = 20;
  auto pool = Make(options);
  std::mt19937_64 gen(7);
  absl::flat_hash_map<unsigned char*, unsigned char> live;
  std::vector<unsigned char*> order;
  for (int op = 0; op < 3000; ++op) {
    const int kind = absl::Uniform(gen, 0, 100);
    if (kind < 52 || order.empty()) {
      auto* cell = static_cast<unsigned char*>(pool->Take());
      ASSERT_NE(cell, nullptr);
      ASSERT_FALSE(live.contains(cell));
      std::memset(cell, op & 0xFF, 24);
      live[cell] = op & 0xFF;
      order.push_back(cell);
    } else if (kind < 98) {
      const size_t i = absl::Uniform<size_t>(gen, 0, order.size());
      unsigned char* cell = order[i];
      for (int b = 0; b < 24; ++b) ASSERT_EQ(cell[b], live[cell]);
      order[i] = order.back();
      order.pop_back();
      live.erase(cell);
      pool->Return(cell);
    } else {
      pool->Trim();
    }
    ASSERT_TRUE(pool->CheckIntegrity().ok()) << pool->CheckIntegrity();
    ASSERT_EQ(pool->stats().cells_in_use, live.size());
  }
  for (unsigned char* cell : order) pool->Return(cell);
  EXPECT_TRUE(recorder.violations().empty());
  EXPECT_EQ(pool->stats().cells_in_use, 0u);
}

// ---- Two-thread stress (run under --config=tsan) ----

// Producer/consumer: cells cross threads with their contents; a third and
// fourth thread churn independently on the same pool at the same time.
void StressPool(bool checks) {
  auto pool = Make(Options(64, 32, checks));
  constexpr int kMessages = 20000;
  std::mutex mu;
  std::deque<uint64_t*> queue;
  std::atomic<bool> failed{false};

  std::thread producer([&] {
    for (int i = 0; i < kMessages; ++i) {
      auto* cell = static_cast<uint64_t*>(pool->Take());
      if (cell == nullptr) {
        failed = true;
        return;
      }
      for (int w = 0; w < 8; ++w) cell[w] = static_cast<uint64_t>(i) * 8 + w;
      std::lock_guard<std::mutex> lock(mu);
      queue.push_back(cell);
    }
  });
  std::thread consumer([&] {
    for (int received = 0; received < kMessages;) {
      uint64_t* cell = nullptr;
      {
        std::lock_guard<std::mutex> lock(mu);
        if (!queue.empty()) {
          cell = queue.front();
          queue.pop_front();
        }
      }
      if (cell == nullptr) {
        if (failed) return;
        std::this_thread::yield();
        continue;
      }
      const uint64_t base = received * uint64_t{8};
      for (int w = 0; w < 8; ++w) {
        if (cell[w] != base + w) failed = true;
      }
      pool->Return(cell);
      ++received;
    }
  });
  auto churn = [&](int seed) {
    std::mt19937 gen(seed);
    std::vector<uint64_t*> mine;
    for (int i = 0; i < kMessages; ++i) {
      if (mine.size() < 40 && (mine.empty() || gen() % 2 == 0)) {
        auto* cell = static_cast<uint64_t*>(pool->Take());
        if (cell == nullptr) {
          failed = true;
          return;
        }
        cell[0] = reinterpret_cast<uintptr_t>(cell) ^ seed;
        mine.push_back(cell);
      } else {
        const size_t k = gen() % mine.size();
        uint64_t* cell = mine[k];
        if (cell[0] != (reinterpret_cast<uintptr_t>(cell) ^ seed)) {
          failed = true;
        }
        mine[k] = mine.back();
        mine.pop_back();
        pool->Return(cell);
      }
    }
    for (uint64_t* cell : mine) pool->Return(cell);
  };
  std::thread churn_a(churn, 11), churn_b(churn, 12);
  producer.join();
  consumer.join();
  churn_a.join();
  churn_b.join();
  EXPECT_FALSE(failed.load());
  ConcurrentPoolStats s = pool->stats();
  EXPECT_EQ(s.cells_in_use, 0u);
  EXPECT_EQ(s.cells_in_caches, 0u);  // every thread exited and flushed
  EXPECT_EQ(s.depot.cells_in_use, 0u);
  EXPECT_TRUE(pool->CheckIntegrity().ok()) << pool->CheckIntegrity();
}

TEST(ConcurrentPoolStressTest, ProducerConsumerAndChurnAcrossThreads) {
  StressPool(/*checks=*/false);
}

TEST(ConcurrentPoolStressTest, ProducerConsumerAndChurnWithChecks) {
  StressPool(/*checks=*/true);
}

}  // namespace
}  // namespace tessera
