// Copyright 2026 The Tessera Authors.
//
// Pools against glibc, in one binary so that only same-run ratios are quoted
// (the machine is shared and noisy):
//
//   tools/bazel run --config=opt //bench:pool_benchmark
//
// Cases (goals from issue 4):
//   * TakeReturn: one Take + Return pair on a StackedPool (goal <= 3 ns), on a
//     ConcurrentPool, and glibc malloc(64) + free beside them.
//   * W3: small-object churn, 16-64 B random sizes, a ring of 64 live blocks,
//     free the oldest then allocate, 10M iterations per repetition, on
//     SizeClassPool (goal <= 0.5x glibc), glibc, and the no-allocation floor.
//   * Threads: two threads on one pool, producer/consumer (cells cross
//     threads) and independent churn; ConcurrentPool vs glibc, wall time per
//     operation pair per thread.
//   * Large: allocate 40 MB, write it once, free, 20 times: BufferCache (cold:
//     a new cache every repetition, so the first round maps; and warm),
//     glibc malloc/free, and the floor of reusing one buffer (goal: cold
//     BufferCache <= 1.1x reuse).
//
// Each case runs 3 repetitions; the summary tables use the medians, of CPU
// time for single-threaded cases (it includes the kernel's page-fault work;
// wall time on the shared machine mostly measures other tenants) and of wall
// time for the two-thread cases.

#include <sys/mman.h>

#include <time.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "alloc/pool/buffer_cache.h"
#include "alloc/pool/concurrent_pool.h"
#include "alloc/pool/size_class_pool.h"
#include "alloc/pool/stacked_pool.h"
#include "benchmark/benchmark.h"

namespace tessera {
namespace {

constexpr int kRepetitions = 3;

std::unique_ptr<StackedPool> MakeStackedPool(size_t cell_size) {
  StackedPoolOptions options;
  options.cell_size = cell_size;
  options.cells_per_block = 4096;
  options.check_returns = false;  // release configuration
  return std::move(StackedPool::Create(options)).value();
}

ConcurrentPool& SharedConcurrentPool() {
  static ConcurrentPool* const pool = [] {
    ConcurrentPoolOptions options;
    options.depot.cell_size = 64;
    options.depot.cells_per_block = 4096;
    options.cache_cells = 256;
    options.check_returns = false;
    return std::move(ConcurrentPool::Create(options)).value().release();
  }();
  return *pool;
}

// ---- Take + Return pair ----

void BM_TakeReturn_StackedPool(benchmark::State& state) {
  auto pool = MakeStackedPool(64);
  for (auto _ : state) {
    void* cell = pool->Take();
    benchmark::DoNotOptimize(cell);
    pool->Return(cell);
  }
}
BENCHMARK(BM_TakeReturn_StackedPool);

void BM_TakeReturn_ConcurrentPool(benchmark::State& state) {
  ConcurrentPool& pool = SharedConcurrentPool();
  for (auto _ : state) {
    void* cell = pool.Take();
    benchmark::DoNotOptimize(cell);
    pool.Return(cell);
  }
}
BENCHMARK(BM_TakeReturn_ConcurrentPool);

void BM_TakeReturn_Glibc64(benchmark::State& state) {
  for (auto _ : state) {
    void* block = std::malloc(64);
    benchmark::DoNotOptimize(block);
    std::free(block);
  }
}
BENCHMARK(BM_TakeReturn_Glibc64);

// ---- W3: small-object churn ----

constexpr int kRing = 64;
constexpr int64_t kW3Iterations = 10'000'000;

std::vector<uint32_t> W3Sizes() {
  std::vector<uint32_t> sizes(1 << 16);
  std::mt19937 rng(3);
  for (uint32_t& s : sizes) s = 16 + rng() % 49;  // 16..64
  return sizes;
}

// Runs W3 with `alloc(bytes)` and `free(ptr, bytes)`; time per iteration.
template <typename Alloc, typename Free>
void RunW3(benchmark::State& state, Alloc alloc, Free free) {
  const std::vector<uint32_t> sizes = W3Sizes();
  void* ring[kRing];
  uint32_t ring_size[kRing];
  for (int i = 0; i < kRing; ++i) {
    ring_size[i] = sizes[i];
    ring[i] = alloc(ring_size[i]);
  }
  for (auto _ : state) {
    for (int64_t it = 0; it < kW3Iterations; ++it) {
      const int slot = static_cast<int>(it & (kRing - 1));
      free(ring[slot], ring_size[slot]);
      const uint32_t n = sizes[it & (sizes.size() - 1)];
      ring_size[slot] = n;
      ring[slot] = alloc(n);
      benchmark::DoNotOptimize(ring[slot]);
    }
  }
  for (int i = 0; i < kRing; ++i) free(ring[i], ring_size[i]);
  state.SetItemsProcessed(state.iterations() * kW3Iterations);
}

void BM_W3_SizeClassPool(benchmark::State& state) {
  SizeClassPoolOptions options;
  options.check_returns = false;
  auto pool = std::move(SizeClassPool::Create(options)).value();
  SizeClassPool& p = *pool;  // final class: calls are devirtualised
  RunW3(
      state, [&](size_t n) { return p.Allocate(n); },
      [&](void* ptr, size_t n) { p.Deallocate(ptr, n); });
}
BENCHMARK(BM_W3_SizeClassPool)->Unit(benchmark::kMillisecond);

void BM_W3_SizeClassPoolVirtual(benchmark::State& state) {
  SizeClassPoolOptions options;
  options.check_returns = false;
  auto pool = std::move(SizeClassPool::Create(options)).value();
  // Through a volatile: the compiler cannot see the dynamic type, so the
  // calls stay virtual, as for code holding a plain Allocator&.
  Allocator* volatile hidden = pool.get();
  Allocator* p = hidden;
  RunW3(
      state, [&](size_t n) { return p->Allocate(n); },
      [&](void* ptr, size_t n) { p->Deallocate(ptr, n); });
}
BENCHMARK(BM_W3_SizeClassPoolVirtual)->Unit(benchmark::kMillisecond);

void BM_W3_Glibc(benchmark::State& state) {
  RunW3(
      state, [](size_t n) { return std::malloc(n); },
      [](void* ptr, size_t) { std::free(ptr); });
}
BENCHMARK(BM_W3_Glibc)->Unit(benchmark::kMillisecond);

void BM_W3_NoAllocationFloor(benchmark::State& state) {
  static char arena[kRing * 64];
  size_t next = 0;
  RunW3(
      state,
      [&](size_t) {
        next = (next + 1) & (kRing - 1);
        return static_cast<void*>(arena + next * 64);
      },
      [](void* ptr, size_t) { benchmark::DoNotOptimize(ptr); });
}
BENCHMARK(BM_W3_NoAllocationFloor)->Unit(benchmark::kMillisecond);

// ---- Two threads ----

// A single-producer single-consumer ring shared by threads 0 and 1.
struct SpscQueue {
  static constexpr uint64_t kCapacity = 1024;
  alignas(64) std::atomic<uint64_t> head{0};  // next slot to write
  alignas(64) std::atomic<uint64_t> tail{0};  // next slot to read
  alignas(64) void* slots[kCapacity];

  void Push(void* item) {
    const uint64_t h = head.load(std::memory_order_relaxed);
    while (h - tail.load(std::memory_order_acquire) == kCapacity) {
      std::this_thread::yield();
    }
    slots[h % kCapacity] = item;
    head.store(h + 1, std::memory_order_release);
  }
  void* Pop() {
    const uint64_t t = tail.load(std::memory_order_relaxed);
    while (head.load(std::memory_order_acquire) == t) {
      std::this_thread::yield();
    }
    void* item = slots[t % kCapacity];
    tail.store(t + 1, std::memory_order_release);
    return item;
  }
};

SpscQueue& Queue() {
  static SpscQueue* const queue = new SpscQueue;
  return *queue;
}

template <typename Alloc, typename Free>
void RunProducerConsumer(benchmark::State& state, Alloc alloc, Free free) {
  SpscQueue& queue = Queue();
  if (state.thread_index() == 0) {
    uint64_t i = 0;
    for (auto _ : state) {
      auto* cell = static_cast<uint64_t*>(alloc());
      *cell = i++;
      queue.Push(cell);
    }
  } else {
    for (auto _ : state) {
      void* cell = queue.Pop();
      benchmark::DoNotOptimize(*static_cast<uint64_t*>(cell));
      free(cell);
    }
  }
}

void BM_Threads_ProducerConsumer_ConcurrentPool(benchmark::State& state) {
  ConcurrentPool& pool = SharedConcurrentPool();
  RunProducerConsumer(
      state, [&] { return pool.Take(); }, [&](void* p) { pool.Return(p); });
}
BENCHMARK(BM_Threads_ProducerConsumer_ConcurrentPool)
    ->Threads(2)
    ->UseRealTime();

void BM_Threads_ProducerConsumer_Glibc(benchmark::State& state) {
  RunProducerConsumer(
      state, [] { return std::malloc(64); }, [](void* p) { std::free(p); });
}
BENCHMARK(BM_Threads_ProducerConsumer_Glibc)->Threads(2)->UseRealTime();

template <typename Alloc, typename Free>
void RunIndependentChurn(benchmark::State& state, Alloc alloc, Free free) {
  void* ring[kRing];
  for (void*& p : ring) p = alloc();
  uint64_t i = 0;
  for (auto _ : state) {
    const int slot = static_cast<int>(i++ & (kRing - 1));
    free(ring[slot]);
    ring[slot] = alloc();
    benchmark::DoNotOptimize(ring[slot]);
  }
  for (void* p : ring) free(p);
}

void BM_Threads_Churn_ConcurrentPool(benchmark::State& state) {
  ConcurrentPool& pool = SharedConcurrentPool();
  RunIndependentChurn(
      state, [&] { return pool.Take(); }, [&](void* p) { pool.Return(p); });
}
BENCHMARK(BM_Threads_Churn_ConcurrentPool)->Threads(2)->UseRealTime();

void BM_Threads_Churn_Glibc(benchmark::State& state) {
  RunIndependentChurn(
      state, [] { return std::malloc(64); }, [](void* p) { std::free(p); });
}
BENCHMARK(BM_Threads_Churn_Glibc)->Threads(2)->UseRealTime();

// ---- Large buffers: allocate 40 MB, write once, free; 20 rounds ----

struct Interleaved {
  double cold_ms = 0, warm_ms = 0, reuse_ms = 0;
};
// The last repetition's figures of BM_Large_Interleaved, for the summary.
Interleaved& InterleavedRatios() {
  static Interleaved result;
  return result;
}

constexpr size_t kLargeBytes = 40'000'000;
constexpr int kLargeRounds = 20;

void WriteOnce(void* buffer) {
  std::memset(buffer, 0x5A, kLargeBytes);
  benchmark::ClobberMemory();
}

void BM_Large_BufferCacheCold(benchmark::State& state) {
  for (auto _ : state) {
    // A new cache each repetition: round 1 maps and faults, 2..20 reuse.
    auto cache = std::move(BufferCache::Create()).value();
    for (int round = 0; round < kLargeRounds; ++round) {
      void* buffer = cache->Allocate(kLargeBytes);
      WriteOnce(buffer);
      cache->Deallocate(buffer, kLargeBytes);
    }
  }
}
BENCHMARK(BM_Large_BufferCacheCold)->Unit(benchmark::kMillisecond)->Iterations(2);

void BM_Large_BufferCacheWarm(benchmark::State& state) {
  auto cache = std::move(BufferCache::Create()).value();
  cache->Deallocate(cache->Allocate(kLargeBytes), kLargeBytes);
  for (auto _ : state) {
    for (int round = 0; round < kLargeRounds; ++round) {
      void* buffer = cache->Allocate(kLargeBytes);
      WriteOnce(buffer);
      cache->Deallocate(buffer, kLargeBytes);
    }
  }
}
BENCHMARK(BM_Large_BufferCacheWarm)->Unit(benchmark::kMillisecond)->Iterations(2);

void BM_Large_Glibc(benchmark::State& state) {
  for (auto _ : state) {
    for (int round = 0; round < kLargeRounds; ++round) {
      void* buffer = std::malloc(kLargeBytes);
      WriteOnce(buffer);
      std::free(buffer);
    }
  }
}
BENCHMARK(BM_Large_Glibc)->Unit(benchmark::kMillisecond)->Iterations(1);

void BM_Large_ReuseOneBuffer(benchmark::State& state) {
  // The floor: one buffer, faulted in (with huge pages, as BufferCache maps)
  // before timing, written 20 times.
  void* buffer = std::aligned_alloc(size_t{2} << 20, size_t{40} << 20);
  madvise(buffer, size_t{40} << 20, MADV_HUGEPAGE);
  WriteOnce(buffer);
  for (auto _ : state) {
    for (int round = 0; round < kLargeRounds; ++round) WriteOnce(buffer);
  }
  std::free(buffer);
}
BENCHMARK(BM_Large_ReuseOneBuffer)->Unit(benchmark::kMillisecond)->Iterations(2);

// The same three cases interleaved round by round, so that they share the
// machine's conditions (memory bandwidth taken by other tenants swings the
// separate runs above by tens of percent). Reports each case's thread CPU
// time and the ratios to reuse as counters.
double ThreadCpuMs() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

void BM_Large_Interleaved(benchmark::State& state) {
  void* reused = std::aligned_alloc(size_t{2} << 20, size_t{40} << 20);
  madvise(reused, size_t{40} << 20, MADV_HUGEPAGE);
  WriteOnce(reused);
  auto warm = std::move(BufferCache::Create()).value();
  warm->Deallocate(warm->Allocate(kLargeBytes), kLargeBytes);
  double cold_ms = 0, warm_ms = 0, reuse_ms = 0;
  for (auto _ : state) {
    auto cold = std::move(BufferCache::Create()).value();
    for (int round = 0; round < kLargeRounds; ++round) {
      double t0 = ThreadCpuMs();
      void* buffer = cold->Allocate(kLargeBytes);
      WriteOnce(buffer);
      cold->Deallocate(buffer, kLargeBytes);
      double t1 = ThreadCpuMs();
      WriteOnce(reused);
      double t2 = ThreadCpuMs();
      buffer = warm->Allocate(kLargeBytes);
      WriteOnce(buffer);
      warm->Deallocate(buffer, kLargeBytes);
      double t3 = ThreadCpuMs();
      cold_ms += t1 - t0;
      reuse_ms += t2 - t1;
      warm_ms += t3 - t2;
    }
    double t0 = ThreadCpuMs();
    cold.reset();  // unmapping is part of the cold cost
    cold_ms += ThreadCpuMs() - t0;
  }
  std::free(reused);
  const double n = static_cast<double>(state.iterations());
  state.counters["cold_ms"] = cold_ms / n;
  state.counters["warm_ms"] = warm_ms / n;
  state.counters["reuse_ms"] = reuse_ms / n;
  state.counters["cold_over_reuse"] = cold_ms / reuse_ms;
  state.counters["warm_over_reuse"] = warm_ms / reuse_ms;
  InterleavedRatios() = {cold_ms / n, warm_ms / n, reuse_ms / n};
}
BENCHMARK(BM_Large_Interleaved)->Unit(benchmark::kMillisecond)->Iterations(3);

// ---- Summary ----

class MedianCollector : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) {
      if (run.aggregate_name == "median") {
        // ns per iteration whatever the case's unit. CPU time (which counts
        // the kernel's page-fault work) for one thread: on a shared, loaded
        // machine wall time mostly measures the other tenants. Wall time
        // for the two-thread cases, where waiting on each other is the
        // point.
        const bool wall = run.run_name.time_type == "real_time";
        medians_[run.run_name.function_name] =
            (wall ? run.GetAdjustedRealTime() : run.GetAdjustedCPUTime()) *
            1e9 / benchmark::GetTimeUnitMultiplier(run.time_unit);
      }
    }
    ConsoleReporter::ReportRuns(runs);
  }
  double Get(const std::string& name) const {
    auto it = medians_.find(name);
    return it == medians_.end() ? 0 : it->second;
  }

 private:
  std::map<std::string, double> medians_;
};

void PrintRow(const MedianCollector& c, const char* label,
              const std::string& name, const std::string& baseline,
              double per_iteration_divisor, const char* unit,
              double unit_scale) {
  const double ns = c.Get(name);
  const double base = c.Get(baseline);
  if (ns == 0 || base == 0) return;
  std::printf("| %s | %.2f %s | %.2fx |\n", label,
              ns / per_iteration_divisor / unit_scale, unit, ns / base);
}

void PrintSummary(const MedianCollector& c) {
  std::printf("\n== Pools vs glibc (same run, medians of %d) ==\n",
              kRepetitions);
  std::printf("\n| Take+Return pair | time | vs glibc 64 B |\n|---|---|---|\n");
  PrintRow(c, "StackedPool", "BM_TakeReturn_StackedPool",
           "BM_TakeReturn_Glibc64", 1, "ns", 1);
  PrintRow(c, "ConcurrentPool (1 thread)", "BM_TakeReturn_ConcurrentPool",
           "BM_TakeReturn_Glibc64", 1, "ns", 1);
  PrintRow(c, "glibc malloc+free 64 B", "BM_TakeReturn_Glibc64",
           "BM_TakeReturn_Glibc64", 1, "ns", 1);
  std::printf("\n| W3 churn | ns/iter | vs glibc |\n|---|---|---|\n");
  for (const char* name : {"SizeClassPool", "SizeClassPoolVirtual", "Glibc",
                           "NoAllocationFloor"}) {
    PrintRow(c, name, std::string("BM_W3_") + name, "BM_W3_Glibc",
             kW3Iterations, "ns", 1);
  }
  std::printf(
      "\n| Two threads (wall) | ns/op/thread | vs glibc |\n|---|---|---|\n");
  PrintRow(c, "producer/consumer ConcurrentPool",
           "BM_Threads_ProducerConsumer_ConcurrentPool",
           "BM_Threads_ProducerConsumer_Glibc", 1, "ns",
           1);
  PrintRow(c, "producer/consumer glibc",
           "BM_Threads_ProducerConsumer_Glibc",
           "BM_Threads_ProducerConsumer_Glibc", 1, "ns",
           1);
  PrintRow(c, "independent churn ConcurrentPool",
           "BM_Threads_Churn_ConcurrentPool",
           "BM_Threads_Churn_Glibc", 1, "ns", 1);
  PrintRow(c, "independent churn glibc",
           "BM_Threads_Churn_Glibc",
           "BM_Threads_Churn_Glibc", 1, "ns", 1);
  std::printf(
      "\n| 40 MB x20 (alloc, write, free) | ms total | vs reusing one buffer "
      "|\n|---|---|---|\n");
  for (const char* name :
       {"BufferCacheCold", "BufferCacheWarm", "Glibc", "ReuseOneBuffer"}) {
    PrintRow(c, name, std::string("BM_Large_") + name,
             "BM_Large_ReuseOneBuffer", 1, "ms", 1e6);
  }
  const Interleaved& r = InterleavedRatios();
  if (r.reuse_ms > 0) {
    std::printf(
        "\n| 40 MB x20, interleaved round by round (thread CPU) | ms total | "
        "vs reuse |\n|---|---|---|\n");
    std::printf("| BufferCache cold (new cache: maps once) | %.2f ms | %.2fx |\n",
                r.cold_ms, r.cold_ms / r.reuse_ms);
    std::printf("| BufferCache warm | %.2f ms | %.2fx |\n", r.warm_ms,
                r.warm_ms / r.reuse_ms);
    std::printf("| reuse one buffer | %.2f ms | 1.00x |\n", r.reuse_ms);
  }
}

}  // namespace
}  // namespace tessera

int main(int argc, char** argv) {
  // Every case repeats; only medians are reported and summarised.
  std::vector<char*> args(argv, argv + argc);
  std::string reps = "--benchmark_repetitions=" +
                     std::to_string(tessera::kRepetitions);
  std::string aggregates = "--benchmark_report_aggregates_only=true";
  args.insert(args.begin() + 1, {reps.data(), aggregates.data()});
  int new_argc = static_cast<int>(args.size());
  benchmark::Initialize(&new_argc, args.data());
  if (benchmark::ReportUnrecognizedArguments(new_argc, args.data())) return 1;
  tessera::MedianCollector collector;
  benchmark::RunSpecifiedBenchmarks(&collector);
  tessera::PrintSummary(collector);
  benchmark::Shutdown();
  return 0;
}
