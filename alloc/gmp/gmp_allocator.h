// Copyright 2026 The Tessera Authors.
//
// -----------------------------------------------------------------------------
// File: gmp_allocator.h
// -----------------------------------------------------------------------------
//
// Routes GMP's memory functions to a `tessera::Allocator`, and back. GMP (the
// GNU multiple precision library under Sage, Python's `gmpy2`, ...) takes all
// its memory from three process-wide function pointers set with
// `mp_set_memory_functions`; a big-integer workload is mostly tiny, short-lived
// limb arrays, which is where a size-class pool beats malloc. GMP's free and
// realloc are sized (`free(ptr, size)`, `realloc(ptr, old_size, new_size)`),
// which is exactly the `tessera::Allocator` contract, so the route passes the
// sizes through unchanged and a sized allocator (SizeClassPool) takes its fast
// path on every free.
//
//   tessera::ScopedGmpAllocator route(*pool);  // GMP now allocates in `pool`
//   mpz_t x; mpz_init(x); ... mpz_clear(x);    // every block back in `pool`
//   // leaving the scope restores the functions GMP had before
//
// Calls (all O(1)):
//   * `RouteGmpTo(allocator)`: GMP allocates from `allocator` from now on;
//     returns what was there before (functions and allocator).
//   * `RestoreGmpMemoryFunctions(previous)`: puts that back.
//   * `ScopedGmpAllocator`: both, as RAII; scopes nest.
//   * `GmpRoutedAllocator()`: the allocator set by these calls, or nullptr.
//
// `RouteGmpTo` is a template: given the final class (`SizeClassPool&`), the
// trampolines GMP calls are compiled for it and the allocator's inline hot
// path is devirtualised; given an `Allocator&`, they make the virtual call.
//
// Contract (the caller's; GMP's own manual says the same of
// mp_set_memory_functions):
//   1. Every GMP object (mpz_t, mpq_t, mpf_t, a string from mpz_get_str(NULL))
//      allocated under a route is freed before that route is replaced or
//      restored. A block freed under another route goes to the wrong
//      allocator: a foreign pointer, which allocators that check report
//      (SizeClassPool with check_returns, the TLSF arena, MallocAllocator with
//      a live-block registry).
//   2. The route is process-wide, like GMP's functions: change it only while
//      no other thread is inside GMP. The allocator must be thread-safe if
//      several threads use GMP while it is routed (SizeClassPool and the TLSF
//      arena are not; MallocAllocator is).
//   3. The allocator outlives the route.
//
// Out of memory: GMP cannot take nullptr from its allocation functions (it
// dereferences the result). A failed request therefore aborts, as GMP's own
// default functions do, with a message naming the size and the allocator:
//   "tessera: GMP: cannot allocate 4096 bytes from allocator 'tlsf' ..."
// The allocator has counted the failure in `stats().failed_requests` first.

#ifndef TESSERA_ALLOC_GMP_GMP_ALLOCATOR_H_
#define TESSERA_ALLOC_GMP_GMP_ALLOCATOR_H_

#include <gmp.h>

#include <atomic>
#include <cstddef>
#include <type_traits>

#include "absl/base/optimization.h"
#include "alloc/allocator.h"

namespace tessera {

// The three functions GMP calls, with the signatures of gmp.h.
using GmpAllocateFunction = void* (*)(size_t);
using GmpReallocateFunction = void* (*)(void*, size_t, size_t);
using GmpFreeFunction = void (*)(void*, size_t);

// What GMP allocates with: its functions, and the Tessera allocator behind
// them when they are this file's trampolines (nullptr otherwise).
struct GmpMemoryState {
  GmpAllocateFunction allocate = nullptr;
  GmpReallocateFunction reallocate = nullptr;
  GmpFreeFunction free = nullptr;
  Allocator* allocator = nullptr;
};

namespace gmp_internal {

// The allocator the trampolines use. Relaxed: the route is changed only while
// no thread is inside GMP (contract 2), so ordering comes from whatever
// synchronisation the caller used to hand GMP to other threads.
extern std::atomic<Allocator*> routed_allocator;

// Abort paths: print what failed (size, allocator) and abort. Out of line and
// cold, so the trampolines stay a load, a call and a test.
[[noreturn]] void AllocationFailed(const Allocator& allocator, size_t bytes);
[[noreturn]] void ReallocationFailed(const Allocator& allocator,
                                     size_t old_bytes, size_t new_bytes);

// The functions GMP calls. `A` is the allocator's static type: the routed
// allocator is an `A` (RouteGmpTo<A> stored it), so the downcast is exact.
template <typename A>
void* Allocate(size_t bytes) {
  A* allocator = static_cast<A*>(routed_allocator.load(std::memory_order_relaxed));
  void* block = allocator->Allocate(bytes);
  if (ABSL_PREDICT_FALSE(block == nullptr)) AllocationFailed(*allocator, bytes);
  return block;
}

template <typename A>
void* Reallocate(void* ptr, size_t old_bytes, size_t new_bytes) {
  A* allocator = static_cast<A*>(routed_allocator.load(std::memory_order_relaxed));
  void* block = allocator->Reallocate(ptr, old_bytes, new_bytes);
  if (ABSL_PREDICT_FALSE(block == nullptr)) {
    ReallocationFailed(*allocator, old_bytes, new_bytes);
  }
  return block;
}

template <typename A>
void Free(void* ptr, size_t bytes) {
  A* allocator = static_cast<A*>(routed_allocator.load(std::memory_order_relaxed));
  allocator->Deallocate(ptr, bytes);
}

// Sets GMP's functions and the routed allocator together.
void Install(const GmpMemoryState& state);

}  // namespace gmp_internal

// What GMP allocates with right now (mp_get_memory_functions, plus the routed
// allocator if the functions are still the ones these calls installed).
GmpMemoryState CurrentGmpMemoryState();

// The allocator GMP is routed to by RouteGmpTo/ScopedGmpAllocator, or nullptr
// when GMP uses other functions (its defaults, or someone else's).
Allocator* GmpRoutedAllocator();

// Routes GMP's allocate, reallocate and free to `allocator` (contract above)
// and returns the state before, for RestoreGmpMemoryFunctions.
template <typename A>
GmpMemoryState RouteGmpTo(A& allocator) {
  static_assert(std::is_base_of<Allocator, A>::value,
                "RouteGmpTo takes a tessera::Allocator");
  const GmpMemoryState previous = CurrentGmpMemoryState();
  GmpMemoryState next;
  next.allocate = &gmp_internal::Allocate<A>;
  next.reallocate = &gmp_internal::Reallocate<A>;
  next.free = &gmp_internal::Free<A>;
  next.allocator = &allocator;
  gmp_internal::Install(next);
  return previous;
}

// Puts back a state returned by RouteGmpTo (or CurrentGmpMemoryState).
void RestoreGmpMemoryFunctions(const GmpMemoryState& previous);

// Routes GMP to an allocator for the lifetime of the object, then restores
// what was there before. Scopes nest: the innermost one is in effect, and
// each restores the one around it.
class ScopedGmpAllocator {
 public:
  template <typename A>
  explicit ScopedGmpAllocator(A& allocator)
      : previous_(RouteGmpTo(allocator)) {}
  ~ScopedGmpAllocator() { RestoreGmpMemoryFunctions(previous_); }

  ScopedGmpAllocator(const ScopedGmpAllocator&) = delete;
  ScopedGmpAllocator& operator=(const ScopedGmpAllocator&) = delete;

  // The state this scope restores.
  const GmpMemoryState& previous() const { return previous_; }

 protected:
  // For a scope over another route function (alloc/malloc/gmp_route.h):
  // `previous` is what that function returned when it installed its route.
  struct AlreadyRouted {};
  ScopedGmpAllocator(AlreadyRouted, const GmpMemoryState& previous)
      : previous_(previous) {}

 private:
  const GmpMemoryState previous_;
};

}  // namespace tessera

#endif  // TESSERA_ALLOC_GMP_GMP_ALLOCATOR_H_
