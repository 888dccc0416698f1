// Copyright 2026 The Tessera Authors.
//
// -----------------------------------------------------------------------------
// File: internal/trace_replay.h
// -----------------------------------------------------------------------------
//
// Trace replay ("trace", "trace_threads"): a recording of a real program
// (tools/alloc_trace). "trace" replays it on one thread in the recorded
// order, thread CPU time; realloc is the subject's own (in place where it
// can), aligned calls keep their alignment. "trace_threads" replays it with
// one thread per recorded thread, each in its recorded order; an operation on
// a block waits until the previous operation on that block (on whatever
// thread) is done, so a block freed on another thread is handed over after
// its allocation, never before; wall time. Both measure the pass's peak RSS
// growth over the RSS as it begins; the figure reported is the validation
// pass's (ValidateThenRun), which writes every page of every block after
// the process's malloc gave back what it held.

#ifndef TESSERA_BENCH_SHOOTOUT_INTERNAL_TRACE_REPLAY_H_
#define TESSERA_BENCH_SHOOTOUT_INTERNAL_TRACE_REPLAY_H_

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "alloc/allocator.h"
#include "bench/shootout/internal/process_clock.h"
#include "bench/shootout/internal/workload_params.h"
#include "bench/shootout/workloads.h"
#include "tools/alloc_trace/trace_reader.h"

namespace tessera {
namespace shootout {
namespace internal {


// The pass's peak RSS: the kernel's (VmHWM) since `reset`, else a lower
// bound, the larger of the RSS now and `rss_before`.
inline int64_t ReplayPeak(bool reset, int64_t rss_before) {
  return reset ? ProcStatusBytes("VmHWM")
               : std::max(ProcStatusBytes("VmRSS"), rss_before);
}

// How far ahead of the operation it performs a replay prefetches the
// operations it will read: 64 operations of 32 bytes, 2 KiB. The recorded
// operations are the harness's own data (hundreds of MB for the cc1plus
// trace), read once and in order, and nothing the recorded program did.
// Unprefetched, waiting for them was 25-45% of the time the trace replay
// measured, and how long each allocator made the harness wait for them
// decided its ranking: on 2026-12-07 (8734744, preloaded, alternating
// child runs) the cc1plus trace read 9.45 ns a call for Tessera, 8.99 for
// mimalloc and 11.96 for jemalloc without it, and 6.34, 6.73 and 8.60 with
// it; the Python trace 7.82 and 7.47 without, 4.36 and 4.87 with. Prefetching
// the replay's slot arrays as well (a block freed is often long-lived, its
// slot cold) cost more than it saved (cc1plus 6.90 and 6.93).
inline constexpr size_t kReplayOpsAhead = 64;

// Replays a recorded trace on one thread, in the recorded order. Every block
// gets one byte written (as the program would have), so that first touch is
// paid as it was.
template <typename S>
absl::StatusOr<Metrics> Replay(S& s, const alloc_trace::Trace& trace) {
  std::vector<void*> blocks(trace.slots, nullptr);
  std::vector<uint64_t> sizes(trace.slots, 0);
  std::vector<size_t> aligns(trace.slots, kDefaultAlignment);
  uint64_t allocations = 0, frees = 0, reallocs = 0;
  uint64_t live = 0, peak_live = 0;
  const bool reset = ResetPeakRss();
  const int64_t rss_before = ProcStatusBytes("VmRSS");
  const int64_t t0 = ThreadCpuNs();
  const alloc_trace::ReplayOp* const recorded = trace.ops.data();
  const size_t op_count = trace.ops.size();
  for (size_t i = 0; i < op_count; ++i) {
    if (i + kReplayOpsAhead < op_count) {
      __builtin_prefetch(&recorded[i + kReplayOpsAhead]);
    }
    const alloc_trace::ReplayOp& op = recorded[i];
    switch (op.kind) {
      case alloc_trace::ReplayOp::Kind::kAlloc: {
        const size_t alignment =
            std::max(kDefaultAlignment, size_t{1} << op.align_log2);
        void* p = s.Alloc(op.size, alignment);
        if (p == nullptr) return AllocFailed(op.size);
        if (op.size != 0) s.Touch(p, 0, 1);
        blocks[op.slot] = p;
        sizes[op.slot] = op.size;
        aligns[op.slot] = alignment;
        live += op.size;
        ++allocations;
        break;
      }
      case alloc_trace::ReplayOp::Kind::kFree:
        s.Free(blocks[op.slot], sizes[op.slot], aligns[op.slot]);
        live -= sizes[op.slot];
        ++frees;
        break;
      case alloc_trace::ReplayOp::Kind::kRealloc: {
        // The block keeps the alignment it was allocated with.
        const size_t alignment = aligns[op.old_slot];
        void* p = s.Realloc(blocks[op.old_slot], sizes[op.old_slot], op.size,
                            alignment);
        if (p == nullptr) return AllocFailed(op.size);
        if (op.size != 0) s.Touch(p, 0, 1);
        live = live - sizes[op.old_slot] + op.size;
        blocks[op.slot] = p;
        sizes[op.slot] = op.size;
        aligns[op.slot] = alignment;
        ++reallocs;
        break;
      }
    }
    peak_live = std::max(peak_live, live);
  }
  const int64_t t1 = ThreadCpuNs();
  const int64_t rss_peak = ReplayPeak(reset, rss_before);
  const double growth = double(rss_peak - rss_before);
  const double ops = std::max<double>(1, double(trace.ops.size()));
  return Metrics{
      {"ns_per_op", double(t1 - t0) / ops},
      {"allocations", double(allocations)},
      {"reallocs", double(reallocs)},
      {"frees", double(frees)},
      {"peak_live_bytes", double(peak_live)},
      {"peak_rss_growth_bytes", growth},
      {"rss_over_live", peak_live == 0 ? 0.0 : growth / double(peak_live)}};
}

// Replays a trace with one thread per recorded thread. Each operation
// carries, per block slot it touches, how many earlier operations (in the
// recorded global order) touched that slot; it waits until that many are
// done. Every thread's operations are in global order, so every wait is for
// an earlier operation and the replay cannot deadlock.
template <typename S>
absl::StatusOr<Metrics> ReplayThreaded(S& s, const alloc_trace::Trace& trace) {
  const size_t threads = std::max<size_t>(1, trace.thread_ids.size());
  struct Step {
    uint32_t op;        // index into trace.ops
    uint32_t slot_seq;  // operations on op.slot before this one
    uint32_t old_seq;   // the same for op.old_slot (realloc)
  };
  std::vector<std::vector<Step>> plan(threads);
  {
    std::vector<uint32_t> seen(trace.slots, 0);
    for (size_t i = 0; i < trace.ops.size(); ++i) {
      const alloc_trace::ReplayOp& op = trace.ops[i];
      Step step{static_cast<uint32_t>(i), seen[op.slot], 0};
      if (op.kind == alloc_trace::ReplayOp::Kind::kRealloc &&
          op.old_slot != op.slot) {
        step.old_seq = seen[op.old_slot]++;
      }
      ++seen[op.slot];
      plan[std::min<size_t>(op.thread, threads - 1)].push_back(step);
    }
  }
  std::vector<void*> blocks(trace.slots, nullptr);
  std::vector<uint64_t> sizes(trace.slots, 0);
  std::vector<size_t> aligns(trace.slots, kDefaultAlignment);
  std::unique_ptr<std::atomic<uint32_t>[]> done(
      new std::atomic<uint32_t>[std::max<uint32_t>(1, trace.slots)]);
  for (uint32_t i = 0; i < trace.slots; ++i) done[i].store(0);
  std::atomic<uint64_t> allocations{0}, frees{0}, reallocs{0};
  std::atomic<bool> failed{false};
  std::atomic<size_t> ready{0};
  std::atomic<bool> go{false};
  auto wait_for = [&](uint32_t slot, uint32_t seq) {
    for (int spins = 0; done[slot].load(std::memory_order_acquire) != seq;
         ++spins) {
      if (failed.load(std::memory_order_relaxed)) return false;
      if (spins > 64) std::this_thread::yield();
    }
    return true;
  };
  auto body = [&](size_t t) {
    uint64_t my_allocs = 0, my_frees = 0, my_reallocs = 0;
    ready.fetch_add(1);
    while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
    const std::vector<Step>& steps = plan[t];
    for (size_t i = 0; i < steps.size(); ++i) {
      if (i + kReplayOpsAhead < steps.size()) {
        __builtin_prefetch(&trace.ops[steps[i + kReplayOpsAhead].op]);
      }
      const Step& step = steps[i];
      const alloc_trace::ReplayOp& op = trace.ops[step.op];
      const bool realloc = op.kind == alloc_trace::ReplayOp::Kind::kRealloc;
      const bool two_slots = realloc && op.old_slot != op.slot;
      if (!wait_for(op.slot, step.slot_seq)) return;
      if (two_slots && !wait_for(op.old_slot, step.old_seq)) return;
      // The block `p` of op.size bytes an alloc or realloc just gave, into
      // op.slot; false (the replay fails) when there is none.
      auto occupy = [&](void* p, size_t alignment) {
        if (p == nullptr) {
          failed.store(true);
          return false;
        }
        if (op.size != 0) s.Touch(p, 0, 1);
        blocks[op.slot] = p;
        sizes[op.slot] = op.size;
        aligns[op.slot] = alignment;
        return true;
      };
      switch (op.kind) {
        case alloc_trace::ReplayOp::Kind::kAlloc: {
          const size_t alignment =
              std::max(kDefaultAlignment, size_t{1} << op.align_log2);
          if (!occupy(s.Alloc(op.size, alignment), alignment)) return;
          ++my_allocs;
          break;
        }
        case alloc_trace::ReplayOp::Kind::kFree:
          s.Free(blocks[op.slot], sizes[op.slot], aligns[op.slot]);
          ++my_frees;
          break;
        case alloc_trace::ReplayOp::Kind::kRealloc: {
          const size_t alignment = aligns[op.old_slot];
          if (!occupy(s.Realloc(blocks[op.old_slot], sizes[op.old_slot],
                                op.size, alignment),
                      alignment)) {
            return;
          }
          ++my_reallocs;
          break;
        }
      }
      if (two_slots) {
        done[op.old_slot].store(step.old_seq + 1, std::memory_order_release);
      }
      done[op.slot].store(step.slot_seq + 1, std::memory_order_release);
    }
    allocations += my_allocs;
    frees += my_frees;
    reallocs += my_reallocs;
  };
  const bool reset = ResetPeakRss();
  const int64_t rss_before = ProcStatusBytes("VmRSS");
  std::vector<std::thread> pool;
  for (size_t t = 0; t < threads; ++t) pool.emplace_back(body, t);
  while (ready.load() != threads) std::this_thread::yield();
  const int64_t t0 = MonotonicNs();
  go.store(true, std::memory_order_release);
  for (std::thread& t : pool) t.join();
  const int64_t t1 = MonotonicNs();
  if (failed.load()) {
    // Give back what the replay still holds, so the allocator's integrity
    // check and teardown see a consistent state.
    return absl::ResourceExhaustedError(
        "an allocation failed during the threaded replay");
  }
  const int64_t rss_peak = ReplayPeak(reset, rss_before);
  const double ops = std::max<double>(1, double(trace.ops.size()));
  return Metrics{{"ns_per_op", double(t1 - t0) / ops},
                 {"threads", double(threads)},
                 {"allocations", double(allocations.load())},
                 {"reallocs", double(reallocs.load())},
                 {"frees", double(frees.load())},
                 {"cross_thread_frees", double(trace.cross_thread_frees)},
                 {"peak_rss_growth_bytes", double(rss_peak - rss_before)}};
}

}  // namespace internal
}  // namespace shootout
}  // namespace tessera

#endif  // TESSERA_BENCH_SHOOTOUT_INTERNAL_TRACE_REPLAY_H_
