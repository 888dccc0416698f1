// Copyright 2026 The Tessera Authors.
//
// The engine's heaps: reports, OS mappings, initialisation, heaps and their
// page queues, segments and pages, carving, taking back remote frees, and
// the allocation slow path.
// Private to the engine: see engine_internal.h.

#include "alloc/malloc/internal/engine_internal.h"

namespace tessera {
namespace malloc_internal {

// ---------------------------------------------------------------------------
// Small helpers.
// ---------------------------------------------------------------------------

uint64_t NowMs() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000 +
         static_cast<uint64_t>(ts.tv_nsec) / 1000000;
}

// Adds `delta` to a counter only its owner thread writes: a relaxed load and

void WriteAll(const char* s, size_t n) {
  while (n > 0) {
    ssize_t w = write(2, s, n);
    if (w <= 0) return;
    s += w;
    n -= static_cast<size_t>(w);
  }
}

const char* ViolationName(Violation v) {
  switch (v) {
    case Violation::kDoubleFree: return "double free";
    case Violation::kForeignPointer: return "foreign pointer";
    case Violation::kInteriorPointer: return "interior pointer";
    case Violation::kSizeMismatch: return "size mismatch";
    case Violation::kCorruptFreeList: return "corrupt free list";
  }
  return "violation";
}

// Reports through the hook, or prints and aborts. Formats without malloc.
void Report(Violation v, const void* ptr, const char* detail) {
  ViolationHook hook = g_hook.load(std::memory_order_acquire);
  if (hook != nullptr) {
    hook(v, ptr, detail);
    return;
  }
  char buf[256];
  size_t n = 0;
  auto put = [&](const char* s) {
    while (*s && n < sizeof(buf) - 1) buf[n++] = *s++;
  };
  put("tessera_malloc: ");
  put(ViolationName(v));
  put(" of 0x");
  uintptr_t a = reinterpret_cast<uintptr_t>(ptr);
  char hex[17];
  for (int i = 15; i >= 0; --i) {
    hex[i] = "0123456789abcdef"[a & 15];
    a >>= 4;
  }
  hex[16] = 0;
  put(hex);
  put(": ");
  put(detail);
  put("\n");
  WriteAll(buf, n);
  abort();
}

void* MapPages(size_t bytes) {
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  return p == MAP_FAILED ? nullptr : p;
}

// `bytes` at an address aligned to `alignment` (both page multiples).
void* MapAligned(size_t bytes, size_t alignment) {
  if (alignment <= 4096) return MapPages(bytes);
  if (bytes > SIZE_MAX - alignment) return nullptr;
  char* raw = static_cast<char*>(MapPages(bytes + alignment));
  if (raw == nullptr) return nullptr;
  uintptr_t start = (reinterpret_cast<uintptr_t>(raw) + alignment - 1) &
                    ~(alignment - 1);
  size_t head = start - reinterpret_cast<uintptr_t>(raw);
  if (head != 0) munmap(raw, head);
  size_t tail = alignment - head;
  if (tail != 0) munmap(reinterpret_cast<char*>(start) + bytes, tail);
  return reinterpret_cast<void*>(start);
}

void Purge(void* p, size_t bytes) {
  if (bytes == 0) return;
  madvise(p, bytes, MADV_DONTNEED);
  g_purged_bytes.fetch_add(bytes, std::memory_order_relaxed);
}

// ---------------------------------------------------------------------------
// Process initialisation: once, on the first call of any entry point.
// ---------------------------------------------------------------------------

void InitSlow() {
  int expected = 0;
  if (!g_init_state.compare_exchange_strong(expected, 1,
                                            std::memory_order_acq_rel)) {
    // Another thread initialises: wait. (The same thread cannot recurse
    // here: nothing below allocates.)
    while (g_init_state.load(std::memory_order_acquire) != 2) sched_yield();
    return;
  }
  uintptr_t seed = 0;
  if (syscall(SYS_getrandom, &seed, sizeof(seed), 0x1 /*GRND_NONBLOCK*/) !=
      static_cast<long>(sizeof(seed))) {
    seed = reinterpret_cast<uintptr_t>(&seed) ^ __builtin_ia32_rdtsc();
  }
  g_secret = seed | 1;
  // Set before any cell is carved (nothing allocates before init ends), so
  // every link is encoded with the same secret.
  g_link_secret = (seed * 0x9e3779b97f4a7c15ull) | 1;
  pthread_key_create(&g_thread_key, OnThreadExit);
  g_init_state.store(2, std::memory_order_release);
}

// ---------------------------------------------------------------------------
// Heaps.
// ---------------------------------------------------------------------------

void InitHeap(Heap* h) {
  for (int c = 0; c < kNumBins; ++c) {
    SetBinHead(h, c, &g_empty_page);
  }
  h->full_pages = 0;
  h->pages = 0;
  h->clean_pages_since_retire = 0;
  h->unfulls_since_segment = 0;
  h->remote_pages.store(nullptr, std::memory_order_relaxed);
  h->segments = nullptr;
  h->dirty_segments = nullptr;
  h->last_purge_ms = NowMs();
  h->slow_calls = 0;
  h->owned = true;
  h->empty_segments = 0;
  h->abandoned_next = nullptr;
}

// Under g_registry_lock.
Heap* NewHeapLocked() {
  if (g_heap_arena_left < sizeof(Heap)) {
    g_heap_arena = static_cast<char*>(MapPages(1 << 20));
    if (g_heap_arena == nullptr) return nullptr;
    g_heap_arena_left = 1 << 20;
  }
  Heap* h = reinterpret_cast<Heap*>(g_heap_arena);
  const size_t step = (sizeof(Heap) + 63) & ~size_t{63};
  g_heap_arena += step;
  g_heap_arena_left = g_heap_arena_left > step ? g_heap_arena_left - step : 0;
  // Fresh mmap memory is zero: the atomics start at 0.
  InitHeap(h);
  h->registry_next = g_registry.load(std::memory_order_relaxed);
  g_registry.store(h, std::memory_order_release);
  g_heaps.fetch_add(1, std::memory_order_relaxed);
  return h;
}

// The calling thread's heap, adopting an abandoned one if there is one.
// nullptr when the thread is past its exit (the caller uses the orphan heap)
// or no memory is left.
Heap* AcquireHeap() {
  EnsureInit();
  if (tls_dead) return nullptr;
  pthread_mutex_lock(&g_registry_lock);
  // The heap of the first block this thread freed, if it is abandoned: a
  // thread that takes over an exited thread's blocks (a replaced worker,
  // larson's generations) then frees them into its own pages and reuses
  // their cells, instead of pushing each to a heap no thread runs and
  // carving cold cells. Else the newest abandoned heap.
  Heap** link = &g_abandoned;
  if (tls_first_freed_heap != nullptr) {
    while (*link != nullptr && *link != tls_first_freed_heap) {
      link = &(*link)->abandoned_next;
    }
    if (*link == nullptr) link = &g_abandoned;
  }
  Heap* h = *link;
  if (h != nullptr) {
    *link = h->abandoned_next;
    h->abandoned_next = nullptr;
    h->owned = true;
    g_abandoned_count.fetch_sub(1, std::memory_order_relaxed);
  } else {
    h = NewHeapLocked();
  }
  pthread_mutex_unlock(&g_registry_lock);
  tls_first_freed_heap = nullptr;
  if (h == nullptr) return nullptr;
  SetHeapOwner(h, ThreadPointer());
  SetThreadHeap(h);
  // May allocate (keys beyond the first 32): tls_heap is already set.
  if (TM_UNLIKELY(g_set_thread_heap(g_thread_key, h) != 0)) {
    // Without the key's destructor the heap would outlive the thread with
    // the thread's pointer as its owner: a later thread given the same
    // pointer would take its pages for its own, and no collector would
    // ever reclaim them. Give it back at once (abandoned, for any thread
    // to adopt); this call is served by the orphan heap, the next one
    // tries again.
    OnThreadExit(h);
    tls_dead = false;
    return nullptr;
  }
  return h;
}

void SetHeapOwner(Heap* h, uintptr_t owner) {
  h->owner_thread = owner;
  for (Segment* s = h->segments; s != nullptr; s = s->next) {
    for (int i = 0; i < kSlotsPerSegment; ++i) {
      Page* p = &s->pages[i];
      if (p->kind == kSlotPage) p->owner.store(owner, std::memory_order_relaxed);
    }
  }
}

// ---------------------------------------------------------------------------
// Queues.
// ---------------------------------------------------------------------------

void BinPushFront(Heap* h, Page* p) {
  const int c = p->size_class;
  p->prev = nullptr;
  p->next = BinEmpty(h, c) ? nullptr : h->bins[c];
  if (p->next != nullptr) p->next->prev = p;
  SetBinHead(h, c, p);
  p->in_full = 0;
}

void BinRemove(Heap* h, Page* p) {
  const int c = p->size_class;
  if (p->prev != nullptr) p->prev->next = p->next;
  else SetBinHead(h, c, p->next != nullptr ? p->next : &g_empty_page);
  if (p->next != nullptr) p->next->prev = p->prev;
  p->next = p->prev = nullptr;
}

// A page off its bin (BinRemove cleared its links) becomes full.
void FullPush(Heap* h, Page* p) {
  p->in_full = 1;
  ++h->full_pages;
}

void FullRemove(Heap* h, Page* p) {
  p->in_full = 0;
  --h->full_pages;
}

TM_NOINLINE void DropCorruptList(const Cell* cell) {
  Report(Violation::kCorruptFreeList, const_cast<Cell*>(cell),
         "the free cell's link was overwritten (a write after free or an "
         "overflow); its list is dropped");
  Segment* s = SegmentOf(cell);
  Page* p = &s->pages[(reinterpret_cast<uintptr_t>(cell) -
                       reinterpret_cast<uintptr_t>(s)) >> kSlotShift];
  if (p->kind == kSlotTail) p -= p->lead_offset;
  p->dropped_cells = 1;
}

// A full page that a free gave a cell joins its queue second, after the
// head: the head keeps serving until it runs dry (as jemalloc keeps its
// current slab), then the pages that most recently left full, the densest,
// serve before older ones, and sparse pages are left to drain and retire.
// (At the back, as before 2026-12-06, every page with free cells took its
// turn and sparse pages were refilled. At the front, the cc1plus trace's
// peak RSS growth / peak live over both replay passes read 1.62 against the
// back's 1.84, but a page was taken for one cell and went full again on the
// next allocation: larson 7.9 against 7.0 ns an operation.)
TM_NOINLINE void Unfull(Heap* h, Page* p) {
  if (h->unfulls_since_segment < kDriftUnfulls) ++h->unfulls_since_segment;
  FullRemove(h, p);
  const int c = p->size_class;
  if (BinEmpty(h, c)) return BinPushFront(h, p);
  Page* head = h->bins[c];
  p->prev = head;
  p->next = head->next;
  if (p->next != nullptr) p->next->prev = p;
  head->next = p;
  p->in_full = 0;
}

// ---------------------------------------------------------------------------
// Segments and pages.
// ---------------------------------------------------------------------------

// The slots of segment memory `s` with a resident 4 KiB page (mincore; all
// of them if it fails).
uint64_t ResidentSlots(const Segment* s) {
  constexpr size_t kPages = kSegmentSize / 4096;
  constexpr size_t kPagesPerSlot = kSlotSize / 4096;
  unsigned char resident[kPages];
  if (mincore(const_cast<Segment*>(s), kSegmentSize, resident) != 0) {
    return ~uint64_t{0};
  }
  uint64_t slots = 0;
  for (size_t i = 0; i < kPages; ++i) {
    if (resident[i] & 1) slots |= uint64_t{1} << (i / kPagesPerSlot);
  }
  return slots;
}

// ---------------------------------------------------------------------------
// The segment range (engine_internal.h).
// ---------------------------------------------------------------------------

namespace {

constexpr int kRangeFlags =
    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED;

// Reserves the range: once, under g_range_lock, with the first segment.
void ReserveRangeLocked() {
  g_range_state = -1;
  const char* setting = getenv("TESSERA_MALLOC_SEGMENT_RANGE");
  if (setting != nullptr && setting[0] == '0') return;
  void* const want = reinterpret_cast<void*>(kSegmentRangeBase);
  // The address as a hint, which never replaces another mapping, rather
  // than MAP_FIXED_NOREPLACE: ThreadSanitizer's mmap turns an address it
  // keeps for itself into 0, and a fixed mapping at 0 kills the process.
  void* const got = mmap(want, kSegmentRangeBytes, PROT_NONE,
                         kRangeFlags & ~MAP_FIXED, -1, 0);
  if (got == MAP_FAILED) return;
  if (got != want) {
    munmap(got, kSegmentRangeBytes);
    return;
  }
  // A core dump need not look at it (nor at chunks given back: UnmapSegment).
  madvise(want, kSegmentRangeBytes, MADV_DONTDUMP);
  g_range_state = 1;
}

// Chunk `i` of the range, and the chunk that holds `a` (in the range).
char* RangeChunk(size_t i) {
  return reinterpret_cast<char*>(kSegmentRangeBase + (i << kSegmentShift));
}
size_t RangeChunkIndex(const void* a) {
  return (reinterpret_cast<uintptr_t>(a) - kSegmentRangeBase) >> kSegmentShift;
}

// A chunk of the range, reserved and marked used, lowest first; or nullptr
// when the range is unavailable or full.
char* TakeRangeChunk() {
  char* chunk = nullptr;
  pthread_mutex_lock(&g_range_lock);
  if (g_range_state == 0) ReserveRangeLocked();
  if (g_range_state == 1) {
    size_t w = g_range_first_word;
    while (w < kRangeChunks / 64 && g_range_used[w] == ~uint64_t{0}) ++w;
    g_range_first_word = w;
    if (w < kRangeChunks / 64) {
      const int bit = __builtin_ctzll(~g_range_used[w]);
      g_range_used[w] |= uint64_t{1} << bit;
      chunk = RangeChunk(w * 64 + static_cast<size_t>(bit));
    }
  }
  pthread_mutex_unlock(&g_range_lock);
  return chunk;
}

// Marks `chunk` free again: the caller made it reserved.
void GiveBackRangeChunk(const void* chunk) {
  const size_t i = RangeChunkIndex(chunk);
  pthread_mutex_lock(&g_range_lock);
  g_range_used[i / 64] &= ~(uint64_t{1} << (i % 64));
  if (i / 64 < g_range_first_word) g_range_first_word = i / 64;
  pthread_mutex_unlock(&g_range_lock);
}

// The memory of a new segment: `recycled` (a window of a cached huge
// mapping, with the pages the program left resident) moved into a chunk of
// the range (mremap moves page tables, not bytes), or a fresh chunk; where
// the range has none, `recycled` where it is or a fresh aligned mapping.
// `*in_range`: which.
Segment* MapSegment(Segment* recycled, bool* in_range) {
  *in_range = false;
  if (char* chunk = TakeRangeChunk(); chunk != nullptr) {
    void* const placed =
        recycled != nullptr
            ? mremap(recycled, kSegmentSize, kSegmentSize,
                     MREMAP_MAYMOVE | MREMAP_FIXED, chunk)
            : mmap(chunk, kSegmentSize, PROT_READ | PROT_WRITE, kRangeFlags,
                   -1, 0);
    if (placed == chunk) {
      *in_range = true;
      return reinterpret_cast<Segment*>(chunk);
    }
    // A failed MAP_FIXED (or MREMAP_FIXED) may have unmapped the chunk:
    // it stays marked used, never handed out again.
  }
  Segment* s = recycled != nullptr
                   ? recycled
                   : static_cast<Segment*>(MapAligned(kSegmentSize, kSegmentSize));
  if (s != nullptr) {
    g_segments_outside_range.fetch_add(1, std::memory_order_relaxed);
  }
  return s;
}

// Unmaps segment memory `s` (its header no longer read): back to the
// reserved range, or munmap.
void UnmapSegment(Segment* s, bool in_range) {
  if (!in_range) {
    g_segments_outside_range.fetch_sub(1, std::memory_order_relaxed);
    munmap(s, kSegmentSize);
    return;
  }
  // Readable zeros again, no memory: a free that still points here finds a
  // slot record with no cells and goes to the slow path.
  if (mmap(s, kSegmentSize, PROT_READ, kRangeFlags, -1, 0) != s) {
    // (Out of mappings, say.) Zeros all the same where it is still mapped;
    // the chunk stays marked used, never handed out again.
    madvise(s, kSegmentSize, MADV_DONTNEED);
    return;
  }
  madvise(s, kSegmentSize, MADV_DONTDUMP);
  GiveBackRangeChunk(s);
}

}  // namespace

bool SegmentRangeReserved() {
  pthread_mutex_lock(&g_range_lock);
  const bool reserved = g_range_state == 1;
  pthread_mutex_unlock(&g_range_lock);
  return reserved;
}

bool InRangeChunkUsed(const Segment* s) {
  if (!InSegmentRange(reinterpret_cast<uintptr_t>(s))) return false;
  const size_t i = RangeChunkIndex(s);
  pthread_mutex_lock(&g_range_lock);
  const bool used = g_range_state == 1 &&
                    (g_range_used[i / 64] >> (i % 64) & 1) != 0;
  pthread_mutex_unlock(&g_range_lock);
  return used;
}

// A new segment for `h`: from a cached huge mapping (see below) or freshly
// mapped; with `recycled_only`, from the cache or nullptr.
Segment* NewSegment(Heap* h, bool recycled_only) {
  // Transparent huge pages from a heap's ninth segment on (see
  // kSmallPageSegments), advised before the header is written (a 4 KiB page
  // faulted first would keep its 2 MiB range in small pages); not for a
  // drifting heap, whose next segment fills slowly (kDriftUnfulls).
  int earlier = 0;
  for (const Segment* t = h->segments;
       t != nullptr && earlier < kSmallPageSegments; t = t->next) {
    ++earlier;
  }
  const bool huge = earlier >= kSmallPageSegments &&
                    h->unfulls_since_segment < kDriftUnfulls;
  // Any segment may take the resident pages of a freed huge block: memory
  // that costs neither faults nor new RSS. Not in hardened builds: there a
  // write after free into a freed buffer's first bytes would land in a
  // segment header instead of in cached memory.
  uint64_t recycled_freed_at_ms = 0;
  Segment* s =
      !kHardened ? TakeSegmentFromHugeCache(&recycled_freed_at_ms) : nullptr;
  const bool recycled = s != nullptr;
  if (!recycled && recycled_only) return nullptr;
  bool in_range;
  s = MapSegment(s, &in_range);
  if (s == nullptr) return nullptr;
  h->unfulls_since_segment = 0;
  // A segment made of a cached huge mapping keeps whatever 2 MiB pages it
  // has (the system's THP policy may have given it some) and faults in
  // small ones where it was purged.
  if (huge) madvise(s, kSegmentSize, MADV_HUGEPAGE);
  else if (recycled) madvise(s, kSegmentSize, MADV_NOHUGEPAGE);
  // Old user data: the header starts zeroed, as fresh memory does.
  if (recycled) std::memset(static_cast<void*>(s), 0, sizeof(Segment));
  s->huge_advised = huge;
  s->in_range = in_range;
  s->magic = kSegmentMagic;
  s->heap = h;
  s->free_mask = ~uint64_t{0};
  if constexpr (kHardened) {
    // The last slot is a guard: an overflow off the segment's end, or into
    // the next segment's header, faults instead of corrupting it.
    s->free_mask &= ~(uint64_t{1} << kGuardSlot);
    s->pages[kGuardSlot].kind = kSlotGuard;
    mprotect(reinterpret_cast<char*>(s) + (size_t{1} << kSlotShift) * kGuardSlot,
             kSlotSize, PROT_NONE);
  }
  // Fresh memory has nothing resident. Recycled memory has what the program
  // wrote of the freed block: those slots are dirty, and the ones the heap
  // does not use are purged when the cache would have purged the mapping
  // (a purge of resident memory is dear, and lands on whatever slow path
  // runs it: see kHugeCachePurgeDelays).
  s->dirty_mask = recycled ? ResidentSlots(s) & s->free_mask : 0;
  if (recycled) {
    for (int i = 0; i < kSlotsPerSegment; ++i) {
      s->pages[i].freed_at_ms = recycled_freed_at_ms;
      s->pages[i].purge_delays = kHugeCachePurgeDelays;
    }
  }
  s->pages_in_use = 0;
  ++h->empty_segments;  // until its first page
  s->prev = nullptr;
  s->next = h->segments;
  if (h->segments != nullptr) h->segments->prev = s;
  h->segments = s;
  SyncDirtyList(h, s);
  g_segment_map[reinterpret_cast<uintptr_t>(s) >> kSegmentShift].store(
      1, std::memory_order_release);
  g_segments.fetch_add(1, std::memory_order_relaxed);
  return s;
}

void ReleaseSegment(Heap* h, Segment* s) {
  s->dirty_mask = 0;
  SyncDirtyList(h, s);
  if (s->prev != nullptr) s->prev->next = s->next;
  else h->segments = s->next;
  if (s->next != nullptr) s->next->prev = s->prev;
  g_segment_map[reinterpret_cast<uintptr_t>(s) >> kSegmentShift].store(
      0, std::memory_order_release);
  g_segments.fetch_sub(1, std::memory_order_relaxed);
  s->magic = 0;
  UnmapSegment(s, s->in_range != 0);
}

// A run of `slots` free slots in `s` starting at `first` or later, or -1:
// the lowest that is all resident (dirty), else the lowest partly resident,
// else the lowest: resident slots cost no page faults and no new RSS. Any
// start will do: a span aligned to its length (as pages once were) left
// resident free slots unusable for a large page beside them, and clean
// memory was faulted in instead.
int FindRun(const Segment* s, int slots, int first) {
  // Bit i of `starts`: slots i .. i + slots - 1 are free; of `all_dirty`:
  // all of them are dirty; of `any_dirty`: one of them is.
  uint64_t starts = s->free_mask;
  uint64_t all_dirty = s->dirty_mask;
  uint64_t any_dirty = s->dirty_mask;
  for (int k = 1; k < slots; ++k) {
    starts &= s->free_mask >> k;
    all_dirty &= s->dirty_mask >> k;
    any_dirty |= s->dirty_mask >> k;
  }
  // Runs must end inside the segment: the shifts above bring in zeros, so a
  // start past kSlotsPerSegment - slots already fails.
  starts &= ~uint64_t{0} << first;
  if (starts == 0) return -1;
  if (starts & all_dirty) return __builtin_ctzll(starts & all_dirty);
  if (starts & any_dirty) return __builtin_ctzll(starts & any_dirty);
  return __builtin_ctzll(starts);
}

// Whether the run of `slots` slots from `slot` in `s` has a resident (dirty)
// slot: a page there costs fewer faults and no new RSS.
static bool RunIsResident(const Segment* s, int slot, int slots) {
  return (s->dirty_mask & SlotRunMask(slot, slots)) != 0;
}

// A run of free slots in the heap's segments, or nullptr: a resident run in
// any segment first, else the first run found.
Segment* FindRunInHeap(Heap* h, int slots, int first, int* slot) {
  // Only the segments with dirty slots can have a resident run (FindRun
  // prefers one within a segment).
  for (Segment* s = h->dirty_segments; s != nullptr; s = s->dirty_next) {
    const int i = FindRun(s, slots, first);
    if (i >= 0 && RunIsResident(s, i, slots)) {
      *slot = i;
      return s;
    }
  }
  for (Segment* s = h->segments; s != nullptr; s = s->next) {
    *slot = FindRun(s, slots, first);
    if (*slot >= 0) return s;
  }
  return nullptr;
}

Page* NewPage(Heap* h, int c) {
  const int slots = SlotsPerPage(c);
  // A page too short to hold its cells beside the segment header (a
  // one-cell page whose cell nearly fills its slots) never starts at slot 0.
  const int first =
      slots * kSlotSize - kSegmentHeaderBytes < ClassSize(c) ? 1 : 0;
  int slot = -1;
  Segment* s = FindRunInHeap(h, slots, first, &slot);
  if (s != nullptr && !RunIsResident(s, slot, slots) &&
      RetireEmptyPages(h, false, kFirstLargeClass, kNumClasses)) {
    // Slots never used cost faults and RSS; the pages of freed large blocks
    // waiting in the queues hold resident ones (a cheap walk: only the large
    // classes' queues, before every such new page).
    s = FindRunInHeap(h, slots, first, &slot);
  }
  if (s != nullptr && !RunIsResident(s, slot, slots) &&
      (++h->clean_pages_since_retire * 16 >= h->pages ||
       h->pages <= kRetireWalkEveryCleanPage)) {
    // Slots never used cost faults and RSS; the empty pages waiting in the
    // queues (see FreeCell) hold resident slots. Give those back first, every
    // one (their class's only page too: this class needs no more room than
    // its queue had). The walk visits every queued page, so in a heap of more
    // than kRetireWalkEveryCleanPage pages it runs once per pages / 16 such
    // new pages: O(16) a new page. The cc1plus trace's peak RSS growth / peak
    // live, with the queue order of Unfull: 1.84 -> 1.69 (validation and
    // measured pass, 5 runs each, 2026-12-06); walking before every such new
    // page in a heap of up to 512 pages (32 MiB), 1.43 -> 1.39, and the
    // Python trace 1.56 -> 1.49 (2026-12-07; larson, whose eight threads' heaps
    // are small, level).
    h->clean_pages_since_retire = 0;
    RetireEmptyPages(h, false);
    s = FindRunInHeap(h, slots, first, &slot);
  }
  if (s == nullptr) {
    // Empty pages wait in their queues (see FreeCell): give them back
    // before mapping a segment.
    RetireEmptyPages(h, true);
    s = FindRunInHeap(h, slots, first, &slot);
  }
  if (s == nullptr || !RunIsResident(s, slot, slots)) {
    // Resident memory that a freed huge block left in the cache costs no
    // fault and no RSS; slots never used (or purged) cost both.
    Segment* fresh = NewSegment(h, /*recycled_only=*/s != nullptr);
    if (fresh != nullptr) {
      s = fresh;
      slot = FindRun(s, slots, first);
    } else if (s == nullptr) {
      return nullptr;
    }
  }
  const uint64_t run = SlotRunMask(slot, slots);
  const bool resident = (s->dirty_mask & run) != 0;
  s->free_mask &= ~run;
  s->dirty_mask &= ~run;
  SyncDirtyList(h, s);
  if (s->pages_in_use++ == 0) --h->empty_segments;
  ++h->pages;
  Page* p = &s->pages[slot];
  for (int j = 1; j < slots; ++j) {
    s->pages[slot + j].kind = kSlotTail;
    s->pages[slot + j].lead_offset = static_cast<uint8_t>(j);
    // Zero: the free fast path validates a pointer by its own slot's record.
    s->pages[slot + j].carved_cells.store(0, std::memory_order_relaxed);
  }
  char* start = reinterpret_cast<char*>(s) + (size_t{1} << kSlotShift) * slot;
  char* cells = slot == 0 ? start + kSegmentHeaderBytes : start;
  const size_t bytes = static_cast<size_t>(slots) * kSlotSize -
                       static_cast<size_t>(cells - start);
  const size_t bs = ClassSize(c);
  size_t capacity = bytes / bs;
  if (IsColoredClass(c)) {
    // The page's colour (size_classes.h): consecutive slots and segments
    // take different lines, the cells after them shifted by as many, and
    // as many cells as fit past the largest colour.
    capacity = (bytes - (kColors - 1) * kColorBytes) / bs;
    const uintptr_t color =
        (static_cast<uintptr_t>(slot) * 7 + (slot >> 4) * 3 +
         (reinterpret_cast<uintptr_t>(s) >> kSegmentShift) * 5) %
        kColors;
    cells += color * kColorBytes;
  }
  p->free = nullptr;
  p->local_free = nullptr;
  p->thread_free.store(0, std::memory_order_relaxed);
  p->used = 0;
  p->carved_cells.store(0, std::memory_order_relaxed);
  p->capacity = static_cast<uint32_t>(capacity);
  p->block_size = static_cast<uint32_t>(bs);
  p->cell_key = CellKey(bs);
  p->kind = kSlotPage;
  p->size_class = static_cast<uint8_t>(c);
  p->slots = static_cast<uint8_t>(slots);
  p->lead_offset = 0;
  p->in_full = 0;
  p->dropped_cells = 0;
  p->has_aligned.store(0, std::memory_order_relaxed);
  p->cells = cells;
  p->populated = resident || s->huge_advised || bs > kPrefaultMaxCell ||
                         g_no_prefault.load(std::memory_order_relaxed)
                     ? UINT32_MAX
                     : 0;
  p->next = p->prev = p->remote_next = nullptr;
  p->heap = h;
  p->owner.store(h->owner_thread, std::memory_order_relaxed);
  return p;
}

// Gives an empty page's slots back to its segment; the segment goes back to
// the OS when its last page does. The page has no live cell, so no other
// thread can be freeing into it.
TM_NOINLINE void RetirePage(Heap* h, Page* p) {
  if (p->in_full) FullRemove(h, p);
  else BinRemove(h, p);
  Segment* s = SegmentOf(p);
  const int slot = static_cast<int>(p - s->pages);
  const int slots = p->slots;
  const uint64_t now = NowMs();
  for (int j = 0; j < slots; ++j) {
    Page* q = &s->pages[slot + j];
    q->kind = kSlotFree;
    q->lead_offset = 0;
    // Zero: a free into this slot must fail the fast path's test.
    q->carved_cells.store(0, std::memory_order_relaxed);
    q->freed_at_ms = now;
    q->purge_delays = 1;
  }
  --h->pages;
  const uint64_t run = SlotRunMask(slot, slots);
  s->free_mask |= run;
  s->dirty_mask |= run;
  SyncDirtyList(h, s);
  if (--s->pages_in_use == 0) {
    // Keep one empty segment mapped (purged after the delay like any free
    // slot): a heap that empties and refills a segment would otherwise pay
    // a 4 MiB munmap and mmap each time.
    if (h->empty_segments == 0) {
      ++h->empty_segments;
    } else {
      ReleaseSegment(h, s);
    }
  }
}

// Unmaps the heap's empty segments (all of them, or those already purged).
void ReleaseEmptySegments(Heap* h, bool purged_only) {
  Segment* s = h->segments;
  while (s != nullptr) {
    Segment* next = s->next;
    if (s->pages_in_use == 0 && (!purged_only || s->dirty_mask == 0)) {
      ReleaseSegment(h, s);
      --h->empty_segments;
    }
    s = next;
  }
}

// The page's cells up to `end` (bytes past `cells`) are about to be
// written by Carve for the first time: fault them in, and up to the next
// kPrefaultBytes boundary (kPrefaultFirstBytes on the page's first carve),
// with one MADV_POPULATE_WRITE (see kPrefaultBytes). A kernel without it
// (before 5.14) gets the faults.
void Prefault(Page* p, uint32_t end) {
  const uint32_t span =
      static_cast<uint32_t>(p->slots) * kSlotSize -
      static_cast<uint32_t>(reinterpret_cast<uintptr_t>(p->cells) &
                            (kSlotSize - 1));
  const uint32_t step =
      p->populated == 0 ? kPrefaultFirstBytes : kPrefaultBytes;
  uint32_t to = (end + step - 1) & ~(step - 1);
  if (to > span) to = span;
  if (to <= p->populated) return;
  const int saved_errno = errno;  // malloc that succeeds leaves errno be
  // From the memory page that holds the first byte not yet populated: the
  // cells of a coloured page (and the byte after a populated run) are not
  // page-aligned, and madvise takes only aligned starts (EINVAL, which
  // would switch prefault off for the whole process below).
  char* const from = reinterpret_cast<char*>(
      reinterpret_cast<uintptr_t>(p->cells + p->populated) & ~uintptr_t{4095});
  if (madvise(from, static_cast<size_t>(p->cells + to - from),
              MADV_POPULATE_WRITE) != 0) {
    if (errno == EINVAL) g_no_prefault.store(true, std::memory_order_relaxed);
    errno = saved_errno;
    p->populated = UINT32_MAX;
    return;
  }
  p->populated = to;
}

// Cells [carved, carved + n) onto the (empty) free list, each with its
// free canary: the owner's frees share that list, and every cell on it is
// marked free (so a free of a carved, never allocated cell is a double free).
void Carve(Page* p) {
  const uint32_t carved = CarvedCells(p);
  uint32_t n = CellsPerCarve(p->size_class);
  if (n > p->capacity - carved) n = p->capacity - carved;
  char* first = p->cells + static_cast<size_t>(carved) * p->block_size;
  const uint32_t end = (carved + n) * p->block_size;
  if (TM_UNLIKELY(end > p->populated)) Prefault(p, end);
  char* cell = first;
  for (uint32_t i = 1; i < n; ++i) {
    char* next = cell + p->block_size;
    SetLink(reinterpret_cast<Cell*>(cell), reinterpret_cast<Cell*>(next));
    reinterpret_cast<Cell*>(cell)->canary = FreeCanary(p, cell);
    cell = next;
  }
  SetLink(reinterpret_cast<Cell*>(cell), nullptr);
  reinterpret_cast<Cell*>(cell)->canary = FreeCanary(p, cell);
  p->free = reinterpret_cast<Cell*>(first);
  p->carved_cells.store(carved + n, std::memory_order_relaxed);
}

// Takes every page queued by other threads' frees and moves their cells to
// the local lists. Returns whether any cell came back.
bool DrainRemote(Heap* h) {
  Page* list = h->remote_pages.exchange(nullptr, std::memory_order_acquire);
  bool any = false;
  while (list != nullptr) {
    Page* p = list;
    list = p->remote_next;  // before the exchange: then p may be re-queued
    uintptr_t tf = p->thread_free.exchange(0, std::memory_order_acq_rel);
    Cell* first = reinterpret_cast<Cell*>(tf & ~uintptr_t{1});
    if (first == nullptr) continue;
    uint32_t n = 1;
    Cell* last = first;
    for (Cell* next; (next = NextFree(last)) != nullptr;) {
      last = next;
      ++n;
    }
    SetLink(last, p->local_free);
    p->local_free = first;
    p->used -= n;
    any = true;
    if (p->in_full) Unfull(h, p);
  }
  return any;
}

// The allocation slow path: the current page of class `c` is exhausted.
void* AllocateSlow(Heap* h, int c) {
  if ((++h->slow_calls & 63) == 0) MaybePurge(h, false);
  if (h->remote_pages.load(std::memory_order_relaxed) != nullptr) {
    DrainRemote(h);
  }
  for (int attempt = 0; attempt < 2; ++attempt) {
    while (!BinEmpty(h, c)) {
      Page* p = h->bins[c];
      if (p->free == nullptr && p->local_free != nullptr) {
        p->free = p->local_free;
        p->local_free = nullptr;
      }
      if (p->free == nullptr && CarvedCells(p) < p->capacity) Carve(p);
      if (p->free != nullptr) {
        Cell* cell = p->free;
        p->free = NextFree(cell);
        ++p->used;
        cell->canary = 0;
        return cell;
      }
      BinRemove(h, p);
      FullPush(h, p);
    }
    if (attempt == 0 && !DrainRemote(h)) break;
  }
  Page* p = NewPage(h, c);
  if (p == nullptr) return nullptr;
  BinPushFront(h, p);
  Carve(p);
  Cell* cell = p->free;
  p->free = NextFree(cell);
  ++p->used;
  cell->canary = 0;
  return cell;
}

void* Fail() {
  g_failed.fetch_add(1, std::memory_order_relaxed);
  errno = ENOMEM;
  return nullptr;
}

}  // namespace malloc_internal
}  // namespace tessera
