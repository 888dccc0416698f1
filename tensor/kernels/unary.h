// Copyright 2026 The Tessera Authors.
//
// Row kernels for elementwise unary operations, dispatched at run time to the
// best SIMD target Highway compiled (unary-inl.h holds the per-target code;
// unary.cc the dispatch table).
//
// A "row" is `n` elements of the input and of the output, each at a byte
// stride (what internal/strided_loop.h hands out). Contiguous rows take the
// vector path; any other stride goes one element at a time.
//
// Contract: the input has dtype `dtype`; so has `out`, except for the
// predicates (`IsPredicate`: isnan, isfinite, logical_not), whose `out` is
// bool (one byte 0/1). `out` may be exactly the input (same address and
// stride) but must not otherwise overlap it. The caller has converted the
// input of the float functions (sqrt, exp, log, sin, cos, tanh, floor,
// ceil) to a float dtype and rejected what NumPy rejects (negative and sign
// of bool; square of bool is computed in int8). Integer negative, abs and
// square wrap (abs of int8 -128 is -128, as NumPy).
//
// Accuracy: sqrt, floor, ceil, negative, abs, sign and square are exact.
// exp, log, sin, cos and tanh use Highway's contrib/math (documented maximum
// errors 1, 4, 3, 3 and 4 ulp); a vector holding any lane outside the range
// those functions are valid for (exp above 104 / 706, log of a non-normal or
// non-positive value, |x| > 39000 for sin/cos, inf or NaN anywhere) is
// computed with the std:: functions instead, so special values follow C.

#ifndef TESSERA_TENSOR_KERNELS_UNARY_H_
#define TESSERA_TENSOR_KERNELS_UNARY_H_

#include <cstdint>

#include "tensor/dtype.h"

namespace tessera {

enum class UnaryOp : uint8_t {
  kNegative,
  kAbs,
  kSign,
  kSquare,
  kSqrt,
  kExp,
  kLog,
  kSin,
  kCos,
  kTanh,
  kFloor,
  kCeil,
  // Predicates: bool output.
  kIsNan,
  kIsFinite,
  kLogicalNot,
};

inline constexpr int kNumUnaryOps = 15;

// Whether `op` writes bool whatever its input dtype.
inline bool IsPredicate(UnaryOp op) { return op >= UnaryOp::kIsNan; }

// Whether NumPy computes `op` in a float dtype only (ints are converted).
inline bool IsFloatFunction(UnaryOp op) {
  return op >= UnaryOp::kSqrt && op <= UnaryOp::kCeil;
}

// NumPy's ufunc name ("negative", "isnan", ...).
const char* UnaryOpName(UnaryOp op);

namespace kernels {

void UnaryRow(UnaryOp op, DType dtype, const void* in, int64_t in_stride,
              void* out, int64_t out_stride, int64_t n);

}  // namespace kernels
}  // namespace tessera

#endif  // TESSERA_TENSOR_KERNELS_UNARY_H_
