// Copyright 2026 The Tessera Authors.

#include "tensor/internal/thread_pool.h"

#include <algorithm>
#include <cstdlib>
#include <memory>

#include "tensor/parallel.h"

namespace tessera {
namespace internal {

ThreadPool::ThreadPool(int workers) {
  threads_.reserve(static_cast<size_t>(std::max(workers, 0)));
  for (int i = 0; i < workers; ++i) {
    threads_.emplace_back([this] { WorkerLoop(); });
  }
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  wake_cv_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void ThreadPool::Drain(Job& job) {
  for (int64_t i = job.next.fetch_add(1, std::memory_order_relaxed);
       i < job.chunks; i = job.next.fetch_add(1, std::memory_order_relaxed)) {
    job.fn(i);
  }
}

void ThreadPool::WorkerLoop() {
  uint64_t seen = 0;
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    wake_cv_.wait(lock, [&] { return stop_ || generation_ != seen; });
    if (stop_) return;
    seen = generation_;
    // The job may already be closed (the caller ran every chunk before this
    // worker woke): then there is nothing to do and it must not be touched.
    Job* job = job_;
    if (job == nullptr) continue;
    ++busy_workers_;
    lock.unlock();
    Drain(*job);
    lock.lock();
    if (--busy_workers_ == 0 && job_ == nullptr) idle_cv_.notify_one();
  }
}

bool ThreadPool::Run(int64_t chunks, absl::FunctionRef<void(int64_t)> fn) {
  std::unique_lock<std::mutex> run_lock(run_mu_, std::try_to_lock);
  if (!run_lock.owns_lock()) return false;
  Job job{fn, chunks};
  if (!threads_.empty() && chunks > 1) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      job_ = &job;
      ++generation_;
    }
    wake_cv_.notify_all();
  }
  Drain(job);
  if (!threads_.empty() && chunks > 1) {
    // Close the job (late workers skip it), then wait for the workers still
    // running one of its chunks. Their chunk writes happen-before this
    // return through mu_.
    std::unique_lock<std::mutex> lock(mu_);
    job_ = nullptr;
    idle_cv_.wait(lock, [&] { return busy_workers_ == 0; });
  }
  return true;
}

namespace {

int DefaultThreads() {
  if (const char* env = std::getenv("TESSERA_NUM_THREADS")) {
    char* end = nullptr;
    const long n = std::strtol(env, &end, 10);
    if (end != env && *end == '\0' && n >= 1) {
      return static_cast<int>(std::min<long>(n, kMaxThreads));
    }
  }
  const unsigned hw = std::thread::hardware_concurrency();
  return static_cast<int>(std::clamp<unsigned>(hw, 1, kMaxThreads));
}

// The process-wide pool and its setting. Leaked on purpose: workers must not
// be joined by static destructors while other static destructors might
// still run tensor code.
struct PoolState {
  // Held for the whole of a parallel operation and by SetNumThreads, so the
  // pool is never replaced under a running job. Guards `pool`.
  std::mutex mu;
  std::atomic<int> threads{0};  // 0: not resolved yet; written under mu
  std::unique_ptr<ThreadPool> pool;
};

PoolState& State() {
  static PoolState* state = new PoolState;
  return *state;
}

// Needs s.mu held.
int ResolvedThreadsLocked(PoolState& s) {
  int n = s.threads.load(std::memory_order_relaxed);
  if (n == 0) {
    n = DefaultThreads();
    s.threads.store(n, std::memory_order_relaxed);
  }
  return n;
}

}  // namespace

void ParallelFor(int64_t n, int64_t min_chunk,
                 absl::FunctionRef<void(int64_t, int64_t)> fn) {
  if (n <= 0) return;
  min_chunk = std::max<int64_t>(min_chunk, 1);
  if (n < 2 * min_chunk) {
    fn(0, n);
    return;
  }
  PoolState& s = State();
  // Busy (another thread's operation, or a call from inside a chunk): this
  // caller runs its work alone rather than wait.
  std::unique_lock<std::mutex> lock(s.mu, std::try_to_lock);
  const int threads = lock.owns_lock() ? ResolvedThreadsLocked(s) : 1;
  if (threads <= 1) {
    fn(0, n);
    return;
  }
  if (s.pool == nullptr || s.pool->workers() != threads - 1) {
    s.pool = std::make_unique<ThreadPool>(threads - 1);
  }
  // A few chunks per thread, so that a descheduled thread's share is picked
  // up by the others, but none below min_chunk.
  const int64_t chunks = std::min<int64_t>(n / min_chunk, 4 * threads);
  // Rounded up to a multiple of min_chunk: chunk starts then keep the
  // alignment a caller's min_chunk implies (vectors, cache lines, pages).
  const int64_t per_chunk =
      ((n + chunks - 1) / chunks + min_chunk - 1) / min_chunk * min_chunk;
  const bool ran = s.pool->Run(chunks, [&](int64_t i) {
    const int64_t begin = i * per_chunk;
    const int64_t end = std::min(n, begin + per_chunk);
    if (begin < end) fn(begin, end);
  });
  if (!ran) fn(0, n);
}

int PoolWorkersForTesting() {
  PoolState& s = State();
  std::lock_guard<std::mutex> lock(s.mu);
  return s.pool == nullptr ? 0 : s.pool->workers();
}

}  // namespace internal

int NumThreads() {
  internal::PoolState& s = internal::State();
  const int n = s.threads.load(std::memory_order_relaxed);
  if (n != 0) return n;
  std::lock_guard<std::mutex> lock(s.mu);
  return internal::ResolvedThreadsLocked(s);
}

void SetNumThreads(int n) {
  internal::PoolState& s = internal::State();
  const int threads =
      n >= 1 ? std::min(n, kMaxThreads) : internal::DefaultThreads();
  std::unique_ptr<internal::ThreadPool> old;
  {
    // Waits for a running parallel operation.
    std::lock_guard<std::mutex> lock(s.mu);
    s.threads.store(threads, std::memory_order_relaxed);
    if (s.pool != nullptr && s.pool->workers() != threads - 1) {
      old = std::move(s.pool);
    }
  }
  old.reset();  // joins the old workers outside the lock
}

}  // namespace tessera
