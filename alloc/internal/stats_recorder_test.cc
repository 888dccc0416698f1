// Copyright 2026 The Tessera Authors.

#include "alloc/internal/stats_recorder.h"

#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace tessera {
namespace internal {
namespace {

TEST(StatsRecorderTest, TracksBytesPeakAndCounts) {
  StatsRecorder recorder;
  recorder.RecordAllocation(100);
  recorder.RecordAllocation(50);
  recorder.RecordDeallocation(100);
  recorder.RecordReallocation(50, 20);
  recorder.RecordFailure();
  const AllocatorStats& s = recorder.stats();
  EXPECT_EQ(s.allocations, 2u);
  EXPECT_EQ(s.deallocations, 1u);
  EXPECT_EQ(s.reallocations, 1u);
  EXPECT_EQ(s.failed_requests, 1u);
  EXPECT_EQ(s.bytes_in_use, 20u);
  EXPECT_EQ(s.peak_bytes_in_use, 150u);
  EXPECT_EQ(s.live_allocations(), 1u);
}

TEST(ConcurrentStatsRecorderTest, PeakIsExactOnOneThread) {
  ConcurrentStatsRecorder recorder;
  recorder.RecordAllocation(100);
  recorder.RecordAllocation(200);
  recorder.RecordDeallocation(200);
  recorder.RecordReallocation(100, 400);
  recorder.RecordDeallocation(400);
  const AllocatorStats s = recorder.stats();
  EXPECT_EQ(s.bytes_in_use, 0u);
  EXPECT_EQ(s.peak_bytes_in_use, 400u);
  EXPECT_EQ(s.allocations, 2u);
  EXPECT_EQ(s.deallocations, 2u);
  EXPECT_EQ(s.reallocations, 1u);
}

TEST(ConcurrentStatsRecorderTest, CountsAreExactAcrossThreads) {
  ConcurrentStatsRecorder recorder;
  constexpr int kThreads = 4;
  constexpr int kOps = 10000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&recorder] {
      for (int i = 0; i < kOps; ++i) {
        recorder.RecordAllocation(8);
        recorder.RecordDeallocation(8);
      }
      recorder.RecordFailure();
    });
  }
  for (auto& thread : threads) thread.join();
  const AllocatorStats s = recorder.stats();
  EXPECT_EQ(s.allocations, uint64_t{kThreads * kOps});
  EXPECT_EQ(s.deallocations, uint64_t{kThreads * kOps});
  EXPECT_EQ(s.failed_requests, uint64_t{kThreads});
  EXPECT_EQ(s.bytes_in_use, 0u);
  EXPECT_GE(s.peak_bytes_in_use, 8u);
}

TEST(ConcurrentStatsRecorderTest, FreesOnAnotherThreadBalance) {
  ConcurrentStatsRecorder recorder;
  recorder.RecordAllocation(1000);
  std::thread([&recorder] { recorder.RecordDeallocation(1000); }).join();
  EXPECT_EQ(recorder.stats().bytes_in_use, 0u);
  EXPECT_EQ(recorder.stats().peak_bytes_in_use, 1000u);
}

TEST(ConcurrentStatsRecorderTest, ManyThreadsShareTheOverflowSlot) {
  ConcurrentStatsRecorder recorder;
  // More live threads than slots: the extra ones use the atomic overflow slot.
  constexpr int kThreads = kThreadSlots + 8;
  std::vector<std::thread> threads;
  std::atomic<int> ready{0};
  std::atomic<bool> go{false};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      ready.fetch_add(1);
      while (!go.load()) std::this_thread::yield();
      for (int i = 0; i < 100; ++i) recorder.RecordAllocation(1);
    });
  }
  while (ready.load() < kThreads) std::this_thread::yield();
  go.store(true);
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(recorder.stats().allocations, uint64_t{kThreads * 100});
  EXPECT_EQ(recorder.stats().bytes_in_use, uint64_t{kThreads * 100});
}

}  // namespace
}  // namespace internal
}  // namespace tessera
