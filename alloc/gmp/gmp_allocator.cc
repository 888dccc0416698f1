// Copyright 2026 The Tessera Authors.

#include "alloc/gmp/gmp_allocator.h"

#include <gmp.h>

#include <cstdio>
#include <cstdlib>

#include "absl/strings/string_view.h"

namespace tessera {
namespace gmp_internal {

std::atomic<Allocator*> routed_allocator{nullptr};

namespace {

// The functions the last Install with an allocator set, to tell whether GMP
// still uses them (someone may have called mp_set_memory_functions since).
// Written only by Install, under the same single-writer contract as the route.
GmpMemoryState installed;

bool SameFunctions(const GmpMemoryState& a, const GmpMemoryState& b) {
  return a.allocate == b.allocate && a.reallocate == b.reallocate &&
         a.free == b.free;
}

}  // namespace

void AllocationFailed(const Allocator& allocator, size_t bytes) {
  // No heap use here: the heap may be what ran out. GMP's own default
  // functions print "GNU MP: Cannot allocate memory (size=N)" and abort.
  const absl::string_view name = allocator.name();
  std::fprintf(stderr,
               "tessera: GMP: cannot allocate %zu bytes from allocator '%.*s' "
               "(GMP cannot take nullptr; aborting as GMP itself does)\n",
               bytes, static_cast<int>(name.size()), name.data());
  std::abort();
}

void ReallocationFailed(const Allocator& allocator, size_t old_bytes,
                        size_t new_bytes) {
  const absl::string_view name = allocator.name();
  std::fprintf(stderr,
               "tessera: GMP: cannot reallocate %zu bytes to %zu bytes from "
               "allocator '%.*s' (GMP cannot take nullptr; aborting as GMP "
               "itself does)\n",
               old_bytes, new_bytes, static_cast<int>(name.size()),
               name.data());
  std::abort();
}

void Install(const GmpMemoryState& state) {
  // The allocator first: from the moment GMP sees the new functions they
  // must find it.
  routed_allocator.store(state.allocator, std::memory_order_relaxed);
  mp_set_memory_functions(state.allocate, state.reallocate, state.free);
  installed = state.allocator != nullptr ? state : GmpMemoryState{};
}

}  // namespace gmp_internal

GmpMemoryState CurrentGmpMemoryState() {
  GmpMemoryState state;
  mp_get_memory_functions(&state.allocate, &state.reallocate, &state.free);
  if (gmp_internal::installed.allocator != nullptr &&
      gmp_internal::SameFunctions(state, gmp_internal::installed)) {
    state.allocator =
        gmp_internal::routed_allocator.load(std::memory_order_relaxed);
  }
  return state;
}

Allocator* GmpRoutedAllocator() { return CurrentGmpMemoryState().allocator; }

void RestoreGmpMemoryFunctions(const GmpMemoryState& previous) {
  gmp_internal::Install(previous);
}

}  // namespace tessera
