// Copyright 2026 The Tessera Authors.
//
// TlsfArena: building the pointer index on first use, and looking a pointer
// up in it for Free(void*), HandleOf and the generic interface (with the
// diagnosis of a pointer that is not a live block's start).

#include <cstddef>
#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"
#include "alloc/tlsf/internal/lists-inl.h"
#include "alloc/tlsf/internal/pointer_index-inl.h"
#include "alloc/tlsf/tlsf_arena.h"

namespace tessera {

void TlsfArena::BuildPointerIndex() const {
  for (int r = 0; r < num_regions_; ++r) {
    const Region& region = regions_[r];
    // Mapped memory is zeroed, and all-zero slots are empty pages; caller
    // memory is not known to be.
    if (!region.system) ClearPageSlots(region);
    for (uint32_t x = region.last; x != kNil; x = N(x)->prev_phys) {
      const Node* n = N(x);
      // Live and cached blocks (a cached block keeps its entry for when it
      // is handed out again).
      if (IsFree(n)) continue;
      IndexBlock(region, x, n->addr);
    }
  }
  pointer_index_ = true;
}

uint32_t TlsfArena::ContainingBlock(const Region& r, const char* p,
                                    uint32_t hint) const {
  if (!IsCarved(hint)) return kNil;
  const Node* n = N(hint);
  const uintptr_t base = reinterpret_cast<uintptr_t>(r.base);
  const uintptr_t a = reinterpret_cast<uintptr_t>(n->addr);
  if ((n->size_flags & kFlagRecycled) != 0 || a < base ||
      (a - base) >> index_page_shift_ !=
          static_cast<size_t>(p - r.base) >> index_page_shift_) {
    return kNil;
  }
  // Every block between the hint and the one holding p starts in their
  // page, so the walk is at most a page's granules long.
  uint32_t x = hint;
  for (uint32_t steps = 0; steps <= page_granules_ + 1; ++steps) {
    if (p < n->addr) {
      x = n->prev_phys;
    } else if (p >= n->addr + SizeOf(n)) {
      x = n->next_phys;
    } else {
      return x;
    }
    if (x == kNil) return kNil;
    n = N(x);
  }
  return kNil;
}

absl::Status TlsfArena::LookupPointer(const void* ptr, uint32_t* node,
                                      ContractViolation* violation) const {
  *violation = ContractViolation::kForeignPointer;
  const int r = RegionOf(ptr);
  if (r < 0) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "tlsf: %p is not allocated from this arena (outside its regions)",
        ptr));
  }
  if (!pointer_index_ && pointer_index_allowed_) BuildPointerIndex();
  if (!pointer_index_) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "tlsf: cannot free %p by pointer: the arena was built without a "
        "pointer index (options.pointer_index = false); free it by handle",
        ptr));
  }
  const Region& region = regions_[r];
  const size_t offset =
      static_cast<size_t>(static_cast<const char*>(ptr) - region.base);
  if ((offset & (granule_ - 1)) != 0) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "tlsf: %p is an interior pointer, not at a block boundary", ptr));
  }
  const uint32_t i = IndexLookup(region, offset);
  const char* p = static_cast<const char*>(ptr);
  bool freed = false;
  if (IsCarved(i)) {
    const Node* n = N(i);
    if (n->addr == ptr && (n->size_flags & kFlagNotLive) == 0) {
      *node = i;
      return absl::OkStatus();
    }
    // A stale entry of a block since merged away.
    freed = (n->size_flags & kFlagRecycled) != 0;
  }
  if (!freed) {
    // Not a live block's start: which block holds p? Walk from a block
    // known to start in its page (slow path only).
    uint32_t hint = i;
    const PageSlot slot = region.slots[offset >> index_page_shift_];
    if ((slot.state & kRecord) != 0) hint = region.records[slot.ref].nodes[0];
    const uint32_t z = ContainingBlock(region, p, hint);
    freed = z != kNil && (N(z)->size_flags & (kFlagFree | kFlagCached)) != 0;
  }
  if (freed) {
    *violation = ContractViolation::kDoubleFree;
    return absl::FailedPreconditionError(absl::StrFormat(
        "tlsf: double free: %p is not a live block (already freed)", ptr));
  }
  return absl::FailedPreconditionError(absl::StrFormat(
      "tlsf: %p is not the start of a live block (interior pointer)", ptr));
}

}  // namespace tessera
