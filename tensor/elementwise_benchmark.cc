// Copyright 2026 The Tessera Authors.
//
// Elementwise ufuncs beyond `add` (which bench/tensor_benchmark.cc covers
// against NumPy): one case per kernel family, into an existing output, at
// 1e3 (per-call overhead) and 1e6 (throughput) float32 elements (int32 for
// the integer remainder and power); `where` allocates its result on both sides.
//
//   tools/bazel run --config=opt //tensor:elementwise_benchmark
//
// The NumPy side of the same cases, for ratios (run in the same session):
//
//   /usr/bin/python3 tensor/elementwise_benchmark_numpy.py

#include <cstdint>
#include <string>
#include <utility>

#include "benchmark/benchmark.h"
#include "tensor/binary.h"
#include "tensor/tensor.h"
#include "tensor/ternary.h"
#include "tensor/testing/benchmark_checks.h"
#include "tensor/unary.h"

namespace tessera {
namespace {

using benchmark_checks::Check;
using benchmark_checks::Ok;

// Values in [-n/2, n/2) scaled into [-50, 50): every function's vector path
// (no lane outside contrib/math's valid range except log's negatives).
Tensor Values(int64_t n, DType dtype = DType::kFloat32) {
  const double scale = 100.0 / static_cast<double>(n);
  return Ok(arange(-50.0, 50.0 - scale / 2, scale, dtype));
}

template <class Fn>
void Run(benchmark::State& state, Fn fn) {
  for (auto _ : state) {
    fn();
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

void BM_Less(benchmark::State& state) {
  Tensor a = Values(state.range(0));
  Tensor b = Ok(full({state.range(0)}, 0.5, DType::kFloat32));
  Tensor out = Ok(empty({state.range(0)}, DType::kBool));
  Run(state, [&] { Check(less(a, b, out)); });
}

void BM_Fmax(benchmark::State& state) {
  Tensor a = Values(state.range(0));
  Tensor b = Ok(full({state.range(0)}, 0.5, DType::kFloat32));
  Tensor out = Ok(empty({state.range(0)}, DType::kFloat32));
  Run(state, [&] { Check(fmax(a, b, out)); });
}

void BM_FloorDivide(benchmark::State& state) {
  Tensor a = Values(state.range(0));
  Tensor b = Ok(full({state.range(0)}, 3.0, DType::kFloat32));
  Tensor out = Ok(empty({state.range(0)}, DType::kFloat32));
  Run(state, [&] { Check(floor_divide(a, b, out)); });
}

void BM_RemainderInt32(benchmark::State& state) {
  Tensor a = Ok(arange(0, state.range(0), 1, DType::kInt32));
  Tensor b = Ok(full({state.range(0)}, 7, DType::kInt32));
  Tensor out = Ok(empty({state.range(0)}, DType::kInt32));
  Run(state, [&] { Check(remainder(a, b, out)); });
}

// Small exponents (0..3), as squares and cubes are what power mostly does.
void BM_PowerInt32(benchmark::State& state) {
  Tensor a = Ok(arange(0, state.range(0), 1, DType::kInt32));
  Tensor e = Ok(remainder(a, 4));
  Tensor out = Ok(empty({state.range(0)}, DType::kInt32));
  Run(state, [&] { Check(power(a, e, out)); });
}

template <UnaryOp kOp>
void BM_Unary(benchmark::State& state) {
  Tensor a = Values(state.range(0));
  Tensor out = Ok(empty({state.range(0)}, UnaryResultType(kOp, DType::kFloat32)
                                              .value()));
  Run(state, [&] { Check(UnaryInto(kOp, a, out)); });
}

// Allocating, as np.where has no `out`.
void BM_Where(benchmark::State& state) {
  Tensor a = Values(state.range(0));
  Tensor mask = Ok(less(a, 0.0));
  Run(state, [&] { benchmark::DoNotOptimize(Ok(where(mask, a, 0.0f))); });
}

void BM_Clip(benchmark::State& state) {
  Tensor a = Values(state.range(0));
  Tensor out = Ok(empty({state.range(0)}, DType::kFloat32));
  Run(state, [&] { Check(clip(a, -1.0, 1.0, out)); });
}

#define SIZES ->Arg(1000)->Arg(1000000)
BENCHMARK(BM_Less) SIZES;
BENCHMARK(BM_Fmax) SIZES;
BENCHMARK(BM_FloorDivide) SIZES;
BENCHMARK(BM_RemainderInt32) SIZES;
BENCHMARK(BM_PowerInt32) SIZES;
BENCHMARK_TEMPLATE(BM_Unary, UnaryOp::kAbs) SIZES;
BENCHMARK_TEMPLATE(BM_Unary, UnaryOp::kSqrt) SIZES;
BENCHMARK_TEMPLATE(BM_Unary, UnaryOp::kExp) SIZES;
BENCHMARK_TEMPLATE(BM_Unary, UnaryOp::kSin) SIZES;
BENCHMARK_TEMPLATE(BM_Unary, UnaryOp::kTanh) SIZES;
BENCHMARK_TEMPLATE(BM_Unary, UnaryOp::kIsNan) SIZES;
BENCHMARK(BM_Where) SIZES;
BENCHMARK(BM_Clip) SIZES;
#undef SIZES

}  // namespace
}  // namespace tessera

BENCHMARK_MAIN();
