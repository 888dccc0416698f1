// Copyright 2026 The Tessera Authors.
//
// CheckThreadHeap and CheckAllHeaps: the invariants of tessera_malloc.h.
// Private to the engine: see engine_internal.h.

#include "alloc/malloc/internal/engine_internal.h"

namespace tessera {
namespace malloc_internal {

// ---------------------------------------------------------------------------
// Integrity (invariants numbered as in tessera_malloc.h).
// ---------------------------------------------------------------------------

namespace {

#define TM_FAIL(n, msg)                       \
  do {                                        \
    *invariant = (n);                         \
    return "invariant " #n ": " msg;          \
  } while (0)

// Walks one list of page `p`; counts its cells into *count and marks them in
// `seen` (one bit per cell index). Returns an error or nullptr.
const char* WalkList(const Page* p, const Cell* cell, uint64_t* seen,
                     uint32_t* count, int* invariant) {
  const uintptr_t cells = reinterpret_cast<uintptr_t>(p->cells);
  while (cell != nullptr) {
    const uintptr_t a = reinterpret_cast<uintptr_t>(cell);
    if (a < cells) TM_FAIL(4, "a free cell lies before its page's cells");
    const uint64_t index = (a - cells) / p->block_size;
    if (index >= CarvedCells(p) || cells + index * p->block_size != a) {
      TM_FAIL(4, "a free list holds a pointer that is not a carved cell");
    }
    if (seen[index >> 6] & (uint64_t{1} << (index & 63))) {
      TM_FAIL(4, "a cell is twice on the free lists (cycle or double free)");
    }
    seen[index >> 6] |= uint64_t{1} << (index & 63);
    if (cell->canary != FreeCanary(p, cell)) {
      TM_FAIL(4, "a free cell lost its free canary (written after free)");
    }
    ++*count;
    cell = LinkOf(cell);
  }
  return nullptr;
}

const char* CheckPage(const Page* p, int* invariant) {
  if (p->size_class >= kNumBins ||
      p->block_size != ClassSize(p->size_class) ||
      p->slots != SlotsPerPage(p->size_class)) {
    TM_FAIL(3, "a page's block size, class and span disagree");
  }
  const Segment* s = SegmentOf(p);
  const char* start = reinterpret_cast<const char*>(s) +
                      (size_t{1} << kSlotShift) * (p - s->pages);
  const char* end = start + static_cast<size_t>(p->slots) * kSlotSize;
  if (p->cell_key != CellKey(p->block_size)) {
    TM_FAIL(3, "a page's cell arithmetic does not match its block size");
  }
  if (p->cells < start || p->capacity == 0 || CarvedCells(p) > p->capacity ||
      p->cells + static_cast<size_t>(p->capacity) * p->block_size > end) {
    TM_FAIL(3, "a page's cells do not fit its span");
  }
  const size_t color_offset = static_cast<size_t>(
      p->cells - (p == s->pages ? start + kSegmentHeaderBytes : start));
  if (IsColoredClass(p->size_class)
          ? color_offset % kColorBytes != 0 ||
                color_offset >= kColors * kColorBytes
          : color_offset != 0) {
    TM_FAIL(3, "a page's cells do not start where its span and colour say");
  }
  // One bit per cell: the densest page is one slot of 16-byte cells, and a
  // class above 8 KiB spans just enough slots for 6-12 cells (one to
  // three above 16 KiB).
  uint64_t seen[kSlotSize / kMinCellSize / 64] = {};
  if (p->capacity > kSlotSize / kMinCellSize) {
    TM_FAIL(3, "a page claims more cells than its densest class holds");
  }
  uint32_t local = 0, remote = 0;
  const char* err = WalkList(p, p->free, seen, &local, invariant);
  if (err != nullptr) return err;
  err = WalkList(p, p->local_free, seen, &local, invariant);
  if (err != nullptr) return err;
  const Cell* tf = reinterpret_cast<const Cell*>(
      p->thread_free.load(std::memory_order_acquire) & ~uintptr_t{1});
  err = WalkList(p, tf, seen, &remote, invariant);
  if (err != nullptr) return err;
  // A page that dropped a corrupt list (hardened builds) lost the cells
  // after the bad link: they are neither in use nor listed.
  if (p->dropped_cells ? p->used + local > CarvedCells(p)
                       : p->used + local != CarvedCells(p)) {
    TM_FAIL(3, "a page's used and free cells do not add up to its carved cells");
  }
  if (remote > p->used) TM_FAIL(3, "more cells freed remotely than in use");
  return nullptr;
}

const char* CheckHeap(const Heap* h, int* invariant) {
  // 5: queues, and count the pages on them.
  uint32_t queued = 0;
  for (int g = 0; g < kSmallGranules; ++g) {
    if (h->direct[g] != h->bins[kSmallClasses.class_of_granule[g]]) {
      TM_FAIL(5, "a small size's direct entry is not its class's bin head");
    }
  }
  for (int c = 0; c < kNumBins; ++c) {
    if (h->bins[c] == nullptr) TM_FAIL(5, "a bin head is null");
    if (h->bins[c] == &g_empty_page) continue;
    const Page* prev = nullptr;
    for (const Page* p = h->bins[c]; p != nullptr; p = p->next) {
      if (p->prev != prev) TM_FAIL(5, "a bin queue's back links are broken");
      if (p->size_class != c || p->in_full || p->kind != kSlotPage ||
          p->heap != h) {
        TM_FAIL(5, "a bin queue holds a page of another class, full, or "
                   "not this heap's");
      }
      prev = p;
      if (++queued > (1u << 24)) TM_FAIL(5, "a bin queue has a cycle");
    }
  }
  uint32_t pages = 0, empty = 0, full = 0, dirty_listed = 0;
  for (const Segment* s = h->segments; s != nullptr; s = s->next) {
    // 1
    if (!IsSegment(reinterpret_cast<uintptr_t>(s)) || s->magic != kSegmentMagic ||
        s->heap != h) {
      TM_FAIL(1, "a heap's segment is not in the segment map, lacks its "
                 "magic or names another heap");
    }
    if (s->next != nullptr && s->next->prev != s) {
      TM_FAIL(1, "the heap's segment list is badly linked");
    }
    if (s->in_range != 0 && !InRangeChunkUsed(s)) {
      TM_FAIL(1, "a segment of the segment range is not marked used there");
    }
    if (s->in_range == 0 && InSegmentRange(reinterpret_cast<uintptr_t>(s)) &&
        SegmentRangeReserved()) {
      TM_FAIL(1, "a segment in the reserved segment range does not record it");
    }
    // 2
    if ((s->dirty_mask & ~s->free_mask) != 0) {
      TM_FAIL(2, "a slot in use is marked dirty-free");
    }
    if ((s->dirty_mask != 0) != (s->dirty_listed != 0)) {
      TM_FAIL(2, "a segment with dirty slots is off the heap's dirty list, "
                 "or one without is on it");
    }
    if (s->dirty_listed) ++dirty_listed;
    uint32_t leads = 0;
    for (int i = 0; i < kSlotsPerSegment;) {
      const Page* p = &s->pages[i];
      const bool is_free = (s->free_mask >> i) & 1;
      if (is_free) {
        if (p->kind != kSlotFree) TM_FAIL(2, "a free slot is marked in use");
        if (CarvedCells(p) != 0) TM_FAIL(2, "a free slot records carved cells");
        ++i;
        continue;
      }
      if (kHardened && i == kGuardSlot && p->kind == kSlotGuard) {
        if (CarvedCells(p) != 0) TM_FAIL(2, "the guard slot records carved cells");
        ++i;
        continue;
      }
      if (p->kind != kSlotPage) {
        TM_FAIL(2, "a slot in use is neither a page nor inside one");
      }
      if (p->slots == 0 || i + p->slots > kSlotsPerSegment) {
        TM_FAIL(2, "a page's span is empty or runs past its segment");
      }
      for (int j = 1; j < p->slots; ++j) {
        const Page* t = &s->pages[i + j];
        if (((s->free_mask >> (i + j)) & 1) || t->kind != kSlotTail ||
            t->lead_offset != j) {
          TM_FAIL(2, "a page's tail slot does not point back to its lead");
        }
        if (CarvedCells(t) != 0) TM_FAIL(2, "a page's tail slot records carved cells");
      }
      ++leads;
      if (p->heap != h ||
          p->owner.load(std::memory_order_relaxed) != h->owner_thread) {
        TM_FAIL(5, "a page names another heap or another owning thread "
                   "than its heap's");
      }
      if (p->in_full) {
        ++full;
        if (p->next != nullptr || p->prev != nullptr) {
          TM_FAIL(5, "a full page is still linked into a queue");
        }
        if (p->free != nullptr || p->local_free != nullptr) {
          TM_FAIL(5, "a page marked full has free cells on its lists");
        }
      }
      const char* err = CheckPage(p, invariant);
      if (err != nullptr) return err;
      i += p->slots;
    }
    if (leads != s->pages_in_use) {
      TM_FAIL(2, "a segment's page count disagrees with its lead slots");
    }
    if (leads == 0) ++empty;
    pages += leads;
  }
  if (full != h->full_pages) {
    TM_FAIL(5, "the heap's count of full pages is wrong");
  }
  if (pages != queued + full) {
    TM_FAIL(5, "not every page of the heap is on its bin queue or full");
  }
  if (pages != h->pages) TM_FAIL(5, "the heap's count of pages is wrong");
  if (empty != h->empty_segments) {
    TM_FAIL(2, "the heap's count of empty segments is wrong");
  }
  uint32_t on_list = 0;
  for (const Segment* s = h->dirty_segments; s != nullptr; s = s->dirty_next) {
    if (s->heap != h || !s->dirty_listed ||
        (s->dirty_next != nullptr && s->dirty_next->dirty_prev != s) ||
        ++on_list > dirty_listed) {
      TM_FAIL(2, "the heap's dirty list is badly linked or holds a segment "
                 "that is not the heap's or not marked listed");
    }
  }
  if (on_list != dirty_listed) {
    TM_FAIL(2, "the heap's dirty list misses a segment marked listed");
  }
  return nullptr;
}

const char* CheckHuge(int* invariant) {
  if (g_init_state.load(std::memory_order_acquire) != 2) return nullptr;
  pthread_mutex_lock(&g_huge_lock);
  const char* err = nullptr;
  size_t count = 0;
  uint64_t mapped = 0;
  for (size_t i = 0; i < g_huge_capacity && err == nullptr; ++i) {
    const HugeEntry& e = g_huge_table[i];
    if (e.ptr <= 1) continue;
    ++count;
    mapped += e.map_bytes;
    if (e.ptr < reinterpret_cast<uintptr_t>(e.base) ||
        e.ptr >= reinterpret_cast<uintptr_t>(e.base) + e.map_bytes ||
        (e.map_bytes & 4095) != 0) {
      *invariant = 6;
      err = "invariant 6: a huge block lies outside its mapping";
    }
  }
  uint64_t cached = 0;
  for (int i = 0; i < g_huge_cache_count; ++i) cached += g_huge_cache[i].map_bytes;
  if (err == nullptr && (count != g_huge_count || mapped != g_huge_mapped ||
                         cached != g_huge_cache_bytes)) {
    *invariant = 6;
    err = "invariant 6: the huge registry's counts disagree with its entries";
  }
  pthread_mutex_unlock(&g_huge_lock);
  return err;
}

}  // namespace

const char* CheckThreadHeap(int* invariant) {
  *invariant = 0;
  Heap* h = tls_heap;
  // 5: malloc's fast path reads the heap's bin heads, or while the thread
  // has no heap the no-heap ones (every entry the empty page, constexpr).
  if (tls_bins != (h != nullptr ? h->direct : kNoHeapBins.data())) {
    TM_FAIL(5, "the calling thread's malloc reads bin heads that are not "
               "its heap's");
  }
  if (h != nullptr) {
    const char* err = CheckHeap(h, invariant);
    if (err != nullptr) return err;
  }
  return CheckHuge(invariant);
}

const char* CheckAllHeaps(int* invariant) {
  *invariant = 0;
  uint64_t segments = 0;
  for (Heap* h = g_registry.load(std::memory_order_acquire); h != nullptr;
       h = h->registry_next) {
    const char* err = CheckHeap(h, invariant);
    if (err != nullptr) return err;
    for (const Segment* s = h->segments; s != nullptr; s = s->next) ++segments;
  }
  if (segments != g_segments.load(std::memory_order_relaxed)) {
    *invariant = 7;
    return "invariant 7: the mapped segment count disagrees with the heaps' "
           "segment lists";
  }
  return CheckHuge(invariant);
}

}  // namespace malloc_internal
}  // namespace tessera
