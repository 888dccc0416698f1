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
// Contract: both inputs have dtype `dtype`; `out` has dtype `dtype` too,
// except for comparisons (`IsComparison`), whose `out` is bool (one byte 0/1
// per element). `out` may be exactly `a` or `b` (same address and stride) but
// must not otherwise overlap them. The caller has rejected operations the
// dtype lacks (bool subtract; divide only for floats; floor_divide,
// remainder and power not for bool; bitwise ops only for integers and bool;
// logical ops only for bool, to which the caller converts) and negative
// integer exponents of power. Integer arithmetic wraps; integer floor_divide
// and remainder by zero give 0, as NumPy's do.
//
// Every op but float power has a Highway kernel (binary-inl.h): floor_divide
// and remainder of float32/float64 (on targets with FMA) and int32 take
// vector forms checked exact per vector, other integers NumPy's scalar
// formulas; integer power multiplies 16- and 32-bit lanes in vectors. Float
// power is libm's pow in a plain C++ loop (binary_scalar.cc).

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
  kFloorDivide,
  kRemainder,  // sign of the divisor, as np.remainder (Python's %)
  kPower,
  kFmax,  // NaN-ignoring: the other operand unless both are NaN
  kFmin,
  kBitwiseAnd,
  kBitwiseOr,
  kBitwiseXor,
  kLogicalAnd,  // bool operands only (the caller converts)
  kLogicalOr,
  kLogicalXor,
  // Comparisons: bool output.
  kEqual,
  kNotEqual,
  kLess,
  kLessEqual,
  kGreater,
  kGreaterEqual,
};

inline bool IsComparison(BinaryOp op) {
  return op >= BinaryOp::kEqual && op <= BinaryOp::kGreaterEqual;
}
inline bool IsBitwise(BinaryOp op) {
  return op >= BinaryOp::kBitwiseAnd && op <= BinaryOp::kBitwiseXor;
}
inline bool IsLogical(BinaryOp op) {
  return op >= BinaryOp::kLogicalAnd && op <= BinaryOp::kLogicalXor;
}

// NumPy's ufunc name ("add", "maximum", ...).
const char* BinaryOpName(BinaryOp op);

namespace kernels {

void BinaryRow(BinaryOp op, DType dtype, const void* a, int64_t a_stride,
               const void* b, int64_t b_stride, void* out, int64_t out_stride,
               int64_t n);

// The op the kernels run for `op` on `dtype`: on bool (0/1 bytes) add is
// maximum (or) and multiply is minimum (and); logical ops, whose operands
// the caller has converted to bool, are the bitwise ops on 0/1 bytes.
// BinaryRow and BinaryPlane apply it before dispatching.
inline BinaryOp KernelOp(BinaryOp op, DType dtype) {
  if (dtype == DType::kBool) {
    if (op == BinaryOp::kAdd) return BinaryOp::kMaximum;
    if (op == BinaryOp::kMultiply) return BinaryOp::kMinimum;
  }
  switch (op) {
    case BinaryOp::kLogicalAnd: return BinaryOp::kBitwiseAnd;
    case BinaryOp::kLogicalOr: return BinaryOp::kBitwiseOr;
    case BinaryOp::kLogicalXor: return BinaryOp::kBitwiseXor;
    default: return op;
  }
}

// BinaryRow over `n` contiguous elements of each operand (`out` must not
// overlap `a` or `b`) with non-temporal stores: for outputs too large to stay
// in cache, it saves the read a normal store does of every output line.
// Returns false, having written nothing, for anything but add, subtract,
// multiply and divide on float32/float64 (and int32/int64 for the first
// three), or operands not aligned for their type: the caller then uses
// BinaryRow.
bool BinaryContiguousStreaming(BinaryOp op, DType dtype, const void* a,
                               const void* b, void* out, int64_t n);

// libm's pow over a row of float32 or float64 (BinaryRow calls it for
// float power, which no vector form would round the same); any other op or
// dtype writes nothing.
void ScalarBinaryRow(BinaryOp op, DType dtype, const void* a, int64_t a_stride,
                     const void* b, int64_t b_stride, void* out,
                     int64_t out_stride, int64_t n);

// BinaryRow over a 2-D plane: out[r, c] = a[r, c] op b[r, c] for r < rows,
// c < cols, where element (r, c) of each operand is at byte offset
// r * row + c * col from its start (strides may be zero or negative). Same
// contract as BinaryRow (`out` may be exactly `a` or `b`: same start and both
// strides). What the elementwise ops call per plane of the last two coalesced
// axes (internal/strided_loop.h, ForEachPlane).
//
// The kernel (binary_plane-inl.h) walks the plane in the output's memory
// order, and when an input is transposed against the output (its rows
// contiguous, its columns strided) in blocks of N x N elements transposed in
// registers, N the lanes of a vector of at most 16 elements; otherwise row
// by row through BinaryRow's paths. Results are BinaryRow's, bit for bit.
// O(rows * cols); one dispatch per call.
void BinaryPlane(BinaryOp op, DType dtype, const void* a, int64_t a_row,
                 int64_t a_col, const void* b, int64_t b_row, int64_t b_col,
                 void* out, int64_t out_row, int64_t out_col, int64_t rows,
                 int64_t cols);

}  // namespace kernels
}  // namespace tessera

#endif  // TESSERA_TENSOR_KERNELS_BINARY_H_
