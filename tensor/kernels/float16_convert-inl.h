// Copyright 2026 The Tessera Authors.
//
// Per-target code of the float16 conversions (see float16_convert.h).
// Included once per SIMD target through hwy/foreach_target.h, hence the
// toggling include guard. The tail (fewer than one vector left) goes through
// the scalar reference, so nothing past the end is read or written.

#if defined(TESSERA_TENSOR_KERNELS_FLOAT16_CONVERT_INL_H_) == \
    defined(HWY_TARGET_TOGGLE)
#ifdef TESSERA_TENSOR_KERNELS_FLOAT16_CONVERT_INL_H_
#undef TESSERA_TENSOR_KERNELS_FLOAT16_CONVERT_INL_H_
#else
#define TESSERA_TENSOR_KERNELS_FLOAT16_CONVERT_INL_H_
#endif

#include <cstddef>
#include <cstdint>

#include "hwy/highway.h"
#include "tensor/float16.h"

HWY_BEFORE_NAMESPACE();
namespace tessera {
namespace kernels {
namespace HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

// This target's kernels (defined in float16_convert.cc); tests call them
// per target.
void Float16ToFloat32Impl(const uint16_t* in, float* out, size_t n);
void Float32ToFloat16Impl(const float* in, uint16_t* out, size_t n);

// Whether this target converts with F16C (vcvtph2ps / vcvtps2ph with
// round-to-nearest-even), which Highway's PromoteTo/DemoteTo use from AVX2 up.
#undef TESSERA_FLOAT16_NATIVE
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2 && !defined(HWY_DISABLE_F16C)
#define TESSERA_FLOAT16_NATIVE 1
#else
#define TESSERA_FLOAT16_NATIVE 0
#endif

// The integer form of Float16BitsToFloat (tensor/float16.h), lane by lane.
template <class DF, class VU16>
HWY_INLINE hn::Vec<DF> PromoteFloat16(DF df, VU16 bits16) {
  const hn::RebindToUnsigned<DF> du;
  const hn::RebindToSigned<DF> di;
  const auto b = hn::PromoteTo(du, bits16);
  const auto sign = hn::ShiftLeft<16>(hn::And(b, hn::Set(du, 0x8000u)));
  const auto exponent = hn::And(hn::ShiftRight<10>(b), hn::Set(du, 0x1Fu));
  const auto mantissa = hn::And(b, hn::Set(du, 0x3FFu));
  const auto shifted = hn::ShiftLeft<13>(mantissa);
  const auto normal =
      hn::Or(hn::ShiftLeft<23>(hn::Add(exponent, hn::Set(du, 127 - 15))),
             shifted);
  const auto quiet = hn::IfThenElseZero(hn::Ne(mantissa, hn::Zero(du)),
                                        hn::Set(du, 0x00400000u));
  const auto special =
      hn::Or(hn::Or(hn::Set(du, 0x7F800000u), shifted), quiet);
  // mantissa * 2^-24: exact.
  const auto subnormal = hn::BitCast(
      du, hn::Mul(hn::ConvertTo(df, hn::BitCast(di, mantissa)),
                  hn::Set(df, 0x1p-24f)));
  const auto magnitude = hn::IfThenElse(
      hn::Eq(exponent, hn::Zero(du)), subnormal,
      hn::IfThenElse(hn::Eq(exponent, hn::Set(du, 0x1Fu)), special, normal));
  return hn::BitCast(df, hn::Or(sign, magnitude));
}

// The integer form of FloatToFloat16Bits, lane by lane (as 32-bit lanes
// holding the 16-bit result). Subnormal results come from one float add:
// adding 0.5f puts the value's 2^-24 units into the low mantissa bits with
// the hardware's round-to-nearest-even (the default mode, which the library
// never changes).
template <class DF>
HWY_INLINE hn::Vec<hn::RebindToUnsigned<DF>> DemoteFloat16Bits(
    DF df, hn::Vec<DF> v) {
  const hn::RebindToUnsigned<DF> du;
  const auto x = hn::BitCast(du, v);
  const auto sign = hn::ShiftRight<16>(hn::And(x, hn::Set(du, 0x80000000u)));
  const auto a = hn::And(x, hn::Set(du, 0x7FFFFFFFu));
  const auto nan =
      hn::Or(hn::Set(du, 0x7E00u),
             hn::And(hn::ShiftRight<13>(a), hn::Set(du, 0x3FFu)));
  // Normal: rebias the exponent, then add 0xFFF plus the last kept bit and
  // drop 13 bits: ties go to the even neighbour, and the carry may run into
  // the exponent (up to 0x7C00, infinity).
  const auto odd = hn::And(hn::ShiftRight<13>(a), hn::Set(du, 1u));
  const auto normal = hn::ShiftRight<13>(hn::Add(
      hn::Add(a, hn::Set(du, 0xC8000FFFu)),  // -(112 << 23) + 0xFFF, mod 2^32
      odd));
  const auto half = hn::Set(df, 0.5f);
  const auto subnormal = hn::Sub(
      hn::BitCast(du, hn::Add(hn::BitCast(df, a), half)), hn::BitCast(du, half));
  const auto finite = hn::IfThenElse(hn::Lt(a, hn::Set(du, 0x38800000u)),
                                     subnormal, normal);
  const auto big = hn::IfThenElse(hn::Gt(a, hn::Set(du, 0x7F800000u)), nan,
                                  hn::Set(du, 0x7C00u));
  const auto magnitude =
      hn::IfThenElse(hn::Lt(a, hn::Set(du, 0x47800000u)), finite, big);
  return hn::Or(sign, magnitude);
}

HWY_INLINE void Float16ToFloat32Body(const uint16_t* HWY_RESTRICT in,
                                     float* HWY_RESTRICT out, size_t n) {
  const hn::ScalableTag<float> df;
  const size_t N = hn::Lanes(df);
  size_t i = 0;
#if TESSERA_FLOAT16_NATIVE
  const hn::Rebind<hwy::float16_t, decltype(df)> dh;
  const hwy::float16_t* h = reinterpret_cast<const hwy::float16_t*>(in);
  for (; i + N <= n; i += N) {
    hn::StoreU(hn::PromoteTo(df, hn::LoadU(dh, h + i)), df, out + i);
  }
#else
  const hn::Rebind<uint16_t, decltype(df)> du16;
  for (; i + N <= n; i += N) {
    hn::StoreU(PromoteFloat16(df, hn::LoadU(du16, in + i)), df, out + i);
  }
#endif
  for (; i < n; ++i) out[i] = Float16BitsToFloat(in[i]);
}

HWY_INLINE void Float32ToFloat16Body(const float* HWY_RESTRICT in,
                                     uint16_t* HWY_RESTRICT out, size_t n) {
  const hn::ScalableTag<float> df;
  const size_t N = hn::Lanes(df);
  size_t i = 0;
#if TESSERA_FLOAT16_NATIVE
  const hn::Rebind<hwy::float16_t, decltype(df)> dh;
  hwy::float16_t* h = reinterpret_cast<hwy::float16_t*>(out);
  for (; i + N <= n; i += N) {
    hn::StoreU(hn::DemoteTo(dh, hn::LoadU(df, in + i)), dh, h + i);
  }
#else
  const hn::Rebind<uint16_t, decltype(df)> du16;
  const hn::RebindToSigned<decltype(df)> di;
  for (; i + N <= n; i += N) {
    const auto bits = DemoteFloat16Bits(df, hn::LoadU(df, in + i));
    // Every lane is below 2^16, so the saturating demotion is exact.
    hn::StoreU(hn::DemoteTo(du16, hn::BitCast(di, bits)), du16, out + i);
  }
#endif
  for (; i < n; ++i) out[i] = FloatToFloat16Bits(in[i]);
}

}  // namespace HWY_NAMESPACE
}  // namespace kernels
}  // namespace tessera
HWY_AFTER_NAMESPACE();

#endif  // include guard
