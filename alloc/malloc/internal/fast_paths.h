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
// A free by a thread that does not own the cell's page.
TM_NOINLINE void RemoteFree(Page* p, Cell* cell);
// free() of a pointer outside every segment: null, a huge block, or foreign.
TM_NOINLINE void FreeNotInSegment(void* ptr);
// A sized free outside every segment: a huge block (its size checked) or
// foreign.
TM_NOINLINE void FreeSizedNotInSegment(void* ptr, size_t bytes);

// ---------------------------------------------------------------------------
// Allocation.
// ---------------------------------------------------------------------------

// The fast path is a leaf: a TLS load, two dependent loads, three stores;
// everything else (no heap yet, page exhausted) is out of line, so nothing
// here needs a callee-saved register.
template <Counting C>
inline void* AllocateClass(int c) {
  Heap* h = tls_heap;
  if (TM_LIKELY(h != nullptr)) {
    Page* p = h->bins[c];
    Cell* cell = p->free;
    if (TM_UNLIKELY(cell == nullptr)) {
      // Cells drained from other threads' frees, taken without the slow
      // path.
      cell = p->local_free;
      if (cell == nullptr) return AllocateClassSlow<C>(c);
      p->local_free = nullptr;
    }
    p->free = NextFree(cell);
    ++p->used;
    cell->canary = 0;
    if constexpr (C == Counting::kExact) CountAllocation(h, p->block_size);
    return cell;
  }
  return AllocateClassSlow<C>(c);
}

// ---------------------------------------------------------------------------
// Free.
// ---------------------------------------------------------------------------

// The lead page of the block at `a` in segment `s`, or nullptr (free slot).
// The lead slot's own record first: one compare on the common path.
inline Page* PageAt(Segment* s, uintptr_t a) {
  // &s->pages[slot of a], the record's offset taken from `a` with one shift
  // and one mask (a - s, then two shifts, was two instructions longer).
  static_assert(sizeof(Page) == 128);
  Page* p = reinterpret_cast<Page*>(
      reinterpret_cast<char*>(s->pages) +
      ((a >> (kSlotShift - 7)) & (uintptr_t{kSlotsPerSegment - 1} << 7)));
  if (TM_LIKELY(p->kind == kSlotPage)) return p;
  if (p->kind != kSlotTail) return nullptr;
  p -= p->lead_offset;
  return p->kind == kSlotPage ? p : nullptr;
}

// The cell of page `p` that `a` frees, or nullptr after reporting why not.
// Two tests on the common path: one unsigned compare bounds `a` to the
// carved cells (below them, the offset wraps), one multiply says whether it
// starts a cell. (Bounding the cell index instead, with a separate test for
// pointers below the cells, cost a sixth of a 64-byte round trip.)
inline Cell* CellToFree(Page* p, uintptr_t a, bool report) {
  const uintptr_t cells = reinterpret_cast<uintptr_t>(p->cells);
  const uint64_t offset = a - cells;
  if (TM_UNLIKELY(offset >= CarvedBytes(p))) {
    if (report) ReportOutsideCells(p, a);
    return nullptr;
  }
  if (TM_UNLIKELY(!IsCellStartScaled(offset, p->start_magic))) {
    if (!HasAligned(p)) {
      if (report) {
        Report(Violation::kInteriorPointer, reinterpret_cast<void*>(a),
               "points inside a block, not at its start");
      }
      return nullptr;
    }
    return reinterpret_cast<Cell*>(
        cells + CellIndexScaled(offset, p->start_magic) * p->block_size);
  }
  // `a` itself, not cells + index * block_size: equal here, but `a` is known
  // at once. A free list that takes the cell back (LIFO) would otherwise
  // chain every round trip through the multiplies.
  return reinterpret_cast<Cell*>(a);
}

// `expected_bytes`: the size a sized free names (SIZE_MAX: unknown).
template <Counting C>
inline void FreeInSegment(Segment* s, void* ptr, size_t expected_bytes) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(ptr);
  // In a segment, so not null: lets CellToFree's `a` stand for "no error".
  if (a == 0) __builtin_unreachable();
  Page* p = PageAt(s, a);
  if (TM_UNLIKELY(p == nullptr)) {
    Report(Violation::kDoubleFree, ptr,
           "points into memory tessera_malloc holds free (freed twice, or "
           "never allocated)");
    return;
  }
  Cell* cell = CellToFree(p, a, true);
  if (TM_UNLIKELY(cell == nullptr)) return;
  if (TM_UNLIKELY(cell->canary == FreeCanary(cell))) {
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
  cell->canary = FreeCanary(cell);
  Heap* h = tls_heap;
  if constexpr (C == Counting::kExact) CountFree(h, p->block_size);
  if (TM_LIKELY(p->heap == h)) {
    // Onto `free`, last in first out: the next allocation of the class gets
    // this cell back while it is in L1. (Onto a separate `local_free`,
    // swapped in when `free` ran dry, a 1 KiB round trip cycled through a
    // carve of 4 cells and took the swap every 4th call: 7.0 against 4.0 ns.)
    SetLink(cell, p->free);
    p->free = cell;
    --p->used;
    // A page that empties stays in its queue until MaybePurge, Collect or a
    // NewPage that finds no room retires it: retiring at once made W1 (batches
    // freed whole) unmap and re-carve its pages every batch.
    if (TM_UNLIKELY(p->in_full)) return Unfull(h, p);
    return;
  }
  return RemoteFree(p, cell);
}

// ---------------------------------------------------------------------------
// Entry points, inline (engine.h declares the out-of-line ones).
// ---------------------------------------------------------------------------

template <Counting C>
inline void* AllocateInline(size_t bytes) {
  if (TM_LIKELY(bytes <= kMaxSmallSize)) {
    return AllocateClass<C>(SmallClassOf(bytes));
  }
  if (TM_LIKELY(bytes <= kMaxClassSize)) return AllocateClass<C>(ClassOf(bytes));
  return AllocateHuge(bytes, 16, false);
}

template <Counting C>
inline void FreeInline(void* ptr) {
  // No null test here: null's chunk (the first 4 MiB, where the kernel maps
  // nothing: mmap_min_addr) is never a segment, so free(nullptr) reaches
  // FreeNotInSegment, which returns.
  Segment* s = SegmentOf(ptr);
  if (TM_LIKELY(IsSegment(reinterpret_cast<uintptr_t>(s)))) {
    FreeInSegment<C>(s, ptr, SIZE_MAX);
    return;
  }
  FreeNotInSegment(ptr);
}

template <Counting C>
inline void FreeSizedInline(void* ptr, size_t bytes) {
  Segment* s = SegmentOf(ptr);
  if (TM_LIKELY(IsSegment(reinterpret_cast<uintptr_t>(s)))) {
    FreeInSegment<C>(s, ptr, bytes);
    return;
  }
  FreeSizedNotInSegment(ptr, bytes);
}

}  // namespace malloc_internal
}  // namespace tessera

#endif  // TESSERA_ALLOC_MALLOC_INTERNAL_FAST_PATHS_H_
