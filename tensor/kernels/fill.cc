// Copyright 2026 The Tessera Authors.
//
// Dispatch table of the fill kernels: compiled once per SIMD target by
// hwy/foreach_target.h, chosen at run time by HWY_DYNAMIC_DISPATCH.

#include "tensor/kernels/fill.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "tensor/kernels/fill.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/highway.h"
#include "tensor/kernels/fill-inl.h"

HWY_BEFORE_NAMESPACE();
namespace tessera {
namespace kernels {
namespace HWY_NAMESPACE {

void ArangeFloat32Impl(float* out, int32_t begin, int32_t end, float first,
                       float delta) {
  ArangeFloat32Body(out, begin, end, first, delta);
}

void ZeroBytesImpl(void* out, size_t bytes) { ZeroBytesBody(out, bytes); }

}  // namespace HWY_NAMESPACE
}  // namespace kernels
}  // namespace tessera
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tessera {
namespace kernels {

HWY_EXPORT(ArangeFloat32Impl);
HWY_EXPORT(ZeroBytesImpl);

void ZeroBytes(void* out, size_t bytes) {
  HWY_DYNAMIC_DISPATCH(ZeroBytesImpl)(out, bytes);
}

void ArangeFloat32(float* out, int32_t begin, int32_t end, float first,
                   float delta) {
  HWY_DYNAMIC_DISPATCH(ArangeFloat32Impl)(out, begin, end, first, delta);
}

}  // namespace kernels
}  // namespace tessera
#endif  // HWY_ONCE
