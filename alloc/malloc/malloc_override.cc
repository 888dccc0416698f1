// Copyright 2026 The Tessera Authors.
//
// Tessera malloc as the program's malloc: every libc allocation entry point
// and every operator new/delete form, over the engine (internal/engine.h).
// Linked in through //alloc/malloc:malloc_override (alwayslink) or preloaded
// as libtessera_malloc.so. Semantics follow glibc 2.36's manual pages where
// C leaves a choice (realloc(p, 0) frees p and returns NULL; memalign rounds
// a non-power-of-two alignment up). Nothing here may allocate through the
// C++ heap or depend on a constructor having run: the loader and libc call
// malloc before any constructor, and dlsym calls calloc.

#include <errno.h>
#include <pthread.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <new>

#include "alloc/malloc/internal/fast_paths.h"

namespace mi = tessera::malloc_internal;

// The program's malloc keeps no per-call counters (see mi::Counting).
constexpr mi::Counting kCounting = mi::Counting::kNone;

namespace {

inline bool IsPowerOfTwo(size_t x) { return x != 0 && (x & (x - 1)) == 0; }

// The largest alignment any request may ask for (as tessera::kMaxAlignment).
constexpr size_t kMaxAlignment = size_t{1} << 30;

inline void* AlignedOrNull(size_t bytes, size_t alignment) {
  if (alignment > kMaxAlignment) {
    errno = ENOMEM;
    return nullptr;
  }
  return mi::AllocateAligned<kCounting>(bytes, alignment);
}

// fork() from a threaded program: hold every engine lock across the fork so
// the child never inherits one taken by a thread that does not exist there.
__attribute__((constructor)) void RegisterForkHandlers() {
  pthread_atfork(&mi::ForkPrepare, &mi::ForkParent, &mi::ForkChild);
}

// Out of line: a failed or aligned operator new.
__attribute__((noinline)) void* NewOrThrowSlow(size_t bytes, size_t alignment) {
  for (;;) {
    void* p = alignment <= 16 ? mi::Allocate<kCounting>(bytes)
                              : AlignedOrNull(bytes, alignment);
    if (p != nullptr) return p;
    std::new_handler handler = std::get_new_handler();
    if (handler == nullptr) throw std::bad_alloc();
    handler();
  }
}

// operator new: the fast path inline, like malloc's.
inline void* NewOrThrow(size_t bytes, size_t alignment) {
  if (TM_LIKELY(alignment <= 16)) {
    void* p = mi::AllocateInline<kCounting>(bytes);
    if (TM_LIKELY(p != nullptr)) return p;
  }
  return NewOrThrowSlow(bytes, alignment);
}

void* NewOrNull(size_t bytes, size_t alignment) noexcept {
  try {
    return NewOrThrow(bytes, alignment);
  } catch (...) {
    return nullptr;
  }
}

}  // namespace

extern "C" {

#define TESSERA_EXPORT __attribute__((visibility("default")))

// A marker a program (the shootout's proof of the active allocator) can look
// up with dlsym to know Tessera malloc is the process's malloc.
TESSERA_EXPORT const char* tessera_malloc_version() { return "tessera_malloc 1"; }

// malloc and free are the engine's fast paths themselves (fast_paths.h).
TESSERA_EXPORT void* malloc(size_t bytes) {
  return mi::AllocateInline<kCounting>(bytes);
}

TESSERA_EXPORT void free(void* ptr) { mi::FreeInline<kCounting>(ptr); }

TESSERA_EXPORT void* calloc(size_t count, size_t size) {
  size_t bytes;
  if (__builtin_mul_overflow(count, size, &bytes)) {
    errno = ENOMEM;
    return nullptr;
  }
  return mi::AllocateZeroed<kCounting>(bytes);
}

TESSERA_EXPORT void* realloc(void* ptr, size_t bytes) {
  if (ptr != nullptr && bytes == 0) {
    mi::Free<kCounting>(ptr);
    return nullptr;
  }
  return mi::Reallocate<kCounting>(ptr, bytes);
}

TESSERA_EXPORT void* reallocarray(void* ptr, size_t count, size_t size) {
  size_t bytes;
  if (__builtin_mul_overflow(count, size, &bytes)) {
    errno = ENOMEM;
    return nullptr;
  }
  return realloc(ptr, bytes);
}

TESSERA_EXPORT int posix_memalign(void** out, size_t alignment, size_t bytes) {
  if (!IsPowerOfTwo(alignment) || alignment % sizeof(void*) != 0) return EINVAL;
  const int saved = errno;
  void* p = AlignedOrNull(bytes, alignment);
  errno = saved;  // posix_memalign reports by return value only
  if (p == nullptr) return ENOMEM;
  *out = p;
  return 0;
}

TESSERA_EXPORT void* aligned_alloc(size_t alignment, size_t bytes) {
  if (!IsPowerOfTwo(alignment)) {
    errno = EINVAL;
    return nullptr;
  }
  return AlignedOrNull(bytes, alignment);
}

TESSERA_EXPORT void* memalign(size_t alignment, size_t bytes) {
  if (alignment > kMaxAlignment) {
    errno = ENOMEM;
    return nullptr;
  }
  // glibc rounds an alignment that is not a power of two up to one.
  size_t a = alignment < 16 ? 16 : alignment;
  if (!IsPowerOfTwo(a)) a = size_t{1} << (64 - __builtin_clzll(a));
  return AlignedOrNull(bytes, a);
}

TESSERA_EXPORT void* valloc(size_t bytes) { return AlignedOrNull(bytes, 4096); }

TESSERA_EXPORT void* pvalloc(size_t bytes) {
  if (bytes > SIZE_MAX - 4095) {
    errno = ENOMEM;
    return nullptr;
  }
  return AlignedOrNull((bytes + 4095) & ~size_t{4095}, 4096);
}

TESSERA_EXPORT size_t malloc_usable_size(void* ptr) {
  return ptr == nullptr ? 0 : mi::UsableSize(ptr);
}

// glibc's: gives free memory back to the OS now, 1 if some was, else 0. Here
// that is Collect(true): the calling thread's empty pages retired and every
// free slot purged, empty segments unmapped, cached huge mappings purged,
// abandoned heaps collected; what the purge delay would do later. Without
// it a program (or a benchmark) that calls malloc_trim under LD_PRELOAD
// would trim glibc's unused heap and release nothing. Other live threads'
// heaps keep what they hold until their own purge ticks (glibc trims every
// arena; no thread but the owner may touch a heap's pages). `pad` (bytes to
// keep at the top of glibc's heap) has no counterpart.
TESSERA_EXPORT int malloc_trim(size_t pad) {
  (void)pad;
  const mi::EngineStats before = mi::Stats();
  mi::Collect(true);
  const mi::EngineStats after = mi::Stats();
  return after.purged_bytes != before.purged_bytes ||
                 after.segments < before.segments ||
                 after.huge_cached_bytes < before.huge_cached_bytes
             ? 1
             : 0;
}

// C23.
TESSERA_EXPORT void free_sized(void* ptr, size_t bytes) {
  mi::FreeSizedInline<kCounting>(ptr, bytes);
}

TESSERA_EXPORT void free_aligned_sized(void* ptr, size_t alignment,
                                       size_t bytes) {
  mi::FreeSized<kCounting>(ptr, bytes, alignment);
}

}  // extern "C"

// ---- operator new / delete: every form. ----

TESSERA_EXPORT void* operator new(size_t n) { return NewOrThrow(n, 16); }
TESSERA_EXPORT void* operator new[](size_t n) { return NewOrThrow(n, 16); }
TESSERA_EXPORT void* operator new(size_t n, const std::nothrow_t&) noexcept {
  return NewOrNull(n, 16);
}
TESSERA_EXPORT void* operator new[](size_t n, const std::nothrow_t&) noexcept {
  return NewOrNull(n, 16);
}
TESSERA_EXPORT void* operator new(size_t n, std::align_val_t a) {
  return NewOrThrow(n, static_cast<size_t>(a));
}
TESSERA_EXPORT void* operator new[](size_t n, std::align_val_t a) {
  return NewOrThrow(n, static_cast<size_t>(a));
}
TESSERA_EXPORT void* operator new(size_t n, std::align_val_t a,
                                  const std::nothrow_t&) noexcept {
  return NewOrNull(n, static_cast<size_t>(a));
}
TESSERA_EXPORT void* operator new[](size_t n, std::align_val_t a,
                                    const std::nothrow_t&) noexcept {
  return NewOrNull(n, static_cast<size_t>(a));
}

TESSERA_EXPORT void operator delete(void* p) noexcept {
  mi::FreeInline<kCounting>(p);
}
TESSERA_EXPORT void operator delete[](void* p) noexcept {
  mi::FreeInline<kCounting>(p);
}
TESSERA_EXPORT void operator delete(void* p, const std::nothrow_t&) noexcept {
  mi::FreeInline<kCounting>(p);
}
TESSERA_EXPORT void operator delete[](void* p, const std::nothrow_t&) noexcept {
  mi::FreeInline<kCounting>(p);
}
TESSERA_EXPORT void operator delete(void* p, size_t n) noexcept {
  mi::FreeSizedInline<kCounting>(p, n);
}
TESSERA_EXPORT void operator delete[](void* p, size_t n) noexcept {
  mi::FreeSizedInline<kCounting>(p, n);
}
TESSERA_EXPORT void operator delete(void* p, std::align_val_t a) noexcept {
  mi::FreeInline<kCounting>(p);
}
TESSERA_EXPORT void operator delete[](void* p, std::align_val_t a) noexcept {
  mi::FreeInline<kCounting>(p);
}
TESSERA_EXPORT void operator delete(void* p, size_t n,
                                    std::align_val_t a) noexcept {
  mi::FreeSized<kCounting>(p, n, static_cast<size_t>(a));
}
TESSERA_EXPORT void operator delete[](void* p, size_t n,
                                      std::align_val_t a) noexcept {
  mi::FreeSized<kCounting>(p, n, static_cast<size_t>(a));
}
TESSERA_EXPORT void operator delete(void* p, std::align_val_t a,
                                    const std::nothrow_t&) noexcept {
  mi::FreeInline<kCounting>(p);
}
TESSERA_EXPORT void operator delete[](void* p, std::align_val_t a,
                                      const std::nothrow_t&) noexcept {
  mi::FreeInline<kCounting>(p);
}
