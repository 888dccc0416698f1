// Copyright 2026 The Tessera Authors.
//
// TlsfArena internals: the size-class mapping (MapInsert, FindFit), the
// segregated free lists with their bitmaps (InsertFree, RemoveFree: they
// keep invariants 3, 4 and 9 of tlsf_arena.h), and the helpers every other
// internal file shares. Inline, for the arena's own files only: the allocate
// and free paths inline them (see TESSERA_TLSF_INLINE).

#ifndef TESSERA_ALLOC_TLSF_INTERNAL_LISTS_INL_H_
#define TESSERA_ALLOC_TLSF_INTERNAL_LISTS_INL_H_

#include <cstddef>
#include <cstdint>

#include "absl/base/attributes.h"
#include "alloc/internal/dcheck.h"
#include "alloc/tlsf/tlsf_arena.h"

// The hot helpers are small and called from several places, so the compiler
// would keep them out of line; inlining them into Alloc/Free removes a call
// and a recomputation of the node address per step.
#define TESSERA_TLSF_INLINE ABSL_ATTRIBUTE_ALWAYS_INLINE inline

namespace tessera {
namespace tlsf_internal {

inline constexpr size_t kPageSize = 4096;

// Regions of at least this size ask for transparent huge pages.
inline constexpr size_t kHugePageRegion = size_t{4} << 20;

inline uintptr_t AlignUp(uintptr_t value, size_t alignment) {
  return (value + alignment - 1) & ~(uintptr_t{alignment} - 1);
}
inline uintptr_t AlignDown(uintptr_t value, size_t alignment) {
  return value & ~(uintptr_t{alignment} - 1);
}
inline bool IsPowerOfTwo(size_t value) {
  return value != 0 && (value & (value - 1)) == 0;
}
inline int Log2(size_t value) { return 63 - __builtin_clzll(value); }

}  // namespace tlsf_internal

// The arena's implementation files share these helpers.
using tlsf_internal::AlignDown;
using tlsf_internal::AlignUp;
using tlsf_internal::IsPowerOfTwo;
using tlsf_internal::kHugePageRegion;
using tlsf_internal::kPageSize;
using tlsf_internal::Log2;

TESSERA_TLSF_INLINE void TlsfArena::SetSizeFlags(Node* n, uint64_t size, uint64_t flags) {
  const uint64_t was_pending = n->size_flags & kFlagPending;
  pending_blocks_ += ((flags & kFlagPending) != 0) - (was_pending != 0);
  n->size_flags = size | flags;
}

// Size in granules u: classes (0, u) for u < 32 hold exactly u granules;
// above, first level f = log2(u) - 4 and second level s = the next five bits.
TESSERA_TLSF_INLINE void TlsfArena::MapInsert(size_t size, int* fl, int* sl) const {
  const size_t u = size >> granule_shift_;
  if (u < kSlCount) {
    *fl = 0;
    *sl = static_cast<int>(u);
  } else {
    const int msb = Log2(u);
    *fl = msb - kSlLog + 1;
    *sl = static_cast<int>((u >> (msb - kSlLog)) ^ kSlCount);
  }
}

TESSERA_TLSF_INLINE uint32_t TlsfArena::FindFit(size_t size) const {
  // Round the request up to the next class boundary, so that every block in
  // the class found is large enough: no walk along the list.
  size_t u = size >> granule_shift_;
  if (u >= kSlCount) u += (size_t{1} << (Log2(u) - kSlLog)) - 1;
  int fl, sl;
  MapInsert(u << granule_shift_, &fl, &sl);
  uint32_t sl_map = sl_bitmap_[fl] & (~0u << sl);
  if (sl_map == 0) {
    const uint64_t fl_map =
        fl + 1 < kFlCount ? fl_bitmap_ & (~uint64_t{0} << (fl + 1)) : 0;
    if (fl_map != 0) {
      fl = __builtin_ctzll(fl_map);
      sl_map = sl_bitmap_[fl];
    }
  }
  if (sl_map != 0) {
    // Any block of this list fits. Take the second one when there is one,
    // so that the head, a largest block of the list (invariant 9), stays.
    // Row 0's lists hold blocks of one size each: any block is a largest,
    // and taking the head saves loading it before the block taken.
    const uint32_t head = heads_[fl][__builtin_ctz(sl_map)];
    if (fl == 0) return head;
    const uint32_t second = N(head)->next_free;
    return second != kNil ? second : head;
  }
  // Nothing in a class above: a block of the request's own class may still
  // fit. Its head is a largest block of the list (unless the list is marked
  // stale), so if the head does not fit nothing there does. O(1). This
  // matters when the arena is nearly full.
  MapInsert(size, &fl, &sl);
  const uint32_t head = heads_[fl][sl];
  if (head == kNil || SizeOf(N(head)) < size) return kNil;
  const uint32_t second = N(head)->next_free;
  if (second != kNil && SizeOf(N(second)) >= size) return second;
  // The head alone fits: RemoveFree marks the list stale if it leaves two
  // or more blocks behind.
  return head;
}

// A block at least as large as the list's head becomes the head; a smaller
// one goes second. Either way the head stays a largest block (invariant 9).
TESSERA_TLSF_INLINE void TlsfArena::InsertFree(uint32_t i) {
  Node* n = N(i);
  TESSERA_DCHECK((n->size_flags & (kFlagRecycled | kFlagCached)) == 0,
                 "a block entering a free list should be neither recycled nor "
                 "cached");
  n->size_flags |= kFlagFree;
  const size_t size = SizeOf(n);
  TESSERA_DCHECK(size >= granule_ && (size & (granule_ - 1)) == 0,
                 "a free block should be a whole number of granules");
  int fl, sl;
  MapInsert(size, &fl, &sl);
  const uint32_t head = heads_[fl][sl];
  if (head == kNil) {
    n->prev_free = n->next_free = kNil;
    heads_[fl][sl] = i;
  } else {
    Node* h = N(head);
    if (size >= SizeOf(h)) {
      n->prev_free = kNil;
      n->next_free = head;
      h->prev_free = i;
      heads_[fl][sl] = i;
    } else {
      const uint32_t second = h->next_free;
      n->prev_free = head;
      n->next_free = second;
      if (second != kNil) N(second)->prev_free = i;
      h->next_free = i;
    }
  }
  fl_bitmap_ |= uint64_t{1} << fl;
  sl_bitmap_[fl] |= 1u << sl;
  free_bytes_ += size;
  ++free_blocks_;
}

// Removing a list's head leaves its successor at the head, which need not
// be a largest block: when two or more blocks remain the list is marked
// stale (Stats() repairs it). Allocation never removes a head that has a
// successor (FindFit takes the second block); merging, Realloc, carving and
// Collect may.
TESSERA_TLSF_INLINE void TlsfArena::RemoveFree(uint32_t i) {
  Node* n = N(i);
  const size_t size = SizeOf(n);
  int fl, sl;
  MapInsert(size, &fl, &sl);
  TESSERA_DCHECK(IsFree(n), "a block removed from a free list should be free");
  TESSERA_DCHECK(n->prev_free != kNil ? N(n->prev_free)->next_free == i
                                      : heads_[fl][sl] == i,
                 "a block removed from a free list should be on the list its "
                 "size maps to");
  TESSERA_DCHECK(n->next_free == kNil || N(n->next_free)->prev_free == i,
                 "a free block's list successor should link back to it");
  const uint32_t next = n->next_free;
  if (n->prev_free != kNil) {
    N(n->prev_free)->next_free = next;
    if (next != kNil) N(next)->prev_free = n->prev_free;
  } else {
    heads_[fl][sl] = next;
    if (next == kNil) {
      sl_bitmap_[fl] &= ~(1u << sl);
      if (sl_bitmap_[fl] == 0) fl_bitmap_ &= ~(uint64_t{1} << fl);
      stale_bitmap_[fl] &= ~(1u << sl);
    } else {
      Node* nn = N(next);
      nn->prev_free = kNil;
      // One block left is a largest; row 0's blocks are all one size.
      if (nn->next_free == kNil || fl == 0) {
        stale_bitmap_[fl] &= ~(1u << sl);
      } else {
        stale_bitmap_[fl] |= 1u << sl;
      }
    }
  }
  n->prev_free = n->next_free = kNil;
  free_bytes_ -= size;
  --free_blocks_;
}

}  // namespace tessera

#endif  // TESSERA_ALLOC_TLSF_INTERNAL_LISTS_INL_H_
