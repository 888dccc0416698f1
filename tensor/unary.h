// Copyright 2026 The Tessera Authors.
//
// -----------------------------------------------------------------------------
// File: unary.h
// -----------------------------------------------------------------------------
//
// NumPy's elementwise unary ufuncs `negative`, `abs`, `sign`, `square`,
// `sqrt`, `exp`, `log`, `sin`, `cos`, `tanh`, `floor`, `ceil`, `isnan`,
// `isfinite`, `logical_not`:
//
//   auto r = tessera::sqrt(a);               // new tensor
//   absl::Status s = tessera::exp(a, out);   // into an existing tensor
//
// Result dtypes are NumPy's (tensor/testdata/elementwise_table.txt holds
// NumPy's own answers and the tests check every one):
//   * negative, abs, sign, square keep the dtype (integers wrap: abs of int8
//     -128 is -128, negative of uint8 1 is 255); square of bool is int8,
//     abs of bool is bool; negative and sign of bool are errors;
//   * sqrt, exp, log, sin, cos, tanh, floor and ceil compute in a float:
//     float16/float32/float64 keep theirs, bool/int8/uint8 give float16,
//     int16/uint16 float32, wider integers float64. A float16 result is
//     computed in float32 and rounded once, as NumPy's half loops do;
//   * isnan, isfinite and logical_not give bool for every dtype.
// Special values follow C (log(0) = -inf, log(-1) = NaN, sqrt(-1) = NaN,
// exp(1000) = inf); exp, log, sin, cos and tanh are within 4 ulp of the
// std:: functions (kernels/unary.h).
//
// The `out` forms write into a writeable tensor whose shape the input
// broadcasts to and whose dtype is the result dtype or one it can be cast to
// safely or float-to-float. `out` may be the input itself (in place); any
// other overlap reads from a copy of the input.
//
// Errors: InvalidArgument naming the op and dtype when NumPy has no loop for
// it, or naming both shapes when the input does not broadcast to `out`,
// or naming both dtypes for an unsafe cast to `out`; FailedPrecondition for
// a read-only `out`; ResourceExhausted from the allocator (nothing leaked).
//
// Allocation: results come from `allocator` (nullptr: DefaultAllocator());
// the `out` forms allocate only temporaries (from `out`'s allocator).

#ifndef TESSERA_TENSOR_UNARY_H_
#define TESSERA_TENSOR_UNARY_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "alloc/allocator.h"
#include "tensor/dtype.h"
#include "tensor/kernels/unary.h"
#include "tensor/tensor.h"

namespace tessera {

// The dtype `op` returns for input dtype `dtype`, or InvalidArgument if
// NumPy has no loop for it (negative or sign of bool).
absl::StatusOr<DType> UnaryResultType(UnaryOp op, DType dtype);

absl::StatusOr<Tensor> Unary(UnaryOp op, const Tensor& x,
                             Allocator* allocator = nullptr);
absl::Status UnaryInto(UnaryOp op, const Tensor& x, const Tensor& out);

#define TESSERA_UNARY_UFUNC(name, op)                                  \
  inline absl::StatusOr<Tensor> name(const Tensor& x,                  \
                                     Allocator* allocator = nullptr) { \
    return Unary(op, x, allocator);                                    \
  }                                                                    \
  inline absl::Status name(const Tensor& x, const Tensor& out) {       \
    return UnaryInto(op, x, out);                                      \
  }

TESSERA_UNARY_UFUNC(negative, UnaryOp::kNegative)
TESSERA_UNARY_UFUNC(abs, UnaryOp::kAbs)
TESSERA_UNARY_UFUNC(sign, UnaryOp::kSign)
TESSERA_UNARY_UFUNC(square, UnaryOp::kSquare)
TESSERA_UNARY_UFUNC(sqrt, UnaryOp::kSqrt)
TESSERA_UNARY_UFUNC(exp, UnaryOp::kExp)
TESSERA_UNARY_UFUNC(log, UnaryOp::kLog)
TESSERA_UNARY_UFUNC(sin, UnaryOp::kSin)
TESSERA_UNARY_UFUNC(cos, UnaryOp::kCos)
TESSERA_UNARY_UFUNC(tanh, UnaryOp::kTanh)
TESSERA_UNARY_UFUNC(floor, UnaryOp::kFloor)
TESSERA_UNARY_UFUNC(ceil, UnaryOp::kCeil)
TESSERA_UNARY_UFUNC(isnan, UnaryOp::kIsNan)
TESSERA_UNARY_UFUNC(isfinite, UnaryOp::kIsFinite)
TESSERA_UNARY_UFUNC(logical_not, UnaryOp::kLogicalNot)

#undef TESSERA_UNARY_UFUNC

}  // namespace tessera

#endif  // TESSERA_TENSOR_UNARY_H_
