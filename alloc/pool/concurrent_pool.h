// Copyright 2026 The Tessera Authors.
//
// -----------------------------------------------------------------------------
// File: concurrent_pool.h
// -----------------------------------------------------------------------------
//
// `ConcurrentPool` is the thread-safe front end of `StackedPool`: cells of one
// size shared by many threads. Each thread keeps a small cache of cells (an
// array, `cache_cells` long) in front of a shared depot (a `StackedPool`
// behind a mutex). `Take` pops from the calling thread's cache and `Return`
// pushes onto it, with no lock and no atomic read-modify-write; only when the
// cache runs dry (or full) does the thread take the lock and move half a
// cache of cells from (or to) the depot in one batch. So two threads taking
// and returning scale instead of contending, the way tcmalloc's and
// mimalloc's per-thread front ends do.
//
// A cell may be returned by a different thread than took it: it lands in the
// returning thread's cache and flows back to the depot from there. A thread's
// cache is flushed to the depot when the thread exits.
//
// Complexity: `Take`/`Return` O(1); one lock per `cache_cells / 2` calls in
// the worst case. Cells idle in other threads' caches are not visible to a
// thread whose cache is empty; they are at most `cache_cells` per thread.
//
// Each thread can have caches for up to 8 pools at once; a thread using more
// (or a pool destroyed while a thread still holds its slot) falls back to the
// locked depot path for the extra pools, which is correct but slower.
//
// Invariants (CheckIntegrity, numbered in its messages; exact only while no
// other thread is calling the pool):
//   1. The depot satisfies its own invariants (stacked_pool.h).
//   2. Every thread cache holds at most `cache_cells` cells; the cache of an
//      exited thread holds none.
//   3. With return checks on, cells held by clients plus cells in thread
//      caches equal the cells the depot has handed out.
//
// Bad input:
//   * Options: `cache_cells` below 2 or above 65536, or bad depot options
//     (see stacked_pool.h): InvalidArgument.
//   * Exhaustion (depot policy kFail, or out of memory): `Take` returns
//     nullptr; the depot counts the failure.
//   * With return checks on (debug and sanitizer builds by default): a double
//     return or a pointer this pool never handed out is reported through
//     ReportContractViolation and ignored. The check keeps a set of cells
//     held by clients under the depot lock, so every call takes the lock: it
//     is a debugging mode. Without it, such a return is undefined.
//   * Destroying the pool while any thread still uses it is undefined.

#ifndef TESSERA_ALLOC_POOL_CONCURRENT_POOL_H_
#define TESSERA_ALLOC_POOL_CONCURRENT_POOL_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "absl/base/optimization.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "alloc/pool/stacked_pool.h"

namespace tessera {

namespace pool_internal {

// One thread's cache for one pool. Only its thread touches `cells`; `count`
// is atomic so that stats() may read it from another thread.
struct ThreadCache {
  std::atomic<uint32_t> count{0};
  bool attached = false;  // a live thread owns it (guarded by the pool lock)
  std::unique_ptr<void*[]> cells;
};

struct PoolSlot {
  uint64_t pool_id;  // 0: empty. Pool ids are never reused.
  ThreadCache* cache;
};

inline constexpr int kPoolSlotsPerThread = 8;

// The calling thread's caches. Slot 0 is the most recently used pool, so the
// hot path checks one id. Trivially destructible with a constant
// initialiser, so access compiles to a plain TLS load; the flush at thread
// exit is done by a separate hook object.
inline thread_local PoolSlot t_pool_slots[kPoolSlotsPerThread] = {};

class ThreadExitHook;

}  // namespace pool_internal

struct ConcurrentPoolOptions {
  // The shared depot: cell size, alignment, block size, overflow policy...
  // Its `check_returns` is replaced by the one below.
  StackedPoolOptions depot;
  // Cells each thread may keep; it moves half of them at a time.
  size_t cache_cells = 64;
  bool check_returns = kCheckReturnsByDefault;
};

struct ConcurrentPoolStats {
  // The depot's view: cells sitting in thread caches count as in use there.
  StackedPoolStats depot;
  uint64_t cells_in_caches = 0;
  uint64_t cells_in_use = 0;  // held by clients
  uint64_t thread_caches = 0;  // caches of live threads
  uint64_t refills = 0;        // batches moved depot -> cache
  uint64_t flushes = 0;        // batches moved cache -> depot
};

class ConcurrentPool {
 public:
  static absl::StatusOr<std::unique_ptr<ConcurrentPool>> Create(
      const ConcurrentPoolOptions& options);
  ~ConcurrentPool();

  ConcurrentPool(const ConcurrentPool&) = delete;
  ConcurrentPool& operator=(const ConcurrentPool&) = delete;

  // Returns a cell, or nullptr when the depot cannot provide one. O(1).
  void* Take() noexcept {
    pool_internal::ThreadCache* cache = CurrentCache();
    if (ABSL_PREDICT_TRUE(cache != nullptr && !checks_)) {
      const uint32_t n = cache->count.load(std::memory_order_relaxed);
      if (ABSL_PREDICT_TRUE(n != 0)) {
        cache->count.store(n - 1, std::memory_order_relaxed);
        return cache->cells[n - 1];
      }
    }
    return TakeSlow(cache);
  }

  // Gives back a cell from Take, from any thread. O(1).
  void Return(void* cell) noexcept {
    pool_internal::ThreadCache* cache = CurrentCache();
    if (ABSL_PREDICT_TRUE(cache != nullptr && !checks_)) {
      const uint32_t n = cache->count.load(std::memory_order_relaxed);
      if (ABSL_PREDICT_TRUE(n < capacity_)) {
        cache->cells[n] = cell;
        cache->count.store(n + 1, std::memory_order_relaxed);
        return;
      }
    }
    ReturnSlow(cache, cell);
  }

  // Flushes the calling thread's cache to the depot, then releases the
  // depot's wholly idle blocks; returns how many. Cells cached by other
  // threads keep their blocks.
  size_t Trim();

  ConcurrentPoolStats stats() const;
  absl::Status CheckIntegrity() const;

  size_t cell_size() const { return cell_size_; }
  size_t cache_cells() const { return capacity_; }

 private:
  friend class pool_internal::ThreadExitHook;
  friend class pool_internal::IntegrityTestPeer;

  ConcurrentPool(const ConcurrentPoolOptions& options,
                 std::unique_ptr<StackedPool> depot);

  pool_internal::ThreadCache* CurrentCache() noexcept {
    const pool_internal::PoolSlot& slot = pool_internal::t_pool_slots[0];
    if (ABSL_PREDICT_TRUE(slot.pool_id == id_)) return slot.cache;
    return CurrentCacheSlow();
  }
  pool_internal::ThreadCache* CurrentCacheSlow() noexcept;
  pool_internal::ThreadCache* AcquireCache() noexcept;
  // Called at thread exit: moves every cell of `cache` to the depot.
  void DetachCache(pool_internal::ThreadCache* cache) noexcept;
  void* TakeSlow(pool_internal::ThreadCache* cache) noexcept;
  void ReturnSlow(pool_internal::ThreadCache* cache, void* cell) noexcept;

  const uint64_t id_;
  const uint32_t capacity_;
  const uint32_t batch_;
  const size_t cell_size_;
  const bool checks_;

  // Guards the depot, the cache list, client_held_ and the counters below.
  // std::mutex: TSan understands it (Debian's absl::Mutex is unannotated).
  mutable std::mutex mu_;
  std::unique_ptr<StackedPool> depot_;
  std::vector<std::unique_ptr<pool_internal::ThreadCache>> caches_;
  std::vector<pool_internal::ThreadCache*> detached_;  // ready for reuse
  absl::flat_hash_set<void*> client_held_;             // with checks only
  uint64_t refills_ = 0;
  uint64_t flushes_ = 0;
};

}  // namespace tessera

#endif  // TESSERA_ALLOC_POOL_CONCURRENT_POOL_H_
