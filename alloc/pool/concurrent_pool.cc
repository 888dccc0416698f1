// Copyright 2026 The Tessera Authors.

#include "alloc/pool/concurrent_pool.h"

#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_format.h"

namespace tessera {
namespace pool_internal {
namespace {

// Live pools by id. A thread exiting looks its pools up here, under the
// mutex, so a pool being destroyed at the same moment is either still here
// (and its destructor waits) or already gone (and is not touched).
std::mutex& RegistryMutex() {
  static std::mutex* const mu = new std::mutex;
  return *mu;
}
absl::flat_hash_map<uint64_t, ConcurrentPool*>& Registry() {
  static auto* const registry =
      new absl::flat_hash_map<uint64_t, ConcurrentPool*>;
  return *registry;
}

std::atomic<uint64_t> g_next_pool_id{1};

}  // namespace

// Flushes the exiting thread's caches to their pools.
class ThreadExitHook {
 public:
  void Arm() { armed_ = true; }
  ~ThreadExitHook() {
    if (!armed_) return;
    std::lock_guard<std::mutex> lock(RegistryMutex());
    for (PoolSlot& slot : t_pool_slots) {
      if (slot.pool_id == 0) continue;
      auto it = Registry().find(slot.pool_id);
      if (it != Registry().end()) it->second->DetachCache(slot.cache);
      slot = PoolSlot{0, nullptr};
    }
  }

 private:
  bool armed_ = false;
};

namespace {
thread_local ThreadExitHook t_exit_hook;
}  // namespace

}  // namespace pool_internal

using pool_internal::PoolSlot;
using pool_internal::ThreadCache;

absl::StatusOr<std::unique_ptr<ConcurrentPool>> ConcurrentPool::Create(
    const ConcurrentPoolOptions& options) {
  if (options.cache_cells < 2 || options.cache_cells > 65536) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "concurrent_pool: cache_cells %u is not in [2, 65536]",
        options.cache_cells));
  }
  StackedPoolOptions depot_options = options.depot;
  depot_options.check_returns = options.check_returns;
  auto depot = StackedPool::Create(depot_options);
  if (!depot.ok()) return depot.status();
  std::unique_ptr<ConcurrentPool> pool(
      new ConcurrentPool(options, std::move(*depot)));
  std::lock_guard<std::mutex> lock(pool_internal::RegistryMutex());
  pool_internal::Registry()[pool->id_] = pool.get();
  return pool;
}

ConcurrentPool::ConcurrentPool(const ConcurrentPoolOptions& options,
                               std::unique_ptr<StackedPool> depot)
    : id_(pool_internal::g_next_pool_id.fetch_add(1)),
      capacity_(static_cast<uint32_t>(options.cache_cells)),
      batch_(static_cast<uint32_t>(options.cache_cells / 2)),
      cell_size_(options.depot.cell_size),
      checks_(options.check_returns),
      depot_(std::move(depot)) {}

ConcurrentPool::~ConcurrentPool() {
  // After this, no exiting thread can reach the pool. Cells left in caches
  // are depot cells and go away with the depot's blocks.
  std::lock_guard<std::mutex> lock(pool_internal::RegistryMutex());
  pool_internal::Registry().erase(id_);
}

ThreadCache* ConcurrentPool::AcquireCache() noexcept {
  std::lock_guard<std::mutex> lock(mu_);
  ThreadCache* cache;
  if (!detached_.empty()) {
    cache = detached_.back();
    detached_.pop_back();
  } else {
    caches_.push_back(std::make_unique<ThreadCache>());
    cache = caches_.back().get();
    cache->cells = std::make_unique<void*[]>(capacity_);
  }
  cache->attached = true;
  return cache;
}

ThreadCache* ConcurrentPool::CurrentCacheSlow() noexcept {
  PoolSlot* slots = pool_internal::t_pool_slots;
  for (int i = 1; i < pool_internal::kPoolSlotsPerThread; ++i) {
    if (slots[i].pool_id == id_) {
      std::swap(slots[0], slots[i]);  // most recently used first
      return slots[0].cache;
    }
  }
  int free_slot = -1;
  for (int pass = 0; pass < 2 && free_slot < 0; ++pass) {
    for (int i = 0; i < pool_internal::kPoolSlotsPerThread; ++i) {
      if (slots[i].pool_id == 0) {
        free_slot = i;
        break;
      }
    }
    if (free_slot < 0 && pass == 0) {
      // Reclaim the slots of pools destroyed since this thread used them.
      std::lock_guard<std::mutex> lock(pool_internal::RegistryMutex());
      for (int i = 0; i < pool_internal::kPoolSlotsPerThread; ++i) {
        if (!pool_internal::Registry().contains(slots[i].pool_id)) {
          slots[i] = PoolSlot{0, nullptr};
        }
      }
    }
  }
  if (free_slot < 0) return nullptr;  // every slot busy: use the depot
  pool_internal::t_exit_hook.Arm();
  slots[free_slot] = PoolSlot{id_, AcquireCache()};
  std::swap(slots[0], slots[free_slot]);
  return slots[0].cache;
}

void ConcurrentPool::DetachCache(ThreadCache* cache) noexcept {
  std::lock_guard<std::mutex> lock(mu_);
  const uint32_t n = cache->count.load(std::memory_order_relaxed);
  depot_->ReturnBatch(cache->cells.get(), n);
  if (n != 0) ++flushes_;
  cache->count.store(0, std::memory_order_relaxed);
  cache->attached = false;
  detached_.push_back(cache);
}

void* ConcurrentPool::TakeSlow(ThreadCache* cache) noexcept {
  std::lock_guard<std::mutex> lock(mu_);
  void* cell;
  if (cache == nullptr) {
    cell = depot_->Take();
  } else {
    uint32_t n = cache->count.load(std::memory_order_relaxed);
    if (n == 0) {
      n = static_cast<uint32_t>(depot_->TakeBatch(cache->cells.get(), batch_));
      if (n == 0) return nullptr;  // the depot counted the failure
      ++refills_;
    }
    cell = cache->cells[n - 1];
    cache->count.store(n - 1, std::memory_order_relaxed);
  }
  if (checks_ && cell != nullptr) client_held_.insert(cell);
  return cell;
}

void ConcurrentPool::ReturnSlow(ThreadCache* cache, void* cell) noexcept {
  std::unique_lock<std::mutex> lock(mu_);
  if (checks_ && client_held_.erase(cell) == 0) {
    const bool ours = depot_->Owns(cell);
    lock.unlock();  // the handler may call back into the pool
    ReportContractViolation(
        "concurrent_pool",
        ours ? ContractViolation::kDoubleFree
             : ContractViolation::kForeignPointer,
        cell,
        ours ? "cell is not held by any client (double return)"
             : "pointer was never handed out by this pool");
    return;
  }
  if (cache == nullptr) {
    depot_->Return(cell);
    return;
  }
  uint32_t n = cache->count.load(std::memory_order_relaxed);
  if (n == capacity_) {
    // Keep the older half (likely cold) out of the cache, the newer in it.
    n -= batch_;
    depot_->ReturnBatch(cache->cells.get() + n, batch_);
    ++flushes_;
  }
  cache->cells[n] = cell;
  cache->count.store(n + 1, std::memory_order_relaxed);
}

size_t ConcurrentPool::Trim() {
  ThreadCache* cache = CurrentCache();
  std::lock_guard<std::mutex> lock(mu_);
  if (cache != nullptr) {
    const uint32_t n = cache->count.load(std::memory_order_relaxed);
    depot_->ReturnBatch(cache->cells.get(), n);
    if (n != 0) ++flushes_;
    cache->count.store(0, std::memory_order_relaxed);
  }
  return depot_->Trim();
}

ConcurrentPoolStats ConcurrentPool::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  ConcurrentPoolStats s;
  s.depot = depot_->stats();
  for (const auto& cache : caches_) {
    s.cells_in_caches += cache->count.load(std::memory_order_relaxed);
    s.thread_caches += cache->attached ? 1 : 0;
  }
  s.cells_in_use = s.depot.cells_in_use - s.cells_in_caches;
  s.refills = refills_;
  s.flushes = flushes_;
  return s;
}

absl::Status ConcurrentPool::CheckIntegrity() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (absl::Status s = depot_->CheckIntegrity(); !s.ok()) {
    return absl::InternalError(absl::StrFormat(
        "concurrent_pool: invariant 1 (depot is sound) violated: %s",
        s.message()));
  }
  uint64_t cached = 0;
  for (const auto& cache : caches_) {
    const uint32_t n = cache->count.load(std::memory_order_relaxed);
    if (n > capacity_ || (!cache->attached && n != 0)) {
      return absl::InternalError(absl::StrFormat(
          "concurrent_pool: invariant 2 (caches within capacity, exited "
          "threads' caches empty) violated: a %s cache holds %u of %u cells",
          cache->attached ? "live" : "detached", n, capacity_));
    }
    cached += n;
  }
  const uint64_t depot_in_use = depot_->stats().cells_in_use;
  if (checks_ && client_held_.size() + cached != depot_in_use) {
    return absl::InternalError(absl::StrFormat(
        "concurrent_pool: invariant 3 (client cells + cached cells = depot "
        "cells in use) violated: %u + %u != %u",
        client_held_.size(), cached, depot_in_use));
  }
  return absl::OkStatus();
}

}  // namespace tessera
