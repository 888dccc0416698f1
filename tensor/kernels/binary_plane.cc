// Copyright 2026 The Tessera Authors.
//
// Dispatch table of the 2-D binary plane kernel (binary_plane-inl.h):
// compiled once per SIMD target by hwy/foreach_target.h, chosen at run time
// by HWY_DYNAMIC_DISPATCH.

#include "tensor/kernels/binary.h"

#include <cstdint>
#include <utility>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "tensor/kernels/binary_plane.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/highway.h"
#include "tensor/kernels/binary-inl.h"
#include "tensor/kernels/binary_plane-inl.h"

HWY_BEFORE_NAMESPACE();
namespace tessera {
namespace kernels {
namespace HWY_NAMESPACE {

template <class Op>
bool BlocksForOp(DType dtype, const PlaneOperand& a, const PlaneOperand& b,
                 char* out, int64_t out_row, int64_t out_col, int64_t rows,
                 int64_t cols) {
  switch (dtype) {
    case DType::kInt32:
      return TryTransposedBlocks<Op, int32_t>(a, b, out, out_row, out_col,
                                              rows, cols);
    case DType::kUInt32:
      return TryTransposedBlocks<Op, uint32_t>(a, b, out, out_row, out_col,
                                               rows, cols);
    case DType::kInt64:
      return TryTransposedBlocks<Op, int64_t>(a, b, out, out_row, out_col,
                                              rows, cols);
    case DType::kUInt64:
      return TryTransposedBlocks<Op, uint64_t>(a, b, out, out_row, out_col,
                                               rows, cols);
    default:
      return false;
  }
}

template <class Op>
bool FloatBlocksForOp(DType dtype, const PlaneOperand& a,
                      const PlaneOperand& b, char* out, int64_t out_row,
                      int64_t out_col, int64_t rows, int64_t cols) {
  if (dtype == DType::kFloat32) {
    return TryTransposedBlocks<Op, float>(a, b, out, out_row, out_col, rows,
                                          cols);
  }
  if (dtype == DType::kFloat64) {
    return TryTransposedBlocks<Op, double>(a, b, out, out_row, out_col, rows,
                                           cols);
  }
  return false;
}

// The blocked walk for `op` on `dtype`, if it applies (TryTransposedBlocks).
bool TransposedBlocks(BinaryOp op, DType dtype, const PlaneOperand& a,
                      const PlaneOperand& b, char* out, int64_t out_row,
                      int64_t out_col, int64_t rows, int64_t cols) {
  auto any = [&](auto op_tag) {
    using Op = decltype(op_tag);
    return FloatBlocksForOp<Op>(dtype, a, b, out, out_row, out_col, rows,
                                cols) ||
           BlocksForOp<Op>(dtype, a, b, out, out_row, out_col, rows, cols);
  };
  auto integer = [&](auto op_tag) {
    using Op = decltype(op_tag);
    return BlocksForOp<Op>(dtype, a, b, out, out_row, out_col, rows, cols);
  };
  switch (op) {
    case BinaryOp::kAdd: return any(AddOp());
    case BinaryOp::kSubtract: return any(SubtractOp());
    case BinaryOp::kMultiply: return any(MultiplyOp());
    case BinaryOp::kDivide:
      return FloatBlocksForOp<DivideOp>(dtype, a, b, out, out_row, out_col,
                                        rows, cols);
    case BinaryOp::kMaximum: return any(MaximumOp());
    case BinaryOp::kMinimum: return any(MinimumOp());
    case BinaryOp::kFmax: return any(FmaxOp());
    case BinaryOp::kFmin: return any(FminOp());
    case BinaryOp::kBitwiseAnd: return integer(BitwiseAndOp());
    case BinaryOp::kBitwiseOr: return integer(BitwiseOrOp());
    case BinaryOp::kBitwiseXor: return integer(BitwiseXorOp());
    default:
      return false;
  }
}

void BinaryPlaneImpl(BinaryOp op, DType dtype, const void* a, int64_t a_row,
                     int64_t a_col, const void* b, int64_t b_row,
                     int64_t b_col, void* out, int64_t out_row, int64_t out_col,
                     int64_t rows, int64_t cols) {
  PlaneOperand pa{static_cast<const char*>(a), a_row, a_col};
  PlaneOperand pb{static_cast<const char*>(b), b_row, b_col};
  char* po = static_cast<char*>(out);
  if (!IsComparison(op)) {
    const int64_t size = static_cast<int64_t>(DTypeSize(dtype));
    if (out_col != size && out_row == size && rows > 1 && cols > 1) {
      // A transposed output: walk its memory in order.
      std::swap(pa.row, pa.col);
      std::swap(pb.row, pb.col);
      std::swap(out_row, out_col);
      std::swap(rows, cols);
    }
    if (TransposedBlocks(op, dtype, pa, pb, po, out_row, out_col, rows,
                         cols)) {
      return;
    }
  }
  BinaryRowsImpl(op, dtype,
                 RowSet{pa.p, pa.row, pa.col, pb.p, pb.row, pb.col, po,
                        out_row, out_col, rows, cols});
}

}  // namespace HWY_NAMESPACE
}  // namespace kernels
}  // namespace tessera
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tessera {
namespace kernels {

HWY_EXPORT(BinaryPlaneImpl);

void BinaryPlane(BinaryOp op, DType dtype, const void* a, int64_t a_row,
                 int64_t a_col, const void* b, int64_t b_row, int64_t b_col,
                 void* out, int64_t out_row, int64_t out_col, int64_t rows,
                 int64_t cols) {
  op = KernelOp(op, dtype);
  switch (op) {
    case BinaryOp::kFloorDivide:
    case BinaryOp::kRemainder:
    case BinaryOp::kPower: {
      // No plane form: BinaryRow routes them, row by row.
      const char* pa = static_cast<const char*>(a);
      const char* pb = static_cast<const char*>(b);
      char* po = static_cast<char*>(out);
      for (int64_t r = 0; r < rows; ++r) {
        BinaryRow(op, dtype, pa + r * a_row, a_col, pb + r * b_row, b_col,
                  po + r * out_row, out_col, cols);
      }
      return;
    }
    default:
      break;
  }
  HWY_DYNAMIC_DISPATCH(BinaryPlaneImpl)
  (op, dtype, a, a_row, a_col, b, b_row, b_col, out, out_row, out_col, rows,
   cols);
}

}  // namespace kernels
}  // namespace tessera
#endif  // HWY_ONCE
