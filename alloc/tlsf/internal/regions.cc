// Copyright 2026 The Tessera Authors.
//
// TlsfArena: construction, regions and growth (the layout of a region, see
// tlsf_arena.h): invariant 1 for a region's first block, and the region
// table RegionOf searches.

#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_format.h"
#include "alloc/internal/dcheck.h"
#include "alloc/tlsf/internal/lists-inl.h"
#include "alloc/tlsf/internal/pointer_index-inl.h"
#include "alloc/tlsf/tlsf_arena.h"

namespace tessera {
namespace {


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
  return SystemMemory{&MmapMemory, &MunmapMemory, nullptr, /*anonymous=*/true};
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
    tlsf_internal::Unpoison(region.memory, region.memory_bytes);
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
  tlsf_internal::PoisonFree(region.base,
                            static_cast<size_t>(region.floor - region.base));
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

}  // namespace tessera
