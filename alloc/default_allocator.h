// Copyright 2026 The Tessera Authors.
//
// The default allocator, settable for a scope, like NumPy's per-context
// memory handler (NEP 49). Code that creates tensors asks `DefaultAllocator()`
// instead of taking an allocator argument through every call:
//
//   TlsfArena arena(...);
//   {
//     tessera::ScopedDefaultAllocator use_arena(arena);
//     auto t = tessera::zeros({1024, 1024});  // storage from the arena
//   }                                          // previous default restored
//
// The setting is thread-local: other threads keep their own default. Scopes
// nest and must be destroyed in reverse order of construction (they are
// stack objects). Without any scope, the default is GlobalMallocAllocator().

#ifndef TESSERA_ALLOC_DEFAULT_ALLOCATOR_H_
#define TESSERA_ALLOC_DEFAULT_ALLOCATOR_H_

#include "alloc/allocator.h"

namespace tessera {

// The calling thread's current default allocator. Never null.
Allocator& DefaultAllocator();

class ScopedDefaultAllocator {
 public:
  explicit ScopedDefaultAllocator(Allocator& allocator);
  ~ScopedDefaultAllocator();

  ScopedDefaultAllocator(const ScopedDefaultAllocator&) = delete;
  ScopedDefaultAllocator& operator=(const ScopedDefaultAllocator&) = delete;

 private:
  Allocator* previous_;
};

}  // namespace tessera

#endif  // TESSERA_ALLOC_DEFAULT_ALLOCATOR_H_
