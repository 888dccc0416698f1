// Copyright 2026 The Tessera Authors.
//
// -----------------------------------------------------------------------------
// File: float16.h
// -----------------------------------------------------------------------------
//
// `Float16` is the storage type of DType::kFloat16: IEEE 754 binary16 (1 sign
// bit, 5 exponent bits, 10 mantissa bits), NumPy's `float16`. It is a plain
// 16-bit pattern with no arithmetic of its own, on purpose: NumPy computes
// every float16 operation in float32 and rounds the result once, and so does
// Tessera, so code that tries `a + b` on two Float16 values fails to compile
// instead of computing in some other precision.
//
// The scalar conversions below are the reference every vectorised path
// (kernels/float16.h) is tested against, all 65536 values:
//   * float16 -> float32 / float64 is exact (every binary16 value is a
//     float32 value). A NaN keeps its payload and comes out quiet.
//   * float32 / float64 -> float16 rounds to nearest, ties to even, with
//     gradual underflow into the subnormals (2^-24 is the smallest) and
//     overflow to infinity from 65520 up (65504 is the largest finite value).
//     A NaN keeps the top 10 bits of its payload and comes out quiet (the
//     quiet bit set, as x86's F16C does; NumPy's scalar code instead keeps a
//     signalling NaN signalling, which NumPy's own SIMD paths do not).
//   * float64 -> float16 rounds once, from the double itself (rounding via
//     float32 first could round twice and differ in the last bit, which is why
//     NumPy has npy_double_to_half).

#ifndef TESSERA_TENSOR_FLOAT16_H_
#define TESSERA_TENSOR_FLOAT16_H_

#include <cstdint>
#include <cstring>

namespace tessera {

struct Float16 {
  uint16_t bits = 0;  // The binary16 pattern, host byte order.

  static constexpr Float16 FromBits(uint16_t b) {
    Float16 h;
    h.bits = b;
    return h;
  }
};
static_assert(sizeof(Float16) == 2, "Float16 is stored as two bytes");

inline float Float16BitsToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exponent = (h >> 10) & 0x1Fu;
  const uint32_t mantissa = h & 0x3FFu;
  uint32_t bits;
  if (exponent == 0x1F) {
    // Infinity, or a NaN made quiet with its payload kept.
    bits = sign | 0x7F800000u | (mantissa << 13) |
           (mantissa != 0 ? 0x00400000u : 0u);
  } else if (exponent != 0) {
    bits = sign | ((exponent + (127 - 15)) << 23) | (mantissa << 13);
  } else {
    // Zero or subnormal: mantissa * 2^-24, exact in float32.
    float value = static_cast<float>(mantissa) * 0x1p-24f;
    std::memcpy(&bits, &value, sizeof(bits));
    bits |= sign;
  }
  float out;
  std::memcpy(&out, &bits, sizeof(out));
  return out;
}

namespace float16_internal {

// Rounds the magnitude `a` (a float's or double's bits without the sign,
// below infinity) to binary16 with ties to even; 0x7C00 when it overflows.
template <typename Bits, int kMantissaBits, int kExponentBias>
inline uint16_t RoundMagnitude(Bits a) {
  constexpr int kDrop = kMantissaBits - 10;  // mantissa bits rounded away
  constexpr Bits kOne = 1;
  // 2^16 and up is infinity (65520 rounds up to 2^16 below, through the
  // carry, which is also infinity).
  constexpr Bits kOverflow = static_cast<Bits>(kExponentBias + 16)
                             << kMantissaBits;
  constexpr Bits kMinNormal = static_cast<Bits>(kExponentBias - 14)
                              << kMantissaBits;
  constexpr Bits kBelowHalfTiny = static_cast<Bits>(kExponentBias - 25)
                                  << kMantissaBits;  // 2^-25
  if (a >= kOverflow) return 0x7C00;
  if (a >= kMinNormal) {
    // Rebias the exponent in place; the rounding carry may run into it.
    Bits h = (a >> kDrop) -
             (static_cast<Bits>(kExponentBias - 15) << 10);
    const Bits rest = a & ((kOne << kDrop) - 1);
    const Bits half = kOne << (kDrop - 1);
    if (rest > half || (rest == half && (h & 1) != 0)) ++h;
    return static_cast<uint16_t>(h);
  }
  // 2^-25 (exactly half the smallest subnormal) and below round to zero.
  if (a <= kBelowHalfTiny) return 0;
  // Subnormal: value / 2^-24 with the implicit bit made explicit.
  const int exponent = static_cast<int>(a >> kMantissaBits);
  const Bits mantissa = (a & ((kOne << kMantissaBits) - 1)) |
                        (kOne << kMantissaBits);
  // value = mantissa * 2^(exponent - bias - kMantissaBits); in units of
  // 2^-24 that is mantissa >> shift, shift in [kDrop + 1, kMantissaBits + 1].
  const int shift = kExponentBias + kMantissaBits - 24 - exponent;
  Bits h = mantissa >> shift;
  const Bits rest = mantissa & ((kOne << shift) - 1);
  const Bits half = kOne << (shift - 1);
  if (rest > half || (rest == half && (h & 1) != 0)) ++h;
  return static_cast<uint16_t>(h);
}

// The binary16 bits of the float or double whose bits are `x` (Bits is
// uint32_t or uint64_t): the sign kept; a NaN stays NaN (quiet, its top
// payload bits kept), an infinity infinite; the rest RoundMagnitude.
template <typename Bits, int kMantissaBits, int kExponentBias>
inline uint16_t NarrowToFloat16Bits(Bits x) {
  constexpr int kSignShift = static_cast<int>(sizeof(Bits)) * 8 - 16;
  constexpr Bits kMagnitude = ~Bits{0} >> 1;
  constexpr Bits kInfinity =  // every exponent bit set, mantissa zero
      kMagnitude & ~((Bits{1} << kMantissaBits) - 1);
  const uint16_t sign = static_cast<uint16_t>((x >> kSignShift) & 0x8000u);
  const Bits a = x & kMagnitude;
  if (a >= kInfinity) {
    if (a == kInfinity) return sign | 0x7C00u;
    return static_cast<uint16_t>(sign | 0x7E00u |
                                 ((a >> (kMantissaBits - 10)) & 0x3FFu));
  }
  return sign | RoundMagnitude<Bits, kMantissaBits, kExponentBias>(a);
}

}  // namespace float16_internal

inline uint16_t FloatToFloat16Bits(float f) {
  uint32_t x;
  std::memcpy(&x, &f, sizeof(x));
  return float16_internal::NarrowToFloat16Bits<uint32_t, 23, 127>(x);
}

inline uint16_t DoubleToFloat16Bits(double d) {
  uint64_t x;
  std::memcpy(&x, &d, sizeof(x));
  return float16_internal::NarrowToFloat16Bits<uint64_t, 52, 1023>(x);
}

inline float ToFloat(Float16 h) { return Float16BitsToFloat(h.bits); }
inline Float16 ToFloat16(float f) {
  return Float16::FromBits(FloatToFloat16Bits(f));
}
inline Float16 ToFloat16(double d) {
  return Float16::FromBits(DoubleToFloat16Bits(d));
}

}  // namespace tessera

#endif  // TESSERA_TENSOR_FLOAT16_H_
