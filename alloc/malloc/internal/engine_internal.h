// Copyright 2026 The Tessera Authors.
//
// -----------------------------------------------------------------------------
// File: internal/engine_internal.h
// -----------------------------------------------------------------------------
//
// What the engine's files share (private to them): the core types, the
// globals (inline variables, all constant-initialised), the small inline
// helpers of every path, and the declarations of what each file defines:
//   heap.cc       reports, OS mappings, initialisation, heaps, page queues,
//                 segments and pages, carving, remote frees taken back, the
//                 allocation slow path
//   huge.cc       blocks above 256 KiB: the registry, the cache, mremap
//   lifecycle.cc  purging, collecting, thread exit, fork, statistics
//   integrity.cc  the invariants of tessera_malloc.h, checked
//   fast_paths.h  the allocation and free fast paths, inline (engine.cc and
//                 the malloc override compile them)
//   engine.cc     the entry points of engine.h, the fast paths' out-of-line
//                 parts
// libc only, like all of the engine (see engine.h).

#ifndef TESSERA_ALLOC_MALLOC_INTERNAL_ENGINE_INTERNAL_H_
#define TESSERA_ALLOC_MALLOC_INTERNAL_ENGINE_INTERNAL_H_

#include <errno.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "alloc/malloc/internal/engine.h"
#include "alloc/malloc/internal/size_classes.h"

namespace tessera {
namespace malloc_internal {

#define TM_LIKELY(x) __builtin_expect(!!(x), 1)
#define TM_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define TM_TLS __attribute__((tls_model("initial-exec")))
#define TM_NOINLINE __attribute__((noinline, cold))

// ---------------------------------------------------------------------------
// Core types (glossary).
//   Cell:    one block of a class, as it lies on a free list.
//   Page:    the cells of one class in 1-4 consecutive slots of a segment,
//            owned by one heap. Described by the `Page` of its first slot.
//   Segment: 4 MiB aligned to 4 MiB; its header (first 16 KiB) holds a Page
//            record per slot. Owned by one heap for its whole life.
//   Heap:    per-thread: a queue of pages per class (full pages are on no
//            list, only counted), the list of its pages that received frees
//            from other threads.
// ---------------------------------------------------------------------------

struct Cell {
  Cell* next;
  // `FreeCanary(page, cell)` while the cell is free, 0 once handed out: a
  // free that finds the canary is a double free (a false alarm needs user
  // data equal to the address of the page's record in its segment header).
  uintptr_t canary;
};
static_assert(sizeof(Cell) == kMinCellSize, "every class holds a Cell");

struct Heap;
struct Segment;

// kSlotGuard: the last slot of a segment in hardened builds, PROT_NONE.
enum SlotKind : uint8_t {
  kSlotFree = 0,
  kSlotPage = 1,
  kSlotTail = 2,
  kSlotGuard = 3,
};
constexpr int kGuardSlot = kSlotsPerSegment - 1;

// 128 bytes, cache-line aligned: everything a local malloc or free touches
// is in the first line (free, local_free, used, block_size, the interior-
// pointer check, the owner's thread), the cross-thread and queue fields in
// the second.
struct alignas(64) Page {
  Cell* free;        // allocation pops, the owner's frees push (owner only)
  Cell* local_free;  // drained remote frees (swapped in when `free` empties)
  char* cells;       // first cell
  // The thread that owns the page's heap, as its thread pointer
  // (ThreadPointer); 0 while no thread does (abandoned, orphan). Free
  // compares it with the caller's thread pointer, one load from %fs,
  // instead of comparing `heap` with `tls_heap`, whose initial-exec access
  // in a shared library is a load of the TLS offset from the GOT and then
  // one through %fs: W3 4.11 against 4.23 ns (7 alternating runs of the
  // preloaded library, 2026-12-06). Written only by the thread that owns
  // or takes over the heap (SetHeapOwner, NewPage); atomic because other
  // threads' frees read it.
  std::atomic<uintptr_t> owner;
  // CellKey(block_size): CellIndexIfStart(a - cells, cell_key) is the index
  // of the cell `a` starts, or a number above every page's cell count, so
  // free validates a pointer with one compare against `carved_cells`.
  uint64_t cell_key;
  // Cells carved so far: cells [0, carved_cells). Atomic (relaxed, plain
  // moves on x86) because other threads' frees read it to validate. 64 bits
  // so that free compares the cell index with it in memory (IsCarvedIndex).
  std::atomic<uint64_t> carved_cells;
  uint32_t used;       // cells handed out and not back on free/local_free
  uint32_t block_size;
  uint8_t kind;        // SlotKind
  uint8_t size_class;
  uint8_t slots;       // span length (lead slot)
  uint8_t lead_offset;  // tails: slots back to the lead
  uint8_t in_full;      // full: off its bin queue, on no list
  // An aligned block was carved out of some cell (read by remote frees).
  std::atomic<uint8_t> has_aligned;
  // Second line.
  // Frees by other threads, pushed with one CAS. Bit 0 set: the page is on
  // (or being pushed onto) its heap's `remote_pages` list; the thread that
  // sets it pushes the page, the owner clears it by taking the list.
  alignas(64) std::atomic<uintptr_t> thread_free;
  uint32_t capacity;  // cells the page can hold
  Page* next;  // bin queue (null while full)
  Page* prev;
  Page* remote_next;  // heap's remote_pages list
  Heap* heap;         // owner
  // Free slots: when they became free, and after how many purge delays
  // they are purged (1; a recycled huge mapping's slots keep the cache's
  // kHugeCachePurgeDelays). The delay is read when purging, so
  // SetPurgeDelayMs applies to memory already free.
  uint64_t freed_at_ms;
  uint8_t purge_delays;
  // Hardened builds: a corrupt link made this page drop the rest of a free
  // list. Those cells are lost (never handed out; freeing one is a double
  // free) until the page empties and is retired.
  uint8_t dropped_cells;
  // Bytes past `cells` that Carve has prefaulted (kPrefaultBytes);
  // UINT32_MAX: it does not (a huge-page segment, slots that were
  // resident, cells above kPrefaultMaxCell).
  uint32_t populated;
};
static_assert(sizeof(Page) == 128, "two cache lines per page record");

// Cells carved so far.
inline uint32_t CarvedCells(const Page* p) {
  return static_cast<uint32_t>(p->carved_cells.load(std::memory_order_relaxed));
}
// index < carved cells, the compare taking `carved_cells` from memory: GCC
// loads an atomic into a register first, one instruction more on every
// free.
inline bool IsCarvedIndex(uint64_t index, const Page* p) {
#if defined(__x86_64__)
  bool below;
  __asm__("cmpq %2, %1"
          : "=@ccb"(below)
          : "r"(index),
            "m"(*reinterpret_cast<const uint64_t*>(&p->carved_cells))
          : "cc");
  return below;
#else
  return index < p->carved_cells.load(std::memory_order_relaxed);
#endif
}
// Bytes of cells carved so far, past `cells`.
inline uint64_t CarvedBytes(const Page* p) {
  return uint64_t{CarvedCells(p)} * p->block_size;
}
inline bool HasAligned(const Page* p) {
  return p->has_aligned.load(std::memory_order_relaxed) != 0;
}

// A heap's first segments keep small pages; later ones are advised
// MADV_HUGEPAGE (NewSegment), so a heap past them faults its memory in 2 MiB
// units: one fault instead of 512, and TLB reach for a large live set. The
// cost is RSS in 2 MiB steps: a page's uncarved cells and free slots are
// resident inside any 2 MiB page the heap has touched. Below 32 MiB that
// granularity costs more than the faults it saves, which the carves'
// prefault (kPrefaultBytes) now mostly avoids: from the ninth segment
// instead of the second (A/B of the preloaded library, 2026-12-06), the
// cc1plus trace's peak RSS growth / peak live 1.51-1.53 against 1.61-1.65
// at the same time a call; sqlite's peak RSS 47.9 against 51.3 MB, its wall
// time level; W1, W1 touched, W4 and two_thread level (W4's 290 MB is past
// the first 32 MiB); xthread 77 against 69 ns (each of its threads' heaps
// is small). With no huge pages at all, W4 ran 705-750 against 530 ns.
constexpr int kSmallPageSegments = 8;

// Past those, a heap that has been taking memory back is not advised huge
// pages for its next segment: once pages have regained room this many
// times (Unfull) since it last mapped one. Such a heap is not growing in a
// burst that fills the segment at once; it drifts (the mix of live sizes
// moves), and the new segment fills slowly, a page at a time. On these
// VMs (Firecracker, with the balloon's free page reporting: the kernel
// hands free 2 MiB blocks back to the host) a fresh 2 MiB page costs
// 5.1-5.5 ms to fault in, the host backing it then, where 512 small pages,
// which come from recently freed memory, cost 0.7-1.5 ms (a scratch probe,
// 2026-12-07); and small pages fault in only what the heap touches. W4,
// whose heap drifts by 3-4 segments after its fill: 231 against 313 ns an
// operation (8 runs of the preloaded library; tcmalloc 273 in the same
// runs); W1, W1 touched and the cc1plus trace's time and memory level. A
// heap that grows from nothing (W4's fill) still gets huge pages past its
// first segments.
constexpr uint32_t kDriftUnfulls = kSlotsPerSegment;

// A heap of at most this many pages retires its empty pages before every
// new page that would take slots never used; a larger one, once per
// pages / 16 such new pages (NewPage). A walk of 512 page records costs a
// few microseconds; the slots never used that it may spare cost a fault
// (~1-11 us on these VMs) per 4 KiB.
constexpr uint32_t kRetireWalkEveryCleanPage = 512;

// In small-page memory that was never resident (a heap's first segments;
// slots purged or never used), Carve prefaults a page's cells with one
// MADV_POPULATE_WRITE per kPrefaultBytes instead of taking a fault per
// 4 KiB: on these VMs a first-touch fault costs 11.3-11.8 us of thread CPU
// and a populated page 0.75-0.84 us in a batch. Only for cells up to
// kPrefaultMaxCell, whose carves write every 4 KiB page they cover (a carve
// of larger cells writes one line per cell, and the program may never touch
// the rest). larson, 8 threads each starting a heap: 8.27 against 9.07 ns
// an operation (8 alternating runs, 2026-12-06); the traces, W1, W3, W4
// and the round trips level. A page's first carve populates only its first
// kPrefaultFirstBytes: a class that a program uses for a few blocks then
// holds one 4 KiB page, not 16 KiB. The replayed Python trace's peak RSS
// growth / peak live 1.540 -> 1.527 (jemalloc 1.527; 15 runs of the
// preloaded library over as many process layouts, 2026-12-07); larson,
// xthread, two_thread and both traces' time level, the cc1plus trace's
// memory level (1.364 against 1.361).
constexpr uint32_t kPrefaultBytes = 16384;
constexpr uint32_t kPrefaultFirstBytes = 4096;
constexpr uint32_t kPrefaultMaxCell = 1024;
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23  // Linux 5.14; older C library headers lack it
#endif

constexpr uint64_t kSegmentMagic = 0x3147455353455454ull;  // "TTESSEG1"
constexpr size_t kSegmentHeaderBytes = 16384;

struct Segment {
  uint64_t magic;
  Heap* heap;
  Segment* next;
  Segment* prev;
  uint64_t free_mask;   // bit i: slot i is free
  uint64_t dirty_mask;  // free slots that may still be resident
  uint32_t pages_in_use;
  uint32_t huge_advised;  // advised MADV_HUGEPAGE (NewSegment)
  // Mapped in the reserved segment range, and given back to it when
  // released (not decided by address: the range may not be ours).
  uint32_t in_range;
  // On the heap's list of segments that have dirty slots (iff dirty_mask is
  // not 0): FindRunInHeap looks for resident runs there, not in every
  // segment of a heap that may have hundreds.
  Segment* dirty_next;
  Segment* dirty_prev;
  uint32_t dirty_listed;
  Page pages[kSlotsPerSegment];  // from offset 128
};
static_assert(sizeof(Segment) <= kSegmentHeaderBytes,
              "the segment header fits before slot 0's cells");

struct Heap {
  // The bin head of each small size's class, by 16-byte granule: malloc of
  // up to 1 KiB finds its page with one load from the size, not a class
  // table lookup and then the bin (one dependent load fewer on every small
  // allocation's critical path). Kept equal to bins[] by SetBinHead.
  Page* direct[kSmallGranules];
  Page* bins[kNumBins];  // head of each class's queue, or &g_empty_page
  // Counters: written by the owner with plain relaxed stores, read by Stats.
  std::atomic<uint64_t> allocations;
  std::atomic<uint64_t> deallocations;
  std::atomic<uint64_t> bytes_allocated;
  std::atomic<uint64_t> bytes_freed;
  std::atomic<uint64_t> reallocations;
  std::atomic<uint64_t> remote_frees;
  // Pages with no free cell. They are on no list: a free into one puts it
  // back into its queue, after the head, touching the page, the head and
  // the page after it (taking it off a doubly linked full list touched two
  // more pages' records, cache misses when frees come in random order).
  uint32_t full_pages;
  // Pages of the heap, and the new pages that were about to take slots never
  // used (or purged) since NewPage last retired the empty pages: above
  // kRetireWalkEveryCleanPage pages it retires them first once that count
  // reaches a sixteenth of the pages.
  uint32_t pages;
  uint32_t clean_pages_since_retire;
  // Frees that gave a full page room since the heap last mapped a segment
  // (Unfull; see kDriftUnfulls). Saturates at kDriftUnfulls.
  uint32_t unfulls_since_segment;
  std::atomic<Page*> remote_pages;
  Segment* segments;
  Segment* dirty_segments;  // segments with dirty slots (Segment::dirty_next)
  uint64_t last_purge_ms;
  uint32_t slow_calls;
  bool owned;  // a live thread (or a collector) holds it
  // The owning thread's ThreadPointer, 0 while no thread owns the heap (a
  // collector does not own it): every page's `owner` equals it.
  uintptr_t owner_thread;
  uint32_t empty_segments;  // segments with no page, kept against thrash
  Heap* registry_next;
  Heap* abandoned_next;
};
static_assert(offsetof(Heap, bins) ==
                  offsetof(Heap, direct) + kSmallGranules * sizeof(Page*),
              "tls_bins reads bins[c] as direct[kSmallGranules + c]");

// ---------------------------------------------------------------------------
// Globals: all constant-initialised.
// ---------------------------------------------------------------------------

inline Page g_empty_page{};  // free == nullptr: every bin starts here
inline pthread_mutex_t g_registry_lock = PTHREAD_MUTEX_INITIALIZER;  // heaps
inline pthread_mutex_t g_huge_lock = PTHREAD_MUTEX_INITIALIZER;
inline pthread_mutex_t g_orphan_lock = PTHREAD_MUTEX_INITIALIZER;
inline std::atomic<int> g_init_state{0};  // 0 none, 1 running, 2 done
inline uintptr_t g_secret = 0x9e3779b97f4a7c15ull;
inline uintptr_t g_link_secret = 0x2545f4914f6cdd1dull;  // hardened free-list links
// One byte per 4 MiB chunk of the 47-bit user address space: 32 MiB of .bss,
// which the kernel maps as zero pages until a segment's byte is written.
// Static, so the free path reads it with no pointer load and no null test.
constexpr uintptr_t kMapChunks = uintptr_t{1} << (47 - kSegmentShift);
inline std::atomic<uint8_t> g_segment_map[kMapChunks];
// The segment range: 1 TiB of address space at 32 TiB, reserved
// inaccessible (PROT_NONE, MAP_NORESERVE: no memory, no commit charge, not
// dumped) when the first segment is mapped, where every segment is mapped
// while it has room, lowest chunk first. free's fast path recognises a
// pointer into it by its high bits, a compare with a constant, where the
// segment map costs a load (W3 0.95x and pool 0.98x of d1c2adc over four
// code placements, rt_64 0.96-0.98x: 2026-12-07 (23:12-) in
// docs/benchmarks.md). A chunk a segment gave back is mapped readable and
// empty: it reads as zeros, so its slot records carve no cells and send a
// free that still points there (a double free after the segment went) to
// the slow path, which asks the map. Chunks never used stay PROT_NONE, not
// readable: mlockall(MCL_CURRENT) would fill page tables for a readable
// terabyte with the zero page (2 GiB of them, half a minute; 8 MiB and
// 0.13 s for 4 GiB here), and a free of a pointer never handed out that
// lands there faults. Outside
// the range (it could not be reserved: an address-space limit, another
// mapping there, a sanitizer's layout, or TESSERA_MALLOC_SEGMENT_RANGE=0;
// or it is full) segments are mapped anywhere and freed through the map,
// out of line. A pointer into someone else's mapping at these addresses (the
// range not ours) fails the fast path's owner test (its only write before
// that, the canary, is undone) and the slow paths check the map.
constexpr int kSegmentRangeShift = 40;
constexpr uintptr_t kSegmentRangeTag = 0x20;  // 32 TiB
constexpr uintptr_t kSegmentRangeBase = kSegmentRangeTag << kSegmentRangeShift;
constexpr uintptr_t kSegmentRangeBytes = uintptr_t{1} << kSegmentRangeShift;
constexpr size_t kRangeChunks = kSegmentRangeBytes >> kSegmentShift;
static_assert(kSegmentRangeBase + kSegmentRangeBytes <= (uintptr_t{1} << 47));
inline pthread_mutex_t g_range_lock = PTHREAD_MUTEX_INITIALIZER;
// Under g_range_lock: 0 not yet tried, 1 reserved, -1 unavailable.
inline int g_range_state = 0;
// Under g_range_lock: bit i set while chunk i of the range is a segment.
inline uint64_t g_range_used[kRangeChunks / 64];
inline size_t g_range_first_word = 0;  // no free chunk below this word
inline std::atomic<uint64_t> g_segments_outside_range{0};
inline pthread_key_t g_thread_key;
inline std::atomic<Heap*> g_registry{nullptr};
inline Heap* g_abandoned = nullptr;  // under g_registry_lock
inline std::atomic<uint64_t> g_abandoned_count{0};
inline std::atomic<uint64_t> g_heaps{0};
inline Heap* g_orphan_heap = nullptr;  // for threads past their exit (under lock)
inline char* g_heap_arena = nullptr;   // bump storage for heaps (under lock)
inline size_t g_heap_arena_left = 0;
inline std::atomic<uint64_t> g_segments{0};
inline std::atomic<uint64_t> g_failed{0};
inline std::atomic<uint64_t> g_orphan_frees{0};  // frees by threads with no heap
inline std::atomic<uint64_t> g_orphan_allocs{0};  // huge blocks for threads with no heap
inline std::atomic<uint64_t> g_orphan_bytes_allocated{0};
inline std::atomic<uint64_t> g_orphan_remote_frees{0};
inline std::atomic<uint64_t> g_orphan_bytes_freed{0};
inline std::atomic<uint64_t> g_purged_bytes{0};
// Set when the kernel refuses MADV_POPULATE_WRITE (before 5.14): carves
// stop prefaulting (one failed call, not one per page).
inline std::atomic<bool> g_no_prefault{false};
inline std::atomic<uint64_t> g_peak{0};
// How long a free slot or cached mapping stays resident before
// MADV_DONTNEED. 100 ms, not mimalloc's 10: a replayed cc1plus trace (12.5 M
// calls over ~0.1 s) ran at 0.72x glibc with 10 ms, because slots purged
// mid-run were faulted in again at ~20-30 us a page on these VMs, and at
// 0.51x with 100 ms (0.54x with 1 s); larson 0.91x and xthread 0.80x of the
// 10 ms figures (A/B, 2026-12-05). The cost is RSS held longer: that trace's
// peak RSS growth / peak live went from 1.88 to 2.05 (2.13 with 1 s).
inline constexpr uint32_t kDefaultPurgeDelayMs = 100;
inline std::atomic<uint32_t> g_purge_delay_ms{kDefaultPurgeDelayMs};
// Cached huge mappings stay resident this many purge delays (1 s by default)
// before MADV_DONTNEED (of those smaller than a segment, only the newest is
// resident at all: FreeHuge). Purging a resident mapping costs the kernel about
// 0.03 ms per MiB, and it lands on whichever slow path runs the purge tick:
// a program that loads (vectors growing to 10-16 MB, then freed) and then
// computes paid ~1.3 ms inside its compute phase. That was the shootout's
// replay of the Python trace after its parse: 6.68 ns a call with one
// delay, 3.07 ns with ten (A/B of the preloaded library, 2026-12-06, 10
// rounds). The cost: memory a program allocates within a second of freeing
// huge blocks stacks on up to kHugeCacheMaxBytes still resident, where one
// delay held it 100 ms. On the measured traces peak RSS did not move (the
// cc1plus trace's RSS/live read 1.95-2.23 in both builds).
inline constexpr uint32_t kHugeCachePurgeDelays = 10;
inline std::atomic<ViolationHook> g_hook{nullptr};
// How AcquireHeap registers a thread's heap for the key's destructor:
// pthread_setspecific, which tests replace with one that fails (it can,
// with ENOMEM, for keys past the first 32).
inline int (*g_set_thread_heap)(pthread_key_t, const void*) =
    pthread_setspecific;

TM_TLS inline thread_local Heap* tls_heap = nullptr;
// The bin heads malloc reads (Heap::direct, then Heap::bins), never null:
// the heap's own while the thread has one (SetThreadHeap), else
// kNoHeapBins, every entry &g_empty_page, whose empty lists send malloc to
// its slow path, which acquires a heap. So malloc's fast path does not
// test for a heap (mimalloc's empty default heap does the same).
constexpr int kBinHeads = kSmallGranules + kNumBins;
inline constexpr std::array<Page*, kBinHeads> kNoHeapBins = [] {
  std::array<Page*, kBinHeads> bins{};
  for (Page*& b : bins) b = &g_empty_page;
  return bins;
}();
TM_TLS inline thread_local Page* const* tls_bins = kNoHeapBins.data();
// Sets the calling thread's heap: tls_heap and tls_bins, always together.
inline void SetThreadHeap(Heap* h) {
  tls_heap = h;
  tls_bins = h != nullptr ? h->direct : kNoHeapBins.data();
}
TM_TLS inline thread_local bool tls_dead = false;  // past the key destructor
// While the thread has no heap: the heap of the first block it freed, which
// AcquireHeap adopts if it is abandoned.
TM_TLS inline thread_local Heap* tls_first_freed_heap = nullptr;

// store (plain moves on x86), not a locked read-modify-write.
inline void OwnerAdd(std::atomic<uint64_t>& counter, uint64_t delta) {
  counter.store(counter.load(std::memory_order_relaxed) + delta,
                std::memory_order_relaxed);
}

// The free canary of `cell` of page `p`: the page record's address, which
// only this allocator holds (user data equal to it is as unlikely as any
// pointer into a segment header), compared with a register free already
// holds; hardened builds key it with the cell and the secret, so that a
// program that learns where the records are still cannot forge it. (The
// secret-keyed form in every build cost free a load and an xor: W3 4.15
// against 4.12 ns, 11 alternating runs, 2026-12-06.)
inline uintptr_t FreeCanary(const Page* p, const void* cell) {
  return kHardened ? reinterpret_cast<uintptr_t>(cell) ^ g_secret
                   : reinterpret_cast<uintptr_t>(p);
}

// Free-list links. Hardened builds (--define=tessera_malloc_hardened=1)
// store them encoded with the cell's address and a per-process secret, so a
// write after free or an overflow into a free cell cannot plant a pointer
// the allocator would hand out: a decoded link outside the cell's segment
// is reported (kCorruptFreeList) and the rest of that list dropped.
inline uintptr_t LinkKey(const Cell* cell) {
  return kHardened ? (reinterpret_cast<uintptr_t>(cell) >> 4) ^ g_link_secret
                   : 0;
}
inline Cell* LinkOf(const Cell* cell) {
  return reinterpret_cast<Cell*>(reinterpret_cast<uintptr_t>(cell->next) ^
                                 LinkKey(cell));
}
inline void SetLink(Cell* cell, Cell* next) {
  cell->next =
      reinterpret_cast<Cell*>(reinterpret_cast<uintptr_t>(next) ^ LinkKey(cell));
}

// ---------------------------------------------------------------------------
// Huge blocks: mapped on their own, registered in a hash table, freed
// mappings kept a while for reuse.
// ---------------------------------------------------------------------------

struct HugeEntry {
  uintptr_t ptr;  // 0: empty slot; 1: tombstone
  char* base;
  size_t map_bytes;
};

struct HugeCacheEntry {
  char* base;
  size_t map_bytes;
  uint64_t freed_at_ms;
  bool purged;
};

constexpr int kHugeCacheEntries = 8;
constexpr size_t kHugeCacheMaxBytes = size_t{256} << 20;
constexpr size_t kHugeCacheMaxBlock = size_t{64} << 20;

inline HugeEntry* g_huge_table = nullptr;  // under g_huge_lock
inline size_t g_huge_capacity = 0;         // power of two
inline size_t g_huge_count = 0;
inline size_t g_huge_used_slots = 0;       // count + tombstones
inline uint64_t g_huge_mapped = 0;
inline HugeCacheEntry g_huge_cache[kHugeCacheEntries];
inline int g_huge_cache_count = 0;
inline uint64_t g_huge_cache_bytes = 0;
// Cached mappings a segment could be taken from (resident, 4 MiB or more),
// kept by RecountRecyclableLocked: NewSegment reads it before it takes
// g_huge_lock, which a purge of the cache may hold for milliseconds.
inline std::atomic<uint32_t> g_huge_cache_recyclable{0};

inline size_t HugeHash(uintptr_t p) {
  return static_cast<size_t>((p >> 12) * 0x9e3779b97f4a7c15ull);
}

// ---------------------------------------------------------------------------
// Defined in the files above.
// ---------------------------------------------------------------------------

// heap.cc
uint64_t NowMs();
void WriteAll(const char* s, size_t n);
const char* ViolationName(Violation v);
void Report(Violation v, const void* ptr, const char* detail);
void* MapPages(size_t bytes);
void* MapAligned(size_t bytes, size_t alignment);
void Purge(void* p, size_t bytes);
void InitSlow();
void InitHeap(Heap* h);
Heap* NewHeapLocked();
Heap* AcquireHeap();
// Hands heap `h` and every page it has to the thread whose ThreadPointer is
// `owner` (0: to none, before the heap is abandoned). The caller owns `h`.
void SetHeapOwner(Heap* h, uintptr_t owner);
void BinPushFront(Heap* h, Page* p);
void BinRemove(Heap* h, Page* p);
void FullPush(Heap* h, Page* p);
void FullRemove(Heap* h, Page* p);
// A full page that has free cells again: into its class's queue after the
// head (the pages nearest full serve next; sparse ones drain).
void Unfull(Heap* h, Page* p);
// free() of a pointer in no segment: null, a huge block, or foreign
// (reported); the sized form checks a huge block's size. FreeInNoSegment
// takes the one that fits `expected_bytes` (SIZE_MAX: an unsized free).
void FreeOutsideSegments(void* ptr);
void FreeSizedOutsideSegments(void* ptr, size_t bytes);
void FreeInNoSegment(void* ptr, size_t expected_bytes);
Segment* NewSegment(Heap* h, bool recycled_only);
void ReleaseSegment(Heap* h, Segment* s);
// Whether the segment range is reserved (it is tried with the first
// segment), and whether segment `s` is marked used in it.
bool SegmentRangeReserved();
bool InRangeChunkUsed(const Segment* s);
int FindRun(const Segment* s, int slots, int first);
Segment* FindRunInHeap(Heap* h, int slots, int first, int* slot);
Page* NewPage(Heap* h, int c);
void RetirePage(Heap* h, Page* p);
void ReleaseEmptySegments(Heap* h, bool purged_only);
void Prefault(Page* p, uint32_t end);
void Carve(Page* p);
bool DrainRemote(Heap* h);
void* AllocateSlow(Heap* h, int c);
void* Fail();

// huge.cc
bool HugeTableGrowLocked();
HugeEntry* HugeFindLocked(uintptr_t p);
bool HugeInsertLocked(uintptr_t p, char* base, size_t map_bytes);
void HugeEraseLocked(HugeEntry* e);
void HugeCacheAgeLocked(uint64_t now, bool force);
void* AllocateHuge(size_t bytes, size_t alignment, bool zeroed);
bool FreeHuge(void* ptr);
size_t HugeUsable(const void* ptr);
Segment* TakeSegmentFromHugeCache(uint64_t* freed_at_ms);
void RecountRecyclableLocked();

// lifecycle.cc
void PurgeSegments(Heap* h, uint64_t now, bool force);
// Retires the empty pages of classes `first_class` on (keep_one: see
// lifecycle.cc) up to `end_class`. Returns whether it retired any. From
// kFirstLargeClass to kNumClasses (pages of one to three cells, each a freed
// large block's memory; not the aligned classes after them, whose pages
// hold 7-64 cells) the walk is
// cheap: a page whose cells are all live leaves its queue once the next
// allocation of its class finds it spent, so it costs a visit per large
// class, per page it retires and per page with a free cell beside a live
// one.
bool RetireEmptyPages(Heap* h, bool keep_one, int first_class = 0,
                      int end_class = kNumBins);
void CollectHeap(Heap* h, bool force);
void CollectOneAbandoned(bool force);
void MaybePurge(Heap* h, bool force);
void OnThreadExit(void* heap);
void SamplePeak();


// Reports the overwritten link of free cell `cell` and marks its page as
// having dropped the rest of that list.
void DropCorruptList(const Cell* cell);

// The link after `cell` on a free list, checked in hardened builds: it must
// be null or lie in the cell's segment. A bad one is reported and the rest
// of the list dropped (its cells leak: CheckIntegrity reports them).
inline Cell* NextFree(const Cell* cell) {
  Cell* next = LinkOf(cell);
  if constexpr (kHardened) {
    if (TM_UNLIKELY(((reinterpret_cast<uintptr_t>(next) ^
                      reinterpret_cast<uintptr_t>(cell)) >> kSegmentShift) != 0 &&
                    next != nullptr)) {
      DropCorruptList(cell);
      return nullptr;
    }
  }
  return next;
}
// The calling thread's thread pointer: unique among live threads, never 0,
// and one load from %fs on x86-64 (a TLS variable's address would cost the
// GOT load that Page::owner avoids). Not volatile: it cannot change under a
// thread, so the compiler may keep it.
inline uintptr_t ThreadPointer() {
#if defined(__x86_64__)
  uintptr_t tp;
  __asm__("mov %%fs:0, %0" : "=r"(tp));
  return tp;
#elif defined(__aarch64__)
  return reinterpret_cast<uintptr_t>(__builtin_thread_pointer());
#else
  return reinterpret_cast<uintptr_t>(&tls_dead);
#endif
}

inline bool OwnsPage(const Page* p) {
#if defined(__x86_64__)
  // The thread pointer as the compare's memory operand: one instruction
  // where loading it first took two (free's fast path, every call).
  const uintptr_t owner = p->owner.load(std::memory_order_relaxed);
  bool owns;
  __asm__("cmpq %%fs:0, %1" : "=@ccz"(owns) : "r"(owner) : "cc");
  return owns;
#else
  return p->owner.load(std::memory_order_relaxed) == ThreadPointer();
#endif
}

inline void EnsureInit() {
  if (TM_UNLIKELY(g_init_state.load(std::memory_order_acquire) != 2)) {
    InitSlow();
  }
}

// Whether `a` lies in the segment range (whether or not it is reserved).
inline bool InSegmentRange(uintptr_t a) {
  return (a >> kSegmentRangeShift) == kSegmentRangeTag;
}

inline bool IsSegment(uintptr_t chunk_base) {
  const uintptr_t index = chunk_base >> kSegmentShift;
  return index < kMapChunks &&
         g_segment_map[index].load(std::memory_order_relaxed) != 0;
}

inline bool BinEmpty(const Heap* h, int c) { return h->bins[c] == &g_empty_page; }

// The only writer of bins[]: keeps the small sizes' direct entries equal.
inline void SetBinHead(Heap* h, int c, Page* p) {
  h->bins[c] = p;
  if (c <= kLastSmallClass) {
    for (int g = kSmallClasses.first_granule[c],
             end = kSmallClasses.end_granule[c];
         g < end; ++g) {
      h->direct[g] = p;
    }
  }
}

// Keeps `s` on its heap's list of segments with dirty slots iff it has any;
// called after every change of its dirty_mask, and before it is unmapped
// (with the mask cleared).
inline void SyncDirtyList(Heap* h, Segment* s) {
  const bool dirty = s->dirty_mask != 0;
  if (dirty == (s->dirty_listed != 0)) return;
  if (dirty) {
    s->dirty_prev = nullptr;
    s->dirty_next = h->dirty_segments;
    if (h->dirty_segments != nullptr) h->dirty_segments->dirty_prev = s;
    h->dirty_segments = s;
  } else {
    if (s->dirty_prev != nullptr) s->dirty_prev->dirty_next = s->dirty_next;
    else h->dirty_segments = s->dirty_next;
    if (s->dirty_next != nullptr) s->dirty_next->dirty_prev = s->dirty_prev;
    s->dirty_next = s->dirty_prev = nullptr;
  }
  s->dirty_listed = dirty ? 1 : 0;
}

// The bits of slots [first, first + count) in a segment's slot masks
// (count 64: the whole segment, where a shift by 64 would be undefined).
inline uint64_t SlotRunMask(int first, int count) {
  return (count == 64 ? ~uint64_t{0} : (uint64_t{1} << count) - 1) << first;
}

inline Segment* SegmentOf(const void* p) {
  return reinterpret_cast<Segment*>(reinterpret_cast<uintptr_t>(p) &
                                    ~(kSegmentSize - 1));
}

inline void CountAllocation(Heap* h, size_t bytes) {
  OwnerAdd(h->allocations, 1);
  OwnerAdd(h->bytes_allocated, bytes);
}

inline void CountFree(Heap* h, size_t bytes) {
  if (h == nullptr) {
    g_orphan_frees.fetch_add(1, std::memory_order_relaxed);
    g_orphan_bytes_freed.fetch_add(bytes, std::memory_order_relaxed);
    return;
  }
  OwnerAdd(h->deallocations, 1);
  OwnerAdd(h->bytes_freed, bytes);
}

inline size_t PageRound(size_t n) { return (n + 4095) & ~size_t{4095}; }

}  // namespace malloc_internal
}  // namespace tessera

#endif  // TESSERA_ALLOC_MALLOC_INTERNAL_ENGINE_INTERNAL_H_
