// Copyright 2026 The Tessera Authors.
//
// -----------------------------------------------------------------------------
// File: internal/fast_paths.h
// -----------------------------------------------------------------------------
//
// The allocation and free fast paths, inline. Two kinds of caller compile
// them: engine.cc, whose out-of-line entry points (engine.h) serve the
// `tessera::Allocator` interface, and malloc_override.cc, whose malloc, free,
// operator new and delete are the fast path itself rather than a jump to an
// entry point in another translation unit. (The jump, and a call that cannot
// be inlined, cost a quarter of the shootout's 64-byte take/return pair: 4.8
// against 3.6 ns, A/B of the preloaded library.) Everything off the fast path
// stays out of line in engine.cc, declared here. Private to the engine: see
// engine_internal.h; design and invariants in tessera_malloc.h.

#ifndef TESSERA_ALLOC_MALLOC_INTERNAL_FAST_PATHS_H_
#define TESSERA_ALLOC_MALLOC_INTERNAL_FAST_PATHS_H_

#include "alloc/malloc/internal/engine_internal.h"

namespace tessera {
namespace malloc_internal {

// ---------------------------------------------------------------------------
// Out of line, in engine.cc.
// ---------------------------------------------------------------------------

// A cell of class `c` when the calling thread's bin is dry or it has no heap.
template <Counting C>
TM_NOINLINE void* AllocateClassSlow(int c);
extern template void* AllocateClassSlow<Counting::kExact>(int);
extern template void* AllocateClassSlow<Counting::kNone>(int);
TM_NOINLINE void ReportOutsideCells(const Page* p, uintptr_t a);
// A free by a thread that does not own the cell's page, whose canary it has
// set over `old_canary`; or, the segment range not being ours, of a pointer
// into someone else's memory there: its word put back, and reported.
TM_NOINLINE void RemoteFree(Page* p, Cell* cell, uintptr_t old_canary);
// A free of a pointer outside the segment range: null, a segment mapped
// outside it, a huge block (its size checked by a sized free), or foreign.
// `expected_bytes`: the size a sized free names (SIZE_MAX: unknown).
template <Counting C>
TM_NOINLINE void FreeOutsideRange(void* ptr, size_t expected_bytes);
extern template void FreeOutsideRange<Counting::kExact>(void*, size_t);
extern template void FreeOutsideRange<Counting::kNone>(void*, size_t);

// ---------------------------------------------------------------------------
// Allocation.
// ---------------------------------------------------------------------------

// Which cell PopCell starts loading for the class's next allocation.
enum class PrefetchNext {
  kNo,
  // Always, without a test: the small classes, whose pages hold many cells.
  kAlways,
  // When there is one: the classes above 1 KiB, whose pages hold 5-63 cells
  // (one above 16 KiB), so the last free cell's `next` is often null (see
  // PopCell).
  kIfAny,
};

// A cell of page `p`, the head of its class's queue in heap `h`, or nullptr
// when both of the page's lists are empty.
template <Counting C, PrefetchNext kPrefetch = PrefetchNext::kNo>
inline Cell* PopCell(Heap* h, Page* p) {
  Cell* cell = p->free;
  if (TM_UNLIKELY(cell == nullptr)) {
    // Cells drained from other threads' frees, taken without the slow path.
    cell = p->local_free;
    if (cell == nullptr) return nullptr;
    p->local_free = nullptr;
  }
  Cell* const next = NextFree(cell);
  p->free = next;
  // The next allocation of this class pops `next`: start its load now. A
  // cell freed long ago (a program freeing a tree, then building another)
  // is out of cache, and that pop's load of its link is what malloc waits
  // on. The small classes: a replayed cc1plus trace, steady passes, 7.39
  // against 7.67 ns a call (15 passes a side); rt_64, W1, W3 level, W4
  // faster. A prefetch of a null `next` (the page's last free cell, every
  // time in a one-cell page) is a failed page walk on these VMs, and made a
  // 100 KiB round trip 50% slower: the classes above 1 KiB test for it
  // first. Their prefetch (2026-12-07, preloaded library, alternating runs):
  // W1 8.11 against 8.44 ns (21 runs a side), W1 touched 10.93 against
  // 11.29, the cc1plus trace 9.96 against 10.24 (7); rt_100k, rt_1k, W3
  // level.
  if constexpr (kPrefetch == PrefetchNext::kAlways) {
    __builtin_prefetch(next, 1, 3);
  } else if constexpr (kPrefetch == PrefetchNext::kIfAny) {
    if (next != nullptr) __builtin_prefetch(next, 1, 3);
  }
  ++p->used;
  cell->canary = 0;
  if constexpr (C == Counting::kExact) CountAllocation(h, p->block_size);
  return cell;
}

// The fast paths are leaves: a TLS load, the page, two dependent loads and
// three stores; everything else (no heap yet, page exhausted) is out of
// line, so nothing here needs a callee-saved register. Without counters
// (the program's malloc) they read the bin heads through tls_bins, which is
// never null, so they make no test for a heap: 2026-12-07 (21:23-) in
// docs/benchmarks.md. With counters they need the heap itself, and its
// test is cheaper than a second thread-local load: one path for both,
// through tls_bins with tls_heap read to count, made the interface form's
// W3, rt_64 and pool 4-7% slower (8 alternating runs each, 2026-12-07).
template <Counting C>
inline void* AllocateClass(int c) {
  if constexpr (C == Counting::kNone) {
    Cell* cell = PopCell<C, PrefetchNext::kIfAny>(
        nullptr, tls_bins[kSmallGranules + c]);
    if (TM_LIKELY(cell != nullptr)) return cell;
  } else {
    Heap* h = tls_heap;
    if (TM_LIKELY(h != nullptr)) {
      Cell* cell = PopCell<C, PrefetchNext::kIfAny>(h, h->bins[c]);
      if (TM_LIKELY(cell != nullptr)) return cell;
    }
  }
  return AllocateClassSlow<C>(c);
}

// A request of up to kMaxSmallSize bytes: its page straight from the size's
// granule (Heap::direct), the class computed only off the fast path.
template <Counting C>
inline void* AllocateSmall(size_t bytes) {
  if constexpr (C == Counting::kNone) {
    Cell* cell = PopCell<C, PrefetchNext::kAlways>(
        nullptr, tls_bins[SmallGranuleOf(bytes)]);
    if (TM_LIKELY(cell != nullptr)) return cell;
  } else {
    Heap* h = tls_heap;
    if (TM_LIKELY(h != nullptr)) {
      Cell* cell = PopCell<C, PrefetchNext::kAlways>(
          h, h->direct[SmallGranuleOf(bytes)]);
      if (TM_LIKELY(cell != nullptr)) return cell;
    }
  }
  return AllocateClassSlow<C>(SmallClassOf(bytes));
}

// ---------------------------------------------------------------------------
// Free.
// ---------------------------------------------------------------------------

// The record of the slot that holds `a` in segment `s`, whatever its kind:
// &s->pages[slot of a], the offset taken from `a` with one shift and one
// mask (a - s, then two shifts, was two instructions longer).
inline Page* SlotRecord(Segment* s, uintptr_t a) {
  static_assert(sizeof(Page) == 128);
  return reinterpret_cast<Page*>(
      reinterpret_cast<char*>(s->pages) +
      ((a >> (kSlotShift - 7)) & (uintptr_t{kSlotsPerSegment - 1} << 7)));
}

// The lead page of the block at `a` in segment `s`, or nullptr (free slot).
// The lead slot's own record first: one compare on the common path.
inline Page* PageAt(Segment* s, uintptr_t a) {
  Page* p = SlotRecord(s, a);
  if (TM_LIKELY(p->kind == kSlotPage)) return p;
  if (p->kind != kSlotTail) return nullptr;
  p -= p->lead_offset;
  return p->kind == kSlotPage ? p : nullptr;
}

// The cell of page `p` that `a` frees, or nullptr after reporting why not.
// One test on the common path: CellIndexIfStart (size_classes.h) is below
// the carved cells exactly when `a` starts one of them.
inline Cell* CellToFree(Page* p, uintptr_t a, bool report) {
  const uintptr_t cells = reinterpret_cast<uintptr_t>(p->cells);
  const uint64_t offset = a - cells;
  if (TM_LIKELY(IsCarvedIndex(CellIndexIfStart(offset, p->cell_key), p))) {
    return reinterpret_cast<Cell*>(a);
  }
  // Below the cells, the offset wraps.
  if (offset >= CarvedBytes(p)) {
    if (report) ReportOutsideCells(p, a);
    return nullptr;
  }
  if (!HasAligned(p)) {
    if (report) {
      Report(Violation::kInteriorPointer, reinterpret_cast<void*>(a),
             "points inside a block, not at its start");
    }
    return nullptr;
  }
  return reinterpret_cast<Cell*>(cells + offset / p->block_size * p->block_size);
}

// The rest of a free once `cell` (of page `p`, freed as `ptr` = `a`) is
// known to start a carved cell. `expected_bytes`: the size a sized free
// names (SIZE_MAX: unknown).
template <Counting C>
inline void FreeCell(Page* p, Cell* cell, void* ptr, size_t expected_bytes) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(ptr);
  const uintptr_t canary = cell->canary;
  if (TM_UNLIKELY(canary == FreeCanary(p, cell))) {
    Report(Violation::kDoubleFree, ptr, "block is already free");
    return;
  }
  if (TM_UNLIKELY(expected_bytes != SIZE_MAX &&
                  expected_bytes > reinterpret_cast<uintptr_t>(cell) +
                                       p->block_size - a)) {
    Report(Violation::kSizeMismatch, ptr,
           "freed with a size larger than the block it was allocated as");
    return;
  }
  // (Stored before the owner test, not after it in both branches: W3
  // 0.95 against 0.975 of d1c2adc over four code placements, pool level,
  // 2026-12-07. RemoteFree puts the old word back if `cell` turns out to
  // be in no segment.)
  cell->canary = FreeCanary(p, cell);
  if (TM_LIKELY(OwnsPage(p))) {
    if constexpr (C == Counting::kExact) CountFree(p->heap, p->block_size);
    // Onto `free`, last in first out: the next allocation of the class gets
    // this cell back while it is in L1. (Onto `local_free`, taken over when
    // `free` runs dry as mimalloc does, the next allocation no longer waits
    // on this free's stores, yet a 16-64 byte ring churn ran 4.4-4.7 against
    // 4.1-4.3 ns, A/B 2026-12-06; and a 1 KiB round trip once cycled through
    // a carve of 4 cells, 7.0 against 4.0 ns.)
    Cell* const head = p->free;
    SetLink(cell, head);
    p->free = cell;
    --p->used;
    // Only a page whose free list was empty can be full: the test of `head`,
    // already loaded, keeps the load of `in_full` off the common path. A
    // page that empties stays in its queue until MaybePurge, Collect or
    // NewPage retires it (RetireEmptyPages): retiring at once made W1
    // (batches freed whole) unmap and re-carve its pages every batch.
    // (The heap is read here, not above: it is on the second line.)
    if (TM_UNLIKELY(head == nullptr) && p->in_full) return Unfull(p->heap, p);
    return;
  }
  if constexpr (C == Counting::kExact) CountFree(tls_heap, p->block_size);
  return RemoteFree(p, cell, canary);
}

// A free whose pointer the fast path could not place: a cell in a
// multi-slot page's later slots (most cells of the classes above 8 KiB, so
// this is out of line but not marked cold), a segment header, a free slot,
// past the carved cells, or a chunk of the segment range that is not a
// segment. Finds the page through its lead slot and frees the cell, or
// reports what is wrong.
template <Counting C>
__attribute__((noinline)) void FreeInSegmentSlow(Segment* s, void* ptr,
                                                 size_t expected_bytes);
extern template void FreeInSegmentSlow<Counting::kExact>(Segment*, void*, size_t);
extern template void FreeInSegmentSlow<Counting::kNone>(Segment*, void*, size_t);

template <Counting C>
inline void FreeInSegment(Segment* s, void* ptr, size_t expected_bytes) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(ptr);
  // The record of `a`'s own slot, whatever its kind: free slots, guards and
  // the later slots of a multi-slot page keep `carved_cells` 0 (NewPage,
  // RetirePage), so the one test below also sends every pointer that is
  // not a carved cell's start in a lead slot to the slow path: interior
  // pointers, pointers past the carved cells or below them. (Testing the
  // kind first cost a load and a branch of every free. A bound and then a
  // start test by multiplication, two branches and two instructions more,
  // against this one test: rt_64 2.64 against 2.51 ns, rt_1k 2.71 against
  // 2.55, pool 4.29 against 3.74, W1 5.93 against 5.77; W3 and the cc1plus
  // trace level; alternating runs of the preloaded library, 2026-12-07.)
  Page* p = SlotRecord(s, a);
  const uint64_t index =
      CellIndexIfStart(a - reinterpret_cast<uintptr_t>(p->cells), p->cell_key);
  if (TM_UNLIKELY(!IsCarvedIndex(index, p))) {
    return FreeInSegmentSlow<C>(s, ptr, expected_bytes);
  }
  // `a` itself, not cells + index * block_size: equal here, but `a` is known
  // at once. A free list that takes the cell back (LIFO) would otherwise
  // chain every round trip through the multiplies.
  FreeCell<C>(p, reinterpret_cast<Cell*>(a), ptr, expected_bytes);
}

// ---------------------------------------------------------------------------
// Entry points, inline (engine.h declares the out-of-line ones).
// ---------------------------------------------------------------------------

template <Counting C>
inline void* AllocateInline(size_t bytes) {
  if (TM_LIKELY(bytes <= kMaxSmallSize)) {
    return AllocateSmall<C>(bytes);
  }
  if (TM_LIKELY(bytes <= kMaxClassSize)) {
    return AllocateClass<C>(MediumClassOf(bytes));
  }
  return AllocateHuge(bytes, 16, false);
}

// A pointer into the segment range goes straight to its slot's record: a
// compare with a constant, no load (engine_internal.h, kSegmentRangeTag).
// No null test here: null is outside the range, so free(nullptr) reaches
// FreeOutsideRange, which returns.
template <Counting C>
inline void FreeInline(void* ptr) {
  if (TM_LIKELY(InSegmentRange(reinterpret_cast<uintptr_t>(ptr)))) {
    FreeInSegment<C>(SegmentOf(ptr), ptr, SIZE_MAX);
    return;
  }
  FreeOutsideRange<C>(ptr, SIZE_MAX);
}

template <Counting C>
inline void FreeSizedInline(void* ptr, size_t bytes) {
  if (TM_LIKELY(InSegmentRange(reinterpret_cast<uintptr_t>(ptr)))) {
    FreeInSegment<C>(SegmentOf(ptr), ptr, bytes);
    return;
  }
  FreeOutsideRange<C>(ptr, bytes);
}

}  // namespace malloc_internal
}  // namespace tessera

#endif  // TESSERA_ALLOC_MALLOC_INTERNAL_FAST_PATHS_H_
