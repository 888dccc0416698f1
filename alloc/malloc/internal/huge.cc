// Copyright 2026 The Tessera Authors.
//
// Huge blocks (above 256 KiB): mapped on their own, registered in a hash
// table, freed mappings kept a while for reuse.
// Private to the engine: see engine_internal.h.

#include "alloc/malloc/internal/engine_internal.h"

namespace tessera {
namespace malloc_internal {

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

void RecountRecyclableLocked() {
  uint32_t n = 0;
  for (int i = 0; i < g_huge_cache_count; ++i) {
    n += !g_huge_cache[i].purged && g_huge_cache[i].map_bytes >= kSegmentSize;
  }
  g_huge_cache_recyclable.store(n, std::memory_order_relaxed);
}

// Takes entry `i` out of the huge cache (the last entry moves into its place)
// and returns it.
static HugeCacheEntry HugeCacheTakeLocked(int i) {
  const HugeCacheEntry e = g_huge_cache[i];
  g_huge_cache_bytes -= e.map_bytes;
  g_huge_cache[i] = g_huge_cache[--g_huge_cache_count];
  return e;
}

// Whether the huge cache has an entry and room for `map_bytes` more.
static bool HugeCacheHasRoomLocked(size_t map_bytes) {
  return g_huge_cache_count < kHugeCacheEntries &&
         g_huge_cache_bytes + map_bytes <= kHugeCacheMaxBytes;
}

// Puts `e` into the huge cache if an entry and its bytes fit; false if not
// (the caller unmaps it).
static bool HugeCachePutLocked(const HugeCacheEntry& e) {
  if (!HugeCacheHasRoomLocked(e.map_bytes)) return false;
  g_huge_cache[g_huge_cache_count++] = e;
  g_huge_cache_bytes += e.map_bytes;
  return true;
}

// Unmaps or purges cached mappings that stayed free past their delays
// (kHugeCachePurgeDelays).
void HugeCacheAgeLocked(uint64_t now, bool force) {
  const uint32_t delay = g_purge_delay_ms.load(std::memory_order_relaxed);
  for (int i = 0; i < g_huge_cache_count;) {
    HugeCacheEntry& e = g_huge_cache[i];
    // A mapping freed by another thread after `now` was read is age 0.
    const uint64_t age = now > e.freed_at_ms ? now - e.freed_at_ms : 0;
    if (force || age >= 100 * static_cast<uint64_t>(delay) + 1000) {
      munmap(e.base, e.map_bytes);
      HugeCacheTakeLocked(i);
      continue;
    }
    if (!e.purged &&
        age >= kHugeCachePurgeDelays * static_cast<uint64_t>(delay)) {
      Purge(e.base, e.map_bytes);
      e.purged = true;
    }
    ++i;
  }
  RecountRecyclableLocked();
}

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
  // Else a resident cached mapping under a segment's size (FreeHuge keeps
  // one; a segment taken from a larger mapping may leave its tail), trimmed
  // or grown to fit: its pages cost no fault and no new RSS, where a fresh
  // mapping would have stacked on top of them for ten purge delays. (The
  // cc1plus trace's huge blocks come in a dozen sizes from 260 KiB to 832
  // KiB: at its peak the cache held 0.5 MiB resident that no request was
  // within 25% of.)
  bool resize = false;
  if (best < 0 && need < kSegmentSize) {
    for (int i = 0; i < g_huge_cache_count; ++i) {
      if (g_huge_cache[i].map_bytes < kSegmentSize && !g_huge_cache[i].purged) {
        best = i;
        resize = true;
        break;
      }
    }
  }
  if (best >= 0) {
    base = g_huge_cache[best].base;
    map_bytes = g_huge_cache[best].map_bytes;
    dirty = !g_huge_cache[best].purged;
    HugeCacheTakeLocked(best);
    RecountRecyclableLocked();
  }
  pthread_mutex_unlock(&g_huge_lock);
  // Bytes from `base` that may hold old data (all of a reused mapping; a
  // grown one's new tail is fresh, zero memory).
  size_t dirty_bytes = dirty ? map_bytes : 0;
  if (resize && map_bytes > need) {
    munmap(base + need, map_bytes - need);
    map_bytes = need;
  } else if (resize && map_bytes < need) {
    void* grown = mremap(base, map_bytes, need, MREMAP_MAYMOVE);
    if (grown == MAP_FAILED) {
      munmap(base, map_bytes);
      base = nullptr;
      dirty_bytes = 0;
    } else {
      base = static_cast<char*>(grown);
      map_bytes = need;
    }
  }
  if (base == nullptr) {
    map_bytes = need;
    // Mappings of a segment's size and more start on a segment boundary:
    // once freed and cached, each 4 MiB of them can become a segment
    // (TakeSegmentFromHugeCache) with the pages it has resident.
    base = static_cast<char*>(map_bytes >= kSegmentSize
                                  ? MapAligned(map_bytes, kSegmentSize)
                                  : MapPages(map_bytes));
    if (base == nullptr) return Fail();
    // No MADV_HUGEPAGE here (the system's THP policy decides): a huge block
    // is often written sparsely or in part (a vector's reserve, a table),
    // and each 2 MiB page costs its whole size in RSS and a fault that, on
    // VMs whose balloon takes freed memory back, runs 5-7 ms. The cc1plus
    // trace's replay, whose harness holds its arrays in blocks of 4 MiB and
    // more: 9.61 against 10.59 ns a call (mimalloc 9.65; 6 argv[0] layouts,
    // 2026-12-07); a 10 MB round trip 31.3 against 29.4 ns (peers 190+).
  }
  uintptr_t user = reinterpret_cast<uintptr_t>(base);
  if (alignment > 4096) user = (user + alignment - 1) & ~(alignment - 1);
  if (zeroed && dirty_bytes > user - reinterpret_cast<uintptr_t>(base)) {
    const size_t old = dirty_bytes - (user - reinterpret_cast<uintptr_t>(base));
    memset(reinterpret_cast<void*>(user), 0, old < bytes ? old : bytes);
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
  // Of the cached mappings smaller than a segment only the newest stays
  // resident: a freed one purges the one before it. Only a huge block that
  // fits can reuse such a mapping (it cannot become a segment), and several
  // resident held their bytes for ten purge delays while the program's
  // small blocks faulted in fresh memory beside them; the newest serves a
  // loop that frees and allocates one such block without a fault. Purged,
  // they still save the next block its mmap and munmap. The cc1plus trace's
  // peak RSS growth / peak live, validation pass: 1.55 against 1.73 when
  // every one was purged at its free; Python's 1.71 against 1.82, at 3.96
  // against 6.66 ns a call (5 alternating runs of the preloaded library,
  // 2026-12-06); unmapped at once instead of cached: 1.60.
  HugeCacheEntry older{};
  bool purge_older = false;
  if (map_bytes < kSegmentSize) {
    for (int i = 0; i < g_huge_cache_count; ++i) {
      if (g_huge_cache[i].map_bytes < kSegmentSize && !g_huge_cache[i].purged) {
        // Out of the cache while it is purged (outside the lock: a purge of
        // megabytes takes a while), where no other thread can take it.
        older = HugeCacheTakeLocked(i);
        purge_older = true;
        break;
      }
    }
  }
  if (map_bytes <= kHugeCacheMaxBlock) {
    HugeCacheAgeLocked(now, false);
    // The oldest mappings make room (each time the oldest left: after the
    // first, the loop used to take whatever lay in entry 0).
    while (g_huge_cache_count > 0 && !HugeCacheHasRoomLocked(map_bytes)) {
      int oldest = 0;
      for (int i = 1; i < g_huge_cache_count; ++i) {
        if (g_huge_cache[i].freed_at_ms < g_huge_cache[oldest].freed_at_ms) {
          oldest = i;
        }
      }
      const HugeCacheEntry evicted = HugeCacheTakeLocked(oldest);
      munmap(evicted.base, evicted.map_bytes);
    }
    cached = HugeCachePutLocked(HugeCacheEntry{base, map_bytes, now, false});
    RecountRecyclableLocked();
  }
  pthread_mutex_unlock(&g_huge_lock);
  if (!cached) munmap(base, map_bytes);
  if (purge_older) {
    Purge(older.base, older.map_bytes);
    older.purged = true;
    pthread_mutex_lock(&g_huge_lock);
    const bool kept = HugeCachePutLocked(older);
    pthread_mutex_unlock(&g_huge_lock);
    if (!kept) munmap(older.base, older.map_bytes);
  }
  CountFree(tls_heap, usable);
  return true;
}

// A segment's 4 MiB carved from a resident cached mapping that holds an
// aligned 4 MiB window, or nullptr. The mapping's pages are what a program
// freed (a buffer it loaded, a table it outgrew) and stay resident until the
// cache purges them; a new segment that takes them costs no page fault and
// no growth of RSS, where a fresh one would fault its memory in anew. This
// is how memory freed as huge blocks comes back as small blocks (jemalloc
// gets the same from its one pool of page runs). The window's head is
// unmapped; its tail stays cached (as freed at the same time) when a huge
// block could use it. `*freed_at_ms`: when the mapping was freed.
// The first segment-aligned 4 MiB inside cached mapping `e`, or nullptr.
static char* SegmentWindow(const HugeCacheEntry& e) {
  const uintptr_t base = reinterpret_cast<uintptr_t>(e.base);
  const uintptr_t start = (base + kSegmentSize - 1) & ~(kSegmentSize - 1);
  return start + kSegmentSize <= base + e.map_bytes
             ? reinterpret_cast<char*>(start)
             : nullptr;
}

Segment* TakeSegmentFromHugeCache(uint64_t* freed_at_ms) {
  char* unmap[2] = {nullptr, nullptr};
  size_t unmap_bytes[2] = {0, 0};
  Segment* segment = nullptr;
  if (g_huge_cache_recyclable.load(std::memory_order_relaxed) == 0) {
    return nullptr;
  }
  pthread_mutex_lock(&g_huge_lock);
  int best = -1;
  for (int i = 0; i < g_huge_cache_count; ++i) {
    const HugeCacheEntry& e = g_huge_cache[i];
    if (e.purged || SegmentWindow(e) == nullptr) continue;
    // The smallest: a large mapping stays whole for the huge blocks that
    // need it.
    if (best < 0 || e.map_bytes < g_huge_cache[best].map_bytes) best = i;
  }
  if (best >= 0) {
    const HugeCacheEntry e = HugeCacheTakeLocked(best);
    char* start = SegmentWindow(e);
    char* tail = start + kSegmentSize;
    const size_t tail_bytes = static_cast<size_t>(e.base + e.map_bytes - tail);
    unmap[0] = e.base;
    unmap_bytes[0] = static_cast<size_t>(start - e.base);
    // (The tail always fits: `e`'s entry and bytes were just taken.)
    if (!(tail_bytes > kMaxClassSize &&
          HugeCachePutLocked(
              HugeCacheEntry{tail, tail_bytes, e.freed_at_ms, false}))) {
      unmap[1] = tail;
      unmap_bytes[1] = tail_bytes;
    }
    *freed_at_ms = e.freed_at_ms;
    segment = reinterpret_cast<Segment*>(start);
    RecountRecyclableLocked();
  }
  pthread_mutex_unlock(&g_huge_lock);
  for (int i = 0; i < 2; ++i) {
    if (unmap_bytes[i] != 0) munmap(unmap[i], unmap_bytes[i]);
  }
  return segment;
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

}  // namespace malloc_internal
}  // namespace tessera
