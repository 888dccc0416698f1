// Copyright 2026 The Tessera Authors.
//
// A 256-entry table that spreads the 8 bits of a byte into 8 bytes of 0/1:
// how the Highway kernels turn a comparison mask (StoreMaskBits) into bool
// elements with the same code on every target and lane type.

#ifndef TESSERA_TENSOR_KERNELS_INTERNAL_BITS_TO_BYTES_H_
#define TESSERA_TENSOR_KERNELS_INTERNAL_BITS_TO_BYTES_H_

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace tessera {
namespace kernels {
namespace internal {

struct BitsToBytesTable {
  uint64_t bytes[256];
  constexpr BitsToBytesTable() : bytes() {
    for (int i = 0; i < 256; ++i) {
      uint64_t v = 0;
      for (int bit = 0; bit < 8; ++bit) {
        if ((i >> bit) & 1) v |= uint64_t{1} << (8 * bit);
      }
      bytes[i] = v;
    }
  }
};
// Byte k of bytes[i] is bit k of i only in little-endian memory order.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "byte order of the bit table");
inline constexpr BitsToBytesTable kBitsToBytes{};

// Writes `lanes` bytes of 0/1 to `out` from the mask bits in `bits` (lane i
// is bit i % 8 of bits[i / 8], as Highway's StoreMaskBits lays them out).
inline void SpreadMaskBits(const uint8_t* bits, size_t lanes, uint8_t* out) {
  for (size_t k = 0; k < lanes; k += 8) {
    const uint64_t bytes = kBitsToBytes.bytes[bits[k / 8]];
    std::memcpy(out + k, &bytes, lanes - k < 8 ? lanes - k : 8);
  }
}

}  // namespace internal
}  // namespace kernels
}  // namespace tessera

#endif  // TESSERA_TENSOR_KERNELS_INTERNAL_BITS_TO_BYTES_H_
