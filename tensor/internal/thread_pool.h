// Copyright 2026 The Tessera Authors.
//
// The tensor engine's thread pool: a fixed set of worker threads that, with
// the calling thread, run the chunks of one job at a time. `ParallelFor`
// below is the entry point the operations use; `ThreadPool` is exposed for
// its tests.
//
// A job is `chunks` calls fn(0) ... fn(chunks - 1). The caller posts it,
// takes chunks itself from a shared atomic counter, and workers that wake in
// time take the others: chunks are claimed dynamically, so a worker that the
// (shared, noisy) machine deschedules costs at most the chunk it holds, and a
// worker that wakes after the caller has claimed every chunk never touches
// the job. `Run` returns when every chunk has finished.
//
// Per-call cost: no allocation (the job lives on the caller's stack and fn is
// an absl::FunctionRef); one mutex lock, a condition-variable broadcast, and
// one more lock to close the job. Workers sleep on a condition variable
// between jobs (no spinning: the machine has two cores shared by everyone).
//
// One job at a time: `Run` from a second thread while a job runs, or from
// inside a chunk (nesting), does not wait: it returns false and the caller
// runs the work itself (ParallelFor does this).
//
// std::mutex rather than absl::Mutex: Debian's Abseil has no TSan
// annotations, so TSan would not see absl::Mutex's happens-before edges.

#ifndef TESSERA_TENSOR_INTERNAL_THREAD_POOL_H_
#define TESSERA_TENSOR_INTERNAL_THREAD_POOL_H_

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/functional/function_ref.h"
#include "tensor/parallel.h"

namespace tessera {
namespace internal {

class ThreadPool {
 public:
  // Starts `workers` threads (0 is allowed: every job runs on its caller).
  explicit ThreadPool(int workers);
  // Stops and joins the workers. No job may be running.
  ~ThreadPool();

  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int workers() const { return static_cast<int>(threads_.size()); }

  // Runs fn(i) for every i in [0, chunks) on the workers and the caller, and
  // returns true when all have finished. Returns false without running
  // anything if another job is in progress (the caller should run the work
  // itself).
  bool Run(int64_t chunks, absl::FunctionRef<void(int64_t)> fn);

 private:
  // One posted job; lives on the stack of the thread that called Run.
  struct Job {
    absl::FunctionRef<void(int64_t)> fn;
    int64_t chunks;
    std::atomic<int64_t> next{0};  // next chunk index to claim
  };

  void WorkerLoop();
  // Claims and runs chunks of `job` until none are left.
  static void Drain(Job& job);

  // Held for the whole of a Run: one job at a time.
  std::mutex run_mu_;

  // Guards everything below up to `threads_`.
  std::mutex mu_;
  std::condition_variable wake_cv_;  // workers: a job was posted, or stop
  std::condition_variable idle_cv_;  // Run: the last worker left the job
  Job* job_ = nullptr;     // the open job; null when none is open
  uint64_t generation_ = 0;  // bumped per posted job
  int busy_workers_ = 0;   // workers inside `job_`'s chunks
  bool stop_ = false;

  std::vector<std::thread> threads_;
};

// Runs fn(begin, end) over [0, n) split into chunks of at least `min_chunk`
// items (each a multiple of min_chunk but the last), on the tensor pool when NumThreads() > 1
// and no other parallel operation is running, else on the caller in one call
// fn(0, n). Chunk boundaries depend only on n, min_chunk and the thread
// count. No allocation once the pool exists.
void ParallelFor(int64_t n, int64_t min_chunk,
                 absl::FunctionRef<void(int64_t, int64_t)> fn);

// Chunks of at least 1 MiB: enough work (~30 us) to hide a worker's wake-up.
inline int64_t MinChunkElements(size_t itemsize) {
  return static_cast<int64_t>((size_t{1} << 20) / itemsize);
}

// Elements [0, n) of `itemsize` bytes each, written by fill(begin, end) chunk
// by chunk: in parallel from kParallelMinBytes (parallel.h) up, else in one
// call fill(0, n).
template <typename Fill>
void ParallelFill(int64_t n, size_t itemsize, Fill&& fill) {
  if (static_cast<uint64_t>(n) * itemsize < kParallelMinBytes) {
    fill(int64_t{0}, n);
    return;
  }
  ParallelFor(n, MinChunkElements(itemsize),
              [&](int64_t begin, int64_t end) { fill(begin, end); });
}

// Workers of the pool ParallelFor uses (created on the first parallel
// operation with NumThreads() - 1 workers); 0 before that.
int PoolWorkersForTesting();

}  // namespace internal
}  // namespace tessera

#endif  // TESSERA_TENSOR_INTERNAL_THREAD_POOL_H_
