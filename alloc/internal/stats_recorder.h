// Copyright 2026 The Tessera Authors.
//
// Statistics recorders behind `AllocatorStats`.
//
// `StatsRecorder` is for allocators that are single-threaded by contract (the
// TLSF arena, the stacked pool core): plain counters, exact.
//
// `ConcurrentStatsRecorder` is for thread-safe allocators (the system
// allocators, locked wrappers). An atomic read-modify-write per counter costs
// about 20 ns per malloc/free pair on this hardware, three times the pair
// itself, so instead each thread owns one slot of counters (a cache line) and
// updates it with plain loads and stores; `stats()` sums the slots. Counts and
// `bytes_in_use` are exact whenever no update is in flight. The peak is exact
// when one thread uses the allocator; with several it is a lower bound: the
// largest of each slot's own high-water mark and of the totals seen by reads.
// Threads beyond `kThreadSlots` share one overflow slot updated atomically.

#ifndef TESSERA_ALLOC_INTERNAL_STATS_RECORDER_H_
#define TESSERA_ALLOC_INTERNAL_STATS_RECORDER_H_

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>

#include "alloc/allocator.h"

namespace tessera {
namespace internal {

class StatsRecorder {
 public:
  void RecordAllocation(size_t bytes) {
    ++stats_.allocations;
    stats_.bytes_in_use += bytes;
    stats_.peak_bytes_in_use =
        std::max(stats_.peak_bytes_in_use, stats_.bytes_in_use);
  }
  void RecordDeallocation(size_t bytes) {
    ++stats_.deallocations;
    stats_.bytes_in_use -= bytes;
  }
  void RecordReallocation(size_t old_bytes, size_t new_bytes) {
    ++stats_.reallocations;
    stats_.bytes_in_use += new_bytes - old_bytes;  // modular: exact either way
    stats_.peak_bytes_in_use =
        std::max(stats_.peak_bytes_in_use, stats_.bytes_in_use);
  }
  void RecordFailure() { ++stats_.failed_requests; }

  const AllocatorStats& stats() const { return stats_; }

 private:
  AllocatorStats stats_;
};

// Index of the calling thread's slot in [0, kThreadSlots), or kThreadSlots if
// every slot is taken. A slot is released when its thread exits and may then
// be handed to a new thread, which continues its (cumulative) counters.
inline constexpr int kThreadSlots = 64;

// The slot cached for this thread, plus one (0: not assigned yet). Trivially
// initialised, so reading it costs one TLS load and no guard.
inline thread_local int tls_thread_slot_plus_one = 0;
int AcquireThreadSlot();  // slow path: first use on this thread

inline int CurrentThreadSlot() {
  const int cached = tls_thread_slot_plus_one;
  if (__builtin_expect(cached != 0, 1)) return cached - 1;
  return AcquireThreadSlot();
}

class ConcurrentStatsRecorder {
 public:
  ConcurrentStatsRecorder() = default;
  ConcurrentStatsRecorder(const ConcurrentStatsRecorder&) = delete;
  ConcurrentStatsRecorder& operator=(const ConcurrentStatsRecorder&) = delete;

  // Always inlined: these sit on every allocator's hot path, and a call
  // would cost as much as the bookkeeping itself.
  __attribute__((always_inline)) void RecordAllocation(size_t bytes) {
    Slot& slot = CurrentSlot();
    if (slot.shared) return RecordShared(slot, slot.allocations, bytes);
    Bump(slot.allocations);
    AddNet(slot, static_cast<uint64_t>(bytes));
  }
  __attribute__((always_inline)) void RecordDeallocation(size_t bytes) {
    Slot& slot = CurrentSlot();
    if (slot.shared) return RecordShared(slot, slot.deallocations, 0 - static_cast<uint64_t>(bytes));
    Bump(slot.deallocations);
    // A free never raises the peak: no high-water check.
    slot.net_bytes.store(slot.net_bytes.load(std::memory_order_relaxed) - bytes,
                         std::memory_order_relaxed);
  }

  // For leaf hot paths that must not make calls: the calling thread's own
  // slot, or nullptr when it has none yet or shares the overflow slot (then
  // use the Record* functions above). Record through the `*In` functions.
  class Slot;  // below
  __attribute__((always_inline)) Slot* OwnSlotOrNull() {
    const int cached = tls_thread_slot_plus_one;
    if (__builtin_expect(cached == 0, 0)) return nullptr;
    Slot* slot = &slots_[cached - 1];
    return slot->shared ? nullptr : slot;
  }
  __attribute__((always_inline)) static void RecordAllocationIn(Slot& slot,
                                                                size_t bytes) {
    Bump(slot.allocations);
    AddNet(slot, static_cast<uint64_t>(bytes));
  }
  __attribute__((always_inline)) static void RecordDeallocationIn(
      Slot& slot, size_t bytes) {
    Bump(slot.deallocations);
    slot.net_bytes.store(slot.net_bytes.load(std::memory_order_relaxed) - bytes,
                         std::memory_order_relaxed);
  }

  void RecordReallocation(size_t old_bytes, size_t new_bytes) {
    Slot& slot = CurrentSlot();
    const uint64_t delta = static_cast<uint64_t>(new_bytes) - old_bytes;
    if (slot.shared) return RecordShared(slot, slot.reallocations, delta);
    Bump(slot.reallocations);
    AddNet(slot, delta);
  }
  void RecordFailure() {
    Slot& slot = CurrentSlot();
    if (slot.shared) {
      slot.failed_requests.fetch_add(1, std::memory_order_relaxed);
    } else {
      Bump(slot.failed_requests);
    }
  }

  AllocatorStats stats() const;

 public:
  // One thread's counters (see OwnSlotOrNull).
  class alignas(64) Slot {
   public:
    std::atomic<uint64_t> allocations{0};
    std::atomic<uint64_t> deallocations{0};
    std::atomic<uint64_t> reallocations{0};
    std::atomic<uint64_t> failed_requests{0};
    // Bytes allocated minus bytes freed through this slot, modulo 2^64: a
    // consumer thread that frees what others allocated goes "negative".
    std::atomic<uint64_t> net_bytes{0};
    // High-water mark of net_bytes while it was positive.
    std::atomic<uint64_t> local_peak{0};
    // True only for the overflow slot, which several threads share.
    bool shared = false;
  };

 private:

  // Single writer: a plain load and store, no lock prefix.
  static void Bump(std::atomic<uint64_t>& counter) {
    counter.store(counter.load(std::memory_order_relaxed) + 1,
                  std::memory_order_relaxed);
  }

  static void AddNet(Slot& slot, uint64_t delta) {
    const uint64_t net = slot.net_bytes.load(std::memory_order_relaxed) + delta;
    slot.net_bytes.store(net, std::memory_order_relaxed);
    if (static_cast<int64_t>(net) > 0 &&
        net > slot.local_peak.load(std::memory_order_relaxed)) {
      slot.local_peak.store(net, std::memory_order_relaxed);
    }
  }

  // The overflow slot is shared by several threads: atomic updates, and no
  // local peak.
  __attribute__((noinline)) static void RecordShared(Slot& slot, std::atomic<uint64_t>& counter,
                           uint64_t delta) {
    counter.fetch_add(1, std::memory_order_relaxed);
    slot.net_bytes.fetch_add(delta, std::memory_order_relaxed);
  }

  Slot& CurrentSlot() { return slots_[CurrentThreadSlot()]; }


  struct Slots {
    Slots() { slot[kThreadSlots].shared = true; }
    Slot& operator[](int i) { return slot[i]; }
    const Slot& operator[](int i) const { return slot[i]; }
    Slot slot[kThreadSlots + 1];
  };
  Slots slots_;
  // Highest total seen by stats(); part of the concurrent peak's lower bound.
  mutable std::atomic<uint64_t> observed_peak_{0};
};

}  // namespace internal
}  // namespace tessera

#endif  // TESSERA_ALLOC_INTERNAL_STATS_RECORDER_H_
