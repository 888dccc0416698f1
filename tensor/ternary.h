// Copyright 2026 The Tessera Authors.
//
// -----------------------------------------------------------------------------
// File: ternary.h
// -----------------------------------------------------------------------------
//
// NumPy's three-operand elementwise functions `where` and `clip`. Each
// value operand is a tensor or a scalar (`TensorOrScalar`); all three
// operands broadcast together, and scalars are weak as in binary.h (NEP 50):
//
//   auto r = tessera::where(mask, a, 0.0);      // a where mask, else 0
//   auto c = tessera::clip(a, 0, 255);          // keeps a's dtype
//   absl::Status s = tessera::clip(a, lo, hi, a);  // in place
//
// where(cond, x, y): `cond` is read as truth values (any dtype; NaN is
// true); the result has the promoted dtype of x and y (`ResultType`, or the
// tensor's dtype raised by a scalar's kind; two scalars give their default
// dtypes promoted, e.g. 1 and 2.5 give float64) and the broadcast shape of
// all three.
//
// clip(a, lo, hi) is NumPy's minimum(maximum(a, lo), hi): NaN in `a`
// propagates, and where lo > hi the result is hi. Its dtype is the
// promotion of all three.
//
// The `out` forms write into a writeable tensor of the broadcast shape (or
// one the inputs broadcast to) whose dtype the result casts to safely or
// float-to-float; `out` may overlap any input.
//
// Errors: InvalidArgument naming all three shapes when they do not
// broadcast, naming the dtypes for an unsafe cast to `out` or a scalar that
// does not fit; FailedPrecondition for a read-only `out`;
// ResourceExhausted from the allocator (nothing leaked).

#ifndef TESSERA_TENSOR_TERNARY_H_
#define TESSERA_TENSOR_TERNARY_H_

#include <variant>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "alloc/allocator.h"
#include "tensor/scalar.h"
#include "tensor/tensor.h"

namespace tessera {

// A value operand: a tensor, or a C++ number taken as a weak scalar.
using TensorOrScalar = std::variant<Tensor, Scalar>;

absl::StatusOr<Tensor> where(const Tensor& cond, const TensorOrScalar& x,
                             const TensorOrScalar& y,
                             Allocator* allocator = nullptr);
absl::Status where(const Tensor& cond, const TensorOrScalar& x,
                   const TensorOrScalar& y, const Tensor& out);

absl::StatusOr<Tensor> clip(const Tensor& a, const TensorOrScalar& lo,
                            const TensorOrScalar& hi,
                            Allocator* allocator = nullptr);
absl::Status clip(const Tensor& a, const TensorOrScalar& lo,
                  const TensorOrScalar& hi, const Tensor& out);

}  // namespace tessera

#endif  // TESSERA_TENSOR_TERNARY_H_
