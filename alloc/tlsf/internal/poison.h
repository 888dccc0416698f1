// Copyright 2026 The Tessera Authors.
//
// TlsfArena internals: free payloads are poisoned in ASan builds, so that a
// read through a stale pointer is reported where it happens. Both calls fold
// away in other builds.

#ifndef TESSERA_ALLOC_TLSF_INTERNAL_POISON_H_
#define TESSERA_ALLOC_TLSF_INTERNAL_POISON_H_

#include <cstddef>

#include "absl/base/config.h"

#ifdef ABSL_HAVE_ADDRESS_SANITIZER
#include <sanitizer/asan_interface.h>
#endif

namespace tessera {
namespace tlsf_internal {

// Marks [addr, addr + size) as free: ASan reports any access to it.
inline void PoisonFree(const char* addr, size_t size) {
#ifdef ABSL_HAVE_ADDRESS_SANITIZER
  ASAN_POISON_MEMORY_REGION(addr, size);
#else
  (void)addr;
  (void)size;
#endif
}

// Marks [addr, addr + size) as usable again.
inline void Unpoison(const char* addr, size_t size) {
#ifdef ABSL_HAVE_ADDRESS_SANITIZER
  ASAN_UNPOISON_MEMORY_REGION(addr, size);
#else
  (void)addr;
  (void)size;
#endif
}

}  // namespace tlsf_internal
}  // namespace tessera

#endif  // TESSERA_ALLOC_TLSF_INTERNAL_POISON_H_
