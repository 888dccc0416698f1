// Copyright 2026 The Tessera Authors.
//
// TlsfArena: Collect (merging runs of free blocks, releasing pages), Stats,
// and the integrity walk that checks the numbered invariants of
// tlsf_arena.h one by one and names the first one broken.

#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"
#include "alloc/internal/dcheck.h"
#include "alloc/tlsf/internal/lists-inl.h"
#include "alloc/tlsf/internal/nodes-inl.h"
#include "alloc/tlsf/tlsf_arena.h"

namespace tessera {

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

  // 10. No allocated or cached block of the first region ends above the
  //     high water mark. (The chain was walked and bounded by check 1.)
  if (num_regions_ > 0) {
    const Region& r0 = regions_[0];
    for (uint32_t x = r0.last; x != kNil; x = N(x)->prev_phys) {
      const Node* n = N(x);
      if (IsFree(n)) continue;
      const uint64_t end = static_cast<uint64_t>(n->addr - r0.base) + SizeOf(n);
      if (end > high_water_) {
        return violated(
            10, absl::StrFormat("block %p of %u bytes ends at offset %u of "
                                "region 0, above the high water mark %u",
                                n->addr, SizeOf(n), end, high_water_));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace tessera
