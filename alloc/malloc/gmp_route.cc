// Copyright 2026 The Tessera Authors.

#include "alloc/malloc/gmp_route.h"

#include <cstddef>

#include "alloc/gmp/gmp_allocator.h"
#include "alloc/malloc/internal/fast_paths.h"
#include "alloc/malloc/tessera_malloc.h"

namespace tessera {
namespace {

namespace mi = malloc_internal;

// As through the interface: GlobalTesseraMalloc().stats() stays exact.
constexpr mi::Counting kCounting = mi::Counting::kExact;

void* GmpAllocate(size_t bytes) {
  void* block = mi::AllocateInline<kCounting>(bytes);
  if (TM_UNLIKELY(block == nullptr)) {
    gmp_internal::AllocationFailed(GlobalTesseraMalloc(), bytes);
  }
  return block;
}

void* GmpReallocate(void* ptr, size_t old_bytes, size_t new_bytes) {
  void* block = mi::Reallocate<kCounting>(ptr, new_bytes);
  if (TM_UNLIKELY(block == nullptr)) {
    gmp_internal::ReallocationFailed(GlobalTesseraMalloc(), old_bytes,
                                     new_bytes);
  }
  return block;
}

void GmpFree(void* ptr, size_t bytes) {
  mi::FreeSizedInline<kCounting>(ptr, bytes);
}

}  // namespace

GmpMemoryState RouteGmpToTesseraMalloc() {
  const GmpMemoryState previous = CurrentGmpMemoryState();
  GmpMemoryState next;
  next.allocate = &GmpAllocate;
  next.reallocate = &GmpReallocate;
  next.free = &GmpFree;
  // Constructed before GMP can call in: it installs the violation handler.
  next.allocator = &GlobalTesseraMalloc();
  gmp_internal::Install(next);
  return previous;
}

}  // namespace tessera
