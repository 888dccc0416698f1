// Copyright 2026 The Tessera Authors.
//
// Loading a 400 MB .npy (1e8 float32, in the page cache) into a new tensor
// and mapping it, against np.load and np.load(mmap_mode='r') on the same
// file in the same run:
//   tools/bazel run --config=opt //tensor:npy_benchmark --
//       --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
// (one line)
//   /usr/bin/python3 tensor/npy_benchmark_numpy.py
// Both use /tmp/tessera_npy_bench.npy (written by whichever runs first, with
// np.save's bytes either way). Wall time: the load is a copy out of the page
// cache plus the page faults of the fresh tensor.

#include <sys/stat.h>

#include <cstdint>
#include <string>

#include "benchmark/benchmark.h"
#include "tensor/npy.h"

namespace tessera {
namespace {

constexpr int64_t kElements = 100000000;  // 400 MB of float32
const char kPath[] = "/tmp/tessera_npy_bench.npy";

void EnsureFile() {
  struct stat st;
  if (::stat(kPath, &st) == 0 &&
      st.st_size == 128 + kElements * static_cast<int64_t>(sizeof(float))) {
    return;
  }
  auto t = arange(0, kElements, 1, DType::kFloat32);
  if (!t.ok() || !SaveNpy(kPath, *t).ok()) std::abort();
}

void BM_LoadNpy400MB(benchmark::State& state) {
  EnsureFile();
  for (auto _ : state) {
    auto t = LoadNpy(kPath);
    benchmark::DoNotOptimize(t->data());
  }
  state.SetBytesProcessed(state.iterations() * kElements * 4);
}
BENCHMARK(BM_LoadNpy400MB)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_LoadNpyMmap400MB(benchmark::State& state) {
  EnsureFile();
  for (auto _ : state) {
    auto t = LoadNpyMmap(kPath);
    benchmark::DoNotOptimize(t->data());
  }
}
BENCHMARK(BM_LoadNpyMmap400MB)->Unit(benchmark::kMicrosecond)->UseRealTime();

void BM_SaveNpy400MB(benchmark::State& state) {
  auto t = arange(0, kElements, 1, DType::kFloat32);
  for (auto _ : state) {
    if (!SaveNpy("/tmp/tessera_npy_bench_out.npy", *t).ok()) std::abort();
  }
  state.SetBytesProcessed(state.iterations() * kElements * 4);
}
BENCHMARK(BM_SaveNpy400MB)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace tessera

BENCHMARK_MAIN();
