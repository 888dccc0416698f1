// Copyright 2026 The Tessera Authors.
//
// TlsfArena: carving metadata nodes from the free block at the top of a
// region (CarveNodes; EnsureNodes is in nodes-inl.h). The carved nodes go on the recycled list
// (invariant 5 of tlsf_arena.h); the region's floor moves down and its last
// block shrinks or goes (invariant 1).

#include <cstdint>

#include "alloc/internal/dcheck.h"
#include "alloc/tlsf/internal/lists-inl.h"
#include "alloc/tlsf/internal/nodes-inl.h"
#include "alloc/tlsf/tlsf_arena.h"

namespace tessera {

// Takes one carve unit from the top of the first region whose last block is
// free, turning it into metadata nodes on the recycled list.
bool TlsfArena::CarveNodes() {
  const uint32_t count = static_cast<uint32_t>(carve_bytes_ / sizeof(Node));
  for (int r = 0; r < num_regions_; ++r) {
    Region& region = regions_[r];
    const uint32_t tail = region.last;
    Node* t = N(tail);
    // Slot kLocalMask of the last region would be the index kNil (see the
    // static_assert beside kNil): stop carving below it in every region.
    if (!IsFree(t) || region.carved + count >= kLocalMask) continue;
    const size_t size = SizeOf(t);
    TESSERA_DCHECK(t->next_phys == kNil && t->addr + size == region.floor,
                   "nodes should be carved from the block that ends at the "
                   "region's floor");
    if (size > carve_bytes_) {
      // Unlink before resizing: the list is found from the size.
      RemoveFree(tail);
      t->size_flags -= carve_bytes_;
      InsertFree(tail);
    } else if (size == carve_bytes_ && t->prev_phys != kNil) {
      RemoveFree(tail);
      region.last = t->prev_phys;
      N(region.last)->next_phys = kNil;
      RecycleNode(tail);
    } else {
      continue;
    }
    region.floor -= carve_bytes_;
    tlsf_internal::Unpoison(region.floor, carve_bytes_);
    const uint32_t first = static_cast<uint32_t>(r) << kLocalBits;
    for (uint32_t k = 0; k < count; ++k) {
      const uint32_t i = first | (region.carved + k);
      Node* n = N(i);
      n->addr = nullptr;
      n->size_flags = kFlagRecycled;
      n->prev_phys = n->next_phys = n->prev_free = kNil;
      n->next_free = recycled_head_;
      recycled_head_ = i;
    }
    region.carved += count;
    recycled_count_ += count;
    carved_total_ += count;
    return true;
  }
  return false;
}

}  // namespace tessera
