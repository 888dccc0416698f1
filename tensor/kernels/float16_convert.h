// Copyright 2026 The Tessera Authors.
//
// Contiguous float16 <-> float32 conversion (DType::kFloat16), dispatched at
// run time to the best SIMD target Highway compiled; float16_convert-inl.h
// holds the per-target code. Every target gives exactly the values of the
// scalar reference in tensor/float16.h (round to nearest, ties to even,
// subnormals, overflow to infinity, NaN kept and made quiet), which
// float16_convert_test.cc checks for all 65536 float16 values on each target.
//
// Why not Highway's own PromoteTo/DemoteTo everywhere: in Highway 1.0.3 only
// the F16C forms (AVX2 and up) are correct for every input. The SSE4/SSSE3
// and EMU128 DemoteTo truncates instead of rounding, clamps overflow to a
// finite value and loses NaN; that PromoteTo turns infinity and NaN into
// finite numbers. Those targets use integer code here instead.

#ifndef TESSERA_TENSOR_KERNELS_FLOAT16_CONVERT_H_
#define TESSERA_TENSOR_KERNELS_FLOAT16_CONVERT_H_

#include <cstddef>
#include <cstdint>

namespace tessera {
namespace kernels {

// out[i] = the float32 value of the float16 bit pattern in[i], i < n.
// The ranges must not overlap. Nothing outside them is read or written.
void Float16ToFloat32(const uint16_t* in, float* out, size_t n);

// out[i] = in[i] rounded to float16 (its bit pattern), i < n.
void Float32ToFloat16(const float* in, uint16_t* out, size_t n);

}  // namespace kernels
}  // namespace tessera

#endif  // TESSERA_TENSOR_KERNELS_FLOAT16_CONVERT_H_
