// Copyright 2026 The Tessera Authors.
//
// TlsfArena internals: keeping the pointer index (see "Free by pointer" in
// tlsf_arena.h) as blocks become live and are freed: IndexBlock and
// UnindexBlock keep invariant 6. Inline, for the arena's own files only: the
// allocate and free paths inline them.

#ifndef TESSERA_ALLOC_TLSF_INTERNAL_POINTER_INDEX_INL_H_
#define TESSERA_ALLOC_TLSF_INTERNAL_POINTER_INDEX_INL_H_

#include <cstdint>

#include "absl/base/optimization.h"
#include "alloc/internal/dcheck.h"
#include "alloc/tlsf/internal/lists-inl.h"
#include "alloc/tlsf/tlsf_arena.h"

namespace tessera {
namespace tlsf_internal {

// Takes a record or table from a pool whose free list links through the
// first 32-bit word of each (`first_word(t)`): a recycled one, else the next
// never-used one. The pool has room for one per page, so there always is
// one.
template <typename FirstWord>
TESSERA_TLSF_INLINE uint32_t TakeFromPool(uint32_t* free, uint32_t* touched,
                                          uint32_t* in_use,
                                          FirstWord first_word) {
  uint32_t t = *free;
  if (t != 0xFFFFFFFFu) {
    *free = *first_word(t);
  } else {
    t = (*touched)++;
  }
  ++*in_use;
  return t;
}

}  // namespace tlsf_internal

inline void TlsfArena::ClearPageSlots(const Region& r) const {
  for (size_t k = 0; k < r.pages; ++k) r.slots[k] = PageSlot{kNil, 0};
}

TESSERA_TLSF_INLINE void TlsfArena::IndexBlock(const Region& r, uint32_t i,
                                               const char* addr) const {
  const size_t offset = static_cast<size_t>(addr - r.base);
  const uint32_t g =
      static_cast<uint32_t>(offset >> granule_shift_) & (page_granules_ - 1);
  PageSlot& slot = r.slots[offset >> index_page_shift_];
  const uint32_t state = slot.state;
  if (ABSL_PREDICT_TRUE(state == 0 || state == g + 1)) {
    // The page's only live start. (The same granule cannot still be live:
    // its block was unindexed when freed. Overwriting is the safe choice.)
    slot = PageSlot{i, g + 1};
    return;
  }
  if (state < kRecord) {
    // A second live block starts in this page: give it a start record.
    const uint32_t gx = state - 1;
    const uint32_t x = slot.ref;
    const uint32_t t = tlsf_internal::TakeFromPool(
        &r.record_pool.free, &r.record_pool.touched, &r.record_pool.in_use,
        [&r](uint32_t k) { return &r.records[k].nodes[0]; });
    StartRecord& record = r.records[t];
    record.starts = (uint64_t{1} << gx) | (uint64_t{1} << g);
    record.nodes[0] = gx < g ? x : i;
    record.nodes[1] = gx < g ? i : x;
    slot = PageSlot{t, kRecord | 2};
    return;
  }
  if ((state & kFullTable) != 0) {
    r.tables[size_t{slot.ref} * page_granules_ + g] = i;
    slot.state = state + 1;
    return;
  }
  StartRecord& record = r.records[slot.ref];
  const uint32_t count = state & kStartCount;
  if (count < kRecordNodes) {
    // Insert in address order: entries from k up move one place.
    const uint32_t k =
        tlsf_internal::PopCount(record.starts & ((uint64_t{1} << g) - 1));
    for (uint32_t j = count; j > k; --j) record.nodes[j] = record.nodes[j - 1];
    record.nodes[k] = i;
    record.starts |= uint64_t{1} << g;
    slot.state = state + 1;
    return;
  }
  // A 15th start: the page moves to a granule table.
  const uint32_t t = tlsf_internal::TakeFromPool(
      &r.table_pool.free, &r.table_pool.touched, &r.table_pool.in_use,
      [&r, this](uint32_t k) { return &r.tables[size_t{k} * page_granules_]; });
  uint32_t* table = &r.tables[size_t{t} * page_granules_];
  uint64_t starts = record.starts;
  for (uint32_t k = 0; starts != 0; ++k, starts &= starts - 1) {
    table[__builtin_ctzll(starts)] = record.nodes[k];
  }
  table[g] = i;
  record.nodes[0] = r.record_pool.free;
  r.record_pool.free = slot.ref;
  --r.record_pool.in_use;
  slot = PageSlot{t, kFullTable | (count + 1)};
}

TESSERA_TLSF_INLINE void TlsfArena::UnindexBlock(const char* addr) {
  const Region& r0 = regions_[0];
  const Region& r =
      addr >= r0.base && addr < r0.floor ? r0 : regions_[RegionOf(addr)];
  const size_t offset = static_cast<size_t>(addr - r.base);
  PageSlot& slot = r.slots[offset >> index_page_shift_];
  const uint32_t state = slot.state;
  TESSERA_DCHECK(state != 0,
                 "the index page of a live block being freed should record "
                 "a start");
  if (state < kRecord) {
    // The page's only live start (state 0 cannot be: the block is live).
    slot = PageSlot{kNil, 0};
    return;
  }
  if ((state & kFullTable) != 0) {
    if ((state & kStartCount) == 1) {
      r.tables[size_t{slot.ref} * page_granules_] = r.table_pool.free;
      r.table_pool.free = slot.ref;
      --r.table_pool.in_use;
      slot = PageSlot{kNil, 0};
    } else {
      slot.state = state - 1;
    }
    return;
  }
  StartRecord& record = r.records[slot.ref];
  const uint32_t g =
      static_cast<uint32_t>(offset >> granule_shift_) & (page_granules_ - 1);
  const uint32_t k =
      tlsf_internal::PopCount(record.starts & ((uint64_t{1} << g) - 1));
  const uint32_t count = (state & kStartCount) - 1;
  for (uint32_t j = k; j < count; ++j) record.nodes[j] = record.nodes[j + 1];
  record.starts &= ~(uint64_t{1} << g);
  if (count == 1) {
    // One start left: the slot names it, the record is recycled.
    const uint32_t last = record.nodes[0];
    const uint32_t g_last =
        static_cast<uint32_t>(__builtin_ctzll(record.starts));
    record.nodes[0] = r.record_pool.free;
    r.record_pool.free = slot.ref;
    --r.record_pool.in_use;
    slot = PageSlot{last, g_last + 1};
  } else {
    slot.state = state - 1;
  }
}

}  // namespace tessera

#endif  // TESSERA_ALLOC_TLSF_INTERNAL_POINTER_INDEX_INL_H_
