// Copyright 2026 The Tessera Authors.
//
// -----------------------------------------------------------------------------
// File: internal/round_trip.h
// -----------------------------------------------------------------------------
//
// Round trips ("rt_64", "rt_1k", "rt_100k", "rt_1m", "rt_10m"): allocate one block of
// a fixed size, write one byte, free it; thread CPU ns per round trip.

#ifndef TESSERA_BENCH_SHOOTOUT_INTERNAL_ROUND_TRIP_H_
#define TESSERA_BENCH_SHOOTOUT_INTERNAL_ROUND_TRIP_H_

#include <cstddef>
#include <cstdint>

#include "absl/status/statusor.h"
#include "bench/shootout/internal/process_clock.h"
#include "bench/shootout/internal/workload_params.h"
#include "bench/shootout/workloads.h"

namespace tessera {
namespace shootout {
namespace internal {

template <typename S>
absl::StatusOr<Metrics> RoundTrip(S& s, size_t bytes, const Params& p) {
  const int64_t t0 = ThreadCpuNs();
  for (int64_t i = 0; i < p.iters; ++i) {
    void* block = s.Alloc(bytes);
    if (block == nullptr) return AllocFailed(bytes);
    s.Touch(block, 0, 1);
    s.Free(block, bytes);
  }
  const int64_t t1 = ThreadCpuNs();
  return Metrics{{"ns_per_op", double(t1 - t0) / double(p.iters)}};
}

}  // namespace internal
}  // namespace shootout
}  // namespace tessera

#endif  // TESSERA_BENCH_SHOOTOUT_INTERNAL_ROUND_TRIP_H_
