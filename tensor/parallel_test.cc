// Copyright 2026 The Tessera Authors.

#include "tensor/parallel.h"

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tensor/internal/parallel_ops.h"
#include "tensor/internal/thread_pool.h"

// Counts global operator new calls, to pin "no allocation per call".
namespace {
std::atomic<int64_t> g_news{0};
}  // namespace

void* operator new(size_t bytes) {
  g_news.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(bytes == 0 ? 1 : bytes)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }

namespace tessera {
namespace {

using internal::ParallelFor;
using internal::ThreadPool;

// Restores the default thread count after each test.
class ParallelTest : public ::testing::Test {
 protected:
  ~ParallelTest() override { SetNumThreads(0); }
};

TEST_F(ParallelTest, PoolRunsEveryChunkExactlyOnce) {
  for (int workers : {0, 1, 3}) {
    ThreadPool pool(workers);
    EXPECT_EQ(pool.workers(), workers);
    for (int64_t chunks : {1, 2, 7, 64}) {
      std::vector<std::atomic<int>> runs(static_cast<size_t>(chunks));
      ASSERT_TRUE(pool.Run(chunks, [&](int64_t i) {
        runs[static_cast<size_t>(i)].fetch_add(1);
      }));
      for (int64_t i = 0; i < chunks; ++i) {
        EXPECT_EQ(runs[static_cast<size_t>(i)].load(), 1)
            << "chunk " << i << " of " << chunks << ", " << workers
            << " workers";
      }
    }
  }
}

TEST_F(ParallelTest, ChunkWritesAreVisibleWhenRunReturns) {
  ThreadPool pool(1);
  std::vector<int64_t> out(4096, 0);  // plain (non-atomic) writes
  for (int round = 1; round <= 50; ++round) {
    ASSERT_TRUE(pool.Run(64, [&](int64_t i) {
      for (int64_t j = i * 64; j < (i + 1) * 64; ++j) {
        out[static_cast<size_t>(j)] = round;
      }
    }));
    for (int64_t v : out) ASSERT_EQ(v, round);
  }
}

TEST_F(ParallelTest, BusyPoolRefusesASecondJobInsteadOfWaiting) {
  ThreadPool pool(1);
  bool nested_ran = true;
  ASSERT_TRUE(pool.Run(2, [&](int64_t i) {
    if (i == 0) nested_ran = pool.Run(2, [](int64_t) {});
  }));
  EXPECT_FALSE(nested_ran);
}

TEST_F(ParallelTest, ParallelForCoversTheRangeInAlignedChunks) {
  SetNumThreads(2);
  for (int64_t n : {int64_t{1}, int64_t{999}, int64_t{4096},
                    int64_t{100003}}) {
    std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
    std::atomic<int> calls{0};
    ParallelFor(n, 1000, [&](int64_t begin, int64_t end) {
      calls.fetch_add(1);
      EXPECT_EQ(begin % 1000, 0) << "n=" << n;
      EXPECT_LT(begin, end);
      for (int64_t i = begin; i < end; ++i) hits[static_cast<size_t>(i)]++;
    });
    for (int64_t i = 0; i < n; ++i) {
      ASSERT_EQ(hits[static_cast<size_t>(i)].load(), 1) << i << " of " << n;
    }
    // Below two chunks' worth the caller runs it in one call.
    if (n < 2000) {
      EXPECT_EQ(calls.load(), 1) << "n=" << n;
    }
    if (n >= 8000) {
      EXPECT_GT(calls.load(), 1) << "n=" << n;
    }
  }
}

TEST_F(ParallelTest, OneThreadMeansOneCallOnTheCaller) {
  SetNumThreads(1);
  EXPECT_EQ(NumThreads(), 1);
  const std::thread::id caller = std::this_thread::get_id();
  int calls = 0;
  ParallelFor(1 << 20, 1, [&](int64_t begin, int64_t end) {
    ++calls;
    EXPECT_EQ(begin, 0);
    EXPECT_EQ(end, 1 << 20);
    EXPECT_EQ(std::this_thread::get_id(), caller);
  });
  EXPECT_EQ(calls, 1);
}

TEST_F(ParallelTest, SetNumThreadsResizesThePool) {
  SetNumThreads(3);
  EXPECT_EQ(NumThreads(), 3);
  std::atomic<int64_t> total{0};
  ParallelFor(100, 1, [&](int64_t b, int64_t e) { total += e - b; });
  EXPECT_EQ(total.load(), 100);
  EXPECT_EQ(internal::PoolWorkersForTesting(), 2);
  SetNumThreads(kMaxThreads + 100);
  EXPECT_EQ(NumThreads(), kMaxThreads);
  SetNumThreads(2);
  ParallelFor(100, 1, [&](int64_t b, int64_t e) { total += e - b; });
  EXPECT_EQ(total.load(), 200);
  EXPECT_EQ(internal::PoolWorkersForTesting(), 1);
}

TEST_F(ParallelTest, EnvironmentSetsTheDefault) {
  ASSERT_EQ(setenv("TESSERA_NUM_THREADS", "3", 1), 0);
  SetNumThreads(0);
  EXPECT_EQ(NumThreads(), 3);
  ASSERT_EQ(setenv("TESSERA_NUM_THREADS", "junk", 1), 0);
  SetNumThreads(0);
  EXPECT_GE(NumThreads(), 1);  // ignored: hardware concurrency
  ASSERT_EQ(unsetenv("TESSERA_NUM_THREADS"), 0);
}

TEST_F(ParallelTest, ConcurrentCallersEachGetTheirWholeRange) {
  SetNumThreads(2);
  std::vector<std::thread> callers;
  std::vector<int64_t> totals(4, 0);
  for (int t = 0; t < 4; ++t) {
    callers.emplace_back([&, t] {
      for (int round = 0; round < 20; ++round) {
        std::atomic<int64_t> sum{0};
        ParallelFor(10000, 100, [&](int64_t b, int64_t e) { sum += e - b; });
        totals[static_cast<size_t>(t)] += sum.load();
      }
    });
  }
  for (std::thread& c : callers) c.join();
  for (int64_t total : totals) EXPECT_EQ(total, 20 * 10000);
}

TEST_F(ParallelTest, ParallelForDoesNotAllocateOnceThePoolRuns) {
  SetNumThreads(2);
  std::atomic<int64_t> total{0};
  auto body = [&](int64_t b, int64_t e) { total += e - b; };
  ParallelFor(1 << 16, 1 << 10, body);  // starts the pool
  const int64_t before = g_news.load();
  for (int i = 0; i < 100; ++i) ParallelFor(1 << 16, 1 << 10, body);
  EXPECT_EQ(g_news.load(), before);
  EXPECT_EQ(total.load(), 101 << 16);
}

// The parallel sum walks the serial kernel's pairwise tree: bit-identical
// with one thread or several, for lengths that are and are not multiples of
// the block.
TEST_F(ParallelTest, ParallelSumIsBitIdenticalToSerial) {
  for (int64_t n : {int64_t{1} << 21, (int64_t{1} << 21) + 777,
                    int64_t{3000001}}) {
    std::vector<float> f(static_cast<size_t>(n));
    std::vector<double> d(static_cast<size_t>(n));
    std::vector<int32_t> i32(static_cast<size_t>(n));
    uint32_t x = 12345;
    for (int64_t k = 0; k < n; ++k) {
      x = x * 1664525u + 1013904223u;
      f[static_cast<size_t>(k)] = static_cast<float>(x >> 8) * 1e-3f;
      d[static_cast<size_t>(k)] = static_cast<double>(x) * 1e-7;
      i32[static_cast<size_t>(k)] = static_cast<int32_t>(x);
    }
    float serial_f, parallel_f;
    double serial_d, parallel_d;
    int64_t serial_i, parallel_i;
    kernels::ReduceLine(ReduceOp::kSum, DType::kFloat32, f.data(), 4, n,
                        &serial_f);
    kernels::ReduceLine(ReduceOp::kSum, DType::kFloat64, d.data(), 8, n,
                        &serial_d);
    kernels::ReduceLine(ReduceOp::kSum, DType::kInt32, i32.data(), 4, n,
                        &serial_i);
    for (int threads : {1, 2, 3}) {
      SetNumThreads(threads);
      internal::ContiguousReduce(ReduceOp::kSum, DType::kFloat32, f.data(), n,
                                 &parallel_f);
      internal::ContiguousReduce(ReduceOp::kSum, DType::kFloat64, d.data(), n,
                                 &parallel_d);
      internal::ContiguousReduce(ReduceOp::kSum, DType::kInt32, i32.data(), n,
                                 &parallel_i);
      EXPECT_EQ(std::memcmp(&serial_f, &parallel_f, 4), 0)
          << serial_f << " vs " << parallel_f << ", n=" << n << ", "
          << threads << " threads";
      EXPECT_EQ(std::memcmp(&serial_d, &parallel_d, 8), 0)
          << serial_d << " vs " << parallel_d << ", n=" << n;
      EXPECT_EQ(serial_i, parallel_i) << "n=" << n;
    }
  }
}

TEST_F(ParallelTest, ParallelBinaryMatchesTheRowKernel) {
  SetNumThreads(2);
  const int64_t n = (int64_t{1} << 20) + 13;  // 12 MiB over three operands
  std::vector<float> a(static_cast<size_t>(n)), b(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) {
    a[static_cast<size_t>(k)] = static_cast<float>(k % 1000) * 0.5f;
    b[static_cast<size_t>(k)] = static_cast<float>(k % 7) - 3.0f;
  }
  std::vector<float> serial(static_cast<size_t>(n)), parallel(a);
  kernels::BinaryRow(BinaryOp::kMultiply, DType::kFloat32, a.data(), 4,
                     b.data(), 4, serial.data(), 4, n);
  // In place, as `out` == `a` is allowed.
  internal::ContiguousBinary(BinaryOp::kMultiply, DType::kFloat32,
                             parallel.data(), b.data(), parallel.data(), n);
  EXPECT_EQ(std::memcmp(serial.data(), parallel.data(),
                        static_cast<size_t>(n) * 4),
            0);
}

}  // namespace
}  // namespace tessera
