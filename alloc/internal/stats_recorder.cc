// Copyright 2026 The Tessera Authors.

#include "alloc/internal/stats_recorder.h"

#include <bitset>
#include <mutex>

namespace tessera {
namespace internal {
namespace {

// Hands out thread slot indices. A plain std::mutex, not absl::Mutex: this runs
// during thread start-up and exit, where absl's deadlock detection allocates.
class SlotRegistry {
 public:
  int Acquire() {
    std::lock_guard<std::mutex> lock(mu_);
    for (int i = 0; i < kThreadSlots; ++i) {
      if (!taken_[i]) {
        taken_[i] = true;
        return i;
      }
    }
    return kThreadSlots;
  }
  void Release(int slot) {
    if (slot >= kThreadSlots) return;
    std::lock_guard<std::mutex> lock(mu_);
    taken_[slot] = false;
  }

 private:
  std::mutex mu_;
  std::bitset<kThreadSlots> taken_;
};

SlotRegistry& Registry() {
  // Never destroyed: threads may exit after static destruction has begun.
  static SlotRegistry* const registry = new SlotRegistry;
  return *registry;
}

// Owns the calling thread's slot and gives it back when the thread exits.
struct ThreadSlotHolder {
  int slot = Registry().Acquire();
  ~ThreadSlotHolder() {
    Registry().Release(slot);
    // Allocations from later thread-exit destructors use the shared slot.
    slot = kThreadSlots;
    tls_thread_slot_plus_one = kThreadSlots + 1;
  }
};

}  // namespace

int AcquireThreadSlot() {
  static thread_local ThreadSlotHolder holder;
  tls_thread_slot_plus_one = holder.slot + 1;
  return holder.slot;
}

AllocatorStats ConcurrentStatsRecorder::stats() const {
  AllocatorStats out;
  uint64_t net = 0;
  uint64_t peak = 0;
  for (int i = 0; i <= kThreadSlots; ++i) {
    const Slot& slot = slots_[i];
    out.allocations += slot.allocations.load(std::memory_order_relaxed);
    out.deallocations += slot.deallocations.load(std::memory_order_relaxed);
    out.reallocations += slot.reallocations.load(std::memory_order_relaxed);
    out.failed_requests += slot.failed_requests.load(std::memory_order_relaxed);
    net += slot.net_bytes.load(std::memory_order_relaxed);
    peak = std::max(peak, slot.local_peak.load(std::memory_order_relaxed));
  }
  out.bytes_in_use = net;
  uint64_t observed = observed_peak_.load(std::memory_order_relaxed);
  while (out.bytes_in_use > observed &&
         !observed_peak_.compare_exchange_weak(observed, out.bytes_in_use,
                                               std::memory_order_relaxed)) {
  }
  out.peak_bytes_in_use = std::max({peak, observed, out.bytes_in_use});
  return out;
}

}  // namespace internal
}  // namespace tessera
