// Copyright 2026 The Tessera Authors.
//
// Dispatch table of the float16 conversions: compiled once per SIMD target by
// hwy/foreach_target.h, chosen at run time by HWY_DYNAMIC_DISPATCH.

#include "tensor/kernels/float16_convert.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "tensor/kernels/float16_convert.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/highway.h"
#include "tensor/kernels/float16_convert-inl.h"

HWY_BEFORE_NAMESPACE();
namespace tessera {
namespace kernels {
namespace HWY_NAMESPACE {

void Float16ToFloat32Impl(const uint16_t* in, float* out, size_t n) {
  Float16ToFloat32Body(in, out, n);
}

void Float32ToFloat16Impl(const float* in, uint16_t* out, size_t n) {
  Float32ToFloat16Body(in, out, n);
}

}  // namespace HWY_NAMESPACE
}  // namespace kernels
}  // namespace tessera
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tessera {
namespace kernels {

HWY_EXPORT(Float16ToFloat32Impl);
HWY_EXPORT(Float32ToFloat16Impl);

void Float16ToFloat32(const uint16_t* in, float* out, size_t n) {
  HWY_DYNAMIC_DISPATCH(Float16ToFloat32Impl)(in, out, n);
}

void Float32ToFloat16(const float* in, uint16_t* out, size_t n) {
  HWY_DYNAMIC_DISPATCH(Float32ToFloat16Impl)(in, out, n);
}

}  // namespace kernels
}  // namespace tessera
#endif  // HWY_ONCE
