// Copyright 2026 The Tessera Authors.
//
// -----------------------------------------------------------------------------
// File: internal/threads.h
// -----------------------------------------------------------------------------
//
// Threads ("two_thread"): two threads, each a ring of 256 live blocks of
// 16-512 B (free the oldest, allocate one); wall ns per operation per thread,
// since a lock that blocks costs wall time but no CPU.

#ifndef TESSERA_BENCH_SHOOTOUT_INTERNAL_THREADS_H_
#define TESSERA_BENCH_SHOOTOUT_INTERNAL_THREADS_H_

#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "bench/shootout/internal/process_clock.h"
#include "bench/shootout/internal/workload_params.h"
#include "bench/shootout/workloads.h"

namespace tessera {
namespace shootout {
namespace internal {

template <typename S>
absl::StatusOr<Metrics> TwoThread(S& s, const Params& p) {
  constexpr int kRing = 256;
  std::atomic<int> ready{0};
  std::atomic<bool> go{false};
  std::atomic<bool> failed{false};
  auto body = [&](uint32_t seed) {
    const std::vector<uint32_t> sizes = UniformSizes(4096, 16, 512, seed);
    std::vector<void*> ring(kRing, nullptr);
    std::vector<uint32_t> ring_size(kRing, 0);
    ready.fetch_add(1);
    while (!go.load(std::memory_order_acquire)) {
    }
    for (int64_t i = 0; i < p.iters && !failed.load(std::memory_order_relaxed);
         ++i) {
      const int slot = static_cast<int>(i & (kRing - 1));
      if (ring[slot] != nullptr) s.Free(ring[slot], ring_size[slot]);
      const uint32_t n = sizes[i & 4095];
      ring[slot] = s.Alloc(n);
      ring_size[slot] = n;
      if (ring[slot] == nullptr) {
        failed.store(true);
        break;
      }
      s.Touch(ring[slot], 0, 1);
    }
    for (int i = 0; i < kRing; ++i) {
      if (ring[i] != nullptr) s.Free(ring[i], ring_size[i]);
    }
  };
  std::thread a(body, 11), b(body, 12);
  while (ready.load() != 2) std::this_thread::yield();
  const int64_t t0 = MonotonicNs();
  go.store(true, std::memory_order_release);
  a.join();
  b.join();
  const int64_t t1 = MonotonicNs();
  if (failed.load()) return AllocFailed(512);
  return Metrics{{"ns_per_op", double(t1 - t0) / double(p.iters)}};
}

}  // namespace internal
}  // namespace shootout
}  // namespace tessera

#endif  // TESSERA_BENCH_SHOOTOUT_INTERNAL_THREADS_H_
