// Copyright 2026 The Tessera Authors.
//
// -----------------------------------------------------------------------------
// File: internal/threads.h
// -----------------------------------------------------------------------------
//
// Threads, all timed in wall ns (a lock that blocks costs wall time but no
// CPU):
//   * two_thread: two threads, each a ring of 256 live blocks of 16-512 B
//     (free the oldest, allocate one); ns per operation per thread, and the
//     speedup of the pair over the same churn on one thread (run first).
//   * xthread: four threads in a ring, each allocating batches of 256
//     blocks that the next thread frees: every free crosses threads
//     (mimalloc-bench's xmalloc-test); ns per allocation.
//   * larson: generations of 8 threads, each replacing random blocks of a
//     live set of 512 it inherited from the previous generation's thread,
//     which has exited (mimalloc-bench's larson: heaps of exited threads
//     must be reclaimed); ns per operation.

#ifndef TESSERA_BENCH_SHOOTOUT_INTERNAL_THREADS_H_
#define TESSERA_BENCH_SHOOTOUT_INTERNAL_THREADS_H_

#include <atomic>
#include <cstdint>
#include <deque>
#include <mutex>
#include <random>
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
  // The same churn on one thread first: two threads of independent churn
  // should each run about as fast (speedup near 2).
  std::thread alone(body, 11);
  while (ready.load() != 1) std::this_thread::yield();
  const int64_t t_alone = MonotonicNs();
  go.store(true, std::memory_order_release);
  alone.join();
  const int64_t alone_ns = MonotonicNs() - t_alone;
  if (failed.load()) return AllocFailed(512);
  ready.store(0);
  go.store(false);
  std::thread a(body, 11), b(body, 12);
  while (ready.load() != 2) std::this_thread::yield();
  const int64_t t0 = MonotonicNs();
  go.store(true, std::memory_order_release);
  a.join();
  b.join();
  const int64_t t1 = MonotonicNs();
  if (failed.load()) return AllocFailed(512);
  const double two_ns = double(t1 - t0);
  return Metrics{{"ns_per_op", two_ns / double(p.iters)},
                 {"one_thread_ns_per_op", double(alone_ns) / double(p.iters)},
                 // Throughput of two threads over one: 2 x (one's time per
                 // op) / (the pair's wall time per op per thread).
                 {"speedup_vs_one_thread", 2.0 * double(alone_ns) / two_ns}};
}

template <typename S>
absl::StatusOr<Metrics> CrossThread(S& s, const Params& p) {
  constexpr int kThreads = 4;
  constexpr int kBatch = 256;
  struct Batch {
    void* blocks[kBatch];
    uint32_t sizes[kBatch];
  };
  struct Inbox {
    std::mutex mu;
    std::deque<Batch*> batches;
  };
  std::vector<Inbox> inbox(kThreads);
  const int64_t batches_per_thread = std::max<int64_t>(1, p.iters / kBatch);
  std::atomic<bool> failed{false};
  std::atomic<int> ready{0};
  std::atomic<bool> go{false};
  auto free_batch = [&s](Batch* b) {
    for (int i = 0; i < kBatch; ++i) s.Free(b->blocks[i], b->sizes[i]);
    delete b;
  };
  auto body = [&](int t) {
    const std::vector<uint32_t> sizes = UniformSizes(4096, 16, 512, 100 + t);
    ready.fetch_add(1);
    while (!go.load(std::memory_order_acquire)) {
    }
    int64_t k = 0;
    for (int64_t n = 0; n < batches_per_thread && !failed.load(); ++n) {
      Batch* b = new Batch;
      for (int i = 0; i < kBatch; ++i, ++k) {
        b->sizes[i] = sizes[k & 4095];
        b->blocks[i] = s.Alloc(b->sizes[i]);
        if (b->blocks[i] == nullptr) {
          failed.store(true);
          for (int j = 0; j < i; ++j) s.Free(b->blocks[j], b->sizes[j]);
          delete b;
          return;
        }
        s.Touch(b->blocks[i], 0, 1);
      }
      {
        Inbox& next = inbox[(t + 1) % kThreads];
        std::lock_guard<std::mutex> lock(next.mu);
        next.batches.push_back(b);
      }
      // Free what the previous thread handed over (at most two behind).
      for (;;) {
        Batch* mine = nullptr;
        {
          std::lock_guard<std::mutex> lock(inbox[t].mu);
          if (inbox[t].batches.size() > 2 ||
              (!inbox[t].batches.empty() && n + 1 == batches_per_thread)) {
            mine = inbox[t].batches.front();
            inbox[t].batches.pop_front();
          }
        }
        if (mine == nullptr) break;
        free_batch(mine);
      }
    }
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) threads.emplace_back(body, t);
  while (ready.load() != kThreads) std::this_thread::yield();
  const int64_t t0 = MonotonicNs();
  go.store(true, std::memory_order_release);
  for (auto& th : threads) th.join();
  // What is still queued is freed by this thread: cross-thread as well.
  for (Inbox& box : inbox) {
    for (Batch* b : box.batches) free_batch(b);
    box.batches.clear();
  }
  const int64_t t1 = MonotonicNs();
  if (failed.load()) return AllocFailed(512);
  return Metrics{{"ns_per_op", double(t1 - t0) /
                                   double(batches_per_thread * kBatch * kThreads)}};
}

template <typename S>
absl::StatusOr<Metrics> Larson(S& s, const Params& p) {
  constexpr int kThreads = 8;
  constexpr int kLive = 512;
  constexpr int kGenerations = 4;
  struct LiveSet {
    void* blocks[kLive] = {};
    uint32_t sizes[kLive] = {};
  };
  std::vector<LiveSet> sets(kThreads);
  const int64_t ops = std::max<int64_t>(1, p.iters / kGenerations);
  std::atomic<bool> failed{false};
  const int64_t t0 = MonotonicNs();
  for (int g = 0; g < kGenerations && !failed.load(); ++g) {
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t, g] {
        std::minstd_rand rng(static_cast<uint32_t>(g * kThreads + t + 1));
        LiveSet& set = sets[t];
        for (int64_t i = 0; i < ops; ++i) {
          const int slot = static_cast<int>(rng() % kLive);
          if (set.blocks[slot] != nullptr) {
            s.Free(set.blocks[slot], set.sizes[slot]);
          }
          const uint32_t n = 16 + static_cast<uint32_t>(rng() % 1009);
          set.blocks[slot] = s.Alloc(n);
          set.sizes[slot] = n;
          if (set.blocks[slot] == nullptr) {
            failed.store(true);
            return;
          }
          s.Touch(set.blocks[slot], 0, 1);
        }
      });  // the thread exits holding its live set; the next inherits it
    }
    for (auto& th : threads) th.join();
  }
  for (LiveSet& set : sets) {
    for (int i = 0; i < kLive; ++i) {
      if (set.blocks[i] != nullptr) s.Free(set.blocks[i], set.sizes[i]);
    }
  }
  const int64_t t1 = MonotonicNs();
  if (failed.load()) return AllocFailed(1024);
  return Metrics{{"ns_per_op", double(t1 - t0) /
                                   double(ops * kGenerations * kThreads)}};
}

}  // namespace internal
}  // namespace shootout
}  // namespace tessera

#endif  // TESSERA_BENCH_SHOOTOUT_INTERNAL_THREADS_H_
