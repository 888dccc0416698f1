// Copyright 2026 The Tessera Authors.
//
// Row kernels for elementwise binary operations, dispatched at run time to
// the best SIMD target Highway compiled (binary-inl.h holds the per-target
// code; binary.cc the dispatch table).
//
// A "row" is `n` elements of each operand at a byte stride each: what
// internal/strided_loop.h hands out after coalescing axes. The kernel picks
// NumPy's fast paths from the strides:
//   * contiguous: all three strides equal the element size;
//   * scalar/broadcast: one input has stride 0, the other and the output are
//     contiguous;
//   * generic: anything else, one element at a time.
//
// Contract: all three operands have dtype `dtype`; `out` may be exactly `a`
// or `b` (same address and stride) but must not otherwise overlap them; the
// caller has rejected operations the dtype lacks (bool subtract; divide is
// only called for floating dtypes). Integer arithmetic wraps.

#ifndef TESSERA_TENSOR_KERNELS_BINARY_H_
#define TESSERA_TENSOR_KERNELS_BINARY_H_

#include <cstdint>

#include "tensor/dtype.h"

namespace tessera {

enum class BinaryOp : uint8_t {
  kAdd,
  kSubtract,
  kMultiply,
  kDivide,
  kMaximum,  // NaN-propagating, as np.maximum
  kMinimum,  // NaN-propagating, as np.minimum
};

// NumPy's ufunc name ("add", "maximum", ...).
const char* BinaryOpName(BinaryOp op);

namespace kernels {

void BinaryRow(BinaryOp op, DType dtype, const void* a, int64_t a_stride,
               const void* b, int64_t b_stride, void* out, int64_t out_stride,
               int64_t n);

}  // namespace kernels
}  // namespace tessera

#endif  // TESSERA_TENSOR_KERNELS_BINARY_H_
