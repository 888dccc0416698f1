// Copyright 2026 The Tessera Authors.
//
// -----------------------------------------------------------------------------
// File: tlsf_arena.h
// -----------------------------------------------------------------------------
//
// `TlsfArena` is a two-level segregated fit (TLSF) allocator over one
// contiguous arena, plus optional growth regions. It is for workloads that
// want bounded, constant-time allocation from a fixed budget of memory: a
// tensor engine's scratch arena, a real-time loop, a per-request heap.
// Single-threaded by design; `LockedTlsfArena` (locked_tlsf_arena.h) wraps it
// for shared use.
//
// Layout. Every region (the arena, and each growth region) is laid out as
//
//   [ pointer index | blocks ................ | metadata nodes ]
//   ^ region start    ^ base                   ^ floor         ^ end
//
// Blocks are headerless: a caller's block holds only caller data. Each block
// (free or allocated) is described by a 32-byte `Node` in the metadata area,
// which is carved from the region's tail one granule at a time (taking it from
// the last block, which must be free) and grows down towards the blocks. A
// node no longer needed (its block merged into a neighbour) goes on a recycled
// list and is reused before any new node is carved, so metadata stays
// proportional to the number of blocks. Nodes are named by 32-bit indices
// (6 bits of region, 26 bits of slot), which keeps the node at 32 bytes and
// the hot metadata dense in cache.
//
// Nodes are linked in address order (`prev_phys`/`next_phys`), so freeing a
// block merges it with both physical neighbours in O(1) with no block header
// to read. Free blocks also sit on one of 64 x 32 segregated lists: the first
// level is the power of two of the size in granules, the second level splits
// each power of two into 32 linear steps. A 64-bit first-level bitmap and
// 32-bit second-level bitmaps, searched with count-trailing-zeros, find a
// list whose every block fits the (class-rounded) request.
//
// Each list keeps a largest block of its class at its head, which makes the
// largest free block an O(1) read (the head of the highest non-empty list):
// a freed block at least as large as the head is pushed in front of it, a
// smaller one is linked second; an allocation takes the second block of a
// list that has one (every block of the list fits), so it removes a head
// only when the head is alone. Only removing a head for other reasons (a
// merge absorbs it, Realloc grows into it or carving shrinks it, Collect
// merges it) can leave a smaller block in front; that list is then marked
// stale in a third bitmap, and Stats() repairs the mark of the list it reads
// (one walk of that list, which puts its largest block first).
//
// Free by pointer is O(1) through the pointer index, which is kept small:
// its resident memory follows the number of blocks, not the address range
// they are spread over. (A plain array of one entry per granule costs 6.25%
// of every 64 KiB stretch where any block starts, which with blocks of a few
// KiB spread over the arena is all of it.) The index divides each region's
// block area into index pages of 64 granules (4 KiB at the default 64-byte
// granularity, and at most 4 KiB) and keeps, at the region's start:
//   * a page slot per index page (8 bytes: 0.2% of the address space at the
//     default granularity). While one live block starts in the page, its
//     slot names that block's node and granule: a lookup is one load, and
//     a second start needs no other memory to build the page's record;
//   * for a page where 2 to 14 live blocks start, a 64-byte start record:
//     a bitmap of the granules where they start and their nodes in address
//     order, so the node of the block at granule g is entry
//     popcount(bitmap below g). A start inserts or removes one entry (at
//     most 13 moved, O(1)); when one start is left the page returns to its
//     slot alone and the record is recycled;
//   * for a page where 15 or more live blocks start (small blocks packed
//     densely), a granule table: one entry per granule, 256 bytes.
// Records and tables come from pools reserved after the slots with room
// for one per page (so taking one never fails and costs O(1): a free-list
// pop, or the next never-used one). Recycled ones are reused first, so only
// as many are ever touched as were once in use at the same time: the pages
// of small blocks. (The reservation itself is address space: slots, records
// and tables take 7.8% of a region at the default granularity, untouched
// until used; in caller memory the blocks cannot use it.) The price of the
// small index is one more dependent load when freeing by pointer a block
// whose page has a record or table (slot, then record, then node, where a
// per-granule array needs an entry and the node); with blocks spread over
// a large arena both are usually cache misses.
// "Live" here includes blocks held by the quick cache, which keep their
// entries for when they are handed out again. Slots and records are exact
// (an all-zero slot is an empty page, so freshly mapped memory needs no
// initialisation); table entries may be stale (a table counts its page's
// live blocks and is recycled at zero). Every lookup is still validated
// (the node must say it starts at exactly that pointer and is allocated),
// so not even a garbage entry could pass for a live block.
// The index is built on first use: until a call needs it (the generic
// interface's Allocate/Deallocate, Free(void*), HandleOf) allocations do not
// write it, so an arena used through handles alone never touches its pages.
// The first such call walks the blocks to fill it: O(blocks), once, plus,
// for regions of caller memory (not known to be zeroed), clearing their
// page slots: O(region bytes / 4 KiB). A handle-only arena
// (`pointer_index = false`) never builds it.
//
// Quick cache (on by default, `quick_cache_depth`): freed blocks of small
// exact sizes (up to 64 granules) are kept unmerged on per-size LIFO lists and
// handed back to the next request of that size, the way glibc's tcache fronts
// its bins: a free and an allocation of a small block then cost a list push
// and a pop. It is bounded twice: at most `quick_cache_depth` blocks per size
// and at most `quick_cache_bytes` bytes in all (4 MiB by default, so it costs
// a large arena at most that much extra fragmentation). Collect() and any
// allocation that would otherwise fail flush it.
//
// Complexity: Alloc, aligned Alloc, Free (immediate or deferred), in-place
// Realloc and free by handle are O(1): a bounded number of bitmap scans and
// list splices, no list walk. Free by pointer is O(regions) (at most 64, and
// the first region is checked first; the first pointer call of an arena also
// builds the index, O(blocks) once). Growing the arena maps a region; an
// allocation that finds no fit with a non-empty quick cache flushes it first
// (bounded by the cache's limits: at most quick_cache_bytes / granularity
// blocks, and depth x 64 sizes). Collect() walks every block: O(blocks);
// CheckIntegrity() too, and every page slot of the pointer index once it is
// built: O(blocks + index pages). Stats() is O(1) (it sums the 64 quick-cache counters and
// reads one list head), except that when the highest non-empty list is
// marked stale (a merge, Realloc, carving or Collect removed its head while
// two or more blocks remained) the next Stats() walks that one list once:
// O(its length), after which Stats() is O(1) again until the next such
// removal from that list.
//
// Invariants (CheckIntegrity checks each, in this order, and names the first
// one violated by its number):
//   1. Each region's address chain covers [base, floor) exactly: blocks are
//      granule multiples, each starts where the previous ends, the back links
//      agree with the forward links, and the last block is the region's tail.
//   2. A free block with a free physical neighbour is marked pending (so two
//      adjacent free blocks are both pending). Only a deferred free (scan
//      window 0), or a scan that runs out of window, leaves such neighbours;
//      the flag may also be set where no free neighbour is left.
//   3. Every free block is on the list its size maps to and on no other list;
//      every list entry is a free block with consistent list links.
//   4. The first-level bitmap has bit f set iff some second-level list in row
//      f is non-empty; the second-level bitmap bit (f, s) is set iff list
//      (f, s) is non-empty.
//   5. The metadata free list holds exactly the recycled nodes, each marked
//      recycled, and carved = nodes in address chains + recycled nodes.
//   6. Once the pointer index is built, for every index page: if no live
//      or cached block starts there, its slot is empty; if exactly one, the
//      slot names its node and granule (or the page has a table); if 2 to
//      14, the page has a start record (or a table) whose bitmap is exactly
//      their granules and whose nodes are theirs in address order; if more,
//      the page has a table. A table counts exactly those blocks and its
//      entry at each one's granule names its node. Every record and table
//      handed out is either one page's or on its pool's free list, never
//      both.
//   7. The statistics equal a recount: allocated and free bytes, free and
//      pending block counts, live blocks = allocations - frees.
//   8. Every cached block is on the quick-cache list of its size and only
//      there, no list is longer than the cache depth, each list's count
//      matches its length, and the cached bytes match and stay within
//      `quick_cache_bytes`.
//   9. Every segregated list that is not marked stale has a largest block
//      of the list at its head (no later block is larger); only non-empty
//      lists are marked stale.
//  10. No block of the first region that is allocated or cached ends above
//      the high water mark (`high_water_offset`): the bytes above it were
//      never handed out, so in mapped memory they still read zero, which
//      lets a zeroed request skip clearing them.
//
// Where each is kept (one file per concern; internal/ is private):
//   1, 2  address chains and pending flags: AllocBlock, FreeBlockNow and
//         ResizeInPlace (tlsf_arena.cc), AddRegionImpl (internal/
//         regions.cc), CarveNodes (internal/nodes.cc), Collect
//         (internal/integrity.cc);
//   3, 4, 9  free lists, bitmaps and list heads: MapInsert, FindFit,
//         InsertFree and RemoveFree (internal/lists-inl.h), RepairListHead
//         (integrity.cc);
//   5     node storage: PopNode, RecycleNode (internal/nodes-inl.h),
//         CarveNodes (nodes.cc);
//   6     pointer index: IndexBlock, UnindexBlock (internal/
//         pointer_index-inl.h), BuildPointerIndex (internal/pointer_index.cc);
//   7     statistics: SetSizeFlags, InsertFree, RemoveFree (lists-inl.h) and
//         the API entry points (tlsf_arena.cc);
//   8     quick cache: QuickPush, QuickPop (this header), FlushQuickCache
//         (tlsf_arena.cc);
//   10    high water: NoteAllocated and ResizeInPlace (tlsf_arena.cc), relied
//         on by DoAllocateZeroed (tlsf_arena.cc).
// CheckIntegrity itself is in internal/integrity.cc. Debug and sanitizer
// builds also check, with TESSERA_DCHECK (alloc/internal/dcheck.h), the
// invariant each step relies on where it relies on it; sanitizer builds run
// CheckIntegrity after Collect and every kExpensiveCheckPeriod-th free.
//
// Bad input never corrupts the arena:
//   * Size 0 is a request for a minimal block (one granule).
//   * A size above the max block size, a size whose rounding overflows, a
//     non-power-of-two alignment or one above `kMaxArenaAlignment` fail:
//     false/nullptr on the hot path, InvalidArgument naming the value on the
//     checked path. Out of memory is ResourceExhausted; so is an aligned
//     request that needs a metadata node for its leading gap when none can be
//     carved. A plain request that finds no node for its split remainder is
//     served whole (the block is larger than asked; `Handle::size` says so).
//   * Double free, a handle of another arena, a default-constructed handle,
//     an interior or foreign pointer: FailedPrecondition / InvalidArgument on
//     the checked path (`Free`), ReportContractViolation on the hot path
//     (`TryFree`, `Deallocate`). The arena is left untouched. A handle whose
//     block was freed and whose node and address were then reused by a new
//     block cannot be told from a handle of that new block.
//   * An arena too small for one block plus its metadata fails `Create`.
//
// Statistics: `AllocatorStats::bytes_in_use` counts usable (granule-rounded)
// bytes, not requested bytes: a block freed by handle or pointer does not say
// what was requested for it.

#ifndef TESSERA_ALLOC_TLSF_TLSF_ARENA_H_
#define TESSERA_ALLOC_TLSF_TLSF_ARENA_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>

#include "absl/base/attributes.h"
#include "absl/base/config.h"
#include "absl/base/optimization.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "alloc/allocator.h"
#include "alloc/internal/dcheck.h"
#include "alloc/internal/stats_recorder.h"
#include "alloc/tlsf/internal/poison.h"
#include "alloc/tlsf/internal/pop_count.h"

namespace tessera {

namespace tlsf_internal {
// Reaches into the arena's private state to corrupt it on purpose, so that
// tlsf_arena_integrity_test.cc can show CheckIntegrity names each invariant.
class IntegrityTestPeer;
}  // namespace tlsf_internal

// The largest alignment the arena serves: beyond it the over-allocation an
// aligned request needs is itself unreasonable for an arena.
inline constexpr size_t kMaxArenaAlignment = size_t{1} << 20;

// The granularity range `TlsfArenaOptions::granularity` accepts. The low
// four bits of a block's size hold its state flags (free, pending,
// recycled, cached), which is sound only because every size is a multiple
// of the granularity and so has at least four zero low bits: hence 16.
inline constexpr size_t kMinArenaGranularity = 16;
inline constexpr size_t kMaxArenaGranularity = 4096;

// Merges up to this many free neighbours on each side of a freed block (the
// seed's `collectScanWindow`). With immediate coalescing there is at most one
// on each side; a larger window also absorbs runs left by deferred frees.
inline constexpr int kDefaultScanWindow = 4;

// Where system memory comes from, so that tests can see (and forbid) it.
// `map` returns `bytes` of zeroed, page-aligned memory or nullptr.
struct SystemMemory {
  void* (*map)(size_t bytes, void* context);
  void (*unmap)(void* ptr, size_t bytes, void* context);
  void* context = nullptr;
  // True if `map` returns private anonymous memory that reads as zero, where
  // MADV_DONTNEED gives pages back and the next touch maps zero pages: a
  // zeroed request may then skip bytes never handed out and give a large
  // block's whole huge pages back instead of clearing them
  // (alloc/internal/zero_memory.h). False: zeroed requests memset.
  bool anonymous = false;
};
// mmap/munmap of private anonymous memory (MAP_NORESERVE, `anonymous`);
// mappings of 4 MiB and more are advised MADV_HUGEPAGE (transparent huge pages cut the TLB
// misses of random node and block accesses).
SystemMemory DefaultSystemMemory();

struct TlsfArenaOptions {
  // Size of the arena `Create` maps (index, blocks and metadata included).
  size_t arena_bytes = size_t{64} << 20;
  // Alignment of the arena's first block; a power of two >= granularity.
  size_t arena_alignment = 64;
  // Largest block one request may ask for.
  size_t max_block_size = size_t{32} << 20;
  // Every block is a multiple of this, and aligned to it. Power of two,
  // kMinArenaGranularity (16) <= granularity <= kMaxArenaGranularity (4096).
  size_t granularity = 64;
  // When no free block fits, map a new region of at least
  // `growth_region_bytes` from `system_memory` (and retry). Off by default:
  // an arena that does not grow never calls `system_memory` after `Create`.
  bool grow = false;
  size_t growth_region_bytes = size_t{64} << 20;
  SystemMemory system_memory = DefaultSystemMemory();
  // Quick cache (on by default): keep up to `quick_cache_depth` freed blocks
  // of each size from 1 to `quick_cache_max_granules` granules (at most 64),
  // and at most `quick_cache_bytes` bytes in all, unmerged, and hand them
  // straight back to the next request of that exact size (a tcache-like
  // front: a free and an allocate of a small block then cost a list push and
  // pop). Cached blocks count as free for the caller but are not merged with
  // their neighbours until Collect(), or until an allocation would otherwise
  // fail. Deferred frees (scan window 0) and aligned requests (alignment
  // above the granularity) bypass the cache. Depth 0 turns it off.
  uint32_t quick_cache_depth = 512;
  uint32_t quick_cache_max_granules = 64;
  size_t quick_cache_bytes = size_t{4} << 20;
  // Allow the pointer index that makes free by pointer O(1) (Free(void*),
  // Deallocate, HandleOf, the generic interface); it is built on the first
  // such call. Without it the arena is handle-only: those calls fail with
  // FailedPrecondition (Deallocate reports a contract violation).
  bool pointer_index = true;
};

// What the arena looks like now. O(1): counters, plus the 64 quick-cache
// counts summed (see `TlsfArena::Stats` for the one exception).
struct TlsfStats {
  uint64_t bytes_in_use = 0;         // allocated block bytes
  uint64_t peak_bytes_in_use = 0;    // highest bytes_in_use
  uint64_t free_bytes = 0;           // free block bytes
  // Bytes of the largest free block (exact): the head of the highest
  // non-empty size class, found with the first- and second-level bitmaps'
  // highest set bits. Blocks held by the quick cache are not free blocks.
  uint64_t largest_free_block = 0;
  uint64_t free_blocks = 0;
  uint64_t pending_free_blocks = 0;  // free blocks that may have a free neighbour
  uint64_t cached_blocks = 0;        // freed blocks held by the quick cache
  uint64_t cached_bytes = 0;
  uint64_t live_blocks = 0;
  uint64_t metadata_nodes_in_use = 0;  // nodes describing a block
  uint64_t metadata_nodes_carved = 0;  // in use + recycled
  uint64_t metadata_bytes = 0;         // carved nodes x 32
  uint64_t index_bytes = 0;            // pointer index address space
  // Start records and granule tables of the pointer index in use (index
  // pages where several live blocks start), and the bytes of those ever
  // touched (the index's resident memory beyond its page slots).
  uint64_t index_tables = 0;
  uint64_t index_table_bytes_touched = 0;
  // Highest end offset of any block ever allocated in the first region,
  // measured from its first block.
  uint64_t high_water_offset = 0;
  uint64_t allocations = 0;
  uint64_t frees = 0;
  uint64_t failures = 0;
  // Requests served whole because no metadata node was left for the split.
  uint64_t unsplit_for_metadata = 0;
  uint64_t regions = 0;
  uint64_t region_bytes = 0;  // total bytes of all regions

  // 1 - largest free block / total free bytes: 0 when all free memory is one
  // block (or there is none), towards 1 as it shatters.
  double fragmentation() const {
    return free_bytes == 0 ? 0.0
                           : 1.0 - static_cast<double>(largest_free_block) /
                                       static_cast<double>(free_bytes);
  }
};

// What `Collect` did.
struct CollectReport {
  uint64_t runs_merged = 0;     // runs of adjacent free blocks made one
  uint64_t blocks_merged = 0;   // blocks absorbed into a neighbour
  uint64_t bytes_released = 0;  // whole pages returned to the OS
};

struct CollectOptions {
  // Return the whole pages inside free blocks of at least
  // `release_threshold` bytes to the OS (MADV_DONTNEED). Only for regions the
  // arena mapped itself: caller memory is never advised.
  bool release_pages = false;
  size_t release_threshold = size_t{1} << 20;
};

// One block as `TlsfArena::WalkBlocks` sees it (a copy: nothing points into
// the arena's metadata).
struct TlsfBlockInfo {
  enum class State { kLive, kFree, kCached };
  int region = 0;               // 0: the arena; then growth regions in order
  const void* address = nullptr;
  size_t size = 0;              // bytes, a granule multiple
  State state = State::kLive;   // kCached: held by the quick cache
  bool pending = false;         // free and possibly next to a free neighbour
};

// One region's layout: [memory, base) is the pointer index (and alignment
// padding), [base, floor) the blocks, [floor, memory + memory_bytes) the
// metadata nodes carved so far plus the uncarved rest of the mapping.
struct TlsfRegionInfo {
  int region = 0;
  const void* memory = nullptr;
  size_t memory_bytes = 0;
  const void* base = nullptr;
  const void* floor = nullptr;
  size_t metadata_bytes = 0;    // carved nodes x 32, just above `floor`
};

class TlsfArena;

// A block handed out by `Alloc`. Copyable, does not own the block: free it
// with `TlsfArena::Free`. A default-constructed Handle is empty.
class Handle {
 public:
  Handle() = default;

  void* address() const { return address_; }
  // Usable bytes: the request rounded up to the granularity (or more).
  size_t size() const { return size_; }
  bool empty() const { return address_ == nullptr; }

  absl::Span<std::byte> span() const {
    return absl::Span<std::byte>(static_cast<std::byte*>(address_), size_);
  }
  // Byte access; bounds-checked (abort with a message) in debug builds.
  std::byte& operator[](size_t i) const {
#ifndef NDEBUG
    if (i >= size_) {
      std::fprintf(stderr, "tessera: Handle[%zu] out of bounds (size %zu)\n",
                   i, size_);
      std::abort();
    }
#endif
    return static_cast<std::byte*>(address_)[i];
  }

 private:
  friend class TlsfArena;
  Handle(void* address, size_t size, uint32_t node, uint32_t arena_id)
      : address_(address), size_(size), node_(node), arena_id_(arena_id) {}

  void* address_ = nullptr;
  size_t size_ = 0;
  uint32_t node_ = 0;
  uint32_t arena_id_ = 0;  // 0: no arena
};

class TlsfArena final : public Allocator {
 public:
  // Called with the memory given to `CreateOver`/`AddRegion` when the arena
  // is destroyed.
  using ReleaseCallback = std::function<void(void* memory, size_t bytes)>;

  // Maps a fresh arena of `options.arena_bytes`. InvalidArgument for bad
  // options or an arena too small for one block and its metadata;
  // ResourceExhausted if the memory cannot be mapped.
  static absl::StatusOr<std::unique_ptr<TlsfArena>> Create(
      const TlsfArenaOptions& options = {});

  // An arena over caller memory; `release` (may be empty) gets it back on
  // destruction. `options.arena_bytes` is ignored.
  static absl::StatusOr<std::unique_ptr<TlsfArena>> CreateOver(
      void* memory, size_t bytes, ReleaseCallback release,
      const TlsfArenaOptions& options = {});

  ~TlsfArena() override;

  // ---- The seed's API. ----

  // A block of at least `size` bytes aligned to max(alignment, granularity).
  absl::StatusOr<Handle> Alloc(size_t size, size_t alignment = 0);
  // Hot-path form: false (counted) instead of a Status.
  // A request the quick cache can serve costs a list pop here, inline.
  bool TryAlloc(size_t size, Handle* out, size_t alignment = 0) {
    if ((alignment & (alignment - 1)) == 0) {
      const uint32_t q = QuickClass(size, alignment);
      if (q < quick_max_ && quick_[q].head != kNil) {
        const uint32_t i = QuickPop(q);
        *out = MakeHandle(i);
        stats_.RecordAllocation(out->size());
        return true;
      }
    }
    return TryAllocSlow(size, out, alignment);
  }

  // Frees a block. `scan_window >= 1` merges it with up to that many free
  // neighbours on each side now; 0 defers merging to `Collect`.
  absl::Status Free(const Handle& handle, int scan_window = kDefaultScanWindow);
  // Hot-path form: a bad handle is reported through ReportContractViolation
  // and returns false.
  bool TryFree(const Handle& handle, int scan_window = kDefaultScanWindow) {
    const uint32_t i = handle.node_;
    if (ABSL_PREDICT_TRUE(handle.arena_id_ == arena_id_ && IsCarved(i))) {
      Node* n = N(i);
      if (ABSL_PREDICT_TRUE(n->addr == handle.address_ &&
                            (n->size_flags & kFlagNotLive) == 0)) {
        const size_t size = SizeOf(n);
        stats_.RecordDeallocation(size);
        if (scan_window <= 0 || !QuickPush(i, n, size)) {
          FreeMerging(i, scan_window);
        }
        AfterFree();
        return true;
      }
    }
    return RejectFree(handle);
  }
  // Free by pointer: `ptr` must be the address of a live block.
  absl::Status Free(void* ptr, int scan_window = kDefaultScanWindow);

  // Resizes in place when the next block allows (grow) or always (shrink),
  // else moves (keeping `alignment`). On failure the old block is intact.
  absl::StatusOr<Handle> Realloc(const Handle& handle, size_t new_size,
                                 size_t alignment = 0);

  // The handle of the live block at `ptr`, or an error as for Free(ptr).
  absl::StatusOr<Handle> HandleOf(void* ptr) const;

  // Merges every run of adjacent free blocks; optionally returns free pages.
  CollectReport Collect(const CollectOptions& options = {});

  // ---- Growth. ----

  // Adds caller memory as a new region. InvalidArgument if it is too small,
  // ResourceExhausted past 64 regions.
  absl::Status AddRegion(void* memory, size_t bytes, ReleaseCallback release);
  // Maps `bytes` from the options' system memory as a new region.
  absl::Status AddSystemRegion(size_t bytes);

  // ---- Introspection. ----

  TlsfStats Stats() const;
  AllocatorStats stats() const override { return stats_.stats(); }
  absl::Status CheckIntegrity() const override;
  size_t max_allocation_size() const override { return max_block_; }
  size_t granularity() const { return granule_; }
  // Whether `ptr` lies inside one of this arena's block areas.
  bool Contains(const void* ptr) const { return RegionOf(ptr) >= 0; }
  // Read-only walk for pictures and diagnostics: for each region in order,
  // `on_region` once, then `on_block` for each of its blocks in address
  // order. O(blocks); allocates (a vector per region) from the global heap,
  // never from the arena. The callbacks must not call into the arena.
  void WalkBlocks(
      const std::function<void(const TlsfRegionInfo&)>& on_region,
      const std::function<void(const TlsfBlockInfo&)>& on_block) const;

  // A 32-byte metadata node (public for the static_assert and tests).
  struct Node {
    char* addr;           // first byte of the block
    uint64_t size_flags;  // size in bytes (granule multiple) | kFlag* bits
    uint32_t prev_phys;   // lower neighbour in address order, or kNil
    uint32_t next_phys;   // upper neighbour in address order, or kNil
    uint32_t prev_free;   // segregated list links (next_free also links
    uint32_t next_free;   //   the recycled-node list)
  };
  static_assert(sizeof(Node) == 32, "metadata nodes must stay 32 bytes");

 protected:
  // The generic interface's fast paths (quick-cache pop and push, the
  // pointer index of the first region) are inline, so that a caller that
  // knows the final class pays no call and no Status for them.
  void* DoAllocate(size_t bytes, size_t alignment) noexcept override {
    const uint32_t q = QuickClass(bytes, alignment);
    if (q < quick_max_ && quick_[q].head != kNil) {
      const uint32_t i = QuickPop(q);
      Node* n = N(i);
      stats_.RecordAllocation(SizeOf(n));
      return n->addr;
    }
    return AllocateSlow(bytes, alignment);
  }
  void* DoReallocate(void* ptr, size_t old_bytes, size_t new_bytes,
                     size_t alignment) noexcept override;
  // Zeroed: bytes of the first region never handed out (invariant 10) are
  // not cleared, and a large block of mapped memory gets its whole huge
  // pages given back rather than written (alloc/internal/zero_memory.h).
  void* DoAllocateZeroed(size_t bytes, size_t alignment) noexcept override;
  void DoDeallocate(void* ptr, size_t bytes,
                    size_t alignment) noexcept override {
    const Region& r0 = regions_[0];
    const char* p = static_cast<const char*>(ptr);
    if (ABSL_PREDICT_TRUE(pointer_index_ && p >= r0.base && p < r0.floor)) {
      const size_t offset = static_cast<size_t>(p - r0.base);
      const uint32_t i = IndexLookup(r0, offset);
      if (ABSL_PREDICT_TRUE((offset & (granule_ - 1)) == 0 && IsCarved(i))) {
        Node* n = N(i);
        if (ABSL_PREDICT_TRUE(n->addr == p &&
                              (n->size_flags & kFlagNotLive) == 0)) {
          const size_t size = SizeOf(n);
          stats_.RecordDeallocation(size);
          if (!QuickPush(i, n, size)) FreeMerging(i, kDefaultScanWindow);
          AfterFree();
          return;
        }
      }
    }
    DeallocateSlow(ptr);
  }
  absl::Status CheckOwnership(const void* ptr, size_t bytes,
                              size_t alignment) const override;
  void* CountFailure() noexcept override {
    stats_.RecordFailure();
    return nullptr;
  }

 private:
  friend class LockedTlsfArena;  // forwards CountFailure under its lock
  friend class tlsf_internal::IntegrityTestPeer;

  static constexpr int kSlLog = 5;
  static constexpr uint32_t kSlCount = 1u << kSlLog;
  static constexpr int kFlCount = 64;
  // A node index is (region << kLocalBits) | slot.
  static constexpr int kMaxRegions = 64;
  static constexpr int kLocalBits = 26;
  static constexpr uint32_t kLocalMask = (1u << kLocalBits) - 1;
  static constexpr uint32_t kNil = 0xFFFFFFFFu;
  // Hazard: the region number must fit above the slot bits, and then the
  // last slot of the last region is exactly kNil, so no region may ever
  // carve slot kLocalMask (CarveNodes stops below it; IsCarved relies on it).
  static_assert(kMaxRegions <= (int64_t{1} << (32 - kLocalBits)),
                "every region number must fit above the slot bits");
  static_assert(((uint32_t{kMaxRegions - 1} << kLocalBits) | kLocalMask) ==
                    kNil,
                "the last slot of the last region is kNil: CarveNodes must "
                "never carve slot kLocalMask");
  static constexpr uint64_t kFlagFree = 1;
  static constexpr uint64_t kFlagPending = 2;
  static constexpr uint64_t kFlagRecycled = 4;
  static constexpr uint64_t kFlagCached = 8;
  static constexpr uint64_t kFlagMask = 15;
  // The flags share the size field: every size is a granule multiple, so
  // its bits below kMinArenaGranularity are zero and free for them.
  static_assert(kFlagMask < kMinArenaGranularity &&
                    (kMinArenaGranularity & (kMinArenaGranularity - 1)) == 0,
                "the state flags must fit below the smallest granularity");
  // A block that is not live for its caller: free, recycled or cached.
  static constexpr uint64_t kFlagNotLive =
      kFlagFree | kFlagRecycled | kFlagCached;
  static constexpr uint32_t kQuickClasses = 64;

  enum class Failure { kNone, kOutOfMemory, kMetadata };

  // The pointer index (see the top of the file).
  struct PageSlot {
    // state 0: no live or cached block starts in the index page (ref is
    // kNil, or 0 in memory never written).
    // state 1 + g: one does, at granule g of the page; ref is its node.
    // state kRecord | n: n (2 to 14) do; ref is the page's start record.
    // state kFullTable | n: n (at least 1) do; ref is the page's table.
    uint32_t ref;
    uint32_t state;
  };
  static constexpr uint32_t kRecord = 1u << 30;
  static constexpr uint32_t kFullTable = 1u << 31;
  static constexpr uint32_t kStartCount = kRecord - 1;  // n in a state
  static constexpr uint32_t kRecordNodes = 14;
  // A one-start state is 1 + g for a granule g < 64 of the page; it must
  // stay below the kRecord and kFullTable bits.
  static_assert(64 + 1 < kRecord && (kRecord & kFullTable) == 0,
                "page slot states: one start, record and table must differ");
  struct StartRecord {
    uint64_t starts;                // granules of the page where they start
    uint32_t nodes[kRecordNodes];   // their nodes, in address order
  };
  static_assert(sizeof(StartRecord) == 64, "a start record is a cache line");
  // Records or tables of a region handed out so far; `free` links recycled
  // ones through their first word.
  struct IndexPool {
    uint32_t touched = 0;  // never-used ones start here
    uint32_t in_use = 0;
    uint32_t free = 0xFFFFFFFFu;
  };

  struct Region {
    char* memory = nullptr;  // as mapped or given
    size_t memory_bytes = 0;
    char* base = nullptr;   // first block
    char* floor = nullptr;  // end of blocks = lowest carved node
    char* end = nullptr;    // end of the node area
    // Pointer index (see the top of the file): slots[k] covers index page
    // k of [base, end); record_capacity records, then table_capacity tables
    // of one entry per granule of a page. The pools change in const
    // lookups that build the index, hence mutable.
    PageSlot* slots = nullptr;
    size_t pages = 0;
    StartRecord* records = nullptr;
    uint32_t* tables = nullptr;
    uint32_t record_capacity = 0;
    uint32_t table_capacity = 0;
    mutable IndexPool record_pool;
    mutable IndexPool table_pool;
    uint32_t last = kNil;       // node of the highest block
    uint32_t carved = 0;        // nodes carved in this region
    bool system = false;        // mapped from system_memory
    ReleaseCallback release;
  };

  explicit TlsfArena(const TlsfArenaOptions& options);

  Node* N(uint32_t i) const {
    return segs_[i >> kLocalBits] - 1 - (i & kLocalMask);
  }
  size_t SizeOf(const Node* n) const { return n->size_flags & ~kFlagMask; }
  static bool IsFree(const Node* n) { return (n->size_flags & kFlagFree) != 0; }
  bool IsFreeIdx(uint32_t i) const { return i != kNil && IsFree(N(i)); }
  void SetSizeFlags(Node* n, uint64_t size, uint64_t flags);

  void MapInsert(size_t size, int* fl, int* sl) const;
  uint32_t FindFit(size_t size) const;
  void InsertFree(uint32_t i);
  void RemoveFree(uint32_t i);
  // Moves a largest block of stale list (fl, sl) to its head and clears the
  // mark (invariant 9). O(length of the list). Changes only the order of
  // the list, which callers cannot observe, hence const.
  void RepairListHead(int fl, int sl) const;
  uint32_t PopNode();
  void RecycleNode(uint32_t i);
  bool CarveNodes();
  void EnsureNodes(uint32_t count);
  void LinkBelow(uint32_t fresh, uint32_t upper);

  uint32_t AllocBlock(size_t size, size_t alignment, Failure* why);
  void FreeBlock(uint32_t i, int scan_window);
  void FreeBlockNow(uint32_t i, int scan_window);
  // Out-of-line entries of the slow paths behind the inline fast paths.
  void FreeMerging(uint32_t i, int scan_window);
  bool TryAllocSlow(size_t size, Handle* out, size_t alignment);
  bool RejectFree(const Handle& handle);
  void* AllocateSlow(size_t bytes, size_t alignment) noexcept;
  void DeallocateSlow(void* ptr) noexcept;

  // Whether node index i names a carved node (kNil never does: a region
  // stops carving below kLocalMask nodes).
  bool IsCarved(uint32_t i) const {
    const uint32_t r = i >> kLocalBits;
    return r < static_cast<uint32_t>(num_regions_) &&
           (i & kLocalMask) < regions_[r].carved;
  }
  // The quick list of a request the cache may serve (1 to quick_max_
  // granules, alignment no more than the granularity), else kQuickClasses.
  // Size 0 (a minimal block) takes the slow path.
  uint32_t QuickClass(size_t size, size_t alignment) const {
    if (alignment > granule_ || size - 1 >= quick_max_bytes_) {
      return kQuickClasses;
    }
    return static_cast<uint32_t>((size - 1) >> granule_shift_);
  }
  // Takes the first block of non-empty quick list q; the caller records the
  // allocation. The block is live again (flags 0) at (q + 1) granules.
  ABSL_ATTRIBUTE_ALWAYS_INLINE uint32_t QuickPop(uint32_t q) {
    QuickList& list = quick_[q];
    const uint32_t i = list.head;
    Node* n = N(i);
    const size_t size = (size_t{q} + 1) << granule_shift_;
    TESSERA_DCHECK(n->size_flags == (size | kFlagCached),
                   "a block on a quick list should be cached at its size");
    list.head = n->next_free;
    --list.count;
    cached_bytes_ -= size;
    n->size_flags = size;
    tlsf_internal::Unpoison(n->addr, size);
    return i;
  }
  // Caches live block i of `size` bytes if its size is cached and both
  // limits leave room; the caller has recorded the free.
  ABSL_ATTRIBUTE_ALWAYS_INLINE bool QuickPush(uint32_t i, Node* n,
                                              size_t size) {
    TESSERA_DCHECK((n->size_flags & kFlagNotLive) == 0 && SizeOf(n) == size,
                   "a block entering the quick cache should be live");
    const size_t q = (size - 1) >> granule_shift_;
    if (q >= quick_max_) return false;
    QuickList& list = quick_[q];
    if (list.count >= quick_depth_ || cached_bytes_ + size > quick_bytes_) {
      return false;
    }
    // The block stays in the address chain as not-free (so its neighbours
    // do not merge with it), and its pointer index entry stays valid for
    // when it is handed out again.
    tlsf_internal::PoisonFree(n->addr, size);
    n->size_flags = size | kFlagCached;
    n->next_free = list.head;
    list.head = i;
    ++list.count;
    cached_bytes_ += size;
    return true;
  }
  void FlushQuickCache();
  // Expensive checks (sanitizer builds): every kExpensiveCheckPeriod-th
  // free walks the whole arena (CheckIntegrity) once the free is complete,
  // so a corruption is caught near the call that made it. Folds away in
  // other builds.
  void AfterFree() {
    if (free_countdown_.Tick()) CheckAfterFree();
  }
  void CheckAfterFree() const;
  bool ResizeInPlace(uint32_t i, size_t new_size);
  absl::Status ValidateRequest(size_t size, size_t alignment,
                               size_t* rounded) const;
  absl::Status ValidateHandle(const Handle& handle) const;
  absl::Status LookupPointer(const void* ptr, uint32_t* node,
                             ContractViolation* violation) const;
  int RegionOf(const void* ptr) const;
  absl::Status AddRegionImpl(char* memory, size_t bytes, bool system,
                             ReleaseCallback release);
  bool Grow(size_t need);
  Handle MakeHandle(uint32_t i) const {
    Node* n = N(i);
    return Handle(n->addr, SizeOf(n), i, arena_id_);
  }
  void NoteAllocated(uint32_t i);
  // Fills the pointer index from the address chains and keeps it from now on.
  void BuildPointerIndex() const;
  // The node the pointer index names for byte `offset` of region r's block
  // area (inside it), or kNil; the caller validates it.
  ABSL_ATTRIBUTE_ALWAYS_INLINE uint32_t IndexLookup(const Region& r,
                                                    size_t offset) const {
    const PageSlot slot = r.slots[offset >> index_page_shift_];
    if (ABSL_PREDICT_TRUE(slot.state < kRecord)) return slot.ref;
    const uint32_t g = static_cast<uint32_t>(offset >> granule_shift_) &
                       (page_granules_ - 1);
    if ((slot.state & kFullTable) != 0) {
      return r.tables[size_t{slot.ref} * page_granules_ + g];
    }
    const StartRecord& record = r.records[slot.ref];
    if (((record.starts >> g) & 1) == 0) return kNil;
    return record.nodes[tlsf_internal::PopCount(
        record.starts & ((uint64_t{1} << g) - 1))];
  }
  // Records that block i, which has just become live, starts at `addr` in
  // region r; and that the live or cached block at `addr` is being freed.
  void IndexBlock(const Region& r, uint32_t i, const char* addr) const;
  void UnindexBlock(const char* addr);
  // The block of region r that holds `p`, found by walking the address
  // chain from `hint` if it names a block starting in p's index page (at
  // most a page's granules of steps), else kNil. For error messages.
  uint32_t ContainingBlock(const Region& r, const char* p,
                           uint32_t hint) const;
  // Clears region r's page slots (for memory not known to be zeroed).
  void ClearPageSlots(const Region& r) const;

  const TlsfArenaOptions options_;
  const size_t granule_;
  const int granule_shift_;
  const size_t max_block_;
  // Pointer index pages: 64 granules, at most 4 KiB.
  const int index_page_shift_;
  const uint32_t page_granules_;
  const size_t carve_bytes_;
  const uint32_t arena_id_;

  // Segregated lists and their bitmaps. The head of each list is a largest
  // block of the list unless its bit in stale_bitmap_ is set (invariant 9);
  // Stats() may repair that (RepairListHead), hence mutable.
  uint64_t fl_bitmap_ = 0;
  std::array<uint32_t, kFlCount> sl_bitmap_{};
  mutable std::array<uint32_t, kFlCount> stale_bitmap_{};
  mutable std::array<std::array<uint32_t, kSlCount>, kFlCount> heads_;

  std::array<Node*, kMaxRegions> segs_{};  // node area top of each region
  std::array<Region, kMaxRegions> regions_;
  int num_regions_ = 0;

  // Quick cache: per size in granules (1..quick_max_), a LIFO of freed
  // blocks kept unmerged (linked through next_free).
  struct QuickList {
    uint32_t head;   // node of the most recently cached block, or kNil
    uint32_t count;  // blocks on the list
  };
  std::array<QuickList, kQuickClasses> quick_;
  // Whether the pointer index is built and kept up to date (see the top of
  // the file); may become true in a const lookup, which fills it.
  const bool pointer_index_allowed_;
  mutable bool pointer_index_ = false;
  const uint32_t quick_depth_;
  // Number of quick lists in use: sizes 1..quick_max_ granules (0 when the
  // cache is off), i.e. requests of at most quick_max_bytes_.
  const uint32_t quick_max_;
  const size_t quick_max_bytes_;
  const size_t quick_bytes_;  // limit of cached_bytes_
  uint64_t cached_bytes_ = 0;

  uint32_t recycled_head_ = kNil;
  uint32_t recycled_count_ = 0;

  // Counters behind TlsfStats (the rest come from stats_).
  uint64_t free_bytes_ = 0;
  uint64_t free_blocks_ = 0;
  uint64_t pending_blocks_ = 0;
  uint64_t carved_total_ = 0;
  uint64_t high_water_ = 0;
  uint64_t unsplit_ = 0;
  internal::StatsRecorder stats_;
  internal::ExpensiveCheckCountdown free_countdown_;
};

// Inline because the free and realloc paths ask it of every block outside
// region 0; a linear search, since there are at most kMaxRegions.
inline int TlsfArena::RegionOf(const void* ptr) const {
  const char* p = static_cast<const char*>(ptr);
  for (int r = 0; r < num_regions_; ++r) {
    if (p >= regions_[r].base && p < regions_[r].floor) return r;
  }
  return -1;
}

}  // namespace tessera

#endif  // TESSERA_ALLOC_TLSF_TLSF_ARENA_H_
