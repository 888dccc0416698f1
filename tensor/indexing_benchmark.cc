// Copyright 2026 The Tessera Authors.
//
// Boolean-mask selection a[mask] of 1e6 float32 with a random mask, half
// true, and take of 1e6 random int64 indices, against NumPy in the same run:
//   tools/bazel run --config=opt //tensor:indexing_benchmark --
//       --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
// then
//   /usr/bin/python3 tensor/indexing_benchmark_numpy.py
// CPU time per call.

#include <cstdint>
#include <random>
#include <vector>

#include "benchmark/benchmark.h"
#include "tensor/indexing.h"

namespace tessera {
namespace {

constexpr int64_t kN = 1000000;

void BM_MaskedSelect_F32(benchmark::State& state) {
  const Tensor t = *arange(0, kN, 1, DType::kFloat32);
  std::mt19937 rng(1);
  std::vector<uint8_t> bits(kN);
  for (auto& b : bits) b = rng() & 1;
  const Tensor mask =
      *FromBuffer(bits.data(), DType::kBool, {kN}, std::nullopt, nullptr);
  for (auto _ : state) {
    auto r = masked_select(t, mask);
    benchmark::DoNotOptimize(r->data());
  }
}
BENCHMARK(BM_MaskedSelect_F32);

void BM_Take_F32(benchmark::State& state) {
  const Tensor t = *arange(0, kN, 1, DType::kFloat32);
  std::mt19937_64 rng(2);
  std::vector<int64_t> idx(kN);
  for (auto& i : idx) i = static_cast<int64_t>(rng() % kN);
  const Tensor indices = *FromVector(idx);
  for (auto _ : state) {
    auto r = take(t, indices);
    benchmark::DoNotOptimize(r->data());
  }
}
BENCHMARK(BM_Take_F32);

}  // namespace
}  // namespace tessera

BENCHMARK_MAIN();
