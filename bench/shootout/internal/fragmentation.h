// Copyright 2026 The Tessera Authors.
//
// -----------------------------------------------------------------------------
// File: internal/fragmentation.h
// -----------------------------------------------------------------------------
//
// Fragmentation ("w4"): log-uniform sizes 16 B-64 KiB, many live blocks,
// random free + allocate with every page of every block touched; thread CPU
// ns per op, latency percentiles (wall time around each free + allocate),
// peak RSS growth over peak live bytes. On the TLSF arena it also pictures
// the arena with its blocks still live (arena_map.h).

#ifndef TESSERA_BENCH_SHOOTOUT_INTERNAL_FRAGMENTATION_H_
#define TESSERA_BENCH_SHOOTOUT_INTERNAL_FRAGMENTATION_H_

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

#include "absl/status/statusor.h"
#include "alloc/tlsf/tlsf_arena.h"
#include "bench/shootout/arena_map.h"
#include "bench/shootout/internal/process_clock.h"
#include "bench/shootout/internal/subjects.h"
#include "bench/shootout/internal/workload_params.h"
#include "bench/shootout/workloads.h"

namespace tessera {
namespace shootout {
namespace internal {

template <typename S>
void TouchPages(S& s, void* p, size_t n) {
  for (size_t off = 0; off < n; off += 4096) s.Touch(p, off, 1);
  s.Touch(p, n - 1, 1);
}
// W4 calls this with its blocks still live: only the TLSF arena itself (not
// its validating wrapper) is pictured, into `snapshot` when it is not null.
template <typename S>
void SnapshotArena(S&, ArenaSnapshot*) {}
inline void SnapshotArena(TesseraSubject<TlsfArena>& s,
                          ArenaSnapshot* snapshot) {
  if (snapshot != nullptr) TakeArenaSnapshot(*s.allocator, snapshot);
}

template <typename S>
absl::StatusOr<Metrics> W4(S& s, const Params& p, ArenaSnapshot* snapshot) {
  std::mt19937 rng(4);
  std::uniform_real_distribution<double> log_size(std::log(16.0),
                                                  std::log(65536.0));
  std::vector<uint32_t> sizes(size_t(p.live + p.ops));
  for (uint32_t& n : sizes) n = static_cast<uint32_t>(std::exp(log_size(rng)));
  std::vector<uint32_t> victims(size_t(p.ops));
  for (uint32_t& v : victims) v = rng() % uint32_t(p.live);
  std::vector<void*> blocks(size_t(p.live));
  std::vector<uint32_t> block_size(size_t(p.live));
  std::vector<int64_t> latency(size_t(p.ops));

  const bool reset = ResetPeakRss();
  const int64_t rss_before = ProcStatusBytes("VmRSS");
  uint64_t live_bytes = 0, peak_live = 0;
  for (int i = 0; i < p.live; ++i) {
    block_size[i] = sizes[i];
    if ((blocks[i] = s.Alloc(sizes[i])) == nullptr)
      return AllocFailed(sizes[i]);
    TouchPages(s, blocks[i], sizes[i]);
    live_bytes += sizes[i];
  }
  peak_live = live_bytes;
  int64_t rss_peak_sampled = ProcStatusBytes("VmRSS");
  const int64_t t0 = ThreadCpuNs();
  for (int64_t i = 0; i < p.ops; ++i) {
    const uint32_t v = victims[i];
    const uint32_t n = sizes[size_t(p.live + i)];
    const int64_t a = MonotonicNs();
    s.Free(blocks[v], block_size[v]);
    void* block = s.Alloc(n);
    const int64_t b = MonotonicNs();
    if (block == nullptr) return AllocFailed(n);
    latency[size_t(i)] = b - a;
    live_bytes = live_bytes - block_size[v] + n;
    peak_live = std::max(peak_live, live_bytes);
    blocks[v] = block;
    block_size[v] = n;
    TouchPages(s, block, n);
    if (!reset && (i & 4095) == 0) {
      rss_peak_sampled = std::max(rss_peak_sampled, ProcStatusBytes("VmRSS"));
    }
  }
  const int64_t t1 = ThreadCpuNs();
  const int64_t rss_peak =
      reset ? ProcStatusBytes("VmHWM")
            : std::max(rss_peak_sampled, ProcStatusBytes("VmRSS"));
  SnapshotArena(s, snapshot);
  for (int i = 0; i < p.live; ++i) s.Free(blocks[i], block_size[i]);

  std::sort(latency.begin(), latency.end());
  auto pct = [&](double q) {
    const size_t idx =
        std::min(latency.size() - 1, size_t(q * double(latency.size())));
    return double(latency[idx]);
  };
  const double growth = double(rss_peak - rss_before);
  return Metrics{{"ns_per_op", double(t1 - t0) / double(p.ops)},
                 {"p50_ns", pct(0.50)},
                 {"p99_ns", pct(0.99)},
                 {"p999_ns", pct(0.999)},
                 {"max_ns", double(latency.back())},
                 {"peak_rss_growth_bytes", growth},
                 {"peak_live_bytes", double(peak_live)},
                 {"rss_over_live", growth / double(peak_live)}};
}

}  // namespace internal
}  // namespace shootout
}  // namespace tessera

#endif  // TESSERA_BENCH_SHOOTOUT_INTERNAL_FRAGMENTATION_H_
