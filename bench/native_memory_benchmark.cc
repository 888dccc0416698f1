// Copyright 2026 The Tessera Authors.
//
// The NativeMemory table, measured on this machine: what an allocation round
// trip costs with glibc directly and with each Tessera system allocator, and
// what zeroed memory really costs once it is written.
//
//   tools/bazel run --config=opt //bench:native_memory_benchmark
//
// Every figure is also printed as a ratio to glibc malloc+free of the same
// size, measured in the same run (the machines are shared and noisy; only
// same-run ratios mean anything). Each case runs five repetitions, randomly
// interleaved with the other cases' repetitions, and the table shows the
// median.

#include <sys/mman.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "alloc/system/system_allocator.h"
#include "benchmark/benchmark.h"

namespace tessera {
namespace {

constexpr size_t kSizes[] = {64, 1024, 100 * 1024, 10 * 1000 * 1000};

SystemAllocatorOptions ReleaseOptions() {
  SystemAllocatorOptions options;
  options.track_live_blocks = false;  // what an optimised build gets
  return options;
}

// Writes every byte of [p, p + bytes) once, where the compiler must do it.
void WriteOnce(void* p, size_t bytes) {
  std::memset(p, 0x5A, bytes);
  benchmark::ClobberMemory();
}

// Per iteration: p = allocate(bytes), escaped, written once if kWrite, and
// std::free(p).
template <bool kWrite, typename Allocate>
void GlibcLoop(benchmark::State& state, Allocate allocate) {
  const size_t bytes = state.range(0);
  for (auto _ : state) {
    void* p = allocate(bytes);
    benchmark::DoNotOptimize(p);
    if constexpr (kWrite) WriteOnce(p, bytes);
    std::free(p);
  }
}

// ---- Round trip: allocate, make the pointer escape, free. ----

void BM_RoundTrip_GlibcMalloc(benchmark::State& state) {
  GlibcLoop</*kWrite=*/false>(state, [](size_t n) { return std::malloc(n); });
}

void BM_RoundTrip_GlibcAlignedAlloc64(benchmark::State& state) {
  GlibcLoop</*kWrite=*/false>(
      state, [](size_t n) { return std::aligned_alloc(64, n); });
}

void BM_RoundTrip_GlibcCalloc(benchmark::State& state) {
  GlibcLoop</*kWrite=*/false>(state,
                              [](size_t n) { return std::calloc(1, n); });
}

template <typename MakeAllocator>
void RoundTrip(benchmark::State& state, MakeAllocator make, size_t alignment) {
  auto allocator = make();
  const size_t bytes = state.range(0);
  for (auto _ : state) {
    void* p = allocator->Allocate(bytes, alignment);
    benchmark::DoNotOptimize(p);
    allocator->Deallocate(p, bytes, alignment);
  }
  if (allocator->stats().failed_requests != 0) state.SkipWithError("failures");
}

void BM_RoundTrip_TesseraMalloc(benchmark::State& state) {
  RoundTrip(state, [] { return std::make_unique<MallocAllocator>(ReleaseOptions()); },
            kDefaultAlignment);
}

void BM_RoundTrip_TesseraAligned32(benchmark::State& state) {
  RoundTrip(state, [] { return std::make_unique<AlignedAllocator>(32, ReleaseOptions()); },
            32);
}

void BM_RoundTrip_TesseraAligned64(benchmark::State& state) {
  RoundTrip(state, [] { return std::make_unique<AlignedAllocator>(64, ReleaseOptions()); },
            64);
}

void BM_RoundTrip_TesseraZeroed(benchmark::State& state) {
  RoundTrip(state, [] { return std::make_unique<ZeroedAllocator>(kDefaultAlignment, ReleaseOptions()); },
            kDefaultAlignment);
}

// The debug registry's cost: what a debug or sanitizer build pays per call.
void BM_RoundTrip_TesseraAligned64Tracked(benchmark::State& state) {
  RoundTrip(state, [] {
    SystemAllocatorOptions options;
    options.track_live_blocks = true;
    return std::make_unique<AlignedAllocator>(64, options);
  }, 64);
}

// ---- Zeroed memory, honestly: allocate, then write every byte once. ----
// calloc of a large block is lazy (fresh zero pages from the kernel), so the
// zeroing cost moves to the page faults of the first write. These cases pay
// the whole bill: allocation, zeroing, and one full write.

// Per iteration: a block of `allocator` aligned to 64, escaped, written
// once and freed; then, if kReleaseCache, the calling thread's cache goes
// back to glibc.
template <bool kReleaseCache, typename SomeAllocator>
void WriteLoop(benchmark::State& state, SomeAllocator& allocator) {
  const size_t bytes = state.range(0);
  for (auto _ : state) {
    void* p = allocator.Allocate(bytes, 64);
    benchmark::DoNotOptimize(p);
    WriteOnce(p, bytes);
    allocator.Deallocate(p, bytes, 64);
    if constexpr (kReleaseCache) ReleaseCallingThreadCache();
  }
}

void BM_ZeroedThenWrite_TesseraZeroed(benchmark::State& state) {
  ZeroedAllocator allocator(64, ReleaseOptions());
  WriteLoop</*kReleaseCache=*/false>(state, allocator);
}

void BM_ZeroedThenWrite_GlibcMallocMemset(benchmark::State& state) {
  const size_t bytes = state.range(0);
  for (auto _ : state) {
    void* p = std::malloc(bytes);
    // The escape stops the compiler from fusing malloc+memset into calloc.
    benchmark::DoNotOptimize(p);
    benchmark::ClobberMemory();
    std::memset(p, 0, bytes);
    benchmark::ClobberMemory();
    WriteOnce(p, bytes);
    std::free(p);
  }
}

// No zeroing at all: the floor, first touch only.
void BM_FirstTouch_GlibcMalloc(benchmark::State& state) {
  GlibcLoop</*kWrite=*/true>(state, [](size_t n) { return std::malloc(n); });
}

// The aligned allocator keeps freed big blocks in a per-thread cache, which
// would turn every iteration after the first into a reuse of resident pages.
// Releasing the cache each time (to glibc, in the timed loop, as glibc's own
// free would) keeps these rows a true first touch; the Reuse row shows what
// the cache does for a buffer freed and allocated again.
void BM_FirstTouch_TesseraAligned64(benchmark::State& state) {
  AlignedAllocator allocator(64, ReleaseOptions());
  WriteLoop</*kReleaseCache=*/true>(state, allocator);
}

void BM_ReuseThenWrite_TesseraAligned64(benchmark::State& state) {
  AlignedAllocator allocator(64, ReleaseOptions());
  WriteLoop</*kReleaseCache=*/false>(state, allocator);
  ReleaseCallingThreadCache();
}

void BM_FirstTouch_TesseraAligned64NoHugePages(benchmark::State& state) {
  SystemAllocatorOptions options = ReleaseOptions();
  options.huge_pages = false;
  AlignedAllocator allocator(64, options);
  WriteLoop</*kReleaseCache=*/true>(state, allocator);
}

void SizeArgs(benchmark::internal::Benchmark* b) {
  for (size_t size : kSizes) b->Arg(static_cast<int64_t>(size));
  b->Repetitions(5)->ReportAggregatesOnly(true)->MinTime(0.05);
}

void LargeSizeArgs(benchmark::internal::Benchmark* b) {
  b->Arg(1 << 20)->Arg(10 * 1000 * 1000)->Arg(40 * 1000 * 1000);
  b->Repetitions(5)->ReportAggregatesOnly(true)->MinTime(0.05);
}

BENCHMARK(BM_RoundTrip_GlibcMalloc)->Apply(SizeArgs);
BENCHMARK(BM_RoundTrip_GlibcAlignedAlloc64)->Apply(SizeArgs);
BENCHMARK(BM_RoundTrip_GlibcCalloc)->Apply(SizeArgs);
BENCHMARK(BM_RoundTrip_TesseraMalloc)->Apply(SizeArgs);
BENCHMARK(BM_RoundTrip_TesseraAligned32)->Apply(SizeArgs);
BENCHMARK(BM_RoundTrip_TesseraAligned64)->Apply(SizeArgs);
BENCHMARK(BM_RoundTrip_TesseraZeroed)->Apply(SizeArgs);
BENCHMARK(BM_RoundTrip_TesseraAligned64Tracked)->Apply(SizeArgs);
BENCHMARK(BM_ZeroedThenWrite_TesseraZeroed)->Apply(LargeSizeArgs);
BENCHMARK(BM_ZeroedThenWrite_GlibcMallocMemset)->Apply(LargeSizeArgs);
BENCHMARK(BM_FirstTouch_GlibcMalloc)->Apply(LargeSizeArgs);
BENCHMARK(BM_FirstTouch_TesseraAligned64)->Apply(LargeSizeArgs);
BENCHMARK(BM_FirstTouch_TesseraAligned64NoHugePages)->Apply(LargeSizeArgs);
BENCHMARK(BM_ReuseThenWrite_TesseraAligned64)->Apply(LargeSizeArgs);

// Collects the median of each case for the summary table.
class MedianCollector : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) {
      if (run.aggregate_name == "median") {
        medians_[run.run_name.function_name][run.run_name.args] =
            run.GetAdjustedRealTime();
      }
    }
    ConsoleReporter::ReportRuns(runs);
  }
  // function -> args -> ns per iteration
  std::map<std::string, std::map<std::string, double>> medians_;
};

std::string Human(const std::string& args) {
  const double bytes = std::stod(args);
  char buf[32];
  if (bytes >= 1e6) std::snprintf(buf, sizeof(buf), "%g MB", bytes / 1e6);
  else if (bytes >= 1024) std::snprintf(buf, sizeof(buf), "%g KiB", bytes / 1024);
  else std::snprintf(buf, sizeof(buf), "%g B", bytes);
  return buf;
}

void PrintTable(const MedianCollector& c, const std::string& title,
                const std::vector<std::string>& cases,
                const std::string& baseline) {
  auto base_it = c.medians_.find(baseline);
  if (base_it == c.medians_.end()) return;
  // Columns by size, not by the map's string order.
  std::vector<std::string> columns;
  for (const auto& [args, ns] : base_it->second) columns.push_back(args);
  std::sort(columns.begin(), columns.end(),
            [](const std::string& a, const std::string& b) {
              return std::stod(a) < std::stod(b);
            });
  std::printf("\n%s (median ns per iteration; ratio to %s)\n", title.c_str(),
              baseline.c_str());
  std::printf("| case |");
  for (const std::string& args : columns) std::printf(" %s |", Human(args).c_str());
  std::printf("\n|---|");
  for (size_t i = 0; i < columns.size(); ++i) std::printf("---|");
  std::printf("\n");
  for (const std::string& name : cases) {
    auto it = c.medians_.find(name);
    if (it == c.medians_.end()) continue;
    std::printf("| %s |", name.substr(name.find('_') + 1).c_str());
    for (const std::string& args : columns) {
      const double base_ns = base_it->second.at(args);
      auto cell = it->second.find(args);
      if (cell == it->second.end()) {
        std::printf(" - |");
        continue;
      }
      const double ns = cell->second;
      if (ns >= 1e6) std::printf(" %.2f ms (%.2fx) |", ns / 1e6, ns / base_ns);
      else if (ns >= 1e4) std::printf(" %.1f us (%.2fx) |", ns / 1e3, ns / base_ns);
      else std::printf(" %.1f ns (%.2fx) |", ns, ns / base_ns);
    }
    std::printf("\n");
  }
}

}  // namespace
}  // namespace tessera

int main(int argc, char** argv) {
  // Interleave the repetitions of all cases, so that a burst of load on this
  // shared machine hits every case instead of skewing one ratio.
  std::vector<char*> args(argv, argv + argc);
  char interleave[] = "--benchmark_enable_random_interleaving=true";
  args.insert(args.begin() + 1, interleave);
  argc = static_cast<int>(args.size());
  argv = args.data();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  tessera::MedianCollector collector;
  benchmark::RunSpecifiedBenchmarks(&collector);
  tessera::PrintTable(collector, "Allocation round trip",
                      {"BM_RoundTrip_GlibcMalloc", "BM_RoundTrip_GlibcAlignedAlloc64",
                       "BM_RoundTrip_GlibcCalloc", "BM_RoundTrip_TesseraMalloc",
                       "BM_RoundTrip_TesseraAligned32", "BM_RoundTrip_TesseraAligned64",
                       "BM_RoundTrip_TesseraZeroed",
                       "BM_RoundTrip_TesseraAligned64Tracked"},
                      "BM_RoundTrip_GlibcMalloc");
  tessera::PrintTable(collector, "Allocate, zero and write every byte once",
                      {"BM_FirstTouch_GlibcMalloc", "BM_ZeroedThenWrite_GlibcMallocMemset",
                       "BM_ZeroedThenWrite_TesseraZeroed", "BM_FirstTouch_TesseraAligned64",
                       "BM_FirstTouch_TesseraAligned64NoHugePages",
                       "BM_ReuseThenWrite_TesseraAligned64"},
                      "BM_FirstTouch_GlibcMalloc");
  benchmark::Shutdown();
  return 0;
}
