// Copyright 2026 The Tessera Authors.
//
// TlsfArena internals: the bit count the pointer index uses to find a
// block's node among a page's start record (IndexLookup, IndexBlock).

#ifndef TESSERA_ALLOC_TLSF_INTERNAL_POP_COUNT_H_
#define TESSERA_ALLOC_TLSF_INTERNAL_POP_COUNT_H_

#include <cstdint>

#include "absl/base/attributes.h"

namespace tessera {
namespace tlsf_internal {

// Bits set in x. Without -mpopcnt (the default x86-64 target) the builtin
// is a library call; this is a dozen inline instructions.
ABSL_ATTRIBUTE_ALWAYS_INLINE inline uint32_t PopCount(uint64_t x) {
#ifdef __POPCNT__
  return static_cast<uint32_t>(__builtin_popcountll(x));
#else
  x -= (x >> 1) & 0x5555555555555555ULL;
  x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
  x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
  return static_cast<uint32_t>((x * 0x0101010101010101ULL) >> 56);
#endif
}

}  // namespace tlsf_internal
}  // namespace tessera

#endif  // TESSERA_ALLOC_TLSF_INTERNAL_POP_COUNT_H_
