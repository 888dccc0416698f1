// Copyright 2026 The Tessera Authors.
//
// -----------------------------------------------------------------------------
// File: internal/workload_params.h
// -----------------------------------------------------------------------------
//
// What every workload family shares: its sizes at each scale (`Params`),
// what a run needs besides them (`RunContext`), and the error an allocation
// failure returns. Each family lives in a header of its own beside this one
// (round_trip.h, batch_churn.h, fragmentation.h, threads.h, trace_replay.h,
// tensor_workloads.h); workloads.cc registers them in one table.

#ifndef TESSERA_BENCH_SHOOTOUT_INTERNAL_WORKLOAD_PARAMS_H_
#define TESSERA_BENCH_SHOOTOUT_INTERNAL_WORKLOAD_PARAMS_H_

#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"
#include "bench/shootout/arena_map.h"
#include "tools/alloc_trace/trace_reader.h"

namespace tessera {
namespace shootout {
namespace internal {

// The sizes of one run; a family reads the fields it needs.
struct Params {
  int64_t iters = 0;  // round trips / iterations / pool batches / per thread
  int batches = 0;    // W1
  int passes = 0;     // W1 passes over the batches
  int live = 0;       // W4 live blocks
  int64_t ops = 0;    // W4 operations
};

// What a run needs besides its sizes (all set by Measure).
struct RunContext {
  // The compiled trace for "trace" and "trace_threads", else nullptr.
  const alloc_trace::Trace* trace = nullptr;
  // Where W4 on the TLSF arena pictures the arena before its teardown, else
  // nullptr.
  ArenaSnapshot* snapshot = nullptr;
};

inline absl::Status AllocFailed(size_t n) {
  return absl::ResourceExhaustedError(
      absl::StrFormat("allocation of %d bytes failed", n));
}

// `count` sizes uniform in [lo, hi] from a fixed seed.
inline std::vector<uint32_t> UniformSizes(size_t count, uint32_t lo,
                                          uint32_t hi, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<uint32_t> dist(lo, hi);
  std::vector<uint32_t> sizes(count);
  for (uint32_t& s : sizes) s = dist(rng);
  return sizes;
}

}  // namespace internal
}  // namespace shootout
}  // namespace tessera

#endif  // TESSERA_BENCH_SHOOTOUT_INTERNAL_WORKLOAD_PARAMS_H_
