// Copyright 2026 The Tessera Authors.
//
// Per-call cost of every reduction on 1e3 and 1e6 contiguous float32
// elements (axis=None), to compare with NumPy's on the same machine:
//   tools/bazel run --config=opt //tensor:reduce_benchmark
//   /usr/bin/python3 tensor/reduce_benchmark_numpy.py

#include <cstdint>

#include "benchmark/benchmark.h"
#include "tensor/reduce.h"

namespace tessera {
namespace {

enum Op { kSum, kProd, kMin, kMax, kMean, kVar, kAll, kAny, kArgmin, kArgmax };
const char* const kNames[] = {"sum",  "prod", "min", "max",    "mean",
                              "var",  "all",  "any", "argmin", "argmax"};

absl::StatusOr<Tensor> Run(Op op, const Tensor& t) {
  switch (op) {
    case kSum: return sum(t);
    case kProd: return prod(t);
    case kMin: return min(t);
    case kMax: return max(t);
    case kMean: return mean(t);
    case kVar: return var(t);
    case kAll: return all(t);
    case kAny: return any(t);
    case kArgmin: return argmin(t);
    case kArgmax: return argmax(t);
  }
  return sum(t);
}

void BM_Reduce_F32(benchmark::State& state) {
  const Op op = static_cast<Op>(state.range(0));
  const int64_t n = state.range(1);
  // Values in [1, 2): products stay finite for a while, nothing is zero.
  auto t = astype(*arange(1.0, 2.0, 1.0 / static_cast<double>(n)),
                  DType::kFloat32);
  for (auto _ : state) {
    auto r = Run(op, *t);
    benchmark::DoNotOptimize(r->data());
  }
  state.SetLabel(kNames[op]);
}
BENCHMARK(BM_Reduce_F32)->ArgsProduct({benchmark::CreateDenseRange(0, 9, 1),
                                       {1000, 1000000}});

}  // namespace
}  // namespace tessera

BENCHMARK_MAIN();
