// Copyright 2026 The Tessera Authors.
//
// -----------------------------------------------------------------------------
// File: tessera_malloc.h
// -----------------------------------------------------------------------------
//
// `TesseraMalloc` is Tessera's thread-safe general-purpose allocator: the one
// a whole program can run on. Use it through the `tessera::Allocator`
// interface (`GlobalTesseraMalloc()`), or replace the program's malloc with
// it: link `//alloc/malloc:malloc_override` (malloc, free, ..., every operator
// new/delete) or `LD_PRELOAD=libtessera_malloc.so`.
//
// Design (the one mimalloc and snmalloc publish, written anew here):
//   * Segments of 4 MiB aligned to 4 MiB, so a pointer finds its segment by
//     masking; a process-wide byte map (one byte per 4 MiB of address space,
//     32 MiB reserved, touched only where segments are) says which chunks are
//     segments. They are mapped in the segment range, 1 TiB of address space
//     at 32 TiB reserved inaccessible (no memory, no commit charge) with the
//     first segment: free recognises a pointer into it by its high bits,
//     with no load; a chunk a segment gave back is mapped readable and
//     empty, so a free that still points there reads zeros, which send it
//     to the slow path and the map. The reservation counts in the process's
//     virtual size (RLIMIT_AS, and mlockall's RLIMIT_MEMLOCK check for an
//     unprivileged process). Where the range cannot be reserved (an
//     address-space limit, a sanitizer's layout, another mapping there,
//     TESSERA_MALLOC_SEGMENT_RANGE=0) or is full, segments are mapped
//     anywhere and free finds them through the map, out of line
//     (`segments_outside_range` counts them).
//   * A segment is 64 slots of 64 KiB, owned by one heap. A page is 1-4
//     slots holding cells of one size class (52 classes, 16 B to 256 KiB,
//     at most 25% waste above 128 B): at least eight cells up to 16 KiB
//     (five to seven beside the segment header or past a page colour in some),
//     one above (so a large block's slots go back to the segment, free for
//     any class, when it is freed), in as few slots as hold them, anywhere
//     in the segment; its record lives in the segment header. The cells of
//     a 1-16 KiB class start 0-15 cache lines into the span (the page's
//     colour), so that the first lines of its cells in different pages do
//     not all fall into the same few cache sets. Five aligned classes (1, 2,
//     4, 8 and 16 KiB, never coloured, so each cell is aligned to its size)
//     serve requests aligned to more than 64 bytes that fit them, where a
//     coloured class would need a cell of the size plus the alignment.
//   * One heap per thread (initial-exec TLS, no lock on any fast path). Each
//     page has three free lists: `free` (allocation pops, the owner's frees
//     push: last in, first out, so a block freed is the next one handed out
//     while it is in cache), `local_free` (cells drained from other threads'
//     frees, swapped in when `free` runs dry), and `thread_free` (other
//     threads' frees, pushed with one compare-and-swap). The first
//     remote free into a page also queues the page on its heap's
//     `remote_pages` list (one tag bit in `thread_free` says it is queued);
//     the owner takes that list on its slow path, so it never scans pages.
//   * Allocation of a small block: a TLS load, the page from the heap's
//     entry for the size's 16-byte granule (up to 1 KiB; above, a class
//     computed from the size and its bin), a pop; when `free` is dry,
//     `local_free` is taken inline. Free: a compare of the pointer's high
//     bits (the segment range), a mask, the
//     record of the pointer's own slot, the checks below, an owner compare
//     (the page's owning thread against the caller's thread pointer, with
//     no TLS variable read), a push onto `free`.
//   * Counting: through this interface every call updates the calling
//     heap's counters, so `stats()` is exact; the malloc override counts only
//     huge blocks (two counter updates were 15-20% of a small malloc/free
//     pair). See `malloc_internal::Counting`.
//   * Blocks above 256 KiB are mapped on their own (16 B or the requested
//     alignment; from 4 MiB on, at a segment boundary), registered in a hash
//     table, and kept in a small cache (8 mappings, 256 MiB) when freed (of
//     those under 4 MiB only the newest resident: only a huge block can
//     reuse them, and the next one under 4 MiB that no cached mapping fits
//     within 25% takes it, trimmed or grown);
//     realloc of a huge block is mremap. A heap that needs a page and has no
//     resident free slots takes its next segment from a resident cached mapping
//     (its first aligned 4 MiB; the rest stays cached) before it faults in
//     fresh memory: what a program freed as huge blocks (a loaded buffer, an
//     outgrown table) comes back as small blocks without growing RSS. (The TLSF
//     arena is single-threaded: behind a lock it would serialise every thread's
//     large requests, so large sizes are pages up to 256 KiB and mappings
//     above; see the closing note of issue 12.)
//   * Memory follows the live set: a page whose last cell is freed stays in its
//     queue until the heap's next purge tick (at most every half purge delay,
//     on a slow path), a Collect, a new page that finds no free slot (these
//     keep the head of each class's queue up to 8 KiB: retiring at once
//     re-carved W1's pages every batch), or a new page about to take slots
//     never used (the large classes' empty pages every time; every empty
//     page every time in a heap of up to 512 pages, else once per pages/16
//     such new pages, since it walks the queues); then it goes back to its
//     segment. A full
//     page that a free gives a cell
//     rejoins its queue after the head, so allocation favours the pages
//     nearest full and sparse ones drain. A segment whose last page goes
//     is unmapped (one empty one is kept), free slots that stayed free for the
//     purge delay (100 ms) and cached mappings that stayed free for ten delays
//     get MADV_DONTNEED (a segment made of a cached mapping keeps the cache's
//     schedule for the slots it has not used). A new page takes resident free
//     slots of any segment first. Transparent huge pages (MADV_HUGEPAGE) are
//     advised for every segment of a heap after its first eight (not for
//     huge blocks, often written in part: huge.cc): a heap past 32 MiB
//     faults its memory in 2 MiB pages (one fault instead of 512, and TLB
//     reach for a large live set), and its RSS grows in 2 MiB steps
//     (kSmallPageSegments says what that costs); but not a segment that a
//     drifting heap maps (64 frees gave full pages room since its last
//     one: kDriftUnfulls), which fills a page at a time. In segments of
//     small pages, a carve of cells up to 1 KiB into memory never resident
//     prefaults the next 16 KiB with one MADV_POPULATE_WRITE instead of
//     four faults (a page's first carve only its first 4 KiB:
//     kPrefaultBytes).
//   * A thread's heap outlives the thread: at exit it is abandoned, other
//     threads' frees keep landing in it, any thread's slow path collects one
//     abandoned heap now and then (frees its empty pages and segments), and
//     a new thread adopts it whole when it first allocates: the heap of the
//     first block it freed before that, if that heap is abandoned (a thread
//     taking over an exited one's blocks then frees the rest locally and
//     reuses their cells), else the newest abandoned heap.
//   * Hardened build (--define=tessera_malloc_hardened=1): free-list links
//     are stored encoded with the cell's address and a per-process secret
//     and checked when followed (a link out of its segment is reported, as a
//     foreign pointer through this interface, and its list dropped), and the
//     last 64 KiB slot of every segment is a PROT_NONE guard; the free canary
//     is keyed with the cell's address and a secret (in other builds it is
//     the page record's address); a freed huge
//     block's mapping never becomes a segment (a write after free into it
//     would land in a segment header). Measured cost in docs/allocators.md.
//   * fork(): the override registers pthread_atfork handlers that hold every
//     lock across the fork; in the child, heaps of threads that did not
//     survive are abandoned (and so adopted later).
//
// Complexity: malloc and free are O(1) (a page's list ops; a new page finds
// its slots with a few mask operations per segment of the heap, and walks
// the queues to retire empty pages before a new page that would take unused
// slots: the large classes' short queues every time, every queue every time
// in a heap of up to 512 pages and once per pages/16 such new pages above,
// amortised O(16) page visits). Statistics
// are O(heaps). CheckIntegrity is O(cells of the calling thread's heap).
//
// Invariants (CheckIntegrity checks the calling thread's heap and the huge
// registry; CheckAllHeaps every heap, at quiescence; messages start with
// "invariant N"):
//   1. Every segment of a heap is marked in the segment map, carries the
//      segment magic, names its heap, and the heap's segment list is linked
//      both ways; a segment records whether it lies in the segment range,
//      truly (one in the reserved range records it, and one that records it
//      is marked used there).
//   2. A segment's slots are consistent: a free slot (in `free_mask`) is
//      marked free, a slot in use is a page's lead or one of its tails
//      pointing back to it, spans stay in the segment (they may start at
//      any slot), only free slots are dirty, the page count matches the
//      leads, and the heap's count of empty segments is right. The heap's
//      list of segments with dirty slots holds exactly those, linked both
//      ways. Free slots, guards and tails record no carved cells (free's
//      fast path validates a pointer by its own slot's record).
//   3. A page's class, block size and span agree, it holds at least one
//      cell and its cells fit its span, starting at the span's first byte
//      (after the header in slot 0), or 0-15 lines past it in the coloured
//      classes (1-16 KiB; not the aligned classes of the same sizes),
//      and used + cells on free/local_free == cells carved (<= in a page
//      that dropped a corrupt list, hardened builds: those cells are lost
//      until the page retires); no more cells sit on thread_free than are
//      in use.
//   4. Every cell on a page's free lists is a carved cell of that page, on
//      exactly one list once (no cycle, no double free), and every cell on
//      a free list (carved cells too) carries its free canary (so a write
//      after free into its first 16 bytes is caught).
//   5. Every page of a heap is either on its class's bin queue (not marked
//      full) or marked full and linked nowhere, and the heap counts its
//      pages and its full pages; the queues are linked both ways and hold
//      only the heap's own pages; every page names its heap and carries its
//      heap's owning thread (0 while no thread owns it: free's owner test
//      reads the page, not the heap); every size up to 1 KiB has a direct
//      entry naming its class's bin head (what small allocations read
//      instead of the bin); the calling thread's malloc reads its heap's
//      bin heads, or, while it has no heap, ones that all name the empty
//      page (so malloc's fast path needs no test for a heap); a page
//      marked full has nothing on `free` or `local_free` (free tests only
//      the head it pushes onto before it looks at the mark).
//   6. The huge registry: every huge block lies inside its mapping, and the
//      counts of blocks, mapped bytes and cached bytes match the entries.
//   7. (CheckAllHeaps) the number of mapped segments equals the number on
//      the heaps' lists.
//
// Bad input:
//   * malloc(SIZE_MAX), calloc overflow: nullptr with errno = ENOMEM, counted
//     in `failed_requests`. An invalid alignment through the interface:
//     nullptr (InvalidArgument on the checked path).
//   * free of a pointer that is not a live block, checked on every free:
//     a pointer outside every segment and huge block (foreign, also in a
//     chunk of the segment range that a segment gave back; a wild pointer
//     into a chunk no segment ever had faults instead), inside a
//     segment's header or past its page's carved cells (foreign), inside a
//     block (interior, except in pages that served aligned requests, where
//     any address inside a block frees it: memalign's blocks are freed with
//     free), in a free slot, or a cell whose free canary is set (double
//     free): reported through `ReportContractViolation` with a message naming
//     the pointer (abort by default; the override prints
//     "tessera_malloc: double free of 0x...: ..." and aborts) and ignored if
//     the handler returns. A double free of a cell that was reallocated in
//     between is a use after free the allocator cannot see.
//   * A sized free (`Deallocate`, `free_sized`, sized delete) whose size is
//     larger than the block's: kSizeMismatch (a smaller one is accepted).

#ifndef TESSERA_ALLOC_MALLOC_TESSERA_MALLOC_H_
#define TESSERA_ALLOC_MALLOC_TESSERA_MALLOC_H_

#include <cstddef>
#include <cstdint>

#include "absl/status/status.h"
#include "alloc/allocator.h"

namespace tessera {

// Statistics beyond AllocatorStats.
struct TesseraMallocStats {
  uint64_t segments = 0;           // 4 MiB segments mapped
  // Of them, mapped outside the segment range (see the design): their frees
  // take a slower route.
  uint64_t segments_outside_range = 0;
  uint64_t huge_blocks = 0;        // live mapped blocks above 256 KiB
  uint64_t huge_bytes = 0;         // their mapped bytes
  uint64_t huge_cached_bytes = 0;  // freed mappings kept for reuse
  uint64_t heaps = 0;              // heaps ever created (one per thread)
  uint64_t abandoned_heaps = 0;    // heaps of exited threads, not yet adopted
  uint64_t purged_bytes = 0;       // returned to the OS with MADV_DONTNEED
  uint64_t remote_frees = 0;       // frees on a thread other than the owner's
};

class TesseraMalloc final : public Allocator {
 public:
  // The allocator is process-wide (its heaps are per thread, not per
  // object): every TesseraMalloc shares them. Use GlobalTesseraMalloc().
  TesseraMalloc();

  AllocatorStats stats() const override;
  TesseraMallocStats detailed_stats() const;

  // The calling thread's heap and the huge registry (invariants 1-6).
  absl::Status CheckIntegrity() const override;
  // Every heap (invariants 1-7). The caller guarantees no other thread
  // allocates or frees meanwhile.
  absl::Status CheckAllHeaps() const;

  // Usable bytes of a live block (malloc_usable_size).
  static size_t UsableSize(const void* ptr);
  // Whether freeing an address inside the live block at `ptr` frees it
  // instead of being reported: true where the block's page also served an
  // aligned request carved out of a larger cell (see "Bad input").
  static bool FreesInteriorPointers(const void* ptr);

  // Takes the calling thread's cross-thread frees, returns empty pages and
  // segments to the OS, collects abandoned heaps; `force` also purges what
  // has not yet stayed free for the delay.
  static void Collect(bool force = false);
  // How long free memory stays resident before MADV_DONTNEED (default 100;
  // cached huge mappings ten times as long; engine_internal.h's
  // kDefaultPurgeDelayMs and kHugeCachePurgeDelays say what they trade).
  static void SetPurgeDelayMs(uint32_t ms);

  size_t max_allocation_size() const override { return size_t{1} << 46; }

 protected:
  void* DoAllocate(size_t bytes, size_t alignment) noexcept override;
  void* DoAllocateZeroed(size_t bytes, size_t alignment) noexcept override;
  void* DoReallocate(void* ptr, size_t old_bytes, size_t new_bytes,
                     size_t alignment) noexcept override;
  void DoDeallocate(void* ptr, size_t bytes, size_t alignment) noexcept override;
  absl::Status CheckOwnership(const void* ptr, size_t bytes,
                              size_t alignment) const override;
  void* CountFailure() noexcept override;
};

// The process-wide instance (never destroyed).
TesseraMalloc& GlobalTesseraMalloc();

}  // namespace tessera

#endif  // TESSERA_ALLOC_MALLOC_TESSERA_MALLOC_H_
