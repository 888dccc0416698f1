// Copyright 2026 The Tessera Authors.
//
// cumsum of 1e7 float32 (and 1e3), against np.cumsum in the same run:
//   tools/bazel run --config=opt //tensor:scan_benchmark --
//       --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
// (one line), then
//   /usr/bin/python3 tensor/scan_benchmark_numpy.py
// CPU time per call; both accumulate sequentially in float32.

#include <cstdint>

#include "benchmark/benchmark.h"
#include "tensor/scan.h"

namespace tessera {
namespace {

void BM_Cumsum_F32(benchmark::State& state) {
  const int64_t n = state.range(0);
  const Tensor t = *arange(0.0, 1.0, 1.0 / static_cast<double>(n),
                           DType::kFloat32);
  for (auto _ : state) {
    auto c = cumsum(t);
    benchmark::DoNotOptimize(c->data());
  }
}
BENCHMARK(BM_Cumsum_F32)->Arg(1000)->Arg(10000000);

}  // namespace
}  // namespace tessera

BENCHMARK_MAIN();
