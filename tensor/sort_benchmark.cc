// Copyright 2026 The Tessera Authors.
//
// sort and argsort of 1e6 random float32 and int32 against np.sort and
// np.argsort (NumPy 1.24: introsort / radix-free quicksort) in the same run:
//   tools/bazel run --config=opt //tensor:sort_benchmark --
//       --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
// (one line), then
//   /usr/bin/python3 tensor/sort_benchmark_numpy.py
// Both sort the same values (a fixed pseudo-random permutation); the copy of
// the input that sort makes is part of the timing on both sides.

#include <cstdint>
#include <random>
#include <vector>

#include "benchmark/benchmark.h"
#include "tensor/sort.h"

namespace tessera {
namespace {

template <typename T>
Tensor RandomTensor(int64_t n) {
  std::mt19937 rng(1);
  std::vector<T> v(static_cast<size_t>(n));
  for (auto& x : v) x = static_cast<T>(static_cast<int32_t>(rng()) / 16);
  return *FromVector<T>(v);
}

template <typename T>
void BM_Sort(benchmark::State& state) {
  const Tensor t = RandomTensor<T>(state.range(0));
  for (auto _ : state) {
    auto s = sort(t);
    benchmark::DoNotOptimize(s->data());
  }
}
BENCHMARK_TEMPLATE(BM_Sort, float)->Arg(1000000)->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(BM_Sort, int32_t)->Arg(1000000)->Unit(benchmark::kMillisecond);

template <typename T>
void BM_Argsort(benchmark::State& state) {
  const Tensor t = RandomTensor<T>(state.range(0));
  for (auto _ : state) {
    auto s = argsort(t);
    benchmark::DoNotOptimize(s->data());
  }
}
BENCHMARK_TEMPLATE(BM_Argsort, float)->Arg(1000000)->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(BM_Argsort, int32_t)->Arg(1000000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace tessera

BENCHMARK_MAIN();
