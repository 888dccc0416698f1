// Copyright 2026 The Tessera Authors.
//
// matmul of n x n float32/float64 matrices through the cache-blocked Highway
// kernel, against a naive i-p-j loop in the same binary (what the kernel
// replaces), and a float32 reduction over several axes. Run with
//   tools/bazel run --config=opt //tensor:linalg_benchmark
// NumPy's figure for the same product on this machine:
//   /usr/bin/python3 -m timeit -s "import numpy as np; a = np.ones((256, 256),
//   np.float32)" "a @ a"

#include <cstdint>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "tensor/linalg.h"
#include "tensor/reduce.h"
#include "tensor/view.h"

namespace tessera {
namespace {

Tensor Square(int64_t n, DType dtype) {
  return *astype(*reshape(*arange(0, n * n, 1, DType::kFloat64), {n, n}),
                 dtype);
}

// matmul of an n x n `dtype` matrix with itself, n = state.range(0).
void MatMulBlocked(benchmark::State& state, DType dtype) {
  const int64_t n = state.range(0);
  const Tensor a = Square(n, dtype);
  for (auto _ : state) {
    auto c = matmul(a, a);
    benchmark::DoNotOptimize(c->data());
  }
  state.counters["GFLOP/s"] = benchmark::Counter(
      2.0 * n * n * n, benchmark::Counter::kIsIterationInvariantRate,
      benchmark::Counter::kIs1000);
}

void BM_MatMul_Blocked_F32(benchmark::State& state) {
  MatMulBlocked(state, DType::kFloat32);
}
BENCHMARK(BM_MatMul_Blocked_F32)->Arg(64)->Arg(256)->Arg(512);

void BM_MatMul_Blocked_F64(benchmark::State& state) {
  MatMulBlocked(state, DType::kFloat64);
}
BENCHMARK(BM_MatMul_Blocked_F64)->Arg(256);

// The naive i-p-j loop the kernel replaces (vectorised by the compiler only
// as far as -O3 allows without -ffast-math).
void BM_MatMul_NaiveLoop_F32(benchmark::State& state) {
  const int64_t n = state.range(0);
  std::vector<float> a(static_cast<size_t>(n * n)), c(a.size());
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(i);
  for (auto _ : state) {
    for (int64_t i = 0; i < n; ++i) {
      float* row = c.data() + i * n;
      for (int64_t j = 0; j < n; ++j) row[j] = 0;
      for (int64_t p = 0; p < n; ++p) {
        const float x = a[i * n + p];
        const float* b = a.data() + p * n;
        for (int64_t j = 0; j < n; ++j) row[j] += x * b[j];
      }
    }
    benchmark::DoNotOptimize(c.data());
  }
  state.counters["GFLOP/s"] = benchmark::Counter(
      2.0 * n * n * n, benchmark::Counter::kIsIterationInvariantRate,
      benchmark::Counter::kIs1000);
}
BENCHMARK(BM_MatMul_NaiveLoop_F32)->Arg(64)->Arg(256)->Arg(512);

// Reductions of a C-contiguous (100, 100, 100) float32 tensor over the axes
// NumPy's figures below were measured for (CPU time, same machine):
//   /usr/bin/python3 -c "import numpy as np, timeit; t = np.arange(10**6,
//   dtype=np.float32).reshape(100, 100, 100); print(timeit.timeit(lambda:
//   t.sum(axis=(0, 2)), number=100) / 100)"
const std::vector<int> kAxisSets[] = {{0, 2}, {0, 1}, {1, 2}, {0}, {2}};

void BM_Sum_F32_100Cubed(benchmark::State& state) {
  const std::vector<int>& axes = kAxisSets[state.range(0)];
  auto t = reshape(*astype(*arange(1'000'000), DType::kFloat32),
                   {100, 100, 100});
  for (auto _ : state) {
    auto s = sum(*t, axes);
    benchmark::DoNotOptimize(s->data());
  }
  std::string label = "axis=(";
  for (int a : axes) label += std::to_string(a) + ",";
  state.SetLabel(label + ")");
}
BENCHMARK(BM_Sum_F32_100Cubed)->DenseRange(0, 4);

}  // namespace
}  // namespace tessera

BENCHMARK_MAIN();
