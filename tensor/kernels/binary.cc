// Copyright 2026 The Tessera Authors.
//
// Dispatch table of the binary row kernels: compiled once per SIMD target by
// hwy/foreach_target.h, chosen at run time by HWY_DYNAMIC_DISPATCH.

#include "tensor/kernels/binary.h"

#include <cstdint>
#include <type_traits>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "tensor/kernels/binary.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/highway.h"
#include "tensor/kernels/binary-inl.h"

HWY_BEFORE_NAMESPACE();
namespace tessera {
namespace kernels {
namespace HWY_NAMESPACE {

// Calls `row(T())` with the lane type of `dtype` when Op has a kernel for
// it: integer-only ops have none for floats, divide only the float ones
// (binary.h promotes integer division), and float16 is computed in float32
// by the caller.
template <class Op, class Row>
HWY_INLINE void WithLaneType(DType dtype, Row row) {
  if constexpr (std::is_same<Op, DivideOp>::value) {
    if (dtype == DType::kFloat32) return row(float());
    return row(double());
  } else {
    switch (dtype) {
      case DType::kBool:  // 0/1 bytes; the caller maps add/multiply
      case DType::kUInt8: return row(uint8_t());
      case DType::kInt8: return row(int8_t());
      case DType::kInt16: return row(int16_t());
      case DType::kInt32: return row(int32_t());
      case DType::kInt64: return row(int64_t());
      case DType::kUInt16: return row(uint16_t());
      case DType::kUInt32: return row(uint32_t());
      case DType::kUInt64: return row(uint64_t());
      case DType::kFloat32:
        if constexpr (!kIntegerOnly<Op>) return row(float());
        return;
      case DType::kFloat64:
        if constexpr (!kIntegerOnly<Op>) return row(double());
        return;
      case DType::kFloat16:
        return;
    }
  }
}

// Calls `visit(F())` with the functor of `op` (binary-inl.h). Ops that are
// not Highway ops (binary.h: BinaryRow sends them elsewhere) call nothing.
template <class Visit>
HWY_INLINE void WithOp(BinaryOp op, Visit visit) {
  switch (op) {
    case BinaryOp::kAdd: return visit(AddOp());
    case BinaryOp::kSubtract: return visit(SubtractOp());
    case BinaryOp::kMultiply: return visit(MultiplyOp());
    case BinaryOp::kDivide: return visit(DivideOp());
    case BinaryOp::kMaximum: return visit(MaximumOp());
    case BinaryOp::kMinimum: return visit(MinimumOp());
    case BinaryOp::kFmax: return visit(FmaxOp());
    case BinaryOp::kFmin: return visit(FminOp());
    case BinaryOp::kFloorDivide: return visit(FloorDivideOp());
    case BinaryOp::kRemainder: return visit(RemainderOp());
    case BinaryOp::kPower:  // integers (BinaryRow sends floats elsewhere)
      return visit(PowerOp());
    case BinaryOp::kBitwiseAnd: return visit(BitwiseAndOp());
    case BinaryOp::kBitwiseOr: return visit(BitwiseOrOp());
    case BinaryOp::kBitwiseXor: return visit(BitwiseXorOp());
    case BinaryOp::kEqual: return visit(EqualCmp());
    case BinaryOp::kNotEqual: return visit(NotEqualCmp());
    case BinaryOp::kLess: return visit(LessCmp());
    case BinaryOp::kLessEqual: return visit(LessEqualCmp());
    case BinaryOp::kGreater: return visit(GreaterCmp());
    case BinaryOp::kGreaterEqual: return visit(GreaterEqualCmp());
    default:
      return;
  }
}

// The row kernel of functor F on lane type T: the comparisons' (bool out)
// or the arithmetic one's.
template <class F, typename T>
HWY_INLINE void RowT(const char* a, int64_t sa, const char* b, int64_t sb,
                     char* out, int64_t so, int64_t n) {
  if constexpr (kIsComparison<F>) {
    CompareRowT<F, T>(a, sa, b, sb, out, so, n);
  } else {
    BinaryRowT<F, T>(a, sa, b, sb, out, so, n);
  }
}

// One row, for BinaryRow's callers: its own instantiation, because the
// row loop's frame (RowsForOp inlines the strided loops, which spill
// vectors) costs a 1e3-element contiguous add ~10% (42 -> 47 ns). Neither
// is inlined into the op switch, which stays a table of tail calls.
template <class F>
HWY_NOINLINE void RowForOp(DType dtype, const char* a, int64_t sa,
                           const char* b, int64_t sb, char* out, int64_t so,
                           int64_t n) {
  WithLaneType<F>(dtype, [&](auto zero) {
    RowT<F, decltype(zero)>(a, sa, b, sb, out, so, n);
  });
}

// Every row of a plane, one dispatch on op and dtype for all of them.
template <class F>
HWY_NOINLINE void RowsForOp(DType dtype, const RowSet& s) {
  WithLaneType<F>(dtype, [&](auto zero) {
    for (int64_t r = 0; r < s.rows; ++r) {
      RowT<F, decltype(zero)>(s.a + r * s.a_row, s.sa, s.b + r * s.b_row,
                              s.sb, s.out + r * s.out_row, s.so, s.n);
    }
  });
}

void BinaryRowImpl(BinaryOp op, DType dtype, const void* a, int64_t sa,
                   const void* b, int64_t sb, void* out, int64_t so,
                   int64_t n) {
  WithOp(op, [&](auto f) {
    RowForOp<decltype(f)>(dtype, static_cast<const char*>(a), sa,
                          static_cast<const char*>(b), sb,
                          static_cast<char*>(out), so, n);
  });
}

void BinaryRowsImpl(BinaryOp op, DType dtype, const RowSet& s) {
  WithOp(op, [&](auto f) { RowsForOp<decltype(f)>(dtype, s); });
}

// BinaryContiguous<Op, T, /*kStream=*/true> for the arithmetic ops on the
// dtypes large arrays use; false (nothing written) for any other op or
// dtype, or operands not aligned for their type.
template <class Op>
bool StreamForOp(DType dtype, const void* a, const void* b, void* out,
                 size_t n) {
  const auto run = [&](auto zero) {
    using T = decltype(zero);
    if (((reinterpret_cast<uintptr_t>(a) | reinterpret_cast<uintptr_t>(b) |
          reinterpret_cast<uintptr_t>(out)) %
         alignof(T)) != 0) {
      return false;
    }
    BinaryContiguous<Op, T, /*kStream=*/true>(static_cast<const T*>(a),
                                              static_cast<const T*>(b),
                                              static_cast<T*>(out), n);
    return true;
  };
  switch (dtype) {
    case DType::kFloat32: return run(float{});
    case DType::kFloat64: return run(double{});
    case DType::kInt32:
      if constexpr (!std::is_same<Op, DivideOp>::value) return run(int32_t{});
      return false;
    case DType::kInt64:
      if constexpr (!std::is_same<Op, DivideOp>::value) return run(int64_t{});
      return false;
    default:
      return false;
  }
}

bool BinaryStreamImpl(BinaryOp op, DType dtype, const void* a, const void* b,
                      void* out, int64_t n) {
  const size_t count = static_cast<size_t>(n);
  switch (op) {
    case BinaryOp::kAdd: return StreamForOp<AddOp>(dtype, a, b, out, count);
    case BinaryOp::kSubtract:
      return StreamForOp<SubtractOp>(dtype, a, b, out, count);
    case BinaryOp::kMultiply:
      return StreamForOp<MultiplyOp>(dtype, a, b, out, count);
    case BinaryOp::kDivide:
      return StreamForOp<DivideOp>(dtype, a, b, out, count);
    default:
      return false;
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace kernels
}  // namespace tessera
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tessera {

const char* BinaryOpName(BinaryOp op) {
  switch (op) {
    case BinaryOp::kAdd: return "add";
    case BinaryOp::kSubtract: return "subtract";
    case BinaryOp::kMultiply: return "multiply";
    case BinaryOp::kDivide: return "divide";
    case BinaryOp::kMaximum: return "maximum";
    case BinaryOp::kMinimum: return "minimum";
    case BinaryOp::kFloorDivide: return "floor_divide";
    case BinaryOp::kRemainder: return "remainder";
    case BinaryOp::kPower: return "power";
    case BinaryOp::kFmax: return "fmax";
    case BinaryOp::kFmin: return "fmin";
    case BinaryOp::kBitwiseAnd: return "bitwise_and";
    case BinaryOp::kBitwiseOr: return "bitwise_or";
    case BinaryOp::kBitwiseXor: return "bitwise_xor";
    case BinaryOp::kLogicalAnd: return "logical_and";
    case BinaryOp::kLogicalOr: return "logical_or";
    case BinaryOp::kLogicalXor: return "logical_xor";
    case BinaryOp::kEqual: return "equal";
    case BinaryOp::kNotEqual: return "not_equal";
    case BinaryOp::kLess: return "less";
    case BinaryOp::kLessEqual: return "less_equal";
    case BinaryOp::kGreater: return "greater";
    case BinaryOp::kGreaterEqual: return "greater_equal";
  }
  return "unknown";
}

namespace kernels {

HWY_EXPORT(BinaryRowImpl);
HWY_EXPORT(BinaryStreamImpl);

bool BinaryContiguousStreaming(BinaryOp op, DType dtype, const void* a,
                               const void* b, void* out, int64_t n) {
  if (dtype == DType::kBool) return false;
  return HWY_DYNAMIC_DISPATCH(BinaryStreamImpl)(op, dtype, a, b, out, n);
}

void BinaryRow(BinaryOp op, DType dtype, const void* a, int64_t a_stride,
               const void* b, int64_t b_stride, void* out, int64_t out_stride,
               int64_t n) {
  op = KernelOp(op, dtype);
  if (op == BinaryOp::kPower && IsFloat(dtype)) {
    return ScalarBinaryRow(op, dtype, a, a_stride, b, b_stride, out,
                           out_stride, n);
  }
  HWY_DYNAMIC_DISPATCH(BinaryRowImpl)
  (op, dtype, a, a_stride, b, b_stride, out, out_stride, n);
}

}  // namespace kernels
}  // namespace tessera
#endif  // HWY_ONCE
