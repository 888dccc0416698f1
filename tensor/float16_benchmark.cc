// Copyright 2026 The Tessera Authors.
//
// float16 against NumPy: a + b (computed in float32 and rounded once, as
// NumPy's half loop does), into an existing output and allocating, at 1e3
// and 1e6 elements, and the two conversions it is made of.
//
//   tools/bazel run --config=opt //tensor:float16_benchmark
//
// The NumPy side of the same cases, for ratios (run in the same session):
//
//   /usr/bin/python3 tensor/float16_benchmark_numpy.py

#include <cstdint>
#include <cstdlib>
#include <string>
#include <utility>

#include "benchmark/benchmark.h"
#include "tensor/binary.h"
#include "tensor/reduce.h"
#include "tensor/tensor.h"
#include "tensor/testing/benchmark_checks.h"

namespace tessera {
namespace {

using benchmark_checks::Ok;

// Values in [-50, 50) as float16 (many of them not exact: rounding on).
Tensor Values(int64_t n, DType dtype) {
  const double scale = 100.0 / static_cast<double>(n);
  return Ok(astype(Ok(arange(-50.0, 50.0 - scale / 2, scale, DType::kFloat32)),
                   dtype));
}

template <class Fn>
void Run(benchmark::State& state, Fn fn) {
  for (auto _ : state) {
    fn();
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

void BM_AddFloat16Into(benchmark::State& state) {
  const Tensor a = Values(state.range(0), DType::kFloat16);
  const Tensor b = Ok(full({state.range(0)}, 0.3, DType::kFloat16));
  const Tensor out = Ok(empty({state.range(0)}, DType::kFloat16));
  Run(state, [&] {
    if (!add(a, b, out).ok()) std::abort();
  });
}

void BM_AddFloat16(benchmark::State& state) {
  const Tensor a = Values(state.range(0), DType::kFloat16);
  const Tensor b = Ok(full({state.range(0)}, 0.3, DType::kFloat16));
  Run(state, [&] { benchmark::DoNotOptimize(Ok(add(a, b))); });
}

void BM_Float32ToFloat16(benchmark::State& state) {
  const Tensor a = Values(state.range(0), DType::kFloat32);
  Run(state, [&] { benchmark::DoNotOptimize(Ok(astype(a, DType::kFloat16))); });
}

void BM_Float16ToFloat32(benchmark::State& state) {
  const Tensor a = Values(state.range(0), DType::kFloat16);
  Run(state, [&] { benchmark::DoNotOptimize(Ok(astype(a, DType::kFloat32))); });
}

void BM_SumFloat16(benchmark::State& state) {
  const Tensor a = Values(state.range(0), DType::kFloat16);
  Run(state, [&] { benchmark::DoNotOptimize(Ok(sum(a))); });
}

#define SIZES ->Arg(1000)->Arg(1000000)
BENCHMARK(BM_AddFloat16Into) SIZES;
BENCHMARK(BM_AddFloat16) SIZES;
BENCHMARK(BM_Float32ToFloat16) SIZES;
BENCHMARK(BM_Float16ToFloat32) SIZES;
BENCHMARK(BM_SumFloat16) SIZES;
#undef SIZES

}  // namespace
}  // namespace tessera

BENCHMARK_MAIN();
