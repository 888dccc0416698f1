// Copyright 2026 The Tessera Authors.
//
// The Tessera malloc engine. Design and invariants: tessera_malloc.h. This
// file uses only libc: it runs before constructors, inside dlsym and in the
// child of a fork, so it must never need the C++ heap or static
// initialisers (every global here is constant-initialised).

#include "alloc/malloc/internal/engine.h"

#include <errno.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>

#include "alloc/malloc/internal/size_classes.h"

namespace tessera {
namespace malloc_internal {
namespace {

#define TM_LIKELY(x) __builtin_expect(!!(x), 1)
#define TM_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define TM_TLS __attribute__((tls_model("initial-exec")))
#define TM_NOINLINE __attribute__((noinline, cold))

// ---------------------------------------------------------------------------
// Core types (glossary).
//   Cell:    one block of a class, as it lies on a free list.
//   Page:    the cells of one class in 1-32 consecutive slots of a segment,
//            owned by one heap. Described by the `Page` of its first slot.
//   Segment: 4 MiB aligned to 4 MiB; its header (first 16 KiB) holds a Page
//            record per slot. Owned by one heap for its whole life.
//   Heap:    per-thread: a queue of pages per class, a full-page list, the
//            list of its pages that received frees from other threads.
// ---------------------------------------------------------------------------

struct Cell {
  Cell* next;
  // `FreeCanary(cell)` while the cell is free, 0 once handed out: a free
  // that finds the canary is a double free (a false alarm needs user data
  // equal to the cell's address xor a per-process secret).
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
// pointer check, the owner), the cross-thread and queue fields in the second.
struct alignas(64) Page {
  Cell* free;        // allocation pops here (owner only)
  Cell* local_free;  // the owner's frees (swapped into `free` when it empties)
  char* cells;       // first cell
  Heap* heap;        // owner
  uint64_t div_magic;  // ceil(2^41 / block_size): offset -> cell index
  uint32_t used;       // cells handed out and not back on free/local_free
  // Cells carved so far (cells [0, reserved)). Atomic (relaxed, plain
  // moves on x86) because other threads' frees read it to validate.
  std::atomic<uint32_t> reserved;
  uint32_t block_size;
  uint32_t capacity;   // cells the page can hold
  uint8_t kind;        // SlotKind
  uint8_t size_class;
  uint8_t slots;       // span length (lead slot)
  uint8_t lead_offset;  // tails: slots back to the lead
  uint8_t in_full;      // on the heap's full list, not its bin queue
  // An aligned block was carved out of some cell (read by remote frees).
  std::atomic<uint8_t> has_aligned;
  // Second line.
  // Frees by other threads, pushed with one CAS. Bit 0 set: the page is on
  // (or being pushed onto) its heap's `remote_pages` list; the thread that
  // sets it pushes the page, the owner clears it by taking the list.
  alignas(64) std::atomic<uintptr_t> thread_free;
  Page* next;  // bin queue or full list
  Page* prev;
  Page* remote_next;  // heap's remote_pages list
  uint64_t freed_at_ms;  // free slots: when they became free (purge)
};
static_assert(sizeof(Page) == 128, "two cache lines per page record");

inline uint32_t Reserved(const Page* p) {
  return p->reserved.load(std::memory_order_relaxed);
}
inline bool HasAligned(const Page* p) {
  return p->has_aligned.load(std::memory_order_relaxed) != 0;
}

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
  uint32_t pad;
  Page pages[kSlotsPerSegment];  // from offset 64
};
static_assert(sizeof(Segment) <= kSegmentHeaderBytes,
              "the segment header fits before slot 0's cells");

struct Heap {
  Page* bins[kNumClasses];  // head of each class's queue, or &g_empty_page
  // Counters: written by the owner with plain relaxed stores, read by Stats.
  std::atomic<uint64_t> allocations;
  std::atomic<uint64_t> deallocations;
  std::atomic<uint64_t> bytes_allocated;
  std::atomic<uint64_t> bytes_freed;
  std::atomic<uint64_t> reallocations;
  std::atomic<uint64_t> remote_frees;
  Page* full;  // pages with no free cell
  std::atomic<Page*> remote_pages;
  Segment* segments;
  uint64_t last_purge_ms;
  uint32_t slow_calls;
  bool owned;  // a live thread (or a collector) holds it
  uint32_t empty_segments;  // segments with no page, kept against thrash
  Heap* registry_next;
  Heap* abandoned_next;
};

// ---------------------------------------------------------------------------
// Globals: all constant-initialised.
// ---------------------------------------------------------------------------

Page g_empty_page{};  // free == nullptr: every bin starts here
pthread_mutex_t g_registry_lock = PTHREAD_MUTEX_INITIALIZER;  // heaps
pthread_mutex_t g_huge_lock = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t g_orphan_lock = PTHREAD_MUTEX_INITIALIZER;
std::atomic<int> g_init_state{0};  // 0 none, 1 running, 2 done
uintptr_t g_secret = 0x9e3779b97f4a7c15ull;
uintptr_t g_link_secret = 0x2545f4914f6cdd1dull;  // hardened free-list links
// One byte per 4 MiB chunk of the 47-bit user address space: 32 MiB of .bss,
// which the kernel maps as zero pages until a segment's byte is written.
// Static, so the free path reads it with no pointer load and no null test.
constexpr uintptr_t kMapChunks = uintptr_t{1} << (47 - kSegmentShift);
std::atomic<uint8_t> g_segment_map[kMapChunks];
pthread_key_t g_thread_key;
std::atomic<Heap*> g_registry{nullptr};
Heap* g_abandoned = nullptr;  // under g_registry_lock
std::atomic<uint64_t> g_abandoned_count{0};
std::atomic<uint64_t> g_heaps{0};
Heap* g_orphan_heap = nullptr;  // for threads past their exit (under lock)
char* g_heap_arena = nullptr;   // bump storage for heaps (under lock)
size_t g_heap_arena_left = 0;
std::atomic<uint64_t> g_segments{0};
std::atomic<uint64_t> g_failed{0};
std::atomic<uint64_t> g_orphan_frees{0};  // frees by threads with no heap
std::atomic<uint64_t> g_orphan_allocs{0};  // huge blocks for threads with no heap
std::atomic<uint64_t> g_orphan_bytes_allocated{0};
std::atomic<uint64_t> g_orphan_remote_frees{0};
std::atomic<uint64_t> g_orphan_bytes_freed{0};
std::atomic<uint64_t> g_purged_bytes{0};
std::atomic<uint64_t> g_peak{0};
std::atomic<uint32_t> g_purge_delay_ms{10};
std::atomic<ViolationHook> g_hook{nullptr};

TM_TLS thread_local Heap* tls_heap = nullptr;
TM_TLS thread_local bool tls_dead = false;  // past the key destructor

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
// store (plain moves on x86), not a locked read-modify-write.
inline void OwnerAdd(std::atomic<uint64_t>& counter, uint64_t delta) {
  counter.store(counter.load(std::memory_order_relaxed) + delta,
                std::memory_order_relaxed);
}

inline uintptr_t FreeCanary(const void* cell) {
  return reinterpret_cast<uintptr_t>(cell) ^ g_secret;
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

// The link after `cell` on a free list, checked in hardened builds: it must
// be null or lie in the cell's segment. A bad one is reported and the rest
// of the list dropped (its cells leak: CheckIntegrity reports them).
inline Cell* NextFree(const Cell* cell) {
  Cell* next = LinkOf(cell);
  if constexpr (kHardened) {
    if (TM_UNLIKELY(((reinterpret_cast<uintptr_t>(next) ^
                      reinterpret_cast<uintptr_t>(cell)) >> kSegmentShift) != 0 &&
                    next != nullptr)) {
      Report(Violation::kCorruptFreeList, cell,
             "the free cell's link was overwritten (a write after free or an "
             "overflow); its list is dropped");
      return nullptr;
    }
  }
  return next;
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

void OnThreadExit(void* heap);

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

inline void EnsureInit() {
  if (TM_UNLIKELY(g_init_state.load(std::memory_order_acquire) != 2)) {
    InitSlow();
  }
}

inline bool IsSegment(uintptr_t chunk_base) {
  const uintptr_t index = chunk_base >> kSegmentShift;
  return index < kMapChunks &&
         g_segment_map[index].load(std::memory_order_relaxed) != 0;
}

// ---------------------------------------------------------------------------
// Heaps.
// ---------------------------------------------------------------------------

void InitHeap(Heap* h) {
  for (int c = 0; c < kNumClasses; ++c) h->bins[c] = &g_empty_page;
  h->full = nullptr;
  h->remote_pages.store(nullptr, std::memory_order_relaxed);
  h->segments = nullptr;
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
  Heap* h = g_abandoned;
  if (h != nullptr) {
    g_abandoned = h->abandoned_next;
    h->abandoned_next = nullptr;
    h->owned = true;
    g_abandoned_count.fetch_sub(1, std::memory_order_relaxed);
  } else {
    h = NewHeapLocked();
  }
  pthread_mutex_unlock(&g_registry_lock);
  if (h == nullptr) return nullptr;
  tls_heap = h;
  // May allocate (keys beyond the first 32): tls_heap is already set.
  pthread_setspecific(g_thread_key, h);
  return h;
}

// ---------------------------------------------------------------------------
// Queues.
// ---------------------------------------------------------------------------

inline bool BinEmpty(const Heap* h, int c) { return h->bins[c] == &g_empty_page; }

void BinPushFront(Heap* h, Page* p) {
  const int c = p->size_class;
  p->prev = nullptr;
  p->next = BinEmpty(h, c) ? nullptr : h->bins[c];
  if (p->next != nullptr) p->next->prev = p;
  h->bins[c] = p;
  p->in_full = 0;
}

void BinPushBack(Heap* h, Page* p) {
  const int c = p->size_class;
  if (BinEmpty(h, c)) {
    BinPushFront(h, p);
    return;
  }
  Page* tail = h->bins[c];
  while (tail->next != nullptr) tail = tail->next;
  tail->next = p;
  p->prev = tail;
  p->next = nullptr;
  p->in_full = 0;
}

void BinRemove(Heap* h, Page* p) {
  const int c = p->size_class;
  if (p->prev != nullptr) p->prev->next = p->next;
  else h->bins[c] = p->next != nullptr ? p->next : &g_empty_page;
  if (p->next != nullptr) p->next->prev = p->prev;
  p->next = p->prev = nullptr;
}

void FullPush(Heap* h, Page* p) {
  p->prev = nullptr;
  p->next = h->full;
  if (h->full != nullptr) h->full->prev = p;
  h->full = p;
  p->in_full = 1;
}

void FullRemove(Heap* h, Page* p) {
  if (p->prev != nullptr) p->prev->next = p->next;
  else h->full = p->next;
  if (p->next != nullptr) p->next->prev = p->prev;
  p->next = p->prev = nullptr;
  p->in_full = 0;
}

// ---------------------------------------------------------------------------
// Segments and pages.
// ---------------------------------------------------------------------------

inline Segment* SegmentOf(const void* p) {
  return reinterpret_cast<Segment*>(reinterpret_cast<uintptr_t>(p) &
                                    ~(kSegmentSize - 1));
}

Segment* NewSegment(Heap* h) {
  Segment* s = static_cast<Segment*>(MapAligned(kSegmentSize, kSegmentSize));
  if (s == nullptr) return nullptr;
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
  s->dirty_mask = 0;  // fresh: nothing resident
  s->pages_in_use = 0;
  ++h->empty_segments;  // until its first page
  s->prev = nullptr;
  s->next = h->segments;
  if (h->segments != nullptr) h->segments->prev = s;
  h->segments = s;
  g_segment_map[reinterpret_cast<uintptr_t>(s) >> kSegmentShift].store(
      1, std::memory_order_release);
  g_segments.fetch_add(1, std::memory_order_relaxed);
  return s;
}

void ReleaseSegment(Heap* h, Segment* s) {
  if (s->prev != nullptr) s->prev->next = s->next;
  else h->segments = s->next;
  if (s->next != nullptr) s->next->prev = s->prev;
  g_segment_map[reinterpret_cast<uintptr_t>(s) >> kSegmentShift].store(
      0, std::memory_order_release);
  g_segments.fetch_sub(1, std::memory_order_relaxed);
  s->magic = 0;
  munmap(s, kSegmentSize);
}

// A run of `slots` free slots aligned to `slots` in `s`, or -1. Prefers
// resident (dirty) runs, which cost no page faults.
int FindRun(const Segment* s, int slots) {
  const uint64_t run = slots == 64 ? ~uint64_t{0} : (uint64_t{1} << slots) - 1;
  int fallback = -1;
  for (int i = 0; i < kSlotsPerSegment; i += slots) {
    if (((s->free_mask >> i) & run) != run) continue;
    if (((s->dirty_mask >> i) & run) != 0) return i;
    if (fallback < 0) fallback = i;
  }
  return fallback;
}

void RetireEmptyPages(Heap* h, bool keep_one);

// A run of free slots in the heap's segments, or nullptr.
Segment* FindRunInHeap(Heap* h, int slots, int* slot) {
  for (Segment* s = h->segments; s != nullptr; s = s->next) {
    *slot = FindRun(s, slots);
    if (*slot >= 0) return s;
  }
  return nullptr;
}

Page* NewPage(Heap* h, int c) {
  const int slots = SlotsPerPage(c);
  int slot = -1;
  Segment* s = FindRunInHeap(h, slots, &slot);
  if (s == nullptr) {
    // Empty pages wait in their queues (see FreeInSegment): give them back
    // before mapping a segment.
    RetireEmptyPages(h, true);
    s = FindRunInHeap(h, slots, &slot);
  }
  if (s == nullptr) {
    s = NewSegment(h);
    if (s == nullptr) return nullptr;
    slot = FindRun(s, slots);
  }
  const uint64_t run =
      ((slots == 64 ? ~uint64_t{0} : (uint64_t{1} << slots) - 1)) << slot;
  s->free_mask &= ~run;
  s->dirty_mask &= ~run;
  if (s->pages_in_use++ == 0) --h->empty_segments;
  Page* p = &s->pages[slot];
  for (int j = 1; j < slots; ++j) {
    s->pages[slot + j].kind = kSlotTail;
    s->pages[slot + j].lead_offset = static_cast<uint8_t>(j);
  }
  char* start = reinterpret_cast<char*>(s) + (size_t{1} << kSlotShift) * slot;
  char* cells = slot == 0 ? start + kSegmentHeaderBytes : start;
  const size_t bytes = static_cast<size_t>(slots) * kSlotSize -
                       static_cast<size_t>(cells - start);
  const size_t bs = ClassSize(c);
  p->free = nullptr;
  p->local_free = nullptr;
  p->thread_free.store(0, std::memory_order_relaxed);
  p->used = 0;
  p->reserved.store(0, std::memory_order_relaxed);
  p->capacity = static_cast<uint32_t>(bytes / bs);
  p->block_size = static_cast<uint32_t>(bs);
  p->div_magic = ((uint64_t{1} << 41) + bs - 1) / bs;
  p->kind = kSlotPage;
  p->size_class = static_cast<uint8_t>(c);
  p->slots = static_cast<uint8_t>(slots);
  p->lead_offset = 0;
  p->in_full = 0;
  p->has_aligned.store(0, std::memory_order_relaxed);
  p->cells = cells;
  p->next = p->prev = p->remote_next = nullptr;
  p->heap = h;
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
    q->freed_at_ms = now;
  }
  const uint64_t run =
      ((slots == 64 ? ~uint64_t{0} : (uint64_t{1} << slots) - 1)) << slot;
  s->free_mask |= run;
  s->dirty_mask |= run;
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

// Cells [reserved, reserved + n) onto the (empty) free list.
void Carve(Page* p) {
  const uint32_t reserved = Reserved(p);
  uint32_t n = CellsPerCarve(p->size_class);
  if (n > p->capacity - reserved) n = p->capacity - reserved;
  char* first = p->cells + static_cast<size_t>(reserved) * p->block_size;
  char* cell = first;
  for (uint32_t i = 1; i < n; ++i) {
    char* next = cell + p->block_size;
    SetLink(reinterpret_cast<Cell*>(cell), reinterpret_cast<Cell*>(next));
    cell = next;
  }
  SetLink(reinterpret_cast<Cell*>(cell), nullptr);
  p->free = reinterpret_cast<Cell*>(first);
  p->reserved.store(reserved + n, std::memory_order_relaxed);
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
    if (p->in_full) {
      FullRemove(h, p);
      BinPushBack(h, p);
    }
  }
  return any;
}

void MaybePurge(Heap* h, bool force);

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
      if (p->free == nullptr && Reserved(p) < p->capacity) Carve(p);
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

void* Fail() {
  g_failed.fetch_add(1, std::memory_order_relaxed);
  errno = ENOMEM;
  return nullptr;
}

// A cell of class `c` from heap `h` (owned by the caller).
template <Counting C>
TM_NOINLINE void* AllocateFromHeapSlow(Heap* h, int c) {
  Cell* cell = static_cast<Cell*>(AllocateSlow(h, c));
  if (cell == nullptr) return Fail();
  if constexpr (C == Counting::kExact) CountAllocation(h, ClassSize(c));
  return cell;
}

template <Counting C>
inline void* AllocateFromHeap(Heap* h, int c) {
  Page* p = h->bins[c];
  Cell* cell = p->free;
  if (TM_UNLIKELY(cell == nullptr)) return AllocateFromHeapSlow<C>(h, c);
  p->free = NextFree(cell);
  ++p->used;
  cell->canary = 0;
  if constexpr (C == Counting::kExact) CountAllocation(h, p->block_size);
  return cell;
}

template <Counting C>
void* AllocateClassOrphan(int c) {
  pthread_mutex_lock(&g_orphan_lock);
  if (g_orphan_heap == nullptr) {
    pthread_mutex_lock(&g_registry_lock);
    g_orphan_heap = NewHeapLocked();
    pthread_mutex_unlock(&g_registry_lock);
  }
  void* p = g_orphan_heap != nullptr ? AllocateFromHeap<C>(g_orphan_heap, c)
                                     : Fail();
  pthread_mutex_unlock(&g_orphan_lock);
  return p;
}

template <Counting C>
TM_NOINLINE void* AllocateClassSlow(int c) {
  Heap* h = tls_heap;
  if (h == nullptr) {
    h = AcquireHeap();
    if (h == nullptr) return AllocateClassOrphan<C>(c);
  }
  return AllocateFromHeap<C>(h, c);
}

// The fast path is a leaf: a TLS load, two dependent loads, three stores;
// everything else (no heap yet, page exhausted) is out of line, so nothing
// here needs a callee-saved register.
template <Counting C>
inline void* AllocateClass(int c) {
  Heap* h = tls_heap;
  if (TM_LIKELY(h != nullptr)) {
    Page* p = h->bins[c];
    Cell* cell = p->free;
    if (TM_UNLIKELY(cell == nullptr)) {
      // The owner's frees, back without the slow path: a page's cells
      // circulate through `local_free` in batches of one carve (4 cells of
      // 1 KiB), and a round trip took the slow path every 4th call.
      cell = p->local_free;
      if (cell == nullptr) return AllocateClassSlow<C>(c);
      p->local_free = nullptr;
    }
    p->free = NextFree(cell);
    ++p->used;
    cell->canary = 0;
    if constexpr (C == Counting::kExact) CountAllocation(h, p->block_size);
    return cell;
  }
  return AllocateClassSlow<C>(c);
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

HugeEntry* g_huge_table = nullptr;  // under g_huge_lock
size_t g_huge_capacity = 0;         // power of two
size_t g_huge_count = 0;
size_t g_huge_used_slots = 0;       // count + tombstones
uint64_t g_huge_mapped = 0;
HugeCacheEntry g_huge_cache[kHugeCacheEntries];
int g_huge_cache_count = 0;
uint64_t g_huge_cache_bytes = 0;

inline size_t HugeHash(uintptr_t p) {
  return static_cast<size_t>((p >> 12) * 0x9e3779b97f4a7c15ull);
}

bool HugeTableGrowLocked() {
  const size_t capacity = g_huge_capacity == 0 ? 1024 : g_huge_capacity * 2;
  HugeEntry* table =
      static_cast<HugeEntry*>(MapPages(capacity * sizeof(HugeEntry)));
  if (table == nullptr) return false;
  for (size_t i = 0; i < g_huge_capacity; ++i) {
    const HugeEntry& e = g_huge_table[i];
    if (e.ptr <= 1) continue;
    size_t j = HugeHash(e.ptr) & (capacity - 1);
    while (table[j].ptr != 0) j = (j + 1) & (capacity - 1);
    table[j] = e;
  }
  if (g_huge_table != nullptr) {
    munmap(g_huge_table, g_huge_capacity * sizeof(HugeEntry));
  }
  g_huge_table = table;
  g_huge_capacity = capacity;
  g_huge_used_slots = g_huge_count;
  return true;
}

HugeEntry* HugeFindLocked(uintptr_t p) {
  if (g_huge_capacity == 0) return nullptr;
  size_t j = HugeHash(p) & (g_huge_capacity - 1);
  while (g_huge_table[j].ptr != 0) {
    if (g_huge_table[j].ptr == p) return &g_huge_table[j];
    j = (j + 1) & (g_huge_capacity - 1);
  }
  return nullptr;
}

bool HugeInsertLocked(uintptr_t p, char* base, size_t map_bytes) {
  if ((g_huge_used_slots + 1) * 4 > g_huge_capacity * 3 &&
      !HugeTableGrowLocked()) {
    return false;
  }
  size_t j = HugeHash(p) & (g_huge_capacity - 1);
  while (g_huge_table[j].ptr > 1) j = (j + 1) & (g_huge_capacity - 1);
  if (g_huge_table[j].ptr == 0) ++g_huge_used_slots;
  g_huge_table[j] = HugeEntry{p, base, map_bytes};
  ++g_huge_count;
  g_huge_mapped += map_bytes;
  return true;
}

void HugeEraseLocked(HugeEntry* e) {
  g_huge_mapped -= e->map_bytes;
  e->ptr = 1;  // tombstone
  --g_huge_count;
}

// Unmaps or purges cached mappings that stayed free past the delay.
void HugeCacheAgeLocked(uint64_t now, bool force) {
  const uint32_t delay = g_purge_delay_ms.load(std::memory_order_relaxed);
  for (int i = 0; i < g_huge_cache_count;) {
    HugeCacheEntry& e = g_huge_cache[i];
    const uint64_t age = now - e.freed_at_ms;
    if (force || age >= 100 * static_cast<uint64_t>(delay) + 1000) {
      munmap(e.base, e.map_bytes);
      g_huge_cache_bytes -= e.map_bytes;
      e = g_huge_cache[--g_huge_cache_count];
      continue;
    }
    if (!e.purged && age >= delay) {
      Purge(e.base, e.map_bytes);
      e.purged = true;
    }
    ++i;
  }
}

inline size_t PageRound(size_t n) { return (n + 4095) & ~size_t{4095}; }

void* AllocateHuge(size_t bytes, size_t alignment, bool zeroed) {
  EnsureInit();
  if (bytes > (size_t{1} << 46)) return Fail();
  const size_t slack = alignment > 4096 ? alignment : 0;
  const size_t need = PageRound(bytes) + slack;
  char* base = nullptr;
  size_t map_bytes = 0;
  bool dirty = false;
  pthread_mutex_lock(&g_huge_lock);
  // Best fit among cached mappings no more than 25% larger.
  int best = -1;
  for (int i = 0; i < g_huge_cache_count; ++i) {
    const size_t m = g_huge_cache[i].map_bytes;
    if (m >= need && m - need <= need / 4 &&
        (best < 0 || m < g_huge_cache[best].map_bytes)) {
      best = i;
    }
  }
  if (best >= 0) {
    base = g_huge_cache[best].base;
    map_bytes = g_huge_cache[best].map_bytes;
    dirty = !g_huge_cache[best].purged;
    g_huge_cache_bytes -= map_bytes;
    g_huge_cache[best] = g_huge_cache[--g_huge_cache_count];
  }
  pthread_mutex_unlock(&g_huge_lock);
  if (base == nullptr) {
    map_bytes = need;
    base = static_cast<char*>(MapPages(map_bytes));
    if (base == nullptr) return Fail();
    // Transparent huge pages pay for blocks of several of them.
    if (map_bytes >= (size_t{4} << 20)) madvise(base, map_bytes, MADV_HUGEPAGE);
  }
  uintptr_t user = reinterpret_cast<uintptr_t>(base);
  if (alignment > 4096) user = (user + alignment - 1) & ~(alignment - 1);
  if (zeroed && dirty) {
    memset(reinterpret_cast<void*>(user), 0, bytes);
  }
  pthread_mutex_lock(&g_huge_lock);
  const bool ok = HugeInsertLocked(user, base, map_bytes);
  pthread_mutex_unlock(&g_huge_lock);
  if (!ok) {
    munmap(base, map_bytes);
    return Fail();
  }
  const size_t usable = map_bytes - (user - reinterpret_cast<uintptr_t>(base));
  Heap* h = tls_heap != nullptr ? tls_heap : AcquireHeap();
  if (h != nullptr) {
    CountAllocation(h, usable);
  } else {
    g_orphan_allocs.fetch_add(1, std::memory_order_relaxed);
    g_orphan_bytes_allocated.fetch_add(usable, std::memory_order_relaxed);
  }
  return reinterpret_cast<void*>(user);
}

// Frees a huge block (true), or returns false if `ptr` is not one.
bool FreeHuge(void* ptr) {
  if (g_init_state.load(std::memory_order_acquire) != 2) return false;
  const uintptr_t p = reinterpret_cast<uintptr_t>(ptr);
  pthread_mutex_lock(&g_huge_lock);
  HugeEntry* e = HugeFindLocked(p);
  if (e == nullptr) {
    pthread_mutex_unlock(&g_huge_lock);
    return false;
  }
  char* base = e->base;
  const size_t map_bytes = e->map_bytes;
  const size_t usable = map_bytes - (p - reinterpret_cast<uintptr_t>(base));
  HugeEraseLocked(e);
  const uint64_t now = NowMs();
  bool cached = false;
  if (map_bytes <= kHugeCacheMaxBlock) {
    HugeCacheAgeLocked(now, false);
    if (g_huge_cache_count == kHugeCacheEntries ||
        g_huge_cache_bytes + map_bytes > kHugeCacheMaxBytes) {
      // Evict the oldest.
      int oldest = -1;
      for (int i = 0; i < g_huge_cache_count; ++i) {
        if (oldest < 0 ||
            g_huge_cache[i].freed_at_ms < g_huge_cache[oldest].freed_at_ms) {
          oldest = i;
        }
      }
      while (oldest >= 0 && (g_huge_cache_count == kHugeCacheEntries ||
                             g_huge_cache_bytes + map_bytes > kHugeCacheMaxBytes)) {
        munmap(g_huge_cache[oldest].base, g_huge_cache[oldest].map_bytes);
        g_huge_cache_bytes -= g_huge_cache[oldest].map_bytes;
        g_huge_cache[oldest] = g_huge_cache[--g_huge_cache_count];
        oldest = g_huge_cache_count > 0 ? 0 : -1;
      }
    }
    if (g_huge_cache_count < kHugeCacheEntries &&
        g_huge_cache_bytes + map_bytes <= kHugeCacheMaxBytes) {
      g_huge_cache[g_huge_cache_count++] =
          HugeCacheEntry{base, map_bytes, now, false};
      g_huge_cache_bytes += map_bytes;
      cached = true;
    }
  }
  pthread_mutex_unlock(&g_huge_lock);
  if (!cached) munmap(base, map_bytes);
  CountFree(tls_heap, usable);
  return true;
}

// Usable bytes of a huge block, or 0 if `ptr` is not one.
size_t HugeUsable(const void* ptr) {
  if (g_init_state.load(std::memory_order_acquire) != 2) return 0;
  const uintptr_t p = reinterpret_cast<uintptr_t>(ptr);
  pthread_mutex_lock(&g_huge_lock);
  HugeEntry* e = HugeFindLocked(p);
  const size_t usable =
      e == nullptr ? 0
                   : e->map_bytes - (p - reinterpret_cast<uintptr_t>(e->base));
  pthread_mutex_unlock(&g_huge_lock);
  return usable;
}

// ---------------------------------------------------------------------------
// Purging: free slots and cached huge mappings that stayed free past the
// delay go back to the OS (MADV_DONTNEED); a heap does this on its slow
// paths, at most every delay/2, and collects one abandoned heap each time.
// ---------------------------------------------------------------------------

void PurgeSegments(Heap* h, uint64_t now, bool force) {
  const uint32_t delay = g_purge_delay_ms.load(std::memory_order_relaxed);
  for (Segment* s = h->segments; s != nullptr; s = s->next) {
    uint64_t dirty = s->dirty_mask;
    while (dirty != 0) {
      const int i = __builtin_ctzll(dirty);
      int j = i;
      while (j < kSlotsPerSegment && ((dirty >> j) & 1) &&
             (force || now - s->pages[j].freed_at_ms >= delay)) {
        ++j;
      }
      if (j > i) {
        char* start = reinterpret_cast<char*>(s) + (size_t{1} << kSlotShift) * i;
        char* end = reinterpret_cast<char*>(s) + (size_t{1} << kSlotShift) * j;
        if (i == 0) start += kSegmentHeaderBytes;
        Purge(start, static_cast<size_t>(end - start));
        const uint64_t run = (j - i == 64 ? ~uint64_t{0}
                                          : ((uint64_t{1} << (j - i)) - 1))
                             << i;
        s->dirty_mask &= ~run;
        dirty &= ~run;
      } else {
        dirty &= ~(uint64_t{1} << i);
      }
    }
  }
}

void SamplePeak();

// Retires every empty page of `h` (keep_one: but the first of each class).
void RetireEmptyPages(Heap* h, bool keep_one) {
  for (int c = 0; c < kNumClasses; ++c) {
    Page* p = BinEmpty(h, c) ? nullptr : h->bins[c];
    bool first = true;
    while (p != nullptr) {
      Page* next = p->next;
      if (p->used == 0 && !(keep_one && first)) RetirePage(h, p);
      first = false;
      p = next;
    }
  }
}

void CollectHeap(Heap* h, bool force) {
  DrainRemote(h);
  RetireEmptyPages(h, !force);
  PurgeSegments(h, NowMs(), force);
  if (force) ReleaseEmptySegments(h, false);
}

void CollectOneAbandoned(bool force) {
  if (g_abandoned_count.load(std::memory_order_relaxed) == 0) return;
  if (pthread_mutex_trylock(&g_registry_lock) != 0) return;
  Heap* h = g_abandoned;
  if (h != nullptr) {
    g_abandoned = h->abandoned_next;
    h->owned = true;
  }
  pthread_mutex_unlock(&g_registry_lock);
  if (h == nullptr) return;
  CollectHeap(h, true);
  (void)force;
  pthread_mutex_lock(&g_registry_lock);
  h->owned = false;
  h->abandoned_next = g_abandoned;
  g_abandoned = h;
  pthread_mutex_unlock(&g_registry_lock);
}

void MaybePurge(Heap* h, bool force) {
  const uint64_t now = NowMs();
  const uint32_t delay = g_purge_delay_ms.load(std::memory_order_relaxed);
  if (!force && now - h->last_purge_ms < delay / 2 + 1) return;
  h->last_purge_ms = now;
  SamplePeak();
  DrainRemote(h);
  RetireEmptyPages(h, true);
  // An empty segment already purged (free past the delay) goes back whole.
  if (h->empty_segments != 0) ReleaseEmptySegments(h, true);
  PurgeSegments(h, now, force);
  pthread_mutex_lock(&g_huge_lock);
  HugeCacheAgeLocked(now, force);
  pthread_mutex_unlock(&g_huge_lock);
  CollectOneAbandoned(force);
}

void OnThreadExit(void* heap) {
  Heap* h = static_cast<Heap*>(heap);
  if (h == nullptr) return;
  CollectHeap(h, false);
  tls_heap = nullptr;
  tls_dead = true;  // later calls on this thread use the orphan heap
  pthread_mutex_lock(&g_registry_lock);
  h->owned = false;
  h->abandoned_next = g_abandoned;
  g_abandoned = h;
  g_abandoned_count.fetch_add(1, std::memory_order_relaxed);
  pthread_mutex_unlock(&g_registry_lock);
}

// ---------------------------------------------------------------------------
// Free.
// ---------------------------------------------------------------------------

// The lead page of the block at `a` in segment `s`, or nullptr (free slot).
inline Page* PageAt(Segment* s, uintptr_t a) {
  Page* p = &s->pages[(a - reinterpret_cast<uintptr_t>(s)) >> kSlotShift];
  if (p->kind == kSlotTail) p -= p->lead_offset;
  return p->kind == kSlotPage ? p : nullptr;
}

// The cell of page `p` that `a` frees, or nullptr after reporting why not.
inline Cell* CellToFree(Page* p, uintptr_t a, bool report) {
  const uintptr_t cells = reinterpret_cast<uintptr_t>(p->cells);
  if (TM_UNLIKELY(a < cells)) {
    if (report) Report(Violation::kForeignPointer, reinterpret_cast<void*>(a),
                       "points into a segment header");
    return nullptr;
  }
  const uint64_t offset = a - cells;
  const uint64_t index = (offset * p->div_magic) >> 41;
  const uintptr_t start = cells + index * p->block_size;
  if (TM_UNLIKELY(index >= Reserved(p))) {
    if (report) Report(Violation::kForeignPointer, reinterpret_cast<void*>(a),
                       "points past the cells handed out by its page");
    return nullptr;
  }
  if (TM_UNLIKELY(start != a) && !HasAligned(p)) {
    if (report) Report(Violation::kInteriorPointer, reinterpret_cast<void*>(a),
                       "points inside a block, not at its start");
    return nullptr;
  }
  return reinterpret_cast<Cell*>(start);
}

TM_NOINLINE void RemoteFree(Page* p, Cell* cell) {
  Heap* owner = p->heap;
  uintptr_t old = p->thread_free.load(std::memory_order_relaxed);
  uintptr_t desired;
  do {
    SetLink(cell, reinterpret_cast<Cell*>(old & ~uintptr_t{1}));
    desired = reinterpret_cast<uintptr_t>(cell) | 1;
  } while (!p->thread_free.compare_exchange_weak(
      old, desired, std::memory_order_acq_rel, std::memory_order_relaxed));
  if ((old & 1) == 0) {
    Page* head = owner->remote_pages.load(std::memory_order_relaxed);
    do {
      p->remote_next = head;
    } while (!owner->remote_pages.compare_exchange_weak(
        head, p, std::memory_order_release, std::memory_order_relaxed));
  }
  Heap* me = tls_heap;
  if (me != nullptr) {
    OwnerAdd(me->remote_frees, 1);
  } else {
    g_orphan_remote_frees.fetch_add(1, std::memory_order_relaxed);
  }
}

TM_NOINLINE void FreeNotInSegment(void* ptr) {
  if (FreeHuge(ptr)) return;
  Report(Violation::kForeignPointer, ptr,
         "was not allocated by tessera_malloc (or was already freed)");
}

// After a local free into a full page: back into its class's queue.
TM_NOINLINE void LocalFreeRare(Heap* h, Page* p) {
  FullRemove(h, p);
  BinPushBack(h, p);
}

// `expected_bytes`: the size a sized free names (SIZE_MAX: unknown).
template <Counting C>
inline void FreeInSegment(Segment* s, void* ptr, size_t expected_bytes) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(ptr);
  Page* p = PageAt(s, a);
  if (TM_UNLIKELY(p == nullptr)) {
    Report(Violation::kDoubleFree, ptr,
           "points into memory tessera_malloc holds free (freed twice, or "
           "never allocated)");
    return;
  }
  Cell* cell = CellToFree(p, a, true);
  if (TM_UNLIKELY(cell == nullptr)) return;
  if (TM_UNLIKELY(cell->canary == FreeCanary(cell))) {
    Report(Violation::kDoubleFree, ptr, "block is already free");
    return;
  }
  if (TM_UNLIKELY(expected_bytes != SIZE_MAX &&
                  expected_bytes > reinterpret_cast<uintptr_t>(cell) +
                                       p->block_size - a)) {
    Report(Violation::kSizeMismatch, ptr,
           "freed with a size larger than the block it was allocated as");
    return;
  }
  cell->canary = FreeCanary(cell);
  Heap* h = tls_heap;
  if constexpr (C == Counting::kExact) CountFree(h, p->block_size);
  if (TM_LIKELY(p->heap == h)) {
    SetLink(cell, p->local_free);
    p->local_free = cell;
    --p->used;
    // A page that empties stays in its queue until MaybePurge, Collect or a
    // NewPage that finds no room retires it: retiring at once made W1 (batches
    // freed whole) unmap and re-carve its pages every batch.
    if (TM_UNLIKELY(p->in_full)) return LocalFreeRare(h, p);
    return;
  }
  return RemoteFree(p, cell);
}

size_t ClassOfAligned(size_t bytes, size_t alignment, bool* natural) {
  // A class whose cells are all aligned: size a multiple of the alignment
  // (cells start at a 16 KiB boundary at least).
  *natural = false;
  if (alignment <= kSegmentHeaderBytes) {
    for (int c = ClassOf(bytes < alignment ? alignment : bytes);
         c < kNumClasses; ++c) {
      if (ClassSize(c) % alignment == 0) {
        if (ClassSize(c) <= 2 * (bytes > alignment ? bytes : alignment)) {
          *natural = true;
          return static_cast<size_t>(c);
        }
        break;
      }
    }
  }
  return 0;
}

void SamplePeak() {
  uint64_t allocated = 0, freed = 0;
  for (Heap* h = g_registry.load(std::memory_order_acquire); h != nullptr;
       h = h->registry_next) {
    allocated += h->bytes_allocated.load(std::memory_order_relaxed);
    freed += h->bytes_freed.load(std::memory_order_relaxed);
  }
  freed += g_orphan_bytes_freed.load(std::memory_order_relaxed);
  allocated += g_orphan_bytes_allocated.load(std::memory_order_relaxed);
  const uint64_t in_use = allocated - freed;
  uint64_t peak = g_peak.load(std::memory_order_relaxed);
  while (in_use > peak && in_use < (uint64_t{1} << 62) &&
         !g_peak.compare_exchange_weak(peak, in_use, std::memory_order_relaxed)) {
  }
}

}  // namespace

// ===========================================================================
// Entry points.
// ===========================================================================

ViolationHook SetViolationHook(ViolationHook hook) {
  return g_hook.exchange(hook, std::memory_order_acq_rel);
}

template <Counting C>
void* Allocate(size_t bytes) {
  if (TM_LIKELY(bytes <= kMaxSmallSize)) {
    return AllocateClass<C>(SmallClassOf(bytes));
  }
  if (TM_LIKELY(bytes <= kMaxClassSize)) return AllocateClass<C>(ClassOf(bytes));
  return AllocateHuge(bytes, 16, false);
}

template <Counting C>
void* AllocateAligned(size_t bytes, size_t alignment) {
  if (alignment <= 16) return Allocate<C>(bytes);
  if (bytes <= kMaxClassSize) {
    bool natural;
    const size_t c = ClassOfAligned(bytes, alignment, &natural);
    if (natural) return AllocateClass<C>(static_cast<int>(c));
    if (bytes + alignment - 16 <= kMaxClassSize) {
      char* cell = static_cast<char*>(
          AllocateClass<C>(ClassOf(bytes + alignment - 16)));
      if (cell == nullptr) return nullptr;
      Segment* s = SegmentOf(cell);
      PageAt(s, reinterpret_cast<uintptr_t>(cell))
          ->has_aligned.store(1, std::memory_order_relaxed);
      const uintptr_t aligned =
          (reinterpret_cast<uintptr_t>(cell) + alignment - 1) & ~(alignment - 1);
      return reinterpret_cast<void*>(aligned);
    }
  }
  return AllocateHuge(bytes, alignment, false);
}

template <Counting C>
void* AllocateZeroed(size_t bytes) {
  if (bytes > kMaxClassSize) return AllocateHuge(bytes, 16, true);
  void* p = Allocate<C>(bytes);
  if (p != nullptr) memset(p, 0, bytes);
  return p;
}

template <Counting C>
void Free(void* ptr) {
  if (ptr == nullptr) return;
  Segment* s = SegmentOf(ptr);
  if (TM_LIKELY(IsSegment(reinterpret_cast<uintptr_t>(s)))) {
    FreeInSegment<C>(s, ptr, SIZE_MAX);
    return;
  }
  FreeNotInSegment(ptr);
}

template <Counting C>
void FreeSized(void* ptr, size_t bytes, size_t alignment) {
  if (ptr == nullptr) return;
  Segment* s = SegmentOf(ptr);
  if (TM_LIKELY(IsSegment(reinterpret_cast<uintptr_t>(s)))) {
    FreeInSegment<C>(s, ptr, bytes);
    return;
  }
  const size_t usable = HugeUsable(ptr);
  if (usable != 0 && bytes > usable) {
    Report(Violation::kSizeMismatch, ptr,
           "freed with a size larger than the huge block");
    return;
  }
  FreeNotInSegment(ptr);
}

size_t UsableSize(const void* ptr) {
  if (ptr == nullptr) return 0;
  Segment* s = SegmentOf(ptr);
  const uintptr_t a = reinterpret_cast<uintptr_t>(ptr);
  if (IsSegment(reinterpret_cast<uintptr_t>(s))) {
    Page* p = PageAt(s, a);
    if (p == nullptr) {
      Report(Violation::kDoubleFree, ptr, "points into free memory");
      return 0;
    }
    Cell* cell = CellToFree(p, a, true);
    if (cell == nullptr) return 0;
    return reinterpret_cast<uintptr_t>(cell) + p->block_size - a;
  }
  const size_t usable = HugeUsable(ptr);
  if (usable == 0) {
    Report(Violation::kForeignPointer, ptr,
           "was not allocated by tessera_malloc");
  }
  return usable;
}

bool Owns(const void* ptr) {
  if (ptr == nullptr) return false;
  Segment* s = SegmentOf(ptr);
  const uintptr_t a = reinterpret_cast<uintptr_t>(ptr);
  if (IsSegment(reinterpret_cast<uintptr_t>(s))) {
    Page* p = PageAt(s, a);
    if (p == nullptr) return false;
    Cell* cell = CellToFree(p, a, false);
    if (cell == nullptr) return false;
    if (reinterpret_cast<uintptr_t>(cell) != a && !HasAligned(p)) return false;
    return cell->canary != FreeCanary(cell);
  }
  return HugeUsable(ptr) != 0;
}

bool FreesInteriorPointers(const void* ptr) {
  Segment* s = SegmentOf(ptr);
  if (!IsSegment(reinterpret_cast<uintptr_t>(s))) return false;
  Page* p = PageAt(s, reinterpret_cast<uintptr_t>(ptr));
  return p != nullptr && HasAligned(p);
}

template <Counting C>
void* Reallocate(void* ptr, size_t bytes) {
  if (ptr == nullptr) return Allocate<C>(bytes);
  Segment* s = SegmentOf(ptr);
  const uintptr_t a = reinterpret_cast<uintptr_t>(ptr);
  size_t usable;
  if (IsSegment(reinterpret_cast<uintptr_t>(s))) {
    usable = UsableSize(ptr);
    if (usable == 0) return nullptr;  // reported
    // Stay in place while the block fits and wastes at most half.
    if (bytes <= usable && (bytes >= usable / 2 || usable <= 16)) {
      Heap* h = tls_heap;
      if (C == Counting::kExact && h != nullptr) {
        OwnerAdd(h->reallocations, 1);
      }
      return ptr;
    }
  } else {
    pthread_mutex_lock(&g_huge_lock);
    HugeEntry* e = g_init_state.load() == 2 ? HugeFindLocked(a) : nullptr;
    if (e == nullptr) {
      pthread_mutex_unlock(&g_huge_lock);
      Report(Violation::kForeignPointer, ptr,
             "was not allocated by tessera_malloc");
      return nullptr;
    }
    usable = e->map_bytes - (a - reinterpret_cast<uintptr_t>(e->base));
    if (bytes <= usable && bytes >= usable / 2) {
      pthread_mutex_unlock(&g_huge_lock);
      Heap* h = tls_heap;
      if (h != nullptr) {
        OwnerAdd(h->reallocations, 1);
      }
      return ptr;
    }
    if (bytes > kMaxClassSize && reinterpret_cast<char*>(a) == e->base &&
        bytes <= (size_t{1} << 46)) {
      // Grow or shrink the mapping itself: the kernel moves page tables, not
      // bytes.
      const size_t new_map = PageRound(bytes);
      void* moved = mremap(e->base, e->map_bytes, new_map, MREMAP_MAYMOVE);
      if (moved != MAP_FAILED) {
        const size_t old_map = e->map_bytes;
        HugeEraseLocked(e);
        HugeInsertLocked(reinterpret_cast<uintptr_t>(moved),
                         static_cast<char*>(moved), new_map);
        pthread_mutex_unlock(&g_huge_lock);
        Heap* h = tls_heap;
        if (h != nullptr) {
          OwnerAdd(h->bytes_allocated, new_map);
          OwnerAdd(h->bytes_freed, old_map);
          OwnerAdd(h->reallocations, 1);
        }
        return moved;
      }
    }
    pthread_mutex_unlock(&g_huge_lock);
  }
  void* fresh = Allocate<C>(bytes);
  if (fresh == nullptr) return nullptr;
  memcpy(fresh, ptr, bytes < usable ? bytes : usable);
  Free<C>(ptr);
  Heap* h = tls_heap;
  // Uncounted, Allocate and Free counted only huge blocks, as a pair that
  // stays consistent; nothing to take back.
  if (C == Counting::kExact && h != nullptr) {
    // A moving reallocation is one reallocation, not an allocation and a
    // free (AllocatorStats): take back what Allocate and Free counted.
    OwnerAdd(h->reallocations, 1);
    OwnerAdd(h->allocations, uint64_t(0) - 1);
    OwnerAdd(h->deallocations, uint64_t(0) - 1);
  }
  return fresh;
}

#define TESSERA_MALLOC_INSTANTIATE_ENTRY_POINTS_(C)             \
  template void* Allocate<C>(size_t);                           \
  template void* AllocateAligned<C>(size_t, size_t);            \
  template void* AllocateZeroed<C>(size_t);                     \
  template void Free<C>(void*);                                 \
  template void FreeSized<C>(void*, size_t, size_t);            \
  template void* Reallocate<C>(void*, size_t);
TESSERA_MALLOC_INSTANTIATE_ENTRY_POINTS_(Counting::kExact)
TESSERA_MALLOC_INSTANTIATE_ENTRY_POINTS_(Counting::kNone)
#undef TESSERA_MALLOC_INSTANTIATE_ENTRY_POINTS_

void NoteFailure() { g_failed.fetch_add(1, std::memory_order_relaxed); }

EngineStats Stats() {
  EngineStats st;
  uint64_t allocated = 0, freed = 0;
  for (Heap* h = g_registry.load(std::memory_order_acquire); h != nullptr;
       h = h->registry_next) {
    st.allocations += h->allocations.load(std::memory_order_relaxed);
    st.deallocations += h->deallocations.load(std::memory_order_relaxed);
    st.reallocations += h->reallocations.load(std::memory_order_relaxed);
    st.remote_frees += h->remote_frees.load(std::memory_order_relaxed);
    allocated += h->bytes_allocated.load(std::memory_order_relaxed);
    freed += h->bytes_freed.load(std::memory_order_relaxed);
  }
  st.deallocations += g_orphan_frees.load(std::memory_order_relaxed);
  st.allocations += g_orphan_allocs.load(std::memory_order_relaxed);
  st.remote_frees += g_orphan_remote_frees.load(std::memory_order_relaxed);
  freed += g_orphan_bytes_freed.load(std::memory_order_relaxed);
  allocated += g_orphan_bytes_allocated.load(std::memory_order_relaxed);
  st.bytes_in_use = allocated - freed;
  SamplePeak();
  st.peak_bytes_in_use = g_peak.load(std::memory_order_relaxed);
  if (st.peak_bytes_in_use < st.bytes_in_use) st.peak_bytes_in_use = st.bytes_in_use;
  st.failed_requests = g_failed.load(std::memory_order_relaxed);
  st.segments = g_segments.load(std::memory_order_relaxed);
  st.heaps = g_heaps.load(std::memory_order_relaxed);
  st.abandoned_heaps = g_abandoned_count.load(std::memory_order_relaxed);
  st.purged_bytes = g_purged_bytes.load(std::memory_order_relaxed);
  if (g_init_state.load(std::memory_order_acquire) == 2) {
    pthread_mutex_lock(&g_huge_lock);
    st.huge_blocks = g_huge_count;
    st.huge_bytes = g_huge_mapped;
    st.huge_cached_bytes = g_huge_cache_bytes;
    pthread_mutex_unlock(&g_huge_lock);
  }
  return st;
}

// ---------------------------------------------------------------------------
// Integrity (invariants numbered as in tessera_malloc.h).
// ---------------------------------------------------------------------------

namespace {

#define TM_FAIL(n, msg)                       \
  do {                                        \
    *invariant = (n);                         \
    return "invariant " #n ": " msg;          \
  } while (0)

// Walks one list of page `p`; counts its cells into *count and marks them in
// `seen` (one bit per cell index). Returns an error or nullptr.
const char* WalkList(const Page* p, const Cell* cell, bool check_canary,
                     uint64_t* seen, uint32_t* count, int* invariant) {
  const uintptr_t cells = reinterpret_cast<uintptr_t>(p->cells);
  while (cell != nullptr) {
    const uintptr_t a = reinterpret_cast<uintptr_t>(cell);
    if (a < cells) TM_FAIL(4, "a free cell lies before its page's cells");
    const uint64_t index = ((a - cells) * p->div_magic) >> 41;
    if (index >= Reserved(p) || cells + index * p->block_size != a) {
      TM_FAIL(4, "a free list holds a pointer that is not a carved cell");
    }
    if (seen[index >> 6] & (uint64_t{1} << (index & 63))) {
      TM_FAIL(4, "a cell is twice on the free lists (cycle or double free)");
    }
    seen[index >> 6] |= uint64_t{1} << (index & 63);
    if (check_canary && cell->canary != FreeCanary(cell)) {
      TM_FAIL(4, "a free cell lost its free canary (written after free)");
    }
    ++*count;
    cell = LinkOf(cell);
  }
  return nullptr;
}

const char* CheckPage(const Page* p, int* invariant) {
  if (p->size_class >= kNumClasses ||
      p->block_size != ClassSize(p->size_class) ||
      p->slots != SlotsPerPage(p->size_class)) {
    TM_FAIL(3, "a page's block size, class and span disagree");
  }
  const Segment* s = SegmentOf(p);
  const char* start = reinterpret_cast<const char*>(s) +
                      (size_t{1} << kSlotShift) * (p - s->pages);
  const char* end = start + static_cast<size_t>(p->slots) * kSlotSize;
  if (p->cells < start || Reserved(p) > p->capacity ||
      p->cells + static_cast<size_t>(p->capacity) * p->block_size > end) {
    TM_FAIL(3, "a page's cells do not fit its span");
  }
  // One bit per cell: the densest page is one slot of 16-byte cells, and a
  // class above 8 KiB spans just enough slots for 8-15 cells.
  uint64_t seen[kSlotSize / kMinCellSize / 64] = {};
  if (p->capacity > kSlotSize / kMinCellSize) {
    TM_FAIL(3, "a page claims more cells than its densest class holds");
  }
  uint32_t local = 0, remote = 0;
  const char* err = WalkList(p, p->free, false, seen, &local, invariant);
  if (err != nullptr) return err;
  err = WalkList(p, p->local_free, true, seen, &local, invariant);
  if (err != nullptr) return err;
  const Cell* tf = reinterpret_cast<const Cell*>(
      p->thread_free.load(std::memory_order_acquire) & ~uintptr_t{1});
  err = WalkList(p, tf, true, seen, &remote, invariant);
  if (err != nullptr) return err;
  if (p->used + local != Reserved(p)) {
    TM_FAIL(3, "a page's used and free cells do not add up to its carved cells");
  }
  if (remote > p->used) TM_FAIL(3, "more cells freed remotely than in use");
  return nullptr;
}

const char* CheckHeap(const Heap* h, int* invariant) {
  // 5: queues, and count the pages on them.
  uint32_t queued = 0;
  for (int c = 0; c < kNumClasses; ++c) {
    if (h->bins[c] == nullptr) TM_FAIL(5, "a bin head is null");
    if (h->bins[c] == &g_empty_page) continue;
    const Page* prev = nullptr;
    for (const Page* p = h->bins[c]; p != nullptr; p = p->next) {
      if (p->prev != prev) TM_FAIL(5, "a bin queue's back links are broken");
      if (p->size_class != c || p->in_full || p->kind != kSlotPage ||
          p->heap != h) {
        TM_FAIL(5, "a bin queue holds a page of another class, full, or "
                   "not this heap's");
      }
      prev = p;
      if (++queued > (1u << 24)) TM_FAIL(5, "a bin queue has a cycle");
    }
  }
  const Page* prev = nullptr;
  for (const Page* p = h->full; p != nullptr; p = p->next) {
    if (p->prev != prev) TM_FAIL(5, "the full list's back links are broken");
    if (!p->in_full || p->kind != kSlotPage || p->heap != h) {
      TM_FAIL(5, "the full list holds a page not marked full");
    }
    prev = p;
    if (++queued > (1u << 24)) TM_FAIL(5, "the full list has a cycle");
  }
  uint32_t pages = 0, empty = 0;
  for (const Segment* s = h->segments; s != nullptr; s = s->next) {
    // 1
    if (!IsSegment(reinterpret_cast<uintptr_t>(s)) || s->magic != kSegmentMagic ||
        s->heap != h) {
      TM_FAIL(1, "a heap's segment is not in the segment map, lacks its "
                 "magic or names another heap");
    }
    if (s->next != nullptr && s->next->prev != s) {
      TM_FAIL(1, "the heap's segment list is badly linked");
    }
    // 2
    if ((s->dirty_mask & ~s->free_mask) != 0) {
      TM_FAIL(2, "a slot in use is marked dirty-free");
    }
    uint32_t leads = 0;
    for (int i = 0; i < kSlotsPerSegment;) {
      const Page* p = &s->pages[i];
      const bool is_free = (s->free_mask >> i) & 1;
      if (is_free) {
        if (p->kind != kSlotFree) TM_FAIL(2, "a free slot is marked in use");
        ++i;
        continue;
      }
      if (kHardened && i == kGuardSlot && p->kind == kSlotGuard) {
        ++i;
        continue;
      }
      if (p->kind != kSlotPage) {
        TM_FAIL(2, "a slot in use is neither a page nor inside one");
      }
      if (p->slots == 0 || i % p->slots != 0 || i + p->slots > kSlotsPerSegment) {
        TM_FAIL(2, "a page's span is misaligned or runs past its segment");
      }
      for (int j = 1; j < p->slots; ++j) {
        const Page* t = &s->pages[i + j];
        if (((s->free_mask >> (i + j)) & 1) || t->kind != kSlotTail ||
            t->lead_offset != j) {
          TM_FAIL(2, "a page's tail slot does not point back to its lead");
        }
      }
      ++leads;
      const char* err = CheckPage(p, invariant);
      if (err != nullptr) return err;
      i += p->slots;
    }
    if (leads != s->pages_in_use) {
      TM_FAIL(2, "a segment's page count disagrees with its lead slots");
    }
    if (leads == 0) ++empty;
    pages += leads;
  }
  if (pages != queued) {
    TM_FAIL(5, "not every page of the heap is on exactly one queue");
  }
  if (empty != h->empty_segments) {
    TM_FAIL(2, "the heap's count of empty segments is wrong");
  }
  return nullptr;
}

const char* CheckHuge(int* invariant) {
  if (g_init_state.load(std::memory_order_acquire) != 2) return nullptr;
  pthread_mutex_lock(&g_huge_lock);
  const char* err = nullptr;
  size_t count = 0;
  uint64_t mapped = 0;
  for (size_t i = 0; i < g_huge_capacity && err == nullptr; ++i) {
    const HugeEntry& e = g_huge_table[i];
    if (e.ptr <= 1) continue;
    ++count;
    mapped += e.map_bytes;
    if (e.ptr < reinterpret_cast<uintptr_t>(e.base) ||
        e.ptr >= reinterpret_cast<uintptr_t>(e.base) + e.map_bytes ||
        (e.map_bytes & 4095) != 0) {
      *invariant = 6;
      err = "invariant 6: a huge block lies outside its mapping";
    }
  }
  uint64_t cached = 0;
  for (int i = 0; i < g_huge_cache_count; ++i) cached += g_huge_cache[i].map_bytes;
  if (err == nullptr && (count != g_huge_count || mapped != g_huge_mapped ||
                         cached != g_huge_cache_bytes)) {
    *invariant = 6;
    err = "invariant 6: the huge registry's counts disagree with its entries";
  }
  pthread_mutex_unlock(&g_huge_lock);
  return err;
}

}  // namespace

const char* CheckThreadHeap(int* invariant) {
  *invariant = 0;
  Heap* h = tls_heap;
  if (h != nullptr) {
    const char* err = CheckHeap(h, invariant);
    if (err != nullptr) return err;
  }
  return CheckHuge(invariant);
}

const char* CheckAllHeaps(int* invariant) {
  *invariant = 0;
  uint64_t segments = 0;
  for (Heap* h = g_registry.load(std::memory_order_acquire); h != nullptr;
       h = h->registry_next) {
    const char* err = CheckHeap(h, invariant);
    if (err != nullptr) return err;
    for (const Segment* s = h->segments; s != nullptr; s = s->next) ++segments;
  }
  if (segments != g_segments.load(std::memory_order_relaxed)) {
    *invariant = 7;
    return "invariant 7: the mapped segment count disagrees with the heaps' "
           "segment lists";
  }
  return CheckHuge(invariant);
}

void Collect(bool force) {
  EnsureInit();
  Heap* h = tls_heap;
  if (h != nullptr) {
    CollectHeap(h, force);
    h->last_purge_ms = NowMs();
  }
  pthread_mutex_lock(&g_huge_lock);
  HugeCacheAgeLocked(NowMs(), force);
  pthread_mutex_unlock(&g_huge_lock);
  const uint64_t abandoned = g_abandoned_count.load(std::memory_order_relaxed);
  for (uint64_t i = 0; i < abandoned; ++i) CollectOneAbandoned(force);
  SamplePeak();
}

void SetPurgeDelayMs(uint32_t ms) {
  g_purge_delay_ms.store(ms, std::memory_order_relaxed);
}

void ForkPrepare() {
  pthread_mutex_lock(&g_orphan_lock);
  pthread_mutex_lock(&g_registry_lock);
  pthread_mutex_lock(&g_huge_lock);
}

void ForkParent() {
  pthread_mutex_unlock(&g_huge_lock);
  pthread_mutex_unlock(&g_registry_lock);
  pthread_mutex_unlock(&g_orphan_lock);
}

void ForkChild() {
  pthread_mutex_init(&g_huge_lock, nullptr);
  pthread_mutex_init(&g_registry_lock, nullptr);
  pthread_mutex_init(&g_orphan_lock, nullptr);
  // Only the forking thread survives: every other owned heap is abandoned,
  // so later threads adopt it and its memory is reused.
  Heap* mine = tls_heap;
  for (Heap* h = g_registry.load(std::memory_order_acquire); h != nullptr;
       h = h->registry_next) {
    if (h == mine || !h->owned || h == g_orphan_heap) continue;
    h->owned = false;
    h->abandoned_next = g_abandoned;
    g_abandoned = h;
    g_abandoned_count.fetch_add(1, std::memory_order_relaxed);
  }
}

void AbandonThreadHeap() {
  Heap* h = tls_heap;
  if (h == nullptr) return;
  pthread_setspecific(g_thread_key, nullptr);
  OnThreadExit(h);
  tls_dead = false;  // the thread may get a heap again
}

}  // namespace malloc_internal
}  // namespace tessera
