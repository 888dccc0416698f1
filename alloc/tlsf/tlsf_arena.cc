// Copyright 2026 The Tessera Authors.
//
// TlsfArena: the allocate, free and realloc paths and the API over them.
// The other concerns live in internal/, one file each: lists-inl.h (size
// classes, free lists, bitmaps), nodes-inl.h and nodes.cc (metadata node
// storage, recycling and carving), pointer_index-inl.h and pointer_index.cc
// (the pointer index), regions.cc (construction, regions, growth) and
// integrity.cc (Collect, Stats, the integrity walk and its diagnostics).

#include "alloc/tlsf/tlsf_arena.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "absl/base/attributes.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_format.h"
#include "alloc/internal/dcheck.h"
#include "alloc/internal/zero_memory.h"
#include "alloc/tlsf/internal/lists-inl.h"
#include "alloc/tlsf/internal/nodes-inl.h"
#include "alloc/tlsf/internal/pointer_index-inl.h"

namespace tessera {

// ---------------------------------------------------------------------------
// Allocation and free.
// ---------------------------------------------------------------------------

TESSERA_TLSF_INLINE void TlsfArena::NoteAllocated(uint32_t i) {
  Node* n = N(i);
  const size_t size = SizeOf(n);
  const Region& r0 = regions_[0];
  if (n->addr >= r0.base && n->addr < r0.floor) {
    if (pointer_index_) IndexBlock(r0, i, n->addr);
    const uint64_t end = static_cast<uint64_t>(n->addr - r0.base) + size;
    if (end > high_water_) high_water_ = end;
  } else if (pointer_index_) {
    IndexBlock(regions_[RegionOf(n->addr)], i, n->addr);
  }
  tlsf_internal::Unpoison(n->addr, size);
}

// Blocks split low: the allocated part (or an aligned request's leading gap)
// takes a fresh node below the free block, whose node keeps the upper part.
// So the node of a region's last block changes only when that block is
// carved away or absorbed by a Realloc.
TESSERA_TLSF_INLINE uint32_t TlsfArena::AllocBlock(size_t rounded, size_t alignment,
                               Failure* why) {
  const bool aligned = alignment > granule_;
  const uint32_t q = QuickClass(rounded, alignment);
  if (q < quick_max_ && quick_[q].head != kNil) return QuickPop(q);
  if (recycled_count_ < 2) EnsureNodes(2);
  const size_t need = aligned ? rounded + alignment - granule_ : rounded;
  uint32_t b = FindFit(need);
  if (b == kNil && cached_bytes_ != 0) {
    // The cached blocks may merge into something that fits.
    FlushQuickCache();
    b = FindFit(need);
  }
  if (b == kNil) {
    if (options_.grow && Grow(need)) b = FindFit(need);
    if (b == kNil) {
      *why = Failure::kOutOfMemory;
      return kNil;
    }
  }
  Node* nb = N(b);
  TESSERA_DCHECK(IsFree(nb) && SizeOf(nb) >= need,
                 "the block FindFit returns should be free and fit the "
                 "request");
  const Region& r0 = regions_[0];
  const PageSlot* index_slot = nullptr;
  {
    // The nodes this allocation will update are scattered: its list
    // successor (RemoveFree), its lower neighbour (LinkBelow) and the head of
    // the list the remainder goes to (InsertFree). Start all three loads now
    // so that their misses overlap instead of following one another.
    if (nb->next_free != kNil) __builtin_prefetch(N(nb->next_free), 1);
    if (nb->prev_phys != kNil) __builtin_prefetch(N(nb->prev_phys), 1);
    // And the pointer index slot NoteAllocated will update (the allocated
    // part starts at the block's start, or an alignment gap above it); its
    // record, if it has one, once the slot is in (after RemoveFree).
    if (pointer_index_ && nb->addr >= r0.base && nb->addr < r0.floor) {
      index_slot = &r0.slots[static_cast<size_t>(nb->addr - r0.base) >>
                             index_page_shift_];
      __builtin_prefetch(index_slot, 1);
    }
    const size_t rest = SizeOf(nb) - rounded;
    if (rest >= granule_) {
      int fl, sl;
      MapInsert(rest, &fl, &sl);
      if (heads_[fl][sl] != kNil) __builtin_prefetch(N(heads_[fl][sl]), 1);
    }
  }
  RemoveFree(b);
  if (index_slot != nullptr && (index_slot->state & kRecord) != 0) {
    __builtin_prefetch(&r0.records[index_slot->ref], 1);
  }
  const uint64_t b_flags = nb->size_flags & kFlagMask;
  if (aligned) {
    const uintptr_t addr = reinterpret_cast<uintptr_t>(nb->addr);
    const size_t gap = AlignUp(addr, alignment) - addr;
    if (gap != 0) {
      const uint32_t g = PopNode();
      if (g != kNil) {
        LinkBelow(g, b);
        Node* ng = N(g);
        ng->addr = nb->addr;
        // The gap inherits b's lower neighbour, which can be free only if b
        // was pending: inherit the flag instead of loading the neighbour.
        SetSizeFlags(ng, gap, kFlagFree | (b_flags & kFlagPending));
        InsertFree(g);
      } else if (IsFreeIdx(nb->prev_phys)) {
        const uint32_t p = nb->prev_phys;
        RemoveFree(p);
        N(p)->size_flags += gap;
        InsertFree(p);
      } else {
        InsertFree(b);
        *why = Failure::kMetadata;
        return kNil;
      }
      nb->addr += gap;
      SetSizeFlags(nb, SizeOf(nb) - gap, b_flags);
    }
  }
  const size_t size = SizeOf(nb);
  if (size - rounded >= granule_) {
    const uint32_t a = PopNode();
    if (a != kNil) {
      LinkBelow(a, b);
      Node* na = N(a);
      na->addr = nb->addr;
      SetSizeFlags(na, rounded, 0);
      nb->addr += rounded;
      SetSizeFlags(nb, size - rounded, kFlagFree | (b_flags & kFlagPending));
      InsertFree(b);
      NoteAllocated(a);
      return a;
    }
    ++unsplit_;
  }
  SetSizeFlags(nb, size, 0);
  NoteAllocated(b);
  return b;
}

// The freed block absorbs free lower neighbours; free upper neighbours absorb
// it (the upper node survives, see AllocBlock). By invariant 2 a neighbour
// that is not pending has no free neighbour of its own, so the scan stops
// after it without loading the next node: an immediate free touches only the
// block's own node, its two neighbours and their list links.
TESSERA_TLSF_INLINE void TlsfArena::FreeBlock(uint32_t b, int scan_window) {
  Node* nb = N(b);
  if (scan_window > 0 && QuickPush(b, nb, SizeOf(nb))) return;
  FreeBlockNow(b, scan_window);
}

void TlsfArena::FreeMerging(uint32_t b, int scan_window) {
  FreeBlockNow(b, scan_window);
}

void TlsfArena::FlushQuickCache() {
  for (uint32_t q = 0; q < kQuickClasses && cached_bytes_ != 0; ++q) {
    while (quick_[q].head != kNil) {
      // Pop it (live again), then free it for real.
      FreeBlockNow(QuickPop(q), kDefaultScanWindow);
    }
  }
}

TESSERA_TLSF_INLINE void TlsfArena::FreeBlockNow(uint32_t b, int scan_window) {
  Node* nb = N(b);
  size_t size = SizeOf(nb);
  TESSERA_DCHECK((nb->size_flags & kFlagNotLive) == 0,
                 "a block being freed should be live");
  // Before merging moves the block's start.
  if (pointer_index_) UnindexBlock(nb->addr);
  tlsf_internal::PoisonFree(nb->addr, size);
  if (scan_window <= 0) {
    // Deferred: both sides of every new free-free adjacency become pending.
    uint64_t flags = kFlagFree;
    for (const uint32_t side : {nb->prev_phys, nb->next_phys}) {
      if (IsFreeIdx(side)) {
        Node* ns = N(side);
        SetSizeFlags(ns, SizeOf(ns), (ns->size_flags & kFlagMask) | kFlagPending);
        flags |= kFlagPending;
      }
    }
    SetSizeFlags(nb, size, flags);
    InsertFree(b);
    return;
  }
  {
    // Overlap the misses of the merge: both neighbours' nodes first, then
    // (for each free one) the list links RemoveFree updates and the head of
    // the list the merged block is likely to go to.
    const uint32_t lo = nb->prev_phys, hi = nb->next_phys;
    if (lo != kNil) __builtin_prefetch(N(lo), 1);
    if (hi != kNil) __builtin_prefetch(N(hi), 1);
    size_t merged = size;
    for (const uint32_t side : {lo, hi}) {
      if (!IsFreeIdx(side)) continue;
      const Node* ns = N(side);
      merged += SizeOf(ns);
      if (ns->prev_free != kNil) __builtin_prefetch(N(ns->prev_free), 1);
      if (ns->next_free != kNil) __builtin_prefetch(N(ns->next_free), 1);
    }
    int fl, sl;
    MapInsert(merged, &fl, &sl);
    if (heads_[fl][sl] != kNil) __builtin_prefetch(N(heads_[fl][sl]), 1);
  }
  // Whether the merged block may still have a free neighbour on each side:
  // only if the scan ran out of window right after a pending block.
  bool lower_may_be_free = false;
  for (int k = 0;; ++k) {
    const uint32_t p = nb->prev_phys;
    if (!IsFreeIdx(p)) break;
    Node* np = N(p);
    TESSERA_DCHECK(np->addr + SizeOf(np) == nb->addr && np->next_phys == b,
                   "a lower neighbour should end where the freed block "
                   "starts");
    const bool pending = (np->size_flags & kFlagPending) != 0;
    RemoveFree(p);
    nb->addr = np->addr;
    size += SizeOf(np);
    nb->prev_phys = np->prev_phys;
    if (nb->prev_phys != kNil) N(nb->prev_phys)->next_phys = b;
    RecycleNode(p);
    if (!pending) break;
    if (k + 1 == scan_window) {
      lower_may_be_free = true;
      break;
    }
  }
  uint32_t cur = b;
  Node* nc = nb;
  bool upper_may_be_free = false;
  for (int k = 0;; ++k) {
    const uint32_t n = nc->next_phys;
    if (!IsFreeIdx(n)) break;
    Node* nn = N(n);
    TESSERA_DCHECK(nc->addr + size == nn->addr && nn->prev_phys == cur,
                   "an upper neighbour should start where the freed block "
                   "ends");
    const bool pending = (nn->size_flags & kFlagPending) != 0;
    RemoveFree(n);
    nn->addr = nc->addr;
    size += SizeOf(nn);
    nn->prev_phys = nc->prev_phys;
    if (nn->prev_phys != kNil) N(nn->prev_phys)->next_phys = n;
    RecycleNode(cur);
    cur = n;
    nc = nn;
    if (!pending) break;
    if (k + 1 == scan_window) {
      upper_may_be_free = true;
      break;
    }
  }
  SetSizeFlags(nc, size,
               kFlagFree | (lower_may_be_free || upper_may_be_free
                                ? kFlagPending
                                : 0));
  InsertFree(cur);
}

bool TlsfArena::ResizeInPlace(uint32_t i, size_t new_size) {
  Node* n = N(i);
  const size_t old_size = SizeOf(n);
  if (new_size == old_size) return true;
  const uint32_t next = n->next_phys;
  if (new_size < old_size) {
    const size_t tail = old_size - new_size;
    if (IsFreeIdx(next)) {
      // The free upper neighbour grows down over the tail.
      RemoveFree(next);
      N(next)->addr -= tail;
      N(next)->size_flags += tail;
      InsertFree(next);
    } else {
      EnsureNodes(1);
      const uint32_t t = PopNode();
      if (t == kNil) return false;
      Node* nt = N(t);
      nt->prev_phys = i;
      nt->next_phys = next;
      if (next != kNil) {
        N(next)->prev_phys = t;
      } else {
        regions_[RegionOf(n->addr)].last = t;
      }
      n->next_phys = t;
      nt->addr = n->addr + new_size;
      SetSizeFlags(nt, tail, kFlagFree);
      InsertFree(t);
    }
    SetSizeFlags(n, new_size, 0);
    tlsf_internal::PoisonFree(n->addr + new_size, tail);
    return true;
  }
  const size_t extra = new_size - old_size;
  if (!IsFreeIdx(next)) return false;
  Node* nn = N(next);
  const size_t next_size = SizeOf(nn);
  if (next_size < extra) return false;
  TESSERA_DCHECK(n->addr + old_size == nn->addr,
                 "a block should grow into the free block right above it");
  RemoveFree(next);
  if (next_size > extra) {
    nn->addr += extra;
    nn->size_flags -= extra;
    InsertFree(next);
  } else {
    n->next_phys = nn->next_phys;
    if (nn->next_phys != kNil) {
      N(nn->next_phys)->prev_phys = i;
    } else {
      regions_[RegionOf(n->addr)].last = i;
    }
    RecycleNode(next);
  }
  SetSizeFlags(n, new_size, 0);
  const Region& r0 = regions_[0];
  if (n->addr >= r0.base && n->addr < r0.floor) {
    const uint64_t end = static_cast<uint64_t>(n->addr - r0.base) + new_size;
    if (end > high_water_) high_water_ = end;
  }
  tlsf_internal::Unpoison(n->addr + old_size, extra);
  return true;
}

// ---------------------------------------------------------------------------
// Validation of requests, handles and pointers.
// ---------------------------------------------------------------------------

absl::Status TlsfArena::ValidateRequest(size_t size, size_t alignment,
                                        size_t* rounded) const {
  if (alignment != 0 && !IsPowerOfTwo(alignment)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "tlsf: alignment %u is not a power of two", alignment));
  }
  if (alignment > kMaxArenaAlignment) {
    return absl::InvalidArgumentError(
        absl::StrFormat("tlsf: alignment %u exceeds the supported maximum %u",
                        alignment, kMaxArenaAlignment));
  }
  if (!RoundUpChecked(size == 0 ? 1 : size, granule_, rounded)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "tlsf: size %u rounded up to the granularity %u overflows size_t",
        size, granule_));
  }
  if (*rounded > max_block_) {
    return absl::InvalidArgumentError(
        absl::StrFormat("tlsf: size %u exceeds the max block size %u", size,
                        max_block_));
  }
  return absl::OkStatus();
}

absl::Status TlsfArena::ValidateHandle(const Handle& handle) const {
  if (handle.arena_id_ == 0 || handle.address_ == nullptr) {
    return absl::InvalidArgumentError(
        "tlsf: empty (default-constructed) handle");
  }
  if (handle.arena_id_ != arena_id_) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "tlsf: handle of %p belongs to arena #%u, not to this arena #%u",
        handle.address_, handle.arena_id_, arena_id_));
  }
  const uint32_t i = handle.node_;
  const int r = static_cast<int>(i >> kLocalBits);
  if (r >= num_regions_ || (i & kLocalMask) >= regions_[r].carved) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "tlsf: handle of %p names no metadata node (%u)", handle.address_, i));
  }
  const Node* n = N(i);
  if (n->addr != handle.address_ ||
      (n->size_flags & kFlagNotLive) != 0) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "tlsf: double free: the block at %p is not live (already freed)",
        handle.address_));
  }
  return absl::OkStatus();
}

// ---------------------------------------------------------------------------
// The seed's API.
// ---------------------------------------------------------------------------

absl::StatusOr<Handle> TlsfArena::Alloc(size_t size, size_t alignment) {
  size_t rounded = 0;
  if (absl::Status s = ValidateRequest(size, alignment, &rounded); !s.ok()) {
    stats_.RecordFailure();
    return s;
  }
  Failure why = Failure::kNone;
  const uint32_t i = AllocBlock(rounded, alignment, &why);
  if (i == kNil) {
    stats_.RecordFailure();
    const size_t aligned_to = std::max(alignment, granule_);
    if (why == Failure::kMetadata) {
      return absl::ResourceExhaustedError(absl::StrFormat(
          "tlsf: no metadata node left for the leading gap of %u bytes "
          "aligned to %u",
          size, aligned_to));
    }
    return absl::ResourceExhaustedError(
        absl::StrFormat("tlsf: out of memory allocating %u bytes aligned to %u",
                        size, aligned_to));
  }
  const Handle handle = MakeHandle(i);
  stats_.RecordAllocation(handle.size());
  return handle;
}

bool TlsfArena::TryAllocSlow(size_t size, Handle* out, size_t alignment) {
  // alignment 0 means the granularity.
  if (size > max_block_ || (alignment & (alignment - 1)) != 0 ||
      alignment > kMaxArenaAlignment) {
    stats_.RecordFailure();
    return false;
  }
  const size_t rounded =
      (std::max<size_t>(size, 1) + granule_ - 1) & ~(granule_ - 1);
  Failure why = Failure::kNone;
  const uint32_t i = AllocBlock(rounded, alignment, &why);
  if (i == kNil) {
    stats_.RecordFailure();
    return false;
  }
  *out = MakeHandle(i);
  stats_.RecordAllocation(out->size());
  return true;
}

absl::Status TlsfArena::Free(const Handle& handle, int scan_window) {
  if (absl::Status s = ValidateHandle(handle); !s.ok()) {
    stats_.RecordFailure();
    return s;
  }
  stats_.RecordDeallocation(SizeOf(N(handle.node_)));
  FreeBlock(handle.node_, scan_window);
  AfterFree();
  return absl::OkStatus();
}

bool TlsfArena::RejectFree(const Handle& handle) {
  const absl::Status s = ValidateHandle(handle);
  stats_.RecordFailure();
  ReportContractViolation(
      name(),
      absl::IsFailedPrecondition(s) && handle.arena_id_ == arena_id_
          ? ContractViolation::kDoubleFree
          : ContractViolation::kForeignPointer,
      handle.address_, s.message());
  return false;
}

absl::Status TlsfArena::Free(void* ptr, int scan_window) {
  if (ptr == nullptr) return absl::OkStatus();
  uint32_t i = 0;
  ContractViolation violation;
  if (absl::Status s = LookupPointer(ptr, &i, &violation); !s.ok()) {
    stats_.RecordFailure();
    return s;
  }
  stats_.RecordDeallocation(SizeOf(N(i)));
  FreeBlock(i, scan_window);
  AfterFree();
  return absl::OkStatus();
}

absl::StatusOr<Handle> TlsfArena::HandleOf(void* ptr) const {
  uint32_t i = 0;
  ContractViolation violation;
  if (absl::Status s = LookupPointer(ptr, &i, &violation); !s.ok()) return s;
  return MakeHandle(i);
}

absl::StatusOr<Handle> TlsfArena::Realloc(const Handle& handle,
                                          size_t new_size, size_t alignment) {
  if (absl::Status s = ValidateHandle(handle); !s.ok()) {
    stats_.RecordFailure();
    return s;
  }
  size_t rounded = 0;
  if (absl::Status s = ValidateRequest(new_size, alignment, &rounded);
      !s.ok()) {
    stats_.RecordFailure();
    return s;
  }
  const uint32_t i = handle.node_;
  const size_t old_size = SizeOf(N(i));
  const bool aligned_here =
      (reinterpret_cast<uintptr_t>(handle.address_) &
       (std::max(alignment, granule_) - 1)) == 0;
  if (aligned_here && ResizeInPlace(i, rounded)) {
    const Handle resized = MakeHandle(i);
    stats_.RecordReallocation(old_size, resized.size());
    return resized;
  }
  Failure why = Failure::kNone;
  const uint32_t fresh = AllocBlock(rounded, alignment, &why);
  if (fresh == kNil) {
    stats_.RecordFailure();
    return absl::ResourceExhaustedError(absl::StrFormat(
        "tlsf: out of memory reallocating %p from %u to %u bytes; the old "
        "block is still valid",
        handle.address_, old_size, new_size));
  }
  const Handle moved = MakeHandle(fresh);
  std::memcpy(moved.address(), handle.address_,
              std::min(old_size, moved.size()));
  FreeBlock(i, kDefaultScanWindow);
  stats_.RecordReallocation(old_size, moved.size());
  return moved;
}

// ---------------------------------------------------------------------------
// The generic Allocator interface.
// ---------------------------------------------------------------------------

void* TlsfArena::AllocateSlow(size_t bytes, size_t alignment) noexcept {
  // A block from the generic interface will be freed by pointer.
  if (!pointer_index_ && pointer_index_allowed_) BuildPointerIndex();
  if (bytes > max_block_ || alignment > kMaxArenaAlignment) {
    return CountFailure();
  }
  const size_t rounded =
      (std::max<size_t>(bytes, 1) + granule_ - 1) & ~(granule_ - 1);
  Failure why = Failure::kNone;
  const uint32_t i = AllocBlock(rounded, alignment, &why);
  if (i == kNil) return CountFailure();
  stats_.RecordAllocation(SizeOf(N(i)));
  return N(i)->addr;
}

void* TlsfArena::DoAllocateZeroed(size_t bytes, size_t alignment) noexcept {
  // Read before the allocation moves it: what lies at or above it in the
  // first region was never handed out (invariant 10).
  const uint64_t clean_from = high_water_;
  char* p = nullptr;
  constexpr size_t kHuge = internal::kZeroHugePageBytes;
  if (bytes >= internal::kLazyZeroMinBytes && alignment <= kMaxArenaAlignment &&
      options_.system_memory.anonymous && max_block_ >= kHuge &&
      bytes <= max_block_ - kHuge) {
    // A large zeroed block starts on a huge-page boundary and spans whole
    // huge pages, so that ZeroMemory gives every page back and writes
    // nothing: otherwise it memsets the unaligned head and tail, up to 2 MiB
    // each (zeros of 1e7 floats: 30 us a call, against 22 us for NumPy's
    // fresh calloc). The alignment gap below stays a free block.
    if (!pointer_index_ && pointer_index_allowed_) BuildPointerIndex();
    const size_t whole = (bytes + kHuge - 1) & ~(kHuge - 1);
    Failure why = Failure::kNone;
    const uint32_t i = AllocBlock(whole, kHuge, &why);
    if (i != kNil) {
      stats_.RecordAllocation(SizeOf(N(i)));
      p = N(i)->addr;
      bytes = whole;  // clear the whole pages: no partial one at the end
    }
  }
  if (p == nullptr) {
    p = static_cast<char*>(TlsfArena::DoAllocate(bytes, alignment));
  }
  if (p == nullptr || bytes == 0) return p;
  const int r = RegionOf(p);
  const Region& region = regions_[r];
  if (!region.system || !options_.system_memory.anonymous) {
    std::memset(p, 0, bytes);  // caller memory: nothing known about it
    return p;
  }
  size_t dirty = bytes;
  if (r == 0) {
    const uint64_t offset = static_cast<uint64_t>(p - region.base);
    if (offset >= clean_from) return p;  // fresh from the mapping
    dirty = static_cast<size_t>(std::min<uint64_t>(bytes, clean_from - offset));
  }
  internal::ZeroMemory(p, dirty,
                       region.memory_bytes >= kHugePageRegion
                           ? internal::ZeroPages::kAnonymousHuge
                           : internal::ZeroPages::kMemsetOnly);
  return p;
}

void TlsfArena::DeallocateSlow(void* ptr) noexcept {
  uint32_t i = 0;
  ContractViolation violation;
  if (absl::Status s = LookupPointer(ptr, &i, &violation); !s.ok()) {
    stats_.RecordFailure();
    ReportContractViolation(name(), violation, ptr, s.message());
    return;
  }
  stats_.RecordDeallocation(SizeOf(N(i)));
  FreeBlock(i, kDefaultScanWindow);
  AfterFree();
}

void* TlsfArena::DoReallocate(void* ptr, size_t old_bytes, size_t new_bytes,
                              size_t alignment) noexcept {
  uint32_t i = 0;
  ContractViolation violation;
  if (absl::Status s = LookupPointer(ptr, &i, &violation); !s.ok()) {
    ReportContractViolation(name(), violation, ptr, s.message());
    return CountFailure();
  }
  absl::StatusOr<Handle> resized = Realloc(MakeHandle(i), new_bytes, alignment);
  return resized.ok() ? resized->address() : nullptr;
}

absl::Status TlsfArena::CheckOwnership(const void* ptr, size_t bytes,
                                       size_t alignment) const {
  uint32_t i = 0;
  ContractViolation violation;
  return LookupPointer(ptr, &i, &violation);
}

}  // namespace tessera
