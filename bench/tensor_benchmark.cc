// Copyright 2026 The Tessera Authors.
//
// The tensor engine against the cases of the tensor issue, at 1e3, 1e5 and
// 1e7 float32 elements:
//   a + b into an existing output, allocating a + b, sum, arange, zeros.
// bench/tensor_numpy_bench.py times the same cases with NumPy and, given this
// binary's JSON output, prints the ratios:
//
//   tools/bazel run --config=opt //bench:tensor_benchmark --
//       --benchmark_format=json > /tmp/tensor.json   (one line)
//   /usr/bin/python3 bench/tensor_numpy_bench.py /tmp/tensor.json

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>

#include "benchmark/benchmark.h"
#include "tensor/binary.h"
#include "tensor/reduce.h"
#include "tensor/tensor.h"

namespace tessera {
namespace {

Tensor Ok(absl::StatusOr<Tensor> t) {
  if (!t.ok()) {
    std::fprintf(stderr, "tensor_benchmark: %s\n",
                 std::string(t.status().message()).c_str());
    std::abort();
  }
  return *std::move(t);
}

void SetBytes(benchmark::State& state, int64_t n, int arrays) {
  state.SetBytesProcessed(state.iterations() * n * arrays *
                          static_cast<int64_t>(sizeof(float)));
  state.SetItemsProcessed(state.iterations() * n);
}

void BM_AddInto(benchmark::State& state) {
  const int64_t n = state.range(0);
  Tensor a = Ok(arange(0, n, 1, DType::kFloat32));
  Tensor b = Ok(ones({n}, DType::kFloat32));
  Tensor out = Ok(empty({n}, DType::kFloat32));
  for (auto _ : state) {
    absl::Status s = add(a, b, out);
    benchmark::DoNotOptimize(s);
    benchmark::ClobberMemory();
  }
  SetBytes(state, n, 3);
}

void BM_AddAllocating(benchmark::State& state) {
  const int64_t n = state.range(0);
  Tensor a = Ok(arange(0, n, 1, DType::kFloat32));
  Tensor b = Ok(ones({n}, DType::kFloat32));
  for (auto _ : state) {
    auto c = add(a, b);
    benchmark::DoNotOptimize(c);
  }
  SetBytes(state, n, 3);
}

void BM_Sum(benchmark::State& state) {
  const int64_t n = state.range(0);
  Tensor a = Ok(ones({n}, DType::kFloat32));
  for (auto _ : state) {
    auto s = sum(a);
    benchmark::DoNotOptimize(s);
  }
  SetBytes(state, n, 1);
}

void BM_Arange(benchmark::State& state) {
  const int64_t n = state.range(0);
  for (auto _ : state) {
    auto t = arange(0, n, 1, DType::kFloat32);
    benchmark::DoNotOptimize(t);
  }
  SetBytes(state, n, 1);
}

void BM_Zeros(benchmark::State& state) {
  const int64_t n = state.range(0);
  for (auto _ : state) {
    auto t = zeros({n}, DType::kFloat32);
    benchmark::DoNotOptimize(t);
  }
  SetBytes(state, n, 1);
}

#define TESSERA_SIZES ->Arg(1000)->Arg(100000)->Arg(10000000)
BENCHMARK(BM_AddInto) TESSERA_SIZES;
BENCHMARK(BM_AddAllocating) TESSERA_SIZES;
BENCHMARK(BM_Sum) TESSERA_SIZES;
BENCHMARK(BM_Arange) TESSERA_SIZES;
BENCHMARK(BM_Zeros) TESSERA_SIZES;

}  // namespace
}  // namespace tessera

BENCHMARK_MAIN();
