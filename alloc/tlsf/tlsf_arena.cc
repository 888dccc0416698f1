// Copyright 2026 The Tessera Authors.

#include "alloc/tlsf/tlsf_arena.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/attributes.h"
#include "absl/strings/str_format.h"

// The hot helpers are small and called from several places, so the compiler
// would keep them out of line; inlining them into Alloc/Free removes a call
// and a recomputation of the node address per step.
#define TESSERA_TLSF_INLINE ABSL_ATTRIBUTE_ALWAYS_INLINE inline

namespace tessera {
namespace {

constexpr size_t kPageSize = 4096;

uintptr_t AlignUp(uintptr_t value, size_t alignment) {
  return (value + alignment - 1) & ~(uintptr_t{alignment} - 1);
}
uintptr_t AlignDown(uintptr_t value, size_t alignment) {
  return value & ~(uintptr_t{alignment} - 1);
}
bool IsPowerOfTwo(size_t value) {
  return value != 0 && (value & (value - 1)) == 0;
}
int Log2(size_t value) { return 63 - __builtin_clzll(value); }

// Regions of at least this size ask for transparent huge pages.
constexpr size_t kHugePageRegion = size_t{4} << 20;

void* MmapMemory(size_t bytes, void*) {
  void* ptr = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (ptr == MAP_FAILED) return nullptr;
  // Blocks and their metadata nodes are reached at random: with 4 KiB pages
  // nearly every node or block miss is also a TLB miss (a page walk), and
  // each first touch a fault. Advice only: without THP the kernel ignores it
  // (EINVAL is fine); untouched 2 MiB ranges stay unbacked as before.
  if (bytes >= kHugePageRegion) madvise(ptr, bytes, MADV_HUGEPAGE);
  return ptr;
}
void MunmapMemory(void* ptr, size_t bytes, void*) { munmap(ptr, bytes); }

// Arena ids start at 1 so that a default-constructed Handle (id 0) never
// matches an arena.
std::atomic<uint32_t> g_next_arena_id{1};

}  // namespace

SystemMemory DefaultSystemMemory() {
  return SystemMemory{&MmapMemory, &MunmapMemory, nullptr};
}

// ---------------------------------------------------------------------------
// Construction, regions, destruction.
// ---------------------------------------------------------------------------

TlsfArena::TlsfArena(const TlsfArenaOptions& options)
    : Allocator("tlsf"),
      options_(options),
      granule_(options.granularity),
      granule_shift_(Log2(options.granularity)),
      max_block_(options.max_block_size & ~(options.granularity - 1)),
      index_page_shift_(std::min(12, Log2(options.granularity) + 6)),
      page_granules_(1u << (index_page_shift_ - Log2(options.granularity))),
      carve_bytes_(std::max<size_t>(sizeof(Node), options.granularity)),
      arena_id_(g_next_arena_id.fetch_add(1, std::memory_order_relaxed)),
      pointer_index_allowed_(options.pointer_index),
      quick_depth_(options.quick_cache_depth),
      // A block served whole can exceed the max block size; the cache must
      // not hand such a block to a request the max block size rejects.
      quick_max_(options.quick_cache_depth == 0
                     ? 0
                     : static_cast<uint32_t>(std::min<size_t>(
                           {options.quick_cache_max_granules, kQuickClasses,
                            max_block_ >> granule_shift_}))),
      quick_max_bytes_(size_t{quick_max_} << granule_shift_),
      quick_bytes_(options.quick_cache_bytes) {
  for (auto& row : heads_) row.fill(kNil);
  quick_.fill(QuickList{kNil, 0});
}

namespace {

absl::Status ValidateOptions(const TlsfArenaOptions& options) {
  if (!IsPowerOfTwo(options.granularity) ||
      options.granularity < kMinArenaGranularity ||
      options.granularity > kMaxArenaGranularity) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "tlsf: granularity %u is not a power of two in [%u, %u]",
        options.granularity, kMinArenaGranularity, kMaxArenaGranularity));
  }
  if (!IsPowerOfTwo(options.arena_alignment) ||
      options.arena_alignment > kMaxArenaAlignment) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "tlsf: arena alignment %u is not a power of two no larger than %u",
        options.arena_alignment, kMaxArenaAlignment));
  }
  if (options.max_block_size < options.granularity ||
      options.max_block_size > (size_t{1} << 48)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "tlsf: max block size %u is not in [granularity %u, 2^48]",
        options.max_block_size, options.granularity));
  }
  if (options.system_memory.map == nullptr ||
      options.system_memory.unmap == nullptr) {
    return absl::InvalidArgumentError("tlsf: system memory hooks are null");
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<TlsfArena>> TlsfArena::Create(
    const TlsfArenaOptions& options) {
  if (absl::Status s = ValidateOptions(options); !s.ok()) return s;
  std::unique_ptr<TlsfArena> arena(new TlsfArena(options));
  if (absl::Status s = arena->AddSystemRegion(options.arena_bytes); !s.ok()) {
    return s;
  }
  return arena;
}

absl::StatusOr<std::unique_ptr<TlsfArena>> TlsfArena::CreateOver(
    void* memory, size_t bytes, ReleaseCallback release,
    const TlsfArenaOptions& options) {
  if (absl::Status s = ValidateOptions(options); !s.ok()) return s;
  if (memory == nullptr) {
    return absl::InvalidArgumentError("tlsf: arena memory is null");
  }
  std::unique_ptr<TlsfArena> arena(new TlsfArena(options));
  if (absl::Status s = arena->AddRegionImpl(static_cast<char*>(memory), bytes,
                                            /*system=*/false,
                                            std::move(release));
      !s.ok()) {
    return s;
  }
  return arena;
}

TlsfArena::~TlsfArena() {
  for (int r = 0; r < num_regions_; ++r) {
    Region& region = regions_[r];
    Unpoison(region.memory, region.memory_bytes);
    if (region.system) {
      options_.system_memory.unmap(region.memory, region.memory_bytes,
                                   options_.system_memory.context);
    } else if (region.release) {
      region.release(region.memory, region.memory_bytes);
    }
  }
}

absl::Status TlsfArena::AddRegion(void* memory, size_t bytes,
                                  ReleaseCallback release) {
  if (memory == nullptr) {
    return absl::InvalidArgumentError("tlsf: region memory is null");
  }
  return AddRegionImpl(static_cast<char*>(memory), bytes, /*system=*/false,
                       std::move(release));
}

absl::Status TlsfArena::AddSystemRegion(size_t bytes) {
  if (num_regions_ == kMaxRegions) {
    return absl::ResourceExhaustedError(absl::StrFormat(
        "tlsf: arena already has the maximum of %d regions", kMaxRegions));
  }
  if (bytes > (size_t{1} << 47)) {
    return absl::InvalidArgumentError(
        absl::StrFormat("tlsf: region of %u bytes is too large", bytes));
  }
  const size_t mapped = AlignUp(bytes, kPageSize);
  void* memory =
      options_.system_memory.map(mapped, options_.system_memory.context);
  if (memory == nullptr) {
    return absl::ResourceExhaustedError(
        absl::StrFormat("tlsf: cannot map a region of %u bytes", mapped));
  }
  // The region is what was asked for (so a too-small request still fails);
  // the whole mapping is unmapped.
  absl::Status s =
      AddRegionImpl(static_cast<char*>(memory), bytes, /*system=*/true, {});
  if (s.ok()) {
    regions_[num_regions_ - 1].memory_bytes = mapped;
  } else {
    options_.system_memory.unmap(memory, mapped,
                                 options_.system_memory.context);
  }
  return s;
}

absl::Status TlsfArena::AddRegionImpl(char* memory, size_t bytes, bool system,
                                      ReleaseCallback release) {
  if (num_regions_ == kMaxRegions) {
    return absl::ResourceExhaustedError(absl::StrFormat(
        "tlsf: arena already has the maximum of %d regions", kMaxRegions));
  }
  const uintptr_t begin = reinterpret_cast<uintptr_t>(memory);
  if (bytes > UINTPTR_MAX - begin) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "tlsf: region [%p, +%u) wraps the address space", memory, bytes));
  }
  const uintptr_t start = AlignUp(begin, granule_);
  const uintptr_t stop = AlignDown(begin + bytes, granule_);
  const size_t base_alignment = std::max(granule_, options_.arena_alignment);
  // The index covers every index page of [start, stop), a slight
  // overestimate of [base, end) that keeps the arithmetic simple. Its pools
  // have room for a record (table) in every page that can hold 2 (15)
  // starts. A record or table in use holds a live block, and there are
  // fewer than 2^32 - 1 nodes, so 2^32 - 1 of each are enough.
  const size_t span = stop > start ? stop - start : 0;
  const size_t pages = (span + (size_t{1} << index_page_shift_) - 1) >>
                       index_page_shift_;
  const size_t granules = span >> granule_shift_;
  const size_t record_capacity =
      page_granules_ < 2 ? 0 : std::min<size_t>({pages, granules / 2, kNil});
  const size_t table_capacity =
      page_granules_ <= kRecordNodes
          ? 0
          : std::min<size_t>({pages, granules / (kRecordNodes + 1), kNil});
  const uintptr_t records =
      AlignUp(start + pages * sizeof(PageSlot), sizeof(StartRecord));
  const uintptr_t tables = records + record_capacity * sizeof(StartRecord);
  const size_t index_bytes =
      tables + table_capacity * page_granules_ * sizeof(uint32_t) - start;
  const uintptr_t base = AlignUp(start + index_bytes, base_alignment);
  const size_t needed = granule_ + carve_bytes_;
  if (stop <= start || base >= stop || stop - base < needed) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "tlsf: region of %u bytes at %p is too small for one %u-byte block "
        "plus its metadata (%u bytes of pointer index, %u of nodes)",
        bytes, memory, granule_, index_bytes, carve_bytes_));
  }
  const int r = num_regions_;
  Region& region = regions_[r];
  region.memory = memory;
  region.memory_bytes = bytes;
  region.slots = reinterpret_cast<PageSlot*>(start);
  region.pages = pages;
  region.records = reinterpret_cast<StartRecord*>(records);
  region.tables = reinterpret_cast<uint32_t*>(tables);
  region.record_capacity = static_cast<uint32_t>(record_capacity);
  region.table_capacity = static_cast<uint32_t>(table_capacity);
  region.record_pool = IndexPool{};
  region.table_pool = IndexPool{};
  region.base = reinterpret_cast<char*>(base);
  region.end = reinterpret_cast<char*>(stop);
  region.floor = region.end - carve_bytes_;
  region.system = system;
  region.release = std::move(release);
  segs_[r] = reinterpret_cast<Node*>(region.end);
  ++num_regions_;

  const uint32_t carved = static_cast<uint32_t>(carve_bytes_ / sizeof(Node));
  region.carved = carved;
  carved_total_ += carved;
  const uint32_t first = static_cast<uint32_t>(r) << kLocalBits;
  for (uint32_t local = carved; local-- > 1;) {
    Node* n = N(first | local);
    n->addr = nullptr;
    n->size_flags = kFlagRecycled;
    n->prev_phys = n->next_phys = n->prev_free = kNil;
    n->next_free = recycled_head_;
    recycled_head_ = first | local;
    ++recycled_count_;
  }
  Node* n = N(first);
  n->addr = region.base;
  n->size_flags = 0;
  n->prev_phys = n->next_phys = n->prev_free = n->next_free = kNil;
  SetSizeFlags(n, static_cast<size_t>(region.floor - region.base), kFlagFree);
  InsertFree(first);
  region.last = first;
  PoisonFree(region.base, static_cast<size_t>(region.floor - region.base));
  // Mapped memory is zeroed: all-zero slots are empty pages. Caller memory
  // is not known to be.
  if (pointer_index_ && !system) ClearPageSlots(region);
  return absl::OkStatus();
}

bool TlsfArena::Grow(size_t need) {
  // Round up as FindFit does, so that the new block is found by the class
  // search itself.
  size_t u = need >> granule_shift_;
  if (u >= kSlCount) u += (size_t{1} << (Log2(u) - kSlLog)) - 1;
  const size_t block = u << granule_shift_;
  // The pointer index takes a slot and room for a record and a table from
  // every index page of the region, so the region must be block + fixed
  // costs, scaled by P / (P - index bytes per page).
  const size_t page = size_t{1} << index_page_shift_;
  const size_t fixed = 2 * carve_bytes_ +
                       std::max(granule_, options_.arena_alignment) +
                       2 * granule_ + sizeof(StartRecord) + 2 * page;
  const size_t per_page = sizeof(PageSlot) + sizeof(StartRecord) +
                          page_granules_ * sizeof(uint32_t);
  const size_t scaled = (block + fixed) / (page - per_page) * page + page;
  const size_t bytes = std::max(options_.growth_region_bytes, scaled);
  return AddSystemRegion(bytes).ok();
}

int TlsfArena::RegionOf(const void* ptr) const {
  const char* p = static_cast<const char*>(ptr);
  for (int r = 0; r < num_regions_; ++r) {
    if (p >= regions_[r].base && p < regions_[r].floor) return r;
  }
  return -1;
}

// ---------------------------------------------------------------------------
// Size classes, lists and metadata nodes.
// ---------------------------------------------------------------------------

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
    Unpoison(region.floor, carve_bytes_);
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

void TlsfArena::EnsureNodes(uint32_t count) {
  while (recycled_count_ < count && CarveNodes()) {
  }
}

TESSERA_TLSF_INLINE void TlsfArena::LinkBelow(uint32_t fresh, uint32_t upper) {
  Node* f = N(fresh);
  Node* u = N(upper);
  f->prev_phys = u->prev_phys;
  f->next_phys = upper;
  if (u->prev_phys != kNil) N(u->prev_phys)->next_phys = fresh;
  u->prev_phys = fresh;
}

// ---------------------------------------------------------------------------
// Allocation and free.
// ---------------------------------------------------------------------------

void TlsfArena::ClearPageSlots(const Region& r) const {
  for (size_t k = 0; k < r.pages; ++k) r.slots[k] = PageSlot{kNil, 0};
}

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

namespace {

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

}  // namespace

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
    const uint32_t t = TakeFromPool(
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
    const uint32_t k = PopCount(record.starts & ((uint64_t{1} << g) - 1));
    for (uint32_t j = count; j > k; --j) record.nodes[j] = record.nodes[j - 1];
    record.nodes[k] = i;
    record.starts |= uint64_t{1} << g;
    slot.state = state + 1;
    return;
  }
  // A 15th start: the page moves to a granule table.
  const uint32_t t = TakeFromPool(
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
  const uint32_t k = PopCount(record.starts & ((uint64_t{1} << g) - 1));
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
  Unpoison(n->addr, size);
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
  PoisonFree(nb->addr, size);
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
    PoisonFree(n->addr + new_size, tail);
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
  Unpoison(n->addr + old_size, extra);
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

// ---------------------------------------------------------------------------
// Collect, statistics, integrity.
// ---------------------------------------------------------------------------

CollectReport TlsfArena::Collect(const CollectOptions& options) {
  CollectReport report;
  FlushQuickCache();
  for (int r = 0; r < num_regions_; ++r) {
    const Region& region = regions_[r];
    for (uint32_t x = region.last; x != kNil; x = N(x)->prev_phys) {
      Node* n = N(x);
      if (!IsFree(n)) continue;
      if (IsFreeIdx(n->prev_phys)) {
        RemoveFree(x);
        size_t size = SizeOf(n);
        while (IsFreeIdx(n->prev_phys)) {
          const uint32_t p = n->prev_phys;
          Node* np = N(p);
          TESSERA_DCHECK(np->addr + SizeOf(np) == n->addr,
                         "free neighbours being merged should be adjacent");
          RemoveFree(p);
          n->addr = np->addr;
          size += SizeOf(np);
          n->prev_phys = np->prev_phys;
          if (n->prev_phys != kNil) N(n->prev_phys)->next_phys = x;
          RecycleNode(p);
          ++report.blocks_merged;
        }
        SetSizeFlags(n, size, kFlagFree);
        InsertFree(x);
        ++report.runs_merged;
      } else {
        // The list a block is on depends on its size only: no relink.
        SetSizeFlags(n, SizeOf(n), kFlagFree);
      }
      if (options.release_pages && region.system &&
          SizeOf(n) >= options.release_threshold) {
        const uintptr_t begin =
            AlignUp(reinterpret_cast<uintptr_t>(n->addr), kPageSize);
        const uintptr_t end =
            AlignDown(reinterpret_cast<uintptr_t>(n->addr) + SizeOf(n),
                      kPageSize);
        if (end > begin &&
            madvise(reinterpret_cast<void*>(begin), end - begin,
                    MADV_DONTNEED) == 0) {
          report.bytes_released += end - begin;
        }
      }
    }
  }
  TESSERA_DCHECK_EXPENSIVE_OK(CheckIntegrity(),
                              "the arena should be intact after Collect");
  return report;
}

void TlsfArena::CheckAfterFree() const {
  TESSERA_DCHECK_EXPENSIVE_OK(CheckIntegrity(),
                              "the arena should be intact after a free");
}

void TlsfArena::RepairListHead(int fl, int sl) const {
  uint32_t best = heads_[fl][sl];
  for (uint32_t x = N(best)->next_free; x != kNil; x = N(x)->next_free) {
    if (SizeOf(N(x)) > SizeOf(N(best))) best = x;
  }
  if (best != heads_[fl][sl]) {
    // Unlink it from the middle of the list and push it at the front.
    Node* b = N(best);
    N(b->prev_free)->next_free = b->next_free;
    if (b->next_free != kNil) N(b->next_free)->prev_free = b->prev_free;
    const uint32_t head = heads_[fl][sl];
    b->prev_free = kNil;
    b->next_free = head;
    N(head)->prev_free = best;
    heads_[fl][sl] = best;
  }
  stale_bitmap_[fl] &= ~(1u << sl);
}

TlsfStats TlsfArena::Stats() const {
  TlsfStats s;
  const AllocatorStats& base = stats_.stats();
  s.bytes_in_use = base.bytes_in_use;
  s.peak_bytes_in_use = base.peak_bytes_in_use;
  s.free_bytes = free_bytes_;
  if (fl_bitmap_ != 0) {
    // The highest non-empty class holds the largest free blocks, and its
    // head is one of them (invariant 9) once a stale mark is repaired.
    const int fl = Log2(fl_bitmap_);
    const int sl = 31 - __builtin_clz(sl_bitmap_[fl]);
    if ((stale_bitmap_[fl] >> sl) & 1) RepairListHead(fl, sl);
    s.largest_free_block = SizeOf(N(heads_[fl][sl]));
  }
  s.free_blocks = free_blocks_;
  s.pending_free_blocks = pending_blocks_;
  for (const QuickList& list : quick_) s.cached_blocks += list.count;
  s.cached_bytes = cached_bytes_;
  s.live_blocks = base.live_allocations();
  s.metadata_nodes_carved = carved_total_;
  s.metadata_nodes_in_use = carved_total_ - recycled_count_;
  s.metadata_bytes = carved_total_ * sizeof(Node);
  for (int r = 0; r < num_regions_; ++r) {
    const Region& region = regions_[r];
    s.index_bytes += static_cast<uint64_t>(
        region.base - reinterpret_cast<char*>(region.slots));
    s.index_tables += region.record_pool.in_use + region.table_pool.in_use;
    s.index_table_bytes_touched +=
        uint64_t{region.record_pool.touched} * sizeof(StartRecord) +
        uint64_t{region.table_pool.touched} * page_granules_ *
            sizeof(uint32_t);
    s.region_bytes += region.memory_bytes;
  }
  s.high_water_offset = high_water_;
  s.allocations = base.allocations;
  s.frees = base.deallocations;
  s.failures = base.failed_requests;
  s.unsplit_for_metadata = unsplit_;
  s.regions = static_cast<uint64_t>(num_regions_);
  return s;
}

absl::Status TlsfArena::CheckIntegrity() const {
  auto violated = [](int number, const std::string& what) {
    return absl::InternalError(
        absl::StrFormat("tlsf: invariant %d violated: %s", number, what));
  };
  // Guards every walk: no chain or list is longer than the nodes that exist.
  const uint64_t max_walk = carved_total_ + 1;
  auto valid_index = [this](uint32_t i) {
    const int r = static_cast<int>(i >> kLocalBits);
    return r < num_regions_ && (i & kLocalMask) < regions_[r].carved;
  };

  // 1. Address chains cover each region exactly.
  uint64_t chain_nodes = 0;
  for (int r = 0; r < num_regions_; ++r) {
    const Region& region = regions_[r];
    const char* expected_end = region.floor;
    uint32_t upper = kNil;
    uint64_t steps = 0;
    for (uint32_t x = region.last; x != kNil; x = N(x)->prev_phys) {
      if (!valid_index(x) || ++steps > max_walk) {
        return violated(1, absl::StrFormat(
                               "region %d: chain reaches bad node %u", r, x));
      }
      const Node* n = N(x);
      const size_t size = SizeOf(n);
      if ((n->size_flags & kFlagRecycled) != 0 || size < granule_ ||
          (size & (granule_ - 1)) != 0 || n->next_phys != upper ||
          n->addr + size != expected_end || n->addr < region.base) {
        return violated(
            1, absl::StrFormat("region %d: block node %u [%p, +%u) does not "
                               "end at %p or is badly linked",
                               r, x, n->addr, size, expected_end));
      }
      expected_end = n->addr;
      upper = x;
    }
    if (expected_end != region.base) {
      return violated(1, absl::StrFormat("region %d: chain starts at %p, not "
                                         "at the base %p",
                                         r, expected_end, region.base));
    }
    chain_nodes += steps;
  }

  // 2. A free block with a free neighbour is pending (so two adjacent free
  //    blocks are both pending).
  uint64_t free_count = 0, pending_count = 0, live_count = 0;
  uint64_t free_sum = 0, used_sum = 0, cached_count = 0, cached_sum = 0;
  for (int r = 0; r < num_regions_; ++r) {
    for (uint32_t x = regions_[r].last; x != kNil; x = N(x)->prev_phys) {
      const Node* n = N(x);
      if (IsFree(n)) {
        ++free_count;
        free_sum += SizeOf(n);
        if ((n->size_flags & kFlagPending) != 0) ++pending_count;
        if (IsFreeIdx(n->prev_phys)) {
          const Node* p = N(n->prev_phys);
          if ((n->size_flags & p->size_flags & kFlagPending) == 0) {
            return violated(2, absl::StrFormat(
                                   "free blocks at %p and %p are adjacent and "
                                   "not both pending",
                                   p->addr, n->addr));
          }
        }
      } else if ((n->size_flags & kFlagCached) != 0) {
        ++cached_count;
        cached_sum += SizeOf(n);
      } else {
        ++live_count;
        used_sum += SizeOf(n);
      }
    }
  }

  // 3. Every free block is on the list its size maps to, and only there.
  uint64_t listed = 0;
  for (int fl = 0; fl < kFlCount; ++fl) {
    for (uint32_t sl = 0; sl < kSlCount; ++sl) {
      uint32_t prev = kNil;
      for (uint32_t x = heads_[fl][sl]; x != kNil; x = N(x)->next_free) {
        if (!valid_index(x) || ++listed > max_walk) {
          return violated(3, absl::StrFormat("list (%d, %u) reaches bad node "
                                             "%u or loops",
                                             fl, sl, x));
        }
        const Node* n = N(x);
        int f, s;
        MapInsert(SizeOf(n), &f, &s);
        if (!IsFree(n) || (n->size_flags & kFlagRecycled) != 0 ||
            f != fl || s != static_cast<int>(sl) || n->prev_free != prev) {
          return violated(
              3, absl::StrFormat("node %u (block %p, %u bytes) on list (%d, "
                                 "%u) is not a free block of that class",
                                 x, n->addr, SizeOf(n), fl, sl));
        }
        prev = x;
      }
    }
  }
  if (listed != free_count) {
    return violated(3, absl::StrFormat("%u list entries for %u free blocks",
                                       listed, free_count));
  }

  // 4. Bitmaps match list emptiness.
  for (int fl = 0; fl < kFlCount; ++fl) {
    uint32_t expected = 0;
    for (uint32_t sl = 0; sl < kSlCount; ++sl) {
      if (heads_[fl][sl] != kNil) expected |= 1u << sl;
    }
    const bool fl_bit = (fl_bitmap_ >> fl) & 1;
    if (sl_bitmap_[fl] != expected || fl_bit != (expected != 0)) {
      return violated(4, absl::StrFormat("row %d: bitmap %#x (first level %d) "
                                         "but lists say %#x",
                                         fl, sl_bitmap_[fl], fl_bit,
                                         expected));
    }
  }

  // 5. The recycled-node list.
  uint64_t recycled = 0;
  for (uint32_t x = recycled_head_; x != kNil; x = N(x)->next_free) {
    if (!valid_index(x) || ++recycled > max_walk ||
        N(x)->size_flags != kFlagRecycled) {
      return violated(5, absl::StrFormat("recycled list reaches node %u, "
                                         "which is not a recycled node",
                                         x));
    }
  }
  uint64_t carved_sum = 0;
  for (int r = 0; r < num_regions_; ++r) carved_sum += regions_[r].carved;
  if (recycled != recycled_count_ || carved_sum != carved_total_ ||
      chain_nodes + recycled != carved_total_) {
    return violated(5, absl::StrFormat(
                           "%u recycled (count says %u) + %u in chains != %u "
                           "carved (regions say %u)",
                           recycled, recycled_count_, chain_nodes,
                           carved_total_, carved_sum));
  }

  // 6. The pointer index: each page's live starts are in its slot, its
  //    start record or its table.
  for (int r = 0; pointer_index_ && r < num_regions_; ++r) {
    const Region& region = regions_[r];
    std::vector<bool> record_seen(region.record_pool.touched);
    std::vector<bool> table_seen(region.table_pool.touched);
    uint64_t records_seen = 0, tables_seen = 0;
    // The live (and cached) blocks starting in one page, found walking the
    // chain downwards, are checked against the page's slot.
    std::vector<uint32_t> starts;
    size_t page = 0;
    uint64_t pages_with_starts = 0;
    auto granule_of = [&](uint32_t x) {
      return static_cast<uint32_t>((N(x)->addr - region.base) >>
                                   granule_shift_) &
             (page_granules_ - 1);
    };
    auto check_page = [&]() -> absl::Status {
      if (starts.empty()) return absl::OkStatus();
      std::reverse(starts.begin(), starts.end());  // address order
      const PageSlot slot = region.slots[page];
      const void* at = region.base + (page << index_page_shift_);
      ++pages_with_starts;
      if (slot.state < kRecord) {
        if (starts.size() != 1 || slot.ref != starts[0] ||
            slot.state != granule_of(starts[0]) + 1) {
          return violated(6, absl::StrFormat(
                                 "region %d page %p: %u live blocks start "
                                 "there, its slot names node %u at granule "
                                 "%d and no record",
                                 r, at, starts.size(), slot.ref,
                                 static_cast<int>(slot.state) - 1));
        }
        return absl::OkStatus();
      }
      if ((slot.state & kFullTable) != 0) {
        if ((slot.state & kStartCount) != starts.size() ||
            slot.ref >= region.table_pool.touched || table_seen[slot.ref]) {
          return violated(6, absl::StrFormat(
                                 "region %d page %p: %u live blocks start "
                                 "there, its slot counts %u in table %u (%u "
                                 "handed out), or another page has it",
                                 r, at, starts.size(),
                                 slot.state & kStartCount, slot.ref,
                                 region.table_pool.touched));
        }
        table_seen[slot.ref] = true;
        ++tables_seen;
        for (const uint32_t x : starts) {
          const uint32_t entry =
              region.tables[size_t{slot.ref} * page_granules_ + granule_of(x)];
          if (entry != x) {
            return violated(6, absl::StrFormat(
                                   "table entry of live block %p is %u, not "
                                   "its node %u",
                                   N(x)->addr, entry, x));
          }
        }
        return absl::OkStatus();
      }
      if ((slot.state & kStartCount) != starts.size() || starts.size() < 2 ||
          starts.size() > kRecordNodes ||
          slot.ref >= region.record_pool.touched || record_seen[slot.ref]) {
        return violated(6, absl::StrFormat(
                               "region %d page %p: %u live blocks start "
                               "there, its slot counts %u in record %u (%u "
                               "handed out), or another page has it",
                               r, at, starts.size(), slot.state & kStartCount,
                               slot.ref,
                               region.record_pool.touched));
      }
      record_seen[slot.ref] = true;
      ++records_seen;
      const StartRecord& record = region.records[slot.ref];
      uint64_t expected = 0;
      for (size_t k = 0; k < starts.size(); ++k) {
        expected |= uint64_t{1} << granule_of(starts[k]);
        if (record.nodes[k] != starts[k]) {
          return violated(6, absl::StrFormat(
                                 "record entry %u of page %p is %u, not the "
                                 "node %u of live block %p",
                                 k, at, record.nodes[k], starts[k],
                                 N(starts[k])->addr));
        }
      }
      if (record.starts != expected) {
        return violated(6, absl::StrFormat(
                               "record of page %p has start bits %#x, the "
                               "live blocks start at %#x",
                               at, record.starts, expected));
      }
      return absl::OkStatus();
    };
    for (uint32_t x = region.last; x != kNil; x = N(x)->prev_phys) {
      const Node* n = N(x);
      if (IsFree(n)) continue;
      const size_t p =
          static_cast<size_t>(n->addr - region.base) >> index_page_shift_;
      if (p != page) {
        if (absl::Status s = check_page(); !s.ok()) return s;
        starts.clear();
        page = p;
      }
      starts.push_back(x);
    }
    if (absl::Status s = check_page(); !s.ok()) return s;
    // Every other page's slot is empty.
    uint64_t pages_not_empty = 0;
    for (size_t k = 0; k < region.pages; ++k) {
      pages_not_empty += region.slots[k].state != 0;
    }
    if (pages_not_empty != pages_with_starts) {
      return violated(6, absl::StrFormat(
                             "region %d: %u page slots are not empty, but "
                             "live blocks start in %u pages",
                             r, pages_not_empty, pages_with_starts));
    }
    // Both pools: in use by pages + on the free list = handed out.
    uint64_t free_records = 0, free_tables = 0;
    for (uint32_t t = region.record_pool.free; t != kNil;
         t = region.records[t].nodes[0]) {
      if (t >= region.record_pool.touched || record_seen[t]) {
        return violated(6, absl::StrFormat(
                               "region %d: record %u on the free list is in "
                               "use, listed twice or never handed out",
                               r, t));
      }
      record_seen[t] = true;
      ++free_records;
    }
    for (uint32_t t = region.table_pool.free; t != kNil;
         t = region.tables[size_t{t} * page_granules_]) {
      if (t >= region.table_pool.touched || table_seen[t]) {
        return violated(6, absl::StrFormat(
                               "region %d: table %u on the free list is in "
                               "use, listed twice or never handed out",
                               r, t));
      }
      table_seen[t] = true;
      ++free_tables;
    }
    if (region.record_pool.touched > region.record_capacity ||
        region.table_pool.touched > region.table_capacity ||
        records_seen != region.record_pool.in_use ||
        records_seen + free_records != region.record_pool.touched ||
        tables_seen != region.table_pool.in_use ||
        tables_seen + free_tables != region.table_pool.touched) {
      return violated(6, absl::StrFormat(
                             "region %d: records %u in use by pages (pool "
                             "says %u) + %u free, %u handed out; tables %u "
                             "(%u) + %u, %u",
                             r, records_seen, region.record_pool.in_use,
                             free_records, region.record_pool.touched,
                             tables_seen, region.table_pool.in_use,
                             free_tables, region.table_pool.touched));
    }
  }

  // 7. Statistics equal a recount.
  const AllocatorStats& base = stats_.stats();
  if (used_sum != base.bytes_in_use || free_sum != free_bytes_ ||
      free_count != free_blocks_ || pending_count != pending_blocks_ ||
      live_count != base.live_allocations()) {
    return violated(
        7, absl::StrFormat("recount: %u used, %u free bytes, %u free, %u "
                           "pending, %u live; stats: %u, %u, %u, %u, %u",
                           used_sum, free_sum, free_count, pending_count,
                           live_count, base.bytes_in_use, free_bytes_,
                           free_blocks_, pending_blocks_,
                           base.live_allocations()));
  }

  // 8. The quick cache.
  uint64_t quick_listed = 0, quick_bytes = 0;
  for (uint32_t q = 0; q < kQuickClasses; ++q) {
    const uint64_t size = uint64_t{q + 1} << granule_shift_;
    uint32_t length = 0;
    for (uint32_t x = quick_[q].head; x != kNil; x = N(x)->next_free) {
      if (!valid_index(x) || ++length > quick_depth_ || q >= quick_max_ ||
          N(x)->size_flags != (size | kFlagCached)) {
        return violated(8, absl::StrFormat("quick list of %u-byte blocks "
                                           "reaches node %u, which is not a "
                                           "cached block of that size, or "
                                           "exceeds depth %u",
                                           size, x, quick_depth_));
      }
      quick_bytes += size;
    }
    if (length != quick_[q].count) {
      return violated(8, absl::StrFormat("quick list of %u-byte blocks holds "
                                         "%u blocks, its count says %u",
                                         size, length, quick_[q].count));
    }
    quick_listed += length;
  }
  if (quick_listed != cached_count || quick_bytes != cached_sum ||
      cached_sum != cached_bytes_ || cached_bytes_ > quick_bytes_) {
    return violated(8, absl::StrFormat("%u cached blocks (%u bytes) in the "
                                       "chains, %u (%u bytes) on quick lists, "
                                       "counter says %u bytes (limit %u)",
                                       cached_count, cached_sum, quick_listed,
                                       quick_bytes, cached_bytes_,
                                       quick_bytes_));
  }

  // 9. Each list not marked stale has a largest block at its head; only
  //    non-empty lists are marked.
  for (int fl = 0; fl < kFlCount; ++fl) {
    if ((stale_bitmap_[fl] & ~sl_bitmap_[fl]) != 0) {
      return violated(9, absl::StrFormat("row %d: lists %#x are marked stale "
                                         "but empty",
                                         fl, stale_bitmap_[fl] &
                                                 ~sl_bitmap_[fl]));
    }
    for (uint32_t sl = 0; sl < kSlCount; ++sl) {
      const uint32_t head = heads_[fl][sl];
      if (head == kNil || ((stale_bitmap_[fl] >> sl) & 1) != 0) continue;
      // The lists were walked (and bounded) by check 3.
      for (uint32_t x = N(head)->next_free; x != kNil; x = N(x)->next_free) {
        if (SizeOf(N(x)) > SizeOf(N(head))) {
          return violated(
              9, absl::StrFormat("list (%d, %u): block %p of %u bytes is "
                                 "larger than the head %p of %u bytes, and "
                                 "the list is not marked stale",
                                 fl, sl, N(x)->addr, SizeOf(N(x)),
                                 N(head)->addr, SizeOf(N(head))));
        }
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace tessera
