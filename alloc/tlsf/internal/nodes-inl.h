// Copyright 2026 The Tessera Authors.
//
// TlsfArena internals: metadata node storage. Nodes live in the top of each
// region (carved by CarveNodes, internal/nodes.cc); a node whose block merged
// away goes on the recycled list (RecycleNode) and is reused before any new
// one is carved (PopNode): invariant 5 of tlsf_arena.h. LinkBelow threads a
// fresh node into a region's address chain (invariant 1). Inline, for the
// arena's own files only: the allocate and free paths inline them.

#ifndef TESSERA_ALLOC_TLSF_INTERNAL_NODES_INL_H_
#define TESSERA_ALLOC_TLSF_INTERNAL_NODES_INL_H_

#include <cstdint>

#include "alloc/internal/dcheck.h"
#include "alloc/tlsf/internal/lists-inl.h"
#include "alloc/tlsf/tlsf_arena.h"

namespace tessera {

TESSERA_TLSF_INLINE uint32_t TlsfArena::PopNode() {
  const uint32_t i = recycled_head_;
  if (i == kNil) return kNil;
  TESSERA_DCHECK(N(i)->size_flags == kFlagRecycled,
                 "a node on the recycled list should be marked recycled");
  recycled_head_ = N(i)->next_free;
  --recycled_count_;
  // Recycled nodes come back in the order blocks merged, i.e. scattered:
  // start loading the next one now rather than at the next allocation.
  if (recycled_head_ != kNil) __builtin_prefetch(N(recycled_head_), 1);
  return i;
}

TESSERA_TLSF_INLINE void TlsfArena::RecycleNode(uint32_t i) {
  Node* n = N(i);
  SetSizeFlags(n, 0, kFlagRecycled);
  n->addr = nullptr;
  n->prev_phys = n->next_phys = n->prev_free = kNil;
  n->next_free = recycled_head_;
  recycled_head_ = i;
  ++recycled_count_;
}

TESSERA_TLSF_INLINE void TlsfArena::LinkBelow(uint32_t fresh, uint32_t upper) {
  Node* f = N(fresh);
  Node* u = N(upper);
  f->prev_phys = u->prev_phys;
  f->next_phys = upper;
  if (u->prev_phys != kNil) N(u->prev_phys)->next_phys = fresh;
  u->prev_phys = fresh;
}

// Carves until `count` nodes are recycled or no region can give more; the
// allocate path calls it before a split, so inline like the rest.
inline void TlsfArena::EnsureNodes(uint32_t count) {
  while (recycled_count_ < count && CarveNodes()) {
  }
}

}  // namespace tessera

#endif  // TESSERA_ALLOC_TLSF_INTERNAL_NODES_INL_H_
