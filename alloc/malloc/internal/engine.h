// Copyright 2026 The Tessera Authors.
//
// -----------------------------------------------------------------------------
// File: engine.h
// -----------------------------------------------------------------------------
//
// The engine behind Tessera malloc: per-thread heaps of size-class pages in
// 4 MiB segments, cross-thread frees, huge mappings. Private to alloc/malloc:
// use `tessera::TesseraMalloc` (tessera_malloc.h) or the malloc override.
//
// It depends on nothing but libc (no Abseil, no C++ heap), because the
// override runs it before constructors, inside `dlsym`, and in a child of
// `fork()`. See tessera_malloc.h for the design and the numbered invariants.

#ifndef TESSERA_ALLOC_MALLOC_INTERNAL_ENGINE_H_
#define TESSERA_ALLOC_MALLOC_INTERNAL_ENGINE_H_

#include <cstddef>
#include <cstdint>

namespace tessera {
namespace malloc_internal {

#ifndef TESSERA_MALLOC_HARDENED
#define TESSERA_MALLOC_HARDENED 0
#endif
// The hardened build (--define=tessera_malloc_hardened=1): free-list links
// encoded with a per-process secret and checked when followed, free
// canaries keyed with the secret, and a PROT_NONE guard slot at the end of
// every segment. (Double frees, foreign and interior pointers are detected
// on every free in every build.)
inline constexpr bool kHardened = TESSERA_MALLOC_HARDENED != 0;

// What went wrong, for the violation hook. kCorruptFreeList (hardened builds
// only): a free cell's link was overwritten.
enum class Violation {
  kDoubleFree,
  kForeignPointer,
  kInteriorPointer,
  kSizeMismatch,
  kCorruptFreeList,
};

// Called on a contract violation the engine cannot report by return value.
// The default prints "tessera_malloc: <what> of 0x...: <detail>" to stderr and
// aborts. A hook that returns lets the engine ignore the call (the block is
// left as it was).
using ViolationHook = void (*)(Violation violation, const void* ptr,
                               const char* detail);
ViolationHook SetViolationHook(ViolationHook hook);

// Whether a call updates the per-heap counters behind `Stats()`.
// `kExact` is the interface form (`TesseraMalloc`, whose AllocatorStats are
// exact); `kNone` is the malloc override, which counts only huge blocks: the
// two counter read-modify-writes per call were 15-20% of a small malloc/free
// pair (the shootout's W3 and pool), and neither mimalloc nor tcmalloc counts
// there either. The two forms share every heap and every invariant; only the
// counters differ, so Stats() of a program that mixes them counts the
// interface calls (and every huge block).
enum class Counting { kExact, kNone };

// malloc family. `Allocate` returns 16-byte aligned memory or nullptr with
// errno = ENOMEM. `alignment` must be a power of two (checked by callers).
template <Counting C> void* Allocate(size_t bytes);
template <Counting C> void* AllocateAligned(size_t bytes, size_t alignment);
// calloc's block (no overflow check).
template <Counting C> void* AllocateZeroed(size_t bytes);
template <Counting C> void Free(void* ptr);
// Free with the size (and alignment) the block was asked with: checks that
// the size fits the block (a kSizeMismatch report otherwise).
template <Counting C> void FreeSized(void* ptr, size_t bytes, size_t alignment);
template <Counting C> void* Reallocate(void* ptr, size_t bytes);

#define TESSERA_MALLOC_DECLARE_ENTRY_POINTS_(C)                      \
  extern template void* Allocate<C>(size_t);                         \
  extern template void* AllocateAligned<C>(size_t, size_t);          \
  extern template void* AllocateZeroed<C>(size_t);                   \
  extern template void Free<C>(void*);                               \
  extern template void FreeSized<C>(void*, size_t, size_t);          \
  extern template void* Reallocate<C>(void*, size_t);
TESSERA_MALLOC_DECLARE_ENTRY_POINTS_(Counting::kExact)
TESSERA_MALLOC_DECLARE_ENTRY_POINTS_(Counting::kNone)
#undef TESSERA_MALLOC_DECLARE_ENTRY_POINTS_
// Usable bytes of a live block (>= what was asked); reports a foreign pointer.
size_t UsableSize(const void* ptr);
// Whether `ptr` is the start of a live block of the engine (false for a
// pointer the engine never handed out, an interior pointer, a freed cell).
bool Owns(const void* ptr);
// Whether a free of an address inside the live block at `ptr` frees that
// block rather than being reported (true in pages that served an aligned
// request by carving it out of a larger cell: memalign + free).
bool FreesInteriorPointers(const void* ptr);

// Counters summed over every heap: exact for the `Counting::kExact` calls
// (and every huge block) when no call is in flight.
struct EngineStats {
  uint64_t allocations = 0;
  uint64_t deallocations = 0;
  uint64_t reallocations = 0;
  uint64_t failed_requests = 0;
  uint64_t bytes_in_use = 0;        // usable bytes of live blocks
  uint64_t peak_bytes_in_use = 0;   // sampled on slow paths (a lower bound)
  uint64_t segments = 0;            // mapped segments
  uint64_t segments_outside_range = 0;  // of them, mapped outside the range
  uint64_t segment_bytes_resident_max = 0;  // slots in use or dirty, bytes
  uint64_t huge_blocks = 0;
  uint64_t huge_bytes = 0;          // mapped bytes of live huge blocks
  uint64_t huge_cached_bytes = 0;   // freed huge mappings kept for reuse
  uint64_t heaps = 0;               // heaps ever created
  uint64_t abandoned_heaps = 0;     // heaps of exited threads not yet adopted
  uint64_t purged_bytes = 0;        // bytes returned with MADV_DONTNEED
  uint64_t remote_frees = 0;        // frees by a thread other than the owner
};
EngineStats Stats();
// Counts a request refused before it reached the engine (bad alignment).
void NoteFailure();

// Integrity of the calling thread's heap, of the huge registry, and of the
// segment map for the heap's segments. Returns nullptr when every invariant
// holds, else a static message starting with "invariant N: "; `*invariant`
// receives N. Concurrent frees from other threads may run meanwhile.
const char* CheckThreadHeap(int* invariant);
// The same for every heap: the caller guarantees that no other thread
// allocates or frees meanwhile (tests, at quiescence).
const char* CheckAllHeaps(int* invariant);

// Collects frees from other threads into the calling thread's heap, returns
// its empty pages and segments, collects abandoned heaps, and purges every
// free range (force = true ignores the purge delay).
void Collect(bool force);

// Milliseconds a free range stays resident before it is purged (default
// 100, ten times that for cached huge mappings; 0 purges at once).
// Process-wide.
void SetPurgeDelayMs(uint32_t ms);

// For the override: fork handlers (lock everything before fork, unlock in
// the parent, reset locks and adopt orphaned heaps in the child).
void ForkPrepare();
void ForkParent();
void ForkChild();

// Releases the calling thread's heap as if the thread had exited (tests).
void AbandonThreadHeap();

}  // namespace malloc_internal
}  // namespace tessera

#endif  // TESSERA_ALLOC_MALLOC_INTERNAL_ENGINE_H_
