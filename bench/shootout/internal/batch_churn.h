// Copyright 2026 The Tessera Authors.
//
// -----------------------------------------------------------------------------
// File: internal/batch_churn.h
// -----------------------------------------------------------------------------
//
// Batches and churn on one thread, thread CPU time:
//   "w1", "w1_touched"  StgSharp batches of 2048 allocations of six sizes
//                       (fixed seed), freed in shuffled order; touched writes
//                       the first and last 8 bytes of every block.
//   "w3"                16-64 B random sizes, a ring of 64 live objects:
//                       free the oldest, allocate one.
//   "pool"              64-byte cells, 32 taken then returned in reverse.

#ifndef TESSERA_BENCH_SHOOTOUT_INTERNAL_BATCH_CHURN_H_
#define TESSERA_BENCH_SHOOTOUT_INTERNAL_BATCH_CHURN_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

#include "absl/status/statusor.h"
#include "bench/shootout/internal/process_clock.h"
#include "bench/shootout/internal/workload_params.h"
#include "bench/shootout/workloads.h"

namespace tessera {
namespace shootout {
namespace internal {

struct W1Plan {
  std::vector<uint32_t> sizes;  // batches x 2048
  std::vector<uint16_t> order;  // free order within each batch
};
inline constexpr int kW1Batch = 2048;

inline W1Plan MakeW1Plan(int batches) {
  W1Plan plan;
  std::mt19937 rng(20240601);
  const uint32_t choices[] = {64, 100, 200, 400, 1024, 4096};
  plan.sizes.resize(size_t(batches) * kW1Batch);
  plan.order.resize(size_t(batches) * kW1Batch);
  for (int b = 0; b < batches; ++b) {
    for (int i = 0; i < kW1Batch; ++i) {
      plan.sizes[b * kW1Batch + i] = choices[rng() % 6];
      plan.order[b * kW1Batch + i] = static_cast<uint16_t>(i);
    }
    std::shuffle(plan.order.begin() + b * kW1Batch,
                 plan.order.begin() + (b + 1) * kW1Batch, rng);
  }
  return plan;
}

template <typename S>
absl::StatusOr<Metrics> W1(S& s, bool touch, const Params& p) {
  const W1Plan plan = MakeW1Plan(p.batches);
  std::vector<void*> live(kW1Batch);
  const int64_t t0 = ThreadCpuNs();
  for (int pass = 0; pass < p.passes; ++pass) {
    for (int b = 0; b < p.batches; ++b) {
      const uint32_t* sizes = &plan.sizes[size_t(b) * kW1Batch];
      const uint16_t* order = &plan.order[size_t(b) * kW1Batch];
      for (int i = 0; i < kW1Batch; ++i) {
        live[i] = s.Alloc(sizes[i]);
        if (live[i] == nullptr) return AllocFailed(sizes[i]);
        if (touch) {
          s.Touch(live[i], 0, 8);
          s.Touch(live[i], sizes[i] - 8, 8);
        }
      }
      for (int i = 0; i < kW1Batch; ++i) {
        s.Free(live[order[i]], sizes[order[i]]);
      }
    }
  }
  const int64_t t1 = ThreadCpuNs();
  const double pairs = double(p.passes) * p.batches * kW1Batch;
  return Metrics{{"ns_per_op", double(t1 - t0) / pairs}};
}

template <typename S>
absl::StatusOr<Metrics> W3(S& s, const Params& p) {
  constexpr int kRing = 64;
  const std::vector<uint32_t> sizes = UniformSizes(4096, 16, 64, 3);
  void* ring[kRing];
  uint32_t ring_size[kRing];
  for (int i = 0; i < kRing; ++i) {
    ring_size[i] = sizes[i];
    if ((ring[i] = s.Alloc(sizes[i])) == nullptr) return AllocFailed(sizes[i]);
  }
  const int64_t t0 = ThreadCpuNs();
  for (int64_t i = 0; i < p.iters; ++i) {
    const int slot = static_cast<int>(i & (kRing - 1));
    s.Free(ring[slot], ring_size[slot]);
    const uint32_t n = sizes[i & 4095];
    void* block = s.Alloc(n);
    if (block == nullptr) return AllocFailed(n);
    s.Touch(block, 0, 1);
    ring[slot] = block;
    ring_size[slot] = n;
  }
  const int64_t t1 = ThreadCpuNs();
  for (int i = 0; i < kRing; ++i) s.Free(ring[i], ring_size[i]);
  return Metrics{{"ns_per_op", double(t1 - t0) / double(p.iters)}};
}

template <typename S>
absl::StatusOr<Metrics> Pool(S& s, const Params& p) {
  constexpr int kBatch = 32;
  void* cells[kBatch];
  const int64_t t0 = ThreadCpuNs();
  for (int64_t b = 0; b < p.iters; ++b) {
    for (int i = 0; i < kBatch; ++i) {
      if ((cells[i] = s.Alloc(64)) == nullptr) return AllocFailed(64);
      s.Touch(cells[i], 0, 1);
    }
    for (int i = kBatch - 1; i >= 0; --i) s.Free(cells[i], 64);
  }
  const int64_t t1 = ThreadCpuNs();
  return Metrics{{"ns_per_op", double(t1 - t0) / double(p.iters * kBatch)}};
}

}  // namespace internal
}  // namespace shootout
}  // namespace tessera

#endif  // TESSERA_BENCH_SHOOTOUT_INTERNAL_BATCH_CHURN_H_
