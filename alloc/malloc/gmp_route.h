// Copyright 2026 The Tessera Authors.
//
// -----------------------------------------------------------------------------
// File: gmp_route.h
// -----------------------------------------------------------------------------
//
// GMP on Tessera malloc by the shortest path: GMP's memory functions become
// Tessera malloc's fast paths themselves.
//
// alloc/gmp's `RouteGmpTo(GlobalTesseraMalloc())` works for any allocator:
// GMP calls a trampoline, which calls the `Allocator` interface, which calls
// the engine's out-of-line entry point. For x + y with a fresh result (one
// allocation and one free per addition) those calls were a fifth of the
// time: 15.1 ns against 12.2 ns with Tessera malloc linked in as the
// program's malloc (bench/gmp_shootout, 2026-12-06). Here GMP's allocate and
// free functions compile the engine's inline fast paths
// (internal/fast_paths.h), as the malloc override does, and GMP's sized free
// takes the sized fast path.
//
// Everything else is the generic route's: the blocks are GlobalTesseraMalloc's
// and counted in its stats() (exactly, as through the interface);
// `GmpRoutedAllocator()` reports it; a free with a size larger than the block
// or of a pointer Tessera malloc does not own is reported through Tessera's
// violation handler; an allocation that fails aborts naming the size (GMP
// cannot take nullptr); `RestoreGmpMemoryFunctions(previous)` undoes it. The
// same single-writer contract as alloc/gmp: route and restore while no other
// thread is inside GMP.

#ifndef TESSERA_ALLOC_MALLOC_GMP_ROUTE_H_
#define TESSERA_ALLOC_MALLOC_GMP_ROUTE_H_

#include "alloc/gmp/gmp_allocator.h"

namespace tessera {

// Routes GMP to GlobalTesseraMalloc() through its fast paths. Returns the
// state it replaced, for RestoreGmpMemoryFunctions().
GmpMemoryState RouteGmpToTesseraMalloc();

// RouteGmpToTesseraMalloc() for the scope's lifetime; restores what was
// there before, nesting with alloc/gmp's scopes.
class ScopedGmpTesseraMalloc : public ScopedGmpAllocator {
 public:
  ScopedGmpTesseraMalloc()
      : ScopedGmpAllocator(AlreadyRouted{}, RouteGmpToTesseraMalloc()) {}
};

}  // namespace tessera

#endif  // TESSERA_ALLOC_MALLOC_GMP_ROUTE_H_
