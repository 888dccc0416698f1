// Copyright 2026 The Tessera Authors.
//
// -----------------------------------------------------------------------------
// File: binary.h
// -----------------------------------------------------------------------------
//
// NumPy's elementwise binary ufuncs over tensors and scalars, with NumPy's
// broadcasting and type promotion: arithmetic `add`, `subtract`,
// `multiply`, `divide`, `floor_divide`, `remainder`, `power`; `maximum`,
// `minimum` (NaN-propagating), `fmax`, `fmin` (NaN-ignoring); bitwise
// `bitwise_and`/`or`/`xor`; `logical_and`/`or`/`xor`; comparisons `equal`,
// `not_equal`, `less`, `less_equal`, `greater`, `greater_equal`:
//
//   auto c = tessera::add(a, b);            // new tensor, broadcast shape
//   auto d = tessera::multiply(a, 2.5);     // weak scalar (NEP 50)
//   absl::Status s = tessera::add(a, b, out);  // into an existing tensor
//
// Result dtype: `ResultType(a, b)` (dtype.h), then per op as NumPy's loops:
// `divide` gives float64 unless that is already a float (int / int ->
// float64); floor_divide, remainder and power of two bools give int8;
// comparisons and logical ops give bool (logical ops read truth values, NaN
// is true); a scalar operand is weak (scalar.h: `float32 tensor * 2.5` is
// float32). Operands of another dtype are converted first (into a temporary
// from the result's allocator), as NumPy's buffered loops do.
// `BinaryResultType` answers the dtype question without computing.
//
// Semantics: integer overflow wraps (power too); maximum/minimum propagate
// NaN; fmax/fmin return the non-NaN operand; floor_divide rounds toward
// minus infinity and remainder has the sign of the divisor (Python's // and
// %); integer floor_divide and remainder by zero give 0 (NumPy warns and
// gives 0), float ones inf/NaN as IEEE; comparisons with NaN are false
// except not_equal. bool add is logical or and bool multiply logical and;
// bool subtract is an error, as in NumPy. Broadcasting follows view.h's
// `BroadcastShapes`, including zero-length axes ((1, 0) with (0, 1) gives
// (0, 0)).
//
// The `out` forms write into a writeable tensor whose shape is the broadcast
// shape (inputs are broadcast up to it), and whose dtype is the result dtype
// or one it can be cast to safely or float-to-float. They are correct when
// `out` overlaps an input: identical layouts (in-place `a += b`) run
// directly, any other overlap reads from a copy of the input.
//
// Errors: InvalidArgument naming both shapes when they do not broadcast, or
// naming the dtypes for an undefined operation (bool subtract, bitwise ops
// on floats) or an unsafe cast to `out`, or naming the exponent when an
// integer power has a negative one (NumPy's ValueError; nothing is written);
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

// The dtype `op` returns for these operand dtypes, or InvalidArgument if
// NumPy rejects the combination (bool subtract, float bitwise ops).
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
TESSERA_BINARY_UFUNC(floor_divide, BinaryOp::kFloorDivide)
TESSERA_BINARY_UFUNC(remainder, BinaryOp::kRemainder)
TESSERA_BINARY_UFUNC(power, BinaryOp::kPower)
TESSERA_BINARY_UFUNC(fmax, BinaryOp::kFmax)
TESSERA_BINARY_UFUNC(fmin, BinaryOp::kFmin)
TESSERA_BINARY_UFUNC(bitwise_and, BinaryOp::kBitwiseAnd)
TESSERA_BINARY_UFUNC(bitwise_or, BinaryOp::kBitwiseOr)
TESSERA_BINARY_UFUNC(bitwise_xor, BinaryOp::kBitwiseXor)
TESSERA_BINARY_UFUNC(logical_and, BinaryOp::kLogicalAnd)
TESSERA_BINARY_UFUNC(logical_or, BinaryOp::kLogicalOr)
TESSERA_BINARY_UFUNC(logical_xor, BinaryOp::kLogicalXor)
TESSERA_BINARY_UFUNC(equal, BinaryOp::kEqual)
TESSERA_BINARY_UFUNC(not_equal, BinaryOp::kNotEqual)
TESSERA_BINARY_UFUNC(less, BinaryOp::kLess)
TESSERA_BINARY_UFUNC(less_equal, BinaryOp::kLessEqual)
TESSERA_BINARY_UFUNC(greater, BinaryOp::kGreater)
TESSERA_BINARY_UFUNC(greater_equal, BinaryOp::kGreaterEqual)

#undef TESSERA_BINARY_UFUNC

}  // namespace tessera

#endif  // TESSERA_TENSOR_BINARY_H_
