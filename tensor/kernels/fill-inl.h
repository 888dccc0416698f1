// Copyright 2026 The Tessera Authors.
//
// Per-target code of the fill kernels (see fill.h). Included once per SIMD
// target through hwy/foreach_target.h, hence the toggling include guard. The
// tail (end - i < one vector) is scalar: nothing past `end` is written.

#if defined(TESSERA_TENSOR_KERNELS_FILL_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TESSERA_TENSOR_KERNELS_FILL_INL_H_
#undef TESSERA_TENSOR_KERNELS_FILL_INL_H_
#else
#define TESSERA_TENSOR_KERNELS_FILL_INL_H_
#endif

#include <cstdint>
#include <cstring>

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace tessera {
namespace kernels {
namespace HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

// This target's kernel (defined in fill.cc); tests call it per target.
void ArangeFloat32Impl(float* out, int32_t begin, int32_t end, float first,
                       float delta);

// out[i] = first + float(i) * delta: int32 lane indices, converted exactly as
// static_cast<float>(int32_t) does (round to nearest), then a multiply and an
// add, each rounded (no FMA: see fill.h).
HWY_INLINE void ArangeFloat32Body(float* out, int32_t begin, int32_t end,
                                  float first, float delta) {
  const hn::ScalableTag<float> df;
  const hn::RebindToSigned<decltype(df)> di;
  const int32_t N = static_cast<int32_t>(hn::Lanes(df));
  const auto vfirst = hn::Set(df, first);
  const auto vdelta = hn::Set(df, delta);
  const auto step = hn::Set(di, N);
  auto index = hn::Iota(di, begin);
  int32_t i = begin;
  for (; end - i >= N; i += N) {
    const auto value = hn::Add(vfirst, hn::Mul(hn::ConvertTo(df, index), vdelta));
    hn::StoreU(value, df, out + i);
    index = hn::Add(index, step);
  }
  for (; i < end; ++i) out[i] = first + static_cast<float>(i) * delta;
}

void ZeroBytesImpl(void* out, size_t bytes);

// Four vectors per step, then single vectors, then one last vector ending at
// the end of the range (overlapping what is already zero); below one vector,
// memset.
HWY_INLINE void ZeroBytesBody(void* out, size_t bytes) {
  const hn::ScalableTag<uint8_t> d;
  const size_t N = hn::Lanes(d);
  uint8_t* p = static_cast<uint8_t*>(out);
  if (bytes < N) {
    std::memset(p, 0, bytes);
    return;
  }
  const auto zero = hn::Zero(d);
  size_t i = 0;
  for (; bytes - i >= 4 * N; i += 4 * N) {
    hn::StoreU(zero, d, p + i);
    hn::StoreU(zero, d, p + i + N);
    hn::StoreU(zero, d, p + i + 2 * N);
    hn::StoreU(zero, d, p + i + 3 * N);
  }
  for (; bytes - i >= N; i += N) hn::StoreU(zero, d, p + i);
  if (i < bytes) hn::StoreU(zero, d, p + bytes - N);
}

}  // namespace HWY_NAMESPACE
}  // namespace kernels
}  // namespace tessera
HWY_AFTER_NAMESPACE();

#endif  // TESSERA_TENSOR_KERNELS_FILL_INL_H_
