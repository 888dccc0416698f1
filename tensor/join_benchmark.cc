// Copyright 2026 The Tessera Authors.
//
// concatenate of two 1e7-element float32 arrays (80 MB out), and the smaller
// 1e3 case, against np.concatenate in the same run:
//   tools/bazel run --config=opt //tensor:join_benchmark --
//       --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
// (one line)
//   /usr/bin/python3 tensor/join_benchmark_numpy.py
// Wall time (the large copy runs on the thread pool).

#include <cstdint>

#include "benchmark/benchmark.h"
#include "tensor/join.h"

namespace tessera {
namespace {

void BM_Concatenate_F32(benchmark::State& state) {
  const int64_t n = state.range(0);
  const Tensor a = *arange(0, n, 1, DType::kFloat32);
  const Tensor b = *arange(n, 2 * n, 1, DType::kFloat32);
  for (auto _ : state) {
    auto c = concatenate({a, b});
    benchmark::DoNotOptimize(c->data());
  }
  state.SetBytesProcessed(state.iterations() * 2 * n * 4);
}
BENCHMARK(BM_Concatenate_F32)->Arg(1000)->Arg(10000000)->UseRealTime();

void BM_Stack_F32(benchmark::State& state) {
  const int64_t n = state.range(0);
  const Tensor a = *arange(0, n, 1, DType::kFloat32);
  for (auto _ : state) {
    auto c = stack({a, a}, 1);
    benchmark::DoNotOptimize(c->data());
  }
}
BENCHMARK(BM_Stack_F32)->Arg(1000)->Arg(1000000)->UseRealTime();

}  // namespace
}  // namespace tessera

BENCHMARK_MAIN();
