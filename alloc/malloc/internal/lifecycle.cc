// Copyright 2026 The Tessera Authors.
//
// Purging, collecting, thread exit, fork and statistics.
// Private to the engine: see engine_internal.h.

#include "alloc/malloc/internal/engine_internal.h"

namespace tessera {
namespace malloc_internal {

// ---------------------------------------------------------------------------
// Purging: free slots that stayed free past the delay (the slots of a
// segment made of a cached huge mapping, past the cache's ten delays), and
// cached huge mappings past ten delays (kHugeCachePurgeDelays), go back to
// the OS (MADV_DONTNEED); a heap does this on its slow paths, at most every
// delay/2, and collects one abandoned heap each time.
// ---------------------------------------------------------------------------

void PurgeSegments(Heap* h, uint64_t now, bool force) {
  const uint64_t delay = g_purge_delay_ms.load(std::memory_order_relaxed);
  for (Segment* s = h->dirty_segments; s != nullptr;) {
    Segment* const next_dirty = s->dirty_next;  // s may leave the list
    uint64_t dirty = s->dirty_mask;
    while (dirty != 0) {
      const int i = __builtin_ctzll(dirty);
      int j = i;
      while (j < kSlotsPerSegment && ((dirty >> j) & 1) &&
             (force || now >= s->pages[j].freed_at_ms +
                               delay * s->pages[j].purge_delays)) {
        ++j;
      }
      if (j > i) {
        char* start = reinterpret_cast<char*>(s) + (size_t{1} << kSlotShift) * i;
        char* end = reinterpret_cast<char*>(s) + (size_t{1} << kSlotShift) * j;
        if (i == 0) start += kSegmentHeaderBytes;
        Purge(start, static_cast<size_t>(end - start));
        const uint64_t run = SlotRunMask(i, j - i);
        s->dirty_mask &= ~run;
        dirty &= ~run;
      } else {
        dirty &= ~(uint64_t{1} << i);
      }
    }
    SyncDirtyList(h, s);
    s = next_dirty;
  }
}

// Retires every empty page of `h`. keep_one: but the first of each class
// up to 8 KiB, aligned classes included (pages of one slot and many cells),
// which a program that empties and refills a class (W1's batches) would
// otherwise re-carve every time. Empty pages of the classes above go: kept,
// each would hold 64 KiB-512 KiB resident for a class the program may not
// use again (at the cc1plus trace's peak, ten such pages held 1.7 MiB);
// re-making one costs a new page, at most once a purge tick or a NewPage's
// retire.
bool RetireEmptyPages(Heap* h, bool keep_one, int first_class,
                      int end_class) {
  bool any = false;
  for (int c = first_class; c < end_class; ++c) {
    Page* p = BinEmpty(h, c) ? nullptr : h->bins[c];
    bool first = true;
    while (p != nullptr) {
      Page* next = p->next;
      if (p->used == 0 &&
          !(keep_one && first && p->slots == 1 &&
            (c < kFirstLargeClass || c >= kFirstAlignedClass))) {
        RetirePage(h, p);
        any = true;
      }
      first = false;
      p = next;
    }
  }
  return any;
}

void CollectHeap(Heap* h, bool force) {
  DrainRemote(h);
  RetireEmptyPages(h, !force);
  PurgeSegments(h, NowMs(), force);
  if (force) ReleaseEmptySegments(h, false);
}

void CollectOneAbandoned(bool force) {
  if (g_abandoned_count.load(std::memory_order_relaxed) == 0) return;
  if (pthread_mutex_trylock(&g_registry_lock) != 0) return;
  Heap* h = g_abandoned;
  if (h != nullptr) {
    g_abandoned = h->abandoned_next;
    h->owned = true;
  }
  pthread_mutex_unlock(&g_registry_lock);
  if (h == nullptr) return;
  CollectHeap(h, true);
  (void)force;
  pthread_mutex_lock(&g_registry_lock);
  h->owned = false;
  // Back at the end of the list, so the next call (a purge tick, or
  // Collect's call per abandoned heap) takes the next heap. (At the front,
  // every call took this one again, and no other abandoned heap was ever
  // collected.)
  h->abandoned_next = nullptr;
  Heap** tail = &g_abandoned;
  while (*tail != nullptr) tail = &(*tail)->abandoned_next;
  *tail = h;
  pthread_mutex_unlock(&g_registry_lock);
}

void MaybePurge(Heap* h, bool force) {
  const uint64_t now = NowMs();
  const uint32_t delay = g_purge_delay_ms.load(std::memory_order_relaxed);
  if (!force && now - h->last_purge_ms < delay / 2 + 1) return;
  h->last_purge_ms = now;
  SamplePeak();
  DrainRemote(h);
  RetireEmptyPages(h, true);
  // An empty segment already purged (free past its delays) goes back whole.
  if (h->empty_segments != 0) ReleaseEmptySegments(h, true);
  PurgeSegments(h, now, force);
  pthread_mutex_lock(&g_huge_lock);
  HugeCacheAgeLocked(now, force);
  pthread_mutex_unlock(&g_huge_lock);
  CollectOneAbandoned(force);
}

void OnThreadExit(void* heap) {
  Heap* h = static_cast<Heap*>(heap);
  if (h == nullptr) return;
  CollectHeap(h, false);
  // Before the heap is published: this thread's later frees (other TLS
  // destructors) must go the remote way, and a thread created after this
  // one exits may get its thread pointer.
  SetHeapOwner(h, 0);
  SetThreadHeap(nullptr);
  tls_dead = true;  // later calls on this thread use the orphan heap
  pthread_mutex_lock(&g_registry_lock);
  h->owned = false;
  h->abandoned_next = g_abandoned;
  g_abandoned = h;
  g_abandoned_count.fetch_add(1, std::memory_order_relaxed);
  pthread_mutex_unlock(&g_registry_lock);
}

void SamplePeak() {
  uint64_t allocated = 0, freed = 0;
  for (Heap* h = g_registry.load(std::memory_order_acquire); h != nullptr;
       h = h->registry_next) {
    allocated += h->bytes_allocated.load(std::memory_order_relaxed);
    freed += h->bytes_freed.load(std::memory_order_relaxed);
  }
  freed += g_orphan_bytes_freed.load(std::memory_order_relaxed);
  allocated += g_orphan_bytes_allocated.load(std::memory_order_relaxed);
  const uint64_t in_use = allocated - freed;
  uint64_t peak = g_peak.load(std::memory_order_relaxed);
  while (in_use > peak && in_use < (uint64_t{1} << 62) &&
         !g_peak.compare_exchange_weak(peak, in_use, std::memory_order_relaxed)) {
  }
}

void NoteFailure() { g_failed.fetch_add(1, std::memory_order_relaxed); }

EngineStats Stats() {
  EngineStats st;
  uint64_t allocated = 0, freed = 0;
  for (Heap* h = g_registry.load(std::memory_order_acquire); h != nullptr;
       h = h->registry_next) {
    st.allocations += h->allocations.load(std::memory_order_relaxed);
    st.deallocations += h->deallocations.load(std::memory_order_relaxed);
    st.reallocations += h->reallocations.load(std::memory_order_relaxed);
    st.remote_frees += h->remote_frees.load(std::memory_order_relaxed);
    allocated += h->bytes_allocated.load(std::memory_order_relaxed);
    freed += h->bytes_freed.load(std::memory_order_relaxed);
  }
  st.deallocations += g_orphan_frees.load(std::memory_order_relaxed);
  st.allocations += g_orphan_allocs.load(std::memory_order_relaxed);
  st.remote_frees += g_orphan_remote_frees.load(std::memory_order_relaxed);
  freed += g_orphan_bytes_freed.load(std::memory_order_relaxed);
  allocated += g_orphan_bytes_allocated.load(std::memory_order_relaxed);
  st.bytes_in_use = allocated - freed;
  SamplePeak();
  st.peak_bytes_in_use = g_peak.load(std::memory_order_relaxed);
  if (st.peak_bytes_in_use < st.bytes_in_use) st.peak_bytes_in_use = st.bytes_in_use;
  st.failed_requests = g_failed.load(std::memory_order_relaxed);
  st.segments = g_segments.load(std::memory_order_relaxed);
  st.segments_outside_range =
      g_segments_outside_range.load(std::memory_order_relaxed);
  st.heaps = g_heaps.load(std::memory_order_relaxed);
  st.abandoned_heaps = g_abandoned_count.load(std::memory_order_relaxed);
  st.purged_bytes = g_purged_bytes.load(std::memory_order_relaxed);
  if (g_init_state.load(std::memory_order_acquire) == 2) {
    pthread_mutex_lock(&g_huge_lock);
    st.huge_blocks = g_huge_count;
    st.huge_bytes = g_huge_mapped;
    st.huge_cached_bytes = g_huge_cache_bytes;
    pthread_mutex_unlock(&g_huge_lock);
  }
  return st;
}

void Collect(bool force) {
  EnsureInit();
  Heap* h = tls_heap;
  if (h != nullptr) {
    CollectHeap(h, force);
    h->last_purge_ms = NowMs();
  }
  pthread_mutex_lock(&g_huge_lock);
  HugeCacheAgeLocked(NowMs(), force);
  pthread_mutex_unlock(&g_huge_lock);
  const uint64_t abandoned = g_abandoned_count.load(std::memory_order_relaxed);
  for (uint64_t i = 0; i < abandoned; ++i) CollectOneAbandoned(force);
  SamplePeak();
}

void SetPurgeDelayMs(uint32_t ms) {
  g_purge_delay_ms.store(ms, std::memory_order_relaxed);
}

void ForkPrepare() {
  pthread_mutex_lock(&g_orphan_lock);
  pthread_mutex_lock(&g_registry_lock);
  pthread_mutex_lock(&g_huge_lock);
  pthread_mutex_lock(&g_range_lock);  // a leaf: taken under any other
}

void ForkParent() {
  pthread_mutex_unlock(&g_range_lock);
  pthread_mutex_unlock(&g_huge_lock);
  pthread_mutex_unlock(&g_registry_lock);
  pthread_mutex_unlock(&g_orphan_lock);
}

void ForkChild() {
  pthread_mutex_init(&g_range_lock, nullptr);
  pthread_mutex_init(&g_huge_lock, nullptr);
  pthread_mutex_init(&g_registry_lock, nullptr);
  pthread_mutex_init(&g_orphan_lock, nullptr);
  // Only the forking thread survives: every other owned heap is abandoned,
  // so later threads adopt it and its memory is reused.
  Heap* mine = tls_heap;
  for (Heap* h = g_registry.load(std::memory_order_acquire); h != nullptr;
       h = h->registry_next) {
    if (h == mine || !h->owned || h == g_orphan_heap) continue;
    // A thread that was inside SetBinHead when the fork happened may have
    // left the direct entries half updated: make them equal to the bins.
    for (int c = 0; c <= kLastSmallClass; ++c) SetBinHead(h, c, h->bins[c]);
    // The child's threads may get the thread pointers of the parent's.
    SetHeapOwner(h, 0);
    h->owned = false;
    h->abandoned_next = g_abandoned;
    g_abandoned = h;
    g_abandoned_count.fetch_add(1, std::memory_order_relaxed);
  }
}

void AbandonThreadHeap() {
  Heap* h = tls_heap;
  if (h == nullptr) return;
  pthread_setspecific(g_thread_key, nullptr);
  OnThreadExit(h);
  tls_dead = false;  // the thread may get a heap again
}

}  // namespace malloc_internal
}  // namespace tessera
