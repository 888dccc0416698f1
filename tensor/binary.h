// Copyright 2026 The Tessera Authors.
//
// -----------------------------------------------------------------------------
// File: binary.h
// -----------------------------------------------------------------------------
//
// NumPy's elementwise binary ufuncs `add`, `subtract`, `multiply`, `divide`,
// `maximum`, `minimum` over tensors and scalars, with NumPy's broadcasting
// and type promotion:
//
//   auto c = tessera::add(a, b);            // new tensor, broadcast shape
//   auto d = tessera::multiply(a, 2.5);     // weak scalar (NEP 50)
//   absl::Status s = tessera::add(a, b, out);  // into an existing tensor
//
// Result dtype: `ResultType(a, b)` (dtype.h); `divide` gives float64 unless
// that is already a float (NumPy's true_divide: int / int -> float64);
// a scalar operand is weak (scalar.h: `float32 tensor * 2.5` is float32).
// Operands of another dtype are converted first (into a temporary from the
// result's allocator), as NumPy's buffered loops do.
//
// Semantics: integer overflow wraps; maximum/minimum propagate NaN; bool add
// is logical or and bool multiply logical and; bool subtract is an error,
// as in NumPy. Broadcasting follows view.h's `BroadcastShapes`, including
// zero-length axes ((1, 0) with (0, 1) gives (0, 0)).
//
// The `out` forms write into a writeable tensor whose shape is the broadcast
// shape (inputs are broadcast up to it), and whose dtype is the result dtype
// or one it can be cast to safely or float-to-float. They are correct when
// `out` overlaps an input: identical layouts (in-place `a += b`) run
// directly, any other overlap reads from a copy of the input.
//
// Errors: InvalidArgument naming both shapes when they do not broadcast, or
// naming the dtypes for an undefined operation or an unsafe cast to `out`;
// FailedPrecondition for a read-only `out`; ResourceExhausted from the
// allocator (nothing leaked, no result).
//
// Allocation: results come from `allocator` (nullptr: DefaultAllocator());
// the `out` forms allocate only for temporaries (from `out`'s allocator).

#ifndef TESSERA_TENSOR_BINARY_H_
#define TESSERA_TENSOR_BINARY_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "alloc/allocator.h"
#include "tensor/dtype.h"
#include "tensor/kernels/binary.h"
#include "tensor/scalar.h"
#include "tensor/tensor.h"

namespace tessera {

// The dtype `op` computes in and returns for these operand dtypes, or
// InvalidArgument if NumPy rejects the combination (bool subtract).
absl::StatusOr<DType> BinaryResultType(BinaryOp op, DType a, DType b);

absl::StatusOr<Tensor> Binary(BinaryOp op, const Tensor& a, const Tensor& b,
                              Allocator* allocator = nullptr);
absl::StatusOr<Tensor> Binary(BinaryOp op, const Tensor& a, Scalar b,
                              Allocator* allocator = nullptr);
absl::StatusOr<Tensor> Binary(BinaryOp op, Scalar a, const Tensor& b,
                              Allocator* allocator = nullptr);
absl::Status BinaryInto(BinaryOp op, const Tensor& a, const Tensor& b,
                        const Tensor& out);

// Named NumPy ufuncs. Each has the four forms of `add`.
#define TESSERA_BINARY_UFUNC(name, op)                                     \
  inline absl::StatusOr<Tensor> name(const Tensor& a, const Tensor& b,     \
                                     Allocator* allocator = nullptr) {     \
    return Binary(op, a, b, allocator);                                    \
  }                                                                        \
  inline absl::StatusOr<Tensor> name(const Tensor& a, Scalar b,            \
                                     Allocator* allocator = nullptr) {     \
    return Binary(op, a, b, allocator);                                    \
  }                                                                        \
  inline absl::StatusOr<Tensor> name(Scalar a, const Tensor& b,            \
                                     Allocator* allocator = nullptr) {     \
    return Binary(op, a, b, allocator);                                    \
  }                                                                        \
  inline absl::Status name(const Tensor& a, const Tensor& b,               \
                           const Tensor& out) {                            \
    return BinaryInto(op, a, b, out);                                      \
  }

TESSERA_BINARY_UFUNC(add, BinaryOp::kAdd)
TESSERA_BINARY_UFUNC(subtract, BinaryOp::kSubtract)
TESSERA_BINARY_UFUNC(multiply, BinaryOp::kMultiply)
TESSERA_BINARY_UFUNC(divide, BinaryOp::kDivide)
TESSERA_BINARY_UFUNC(maximum, BinaryOp::kMaximum)
TESSERA_BINARY_UFUNC(minimum, BinaryOp::kMinimum)

#undef TESSERA_BINARY_UFUNC

}  // namespace tessera

#endif  // TESSERA_TENSOR_BINARY_H_
