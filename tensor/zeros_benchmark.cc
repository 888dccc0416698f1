// Copyright 2026 The Tessera Authors.
//
// zeros() followed by one write of every element, against empty() followed
// by the same write, with the tensor's storage from each allocator the
// shootout's tensor rows use. A zeroed request may come back as fresh
// (lazily zeroed) pages instead of a cleared block (alloc/internal/
// zero_memory.h); this says what that costs once the pages are written,
// which is what a zeros() is for. Goal (issue 13): ZerosThenWrite no slower
// than EmptyThenFill on every allocator.
//
//   tools/bazel run --config=opt //tensor:zeros_benchmark --
//     --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
//   (one line)
//
// Arguments: (allocator, elements); allocator 0 malloc (MallocAllocator),
// 1 aligned64 (AlignedAllocator(64)), 2 tlsf (TlsfArena), 3 buffer_cache
// (BufferCache). Process CPU time per call.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "alloc/allocator.h"
#include "alloc/pool/buffer_cache.h"
#include "alloc/system/system_allocator.h"
#include "alloc/tlsf/tlsf_arena.h"
#include "benchmark/benchmark.h"
#include "tensor/tensor.h"
#include "tensor/testing/benchmark_checks.h"

namespace tessera {
namespace {

using benchmark_checks::Ok;

constexpr const char* kAllocatorNames[] = {"malloc", "aligned64", "tlsf",
                                           "buffer_cache"};

std::unique_ptr<Allocator> MakeAllocator(int64_t which) {
  switch (which) {
    case 0:
      return std::make_unique<MallocAllocator>();
    case 1:
      return Ok(AlignedAllocator::Create(64));
    case 2: {
      // As the shootout's tensor rows: room for 1e7 float32 and its header.
      TlsfArenaOptions options;
      options.arena_bytes = size_t{256} << 20;
      options.grow = true;
      options.growth_region_bytes = size_t{256} << 20;
      options.max_block_size = size_t{64} << 20;
      return Ok(TlsfArena::Create(options));
    }
    default:
      return Ok(BufferCache::Create());
  }
}

// One write of every element, as a caller filling its result would.
void WriteEvery(Tensor& t) {
  float* data = static_cast<float*>(t.mutable_data());
  std::fill(data, data + t.size(), 1.0f);
  benchmark::DoNotOptimize(data);
}

template <bool kZeros>
void BM_ThenWrite(benchmark::State& state) {
  std::unique_ptr<Allocator> allocator = MakeAllocator(state.range(0));
  const int64_t n = state.range(1);
  for (auto _ : state) {
    Tensor t = kZeros ? Ok(zeros({n}, DType::kFloat32, allocator.get()))
                      : Ok(empty({n}, DType::kFloat32, allocator.get()));
    WriteEvery(t);
    benchmark::ClobberMemory();
  }
  state.SetLabel(kAllocatorNames[state.range(0)]);
  state.SetBytesProcessed(state.iterations() * n * 4);
}

void Cases(benchmark::internal::Benchmark* b) {
  for (int64_t allocator = 0; allocator < 4; ++allocator) {
    for (int64_t n : {100000, 10000000}) b->Args({allocator, n});
  }
  b->MeasureProcessCPUTime()->UseRealTime();
}

void BM_ZerosThenWrite(benchmark::State& state) { BM_ThenWrite<true>(state); }
void BM_EmptyThenFill(benchmark::State& state) { BM_ThenWrite<false>(state); }

BENCHMARK(BM_ZerosThenWrite)->Apply(Cases);
BENCHMARK(BM_EmptyThenFill)->Apply(Cases);

}  // namespace
}  // namespace tessera

BENCHMARK_MAIN();
