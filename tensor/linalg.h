// Copyright 2026 The Tessera Authors.
//
// -----------------------------------------------------------------------------
// File: linalg.h
// -----------------------------------------------------------------------------
//
// NumPy's matrix products `matmul` (the `@` operator) and `dot`:
//
//   auto c = tessera::matmul(a, b);   // (2, 3) @ (3, 4) -> (2, 4)
//   auto v = tessera::dot(x, y);      // 1-D . 1-D -> 0-d inner product
//
// `matmul` follows np.matmul: a 1-D first operand is a row vector and a 1-D
// second operand a column vector, the added axis removed from the result;
// operands of more than 2 dimensions are stacks of matrices in the last two
// axes, and the leading (batch) axes broadcast as in NumPy: (2, 1, 3, 4) @
// (5, 4, 6) -> (2, 5, 3, 6). 0-d operands are InvalidArgument (NumPy raises
// too; use multiply).
//
// `dot` follows np.dot: a 0-d operand multiplies elementwise; up to 2-D it is
// `matmul`; for N-d operands it sums over the last axis of `a` and the
// second-to-last of `b` (result shape a.shape[:-1] + b.shape[:-2] +
// b.shape[-1:]).
//
// The result dtype is NumPy's promotion of the two (`ResultType`), computed
// in that dtype: float32/float64 by the cache-blocked Highway kernel
// (kernels/matmul.h), integers wrapping and bool as OR of ANDs. Operands
// whose last axis is not contiguous, or of another dtype, are first copied
// (converted) to C order; batch broadcasting never copies.
//
// Errors (InvalidArgument, naming both shapes): inner dimensions that differ,
// batch axes that do not broadcast. Allocation failure is ResourceExhausted.

#ifndef TESSERA_TENSOR_LINALG_H_
#define TESSERA_TENSOR_LINALG_H_

#include "absl/status/statusor.h"
#include "alloc/allocator.h"
#include "tensor/tensor.h"

namespace tessera {

absl::StatusOr<Tensor> matmul(const Tensor& a, const Tensor& b,
                              Allocator* allocator = nullptr);

absl::StatusOr<Tensor> dot(const Tensor& a, const Tensor& b,
                           Allocator* allocator = nullptr);

}  // namespace tessera

#endif  // TESSERA_TENSOR_LINALG_H_
