// Copyright 2026 The Tessera Authors.
//
// The engine's entry points (engine.h) over the inline fast paths
// (fast_paths.h), and what those call out of line. Design and invariants:
// tessera_malloc.h. Private to the engine: see engine_internal.h.

#include "alloc/malloc/internal/fast_paths.h"

namespace tessera {
namespace malloc_internal {

namespace {
// A cell of class `c` from heap `h` (owned by the caller).
template <Counting C>
TM_NOINLINE void* AllocateFromHeapSlow(Heap* h, int c) {
  Cell* cell = static_cast<Cell*>(AllocateSlow(h, c));
  if (cell == nullptr) return Fail();
  if constexpr (C == Counting::kExact) CountAllocation(h, ClassSize(c));
  return cell;
}

template <Counting C>
inline void* AllocateFromHeap(Heap* h, int c) {
  Cell* cell = PopCell<C>(h, h->bins[c]);
  if (TM_UNLIKELY(cell == nullptr)) return AllocateFromHeapSlow<C>(h, c);
  return cell;
}

template <Counting C>
void* AllocateClassOrphan(int c) {
  pthread_mutex_lock(&g_orphan_lock);
  if (g_orphan_heap == nullptr) {
    pthread_mutex_lock(&g_registry_lock);
    g_orphan_heap = NewHeapLocked();
    pthread_mutex_unlock(&g_registry_lock);
  }
  void* p = g_orphan_heap != nullptr ? AllocateFromHeap<C>(g_orphan_heap, c)
                                     : Fail();
  pthread_mutex_unlock(&g_orphan_lock);
  return p;
}

}  // namespace

template <Counting C>
TM_NOINLINE void* AllocateClassSlow(int c) {
  Heap* h = tls_heap;
  if (h == nullptr) {
    h = AcquireHeap();
    if (h == nullptr) return AllocateClassOrphan<C>(c);
  }
  return AllocateFromHeap<C>(h, c);
}
template void* AllocateClassSlow<Counting::kExact>(int);
template void* AllocateClassSlow<Counting::kNone>(int);

TM_NOINLINE void ReportOutsideCells(const Page* p, uintptr_t a) {
  const char* what = "points past the cells handed out by its page";
  if (a < reinterpret_cast<uintptr_t>(p->cells)) {
    what = (a & (kSegmentSize - 1)) < kSegmentHeaderBytes
               ? "points into a segment header"
               : "points before its page's first cell (the page's colour)";
  }
  Report(Violation::kForeignPointer, reinterpret_cast<void*>(a), what);
}

template <Counting C>
void FreeInSegmentSlow(Segment* s, void* ptr, size_t expected_bytes) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(ptr);
  if (TM_UNLIKELY(!IsSegment(reinterpret_cast<uintptr_t>(s)))) {
    // A chunk of the segment range that is no segment (or, the range not
    // being ours, someone else's memory there).
    return FreeInNoSegment(ptr, expected_bytes);
  }
  Page* p = PageAt(s, a);
  if (TM_UNLIKELY(p == nullptr)) {
    Report(Violation::kDoubleFree, ptr,
           "points into memory tessera_malloc holds free (freed twice, or "
           "never allocated)");
    return;
  }
  Cell* cell = CellToFree(p, a, true);
  if (TM_UNLIKELY(cell == nullptr)) return;
  FreeCell<C>(p, cell, ptr, expected_bytes);
}
template void FreeInSegmentSlow<Counting::kExact>(Segment*, void*, size_t);
template void FreeInSegmentSlow<Counting::kNone>(Segment*, void*, size_t);

TM_NOINLINE void RemoteFree(Page* p, Cell* cell, uintptr_t old_canary) {
  // The fast path found `p` from the address alone (kSegmentRangeTag).
  // With the range not ours, a pointer into someone else's mapping there
  // that passed the cell test arrives here (unless the word where the
  // record's owner would be equals the caller's thread pointer): the map
  // decides, and the word the canary overwrote is put back.
  if (TM_UNLIKELY(!IsSegment(reinterpret_cast<uintptr_t>(SegmentOf(cell))))) {
    cell->canary = old_canary;
    return FreeOutsideSegments(cell);
  }
  Heap* owner = p->heap;
  // A thread with no heap yet remembers whose block it freed first: if that
  // heap is abandoned when the thread first allocates, it adopts it
  // (AcquireHeap). No lock here, and a thread that only frees adopts
  // nothing, so collectors keep reclaiming the heap.
  if (tls_heap == nullptr && tls_first_freed_heap == nullptr) {
    tls_first_freed_heap = owner;
  }
  uintptr_t old = p->thread_free.load(std::memory_order_relaxed);
  uintptr_t desired;
  do {
    SetLink(cell, reinterpret_cast<Cell*>(old & ~uintptr_t{1}));
    desired = reinterpret_cast<uintptr_t>(cell) | 1;
  } while (!p->thread_free.compare_exchange_weak(
      old, desired, std::memory_order_acq_rel, std::memory_order_relaxed));
  if ((old & 1) == 0) {
    Page* head = owner->remote_pages.load(std::memory_order_relaxed);
    do {
      p->remote_next = head;
    } while (!owner->remote_pages.compare_exchange_weak(
        head, p, std::memory_order_release, std::memory_order_relaxed));
  }
  Heap* me = tls_heap;
  if (me != nullptr) {
    OwnerAdd(me->remote_frees, 1);
  } else {
    g_orphan_remote_frees.fetch_add(1, std::memory_order_relaxed);
  }
}

void FreeOutsideSegments(void* ptr) {
  if (ptr == nullptr) return;
  if (FreeHuge(ptr)) return;
  Report(Violation::kForeignPointer, ptr,
         "was not allocated by tessera_malloc (or was already freed)");
}

void FreeSizedOutsideSegments(void* ptr, size_t bytes) {
  if (ptr == nullptr) return;
  const size_t usable = HugeUsable(ptr);
  if (usable != 0 && bytes > usable) {
    Report(Violation::kSizeMismatch, ptr,
           "freed with a size larger than the huge block");
    return;
  }
  FreeOutsideSegments(ptr);
}

void FreeInNoSegment(void* ptr, size_t expected_bytes) {
  if (expected_bytes == SIZE_MAX) return FreeOutsideSegments(ptr);
  FreeSizedOutsideSegments(ptr, expected_bytes);
}

template <Counting C>
TM_NOINLINE void FreeOutsideRange(void* ptr, size_t expected_bytes) {
  Segment* s = SegmentOf(ptr);
  if (IsSegment(reinterpret_cast<uintptr_t>(s))) {
    return FreeInSegment<C>(s, ptr, expected_bytes);
  }
  FreeInNoSegment(ptr, expected_bytes);
}
template void FreeOutsideRange<Counting::kExact>(void*, size_t);
template void FreeOutsideRange<Counting::kNone>(void*, size_t);

namespace {

// The class whose cells all start aligned to `alignment` (more than 16)
// and hold `bytes`, or -1. Cells start at a 16 KiB boundary at least, so a
// class whose size is a multiple of the alignment has them aligned, but in
// the coloured classes (1-16 KiB) only to 64 bytes: there the aligned
// classes (size_classes.h) serve a larger alignment. A real class is taken
// only up to twice the request; of it and an aligned class, the smaller.
int ClassOfAligned(size_t bytes, size_t alignment) {
  const size_t need = bytes < alignment ? alignment : bytes;
  int natural = -1;
  if (alignment <= kSegmentHeaderBytes) {
    for (int c = ClassOf(need); c < kNumClasses; ++c) {
      if (ClassSize(c) % alignment == 0 &&
          (alignment <= kColorBytes || !IsColoredClass(c))) {
        if (ClassSize(c) <= 2 * need) natural = c;
        break;
      }
    }
  }
  if (alignment > kColorBytes) {
    const int aligned = AlignedClassOf(bytes, alignment);
    if (aligned >= 0 &&
        (natural < 0 || ClassSize(aligned) < ClassSize(natural))) {
      natural = aligned;
    }
  }
  return natural;
}

}  // namespace

// ===========================================================================
// Entry points.
// ===========================================================================

ViolationHook SetViolationHook(ViolationHook hook) {
  return g_hook.exchange(hook, std::memory_order_acq_rel);
}

template <Counting C>
void* Allocate(size_t bytes) {
  return AllocateInline<C>(bytes);
}

template <Counting C>
void* AllocateAligned(size_t bytes, size_t alignment) {
  if (alignment <= 16) return Allocate<C>(bytes);
  // A block of at least one byte: rounded up inside a cell of the size
  // plus the alignment, an empty one could start where the cell ends, at
  // the next cell (a 0-byte block aligned to 32 in a 16-byte cell was the
  // start of the cell after it).
  if (bytes == 0) bytes = 1;
  if (bytes <= kMaxClassSize) {
    // A cell of a class whose cells are aligned, unless a cell of the
    // request plus its alignment is smaller (a 1100-byte block aligned to
    // 128: a 1280-byte cell, not a 2 KiB one).
    const int natural = ClassOfAligned(bytes, alignment);
    const size_t padded = bytes + alignment - 16;
    const int padded_class = padded <= kMaxClassSize ? ClassOf(padded) : -1;
    if (natural >= 0 && (padded_class < 0 ||
                         ClassSize(natural) <= ClassSize(padded_class))) {
      return AllocateClass<C>(natural);
    }
    if (padded_class >= 0) {
      char* cell = static_cast<char*>(AllocateClass<C>(padded_class));
      if (cell == nullptr) return nullptr;
      Segment* s = SegmentOf(cell);
      PageAt(s, reinterpret_cast<uintptr_t>(cell))
          ->has_aligned.store(1, std::memory_order_relaxed);
      const uintptr_t aligned =
          (reinterpret_cast<uintptr_t>(cell) + alignment - 1) & ~(alignment - 1);
      return reinterpret_cast<void*>(aligned);
    }
  }
  return AllocateHuge(bytes, alignment, false);
}

template <Counting C>
void* AllocateZeroed(size_t bytes) {
  if (bytes > kMaxClassSize) return AllocateHuge(bytes, 16, true);
  void* p = Allocate<C>(bytes);
  if (p != nullptr) memset(p, 0, bytes);
  return p;
}

template <Counting C>
void Free(void* ptr) {
  FreeInline<C>(ptr);
}

template <Counting C>
void FreeSized(void* ptr, size_t bytes, size_t alignment) {
  FreeSizedInline<C>(ptr, bytes);
}

size_t UsableSize(const void* ptr) {
  if (ptr == nullptr) return 0;
  Segment* s = SegmentOf(ptr);
  const uintptr_t a = reinterpret_cast<uintptr_t>(ptr);
  if (IsSegment(reinterpret_cast<uintptr_t>(s))) {
    Page* p = PageAt(s, a);
    if (p == nullptr) {
      Report(Violation::kDoubleFree, ptr, "points into free memory");
      return 0;
    }
    Cell* cell = CellToFree(p, a, true);
    if (cell == nullptr) return 0;
    return reinterpret_cast<uintptr_t>(cell) + p->block_size - a;
  }
  const size_t usable = HugeUsable(ptr);
  if (usable == 0) {
    Report(Violation::kForeignPointer, ptr,
           "was not allocated by tessera_malloc");
  }
  return usable;
}

bool Owns(const void* ptr) {
  if (ptr == nullptr) return false;
  Segment* s = SegmentOf(ptr);
  const uintptr_t a = reinterpret_cast<uintptr_t>(ptr);
  if (IsSegment(reinterpret_cast<uintptr_t>(s))) {
    Page* p = PageAt(s, a);
    if (p == nullptr) return false;
    Cell* cell = CellToFree(p, a, false);
    if (cell == nullptr) return false;
    if (reinterpret_cast<uintptr_t>(cell) != a && !HasAligned(p)) return false;
    return cell->canary != FreeCanary(p, cell);
  }
  return HugeUsable(ptr) != 0;
}

bool FreesInteriorPointers(const void* ptr) {
  Segment* s = SegmentOf(ptr);
  if (!IsSegment(reinterpret_cast<uintptr_t>(s))) return false;
  Page* p = PageAt(s, reinterpret_cast<uintptr_t>(ptr));
  return p != nullptr && HasAligned(p);
}

template <Counting C>
void* Reallocate(void* ptr, size_t bytes) {
  if (ptr == nullptr) return Allocate<C>(bytes);
  Segment* s = SegmentOf(ptr);
  const uintptr_t a = reinterpret_cast<uintptr_t>(ptr);
  size_t usable;
  if (IsSegment(reinterpret_cast<uintptr_t>(s))) {
    usable = UsableSize(ptr);
    if (usable == 0) return nullptr;  // reported
    // Stay in place while the block fits and wastes at most half.
    if (bytes <= usable && (bytes >= usable / 2 || usable <= 16)) {
      Heap* h = tls_heap;
      if (C == Counting::kExact && h != nullptr) {
        OwnerAdd(h->reallocations, 1);
      }
      return ptr;
    }
  } else {
    pthread_mutex_lock(&g_huge_lock);
    HugeEntry* e = g_init_state.load() == 2 ? HugeFindLocked(a) : nullptr;
    if (e == nullptr) {
      pthread_mutex_unlock(&g_huge_lock);
      Report(Violation::kForeignPointer, ptr,
             "was not allocated by tessera_malloc");
      return nullptr;
    }
    usable = e->map_bytes - (a - reinterpret_cast<uintptr_t>(e->base));
    if (bytes <= usable && bytes >= usable / 2) {
      pthread_mutex_unlock(&g_huge_lock);
      Heap* h = tls_heap;
      if (h != nullptr) {
        OwnerAdd(h->reallocations, 1);
      }
      return ptr;
    }
    if (bytes > kMaxClassSize && reinterpret_cast<char*>(a) == e->base &&
        bytes <= (size_t{1} << 46)) {
      // Grow or shrink the mapping itself: the kernel moves page tables, not
      // bytes.
      const size_t new_map = PageRound(bytes);
      void* moved = mremap(e->base, e->map_bytes, new_map, MREMAP_MAYMOVE);
      if (moved != MAP_FAILED) {
        const size_t old_map = e->map_bytes;
        HugeEraseLocked(e);
        HugeInsertLocked(reinterpret_cast<uintptr_t>(moved),
                         static_cast<char*>(moved), new_map);
        pthread_mutex_unlock(&g_huge_lock);
        Heap* h = tls_heap;
        if (h != nullptr) {
          OwnerAdd(h->bytes_allocated, new_map);
          OwnerAdd(h->bytes_freed, old_map);
          OwnerAdd(h->reallocations, 1);
        }
        return moved;
      }
    }
    pthread_mutex_unlock(&g_huge_lock);
  }
  void* fresh = Allocate<C>(bytes);
  if (fresh == nullptr) return nullptr;
  memcpy(fresh, ptr, bytes < usable ? bytes : usable);
  Free<C>(ptr);
  Heap* h = tls_heap;
  // Uncounted, Allocate and Free counted only huge blocks, as a pair that
  // stays consistent; nothing to take back.
  if (C == Counting::kExact && h != nullptr) {
    // A moving reallocation is one reallocation, not an allocation and a
    // free (AllocatorStats): take back what Allocate and Free counted.
    OwnerAdd(h->reallocations, 1);
    OwnerAdd(h->allocations, uint64_t(0) - 1);
    OwnerAdd(h->deallocations, uint64_t(0) - 1);
  }
  return fresh;
}

#define TESSERA_MALLOC_INSTANTIATE_ENTRY_POINTS_(C)             \
  template void* Allocate<C>(size_t);                           \
  template void* AllocateAligned<C>(size_t, size_t);            \
  template void* AllocateZeroed<C>(size_t);                     \
  template void Free<C>(void*);                                 \
  template void FreeSized<C>(void*, size_t, size_t);            \
  template void* Reallocate<C>(void*, size_t);
TESSERA_MALLOC_INSTANTIATE_ENTRY_POINTS_(Counting::kExact)
TESSERA_MALLOC_INSTANTIATE_ENTRY_POINTS_(Counting::kNone)
#undef TESSERA_MALLOC_INSTANTIATE_ENTRY_POINTS_

}  // namespace malloc_internal
}  // namespace tessera
