// Copyright 2026 The Tessera Authors.
//
// Dispatch table of the binary row kernels: compiled once per SIMD target by
// hwy/foreach_target.h, chosen at run time by HWY_DYNAMIC_DISPATCH.

#include "tensor/kernels/binary.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "tensor/kernels/binary.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/highway.h"
#include "tensor/kernels/binary-inl.h"

HWY_BEFORE_NAMESPACE();
namespace tessera {
namespace kernels {
namespace HWY_NAMESPACE {

template <class Op>
void RowForOp(DType dtype, const RowSet& s) {
  if constexpr (kIntegerOnly<Op>) {
    if (dtype == DType::kFloat32 || dtype == DType::kFloat64) return;
  }
  switch (dtype) {
    case DType::kBool:  // 0/1 bytes; the caller maps add/multiply
    case DType::kUInt8:
      return BinaryRowsT<Op, uint8_t>(s);
    case DType::kInt8:
      return BinaryRowsT<Op, int8_t>(s);
    case DType::kInt16:
      return BinaryRowsT<Op, int16_t>(s);
    case DType::kInt32:
      return BinaryRowsT<Op, int32_t>(s);
    case DType::kInt64:
      return BinaryRowsT<Op, int64_t>(s);
    case DType::kUInt16:
      return BinaryRowsT<Op, uint16_t>(s);
    case DType::kUInt32:
      return BinaryRowsT<Op, uint32_t>(s);
    case DType::kUInt64:
      return BinaryRowsT<Op, uint64_t>(s);
    case DType::kFloat32:
    case DType::kFloat64:
      break;
    case DType::kFloat16:  // computed in float32 by the caller
      return;
  }
  if constexpr (!kIntegerOnly<Op>) {
    if (dtype == DType::kFloat32) {
      return BinaryRowsT<Op, float>(s);
    }
    return BinaryRowsT<Op, double>(s);
  }
}

template <>
void RowForOp<DivideOp>(DType dtype, const RowSet& s) {
  if (dtype == DType::kFloat32) {
    return BinaryRowsT<DivideOp, float>(s);
  }
  return BinaryRowsT<DivideOp, double>(s);
}

template <class Cmp>
void CompareForOp(DType dtype, const RowSet& s) {
  switch (dtype) {
    case DType::kBool:
    case DType::kUInt8:
      return CompareRowsT<Cmp, uint8_t>(s);
    case DType::kInt8:
      return CompareRowsT<Cmp, int8_t>(s);
    case DType::kInt16:
      return CompareRowsT<Cmp, int16_t>(s);
    case DType::kInt32:
      return CompareRowsT<Cmp, int32_t>(s);
    case DType::kInt64:
      return CompareRowsT<Cmp, int64_t>(s);
    case DType::kUInt16:
      return CompareRowsT<Cmp, uint16_t>(s);
    case DType::kUInt32:
      return CompareRowsT<Cmp, uint32_t>(s);
    case DType::kUInt64:
      return CompareRowsT<Cmp, uint64_t>(s);
    case DType::kFloat32:
      return CompareRowsT<Cmp, float>(s);
    case DType::kFloat64:
      return CompareRowsT<Cmp, double>(s);
    case DType::kFloat16:  // computed in float32 by the caller
      return;
  }
}

void BinaryRowsImpl(BinaryOp op, DType dtype, const RowSet& s) {
  switch (op) {
    case BinaryOp::kAdd:
      return RowForOp<AddOp>(dtype, s);
    case BinaryOp::kSubtract:
      return RowForOp<SubtractOp>(dtype, s);
    case BinaryOp::kMultiply:
      return RowForOp<MultiplyOp>(dtype, s);
    case BinaryOp::kDivide:
      return RowForOp<DivideOp>(dtype, s);
    case BinaryOp::kMaximum:
      return RowForOp<MaximumOp>(dtype, s);
    case BinaryOp::kMinimum:
      return RowForOp<MinimumOp>(dtype, s);
    case BinaryOp::kFmax:
      return RowForOp<FmaxOp>(dtype, s);
    case BinaryOp::kFmin:
      return RowForOp<FminOp>(dtype, s);
    case BinaryOp::kFloorDivide:
      return RowForOp<FloorDivideOp>(dtype, s);
    case BinaryOp::kRemainder:
      return RowForOp<RemainderOp>(dtype, s);
    case BinaryOp::kPower:  // integers (BinaryRow sends floats elsewhere)
      return RowForOp<PowerOp>(dtype, s);
    case BinaryOp::kBitwiseAnd:
      return RowForOp<BitwiseAndOp>(dtype, s);
    case BinaryOp::kBitwiseOr:
      return RowForOp<BitwiseOrOp>(dtype, s);
    case BinaryOp::kBitwiseXor:
      return RowForOp<BitwiseXorOp>(dtype, s);
    case BinaryOp::kEqual:
      return CompareForOp<EqualCmp>(dtype, s);
    case BinaryOp::kNotEqual:
      return CompareForOp<NotEqualCmp>(dtype, s);
    case BinaryOp::kLess:
      return CompareForOp<LessCmp>(dtype, s);
    case BinaryOp::kLessEqual:
      return CompareForOp<LessEqualCmp>(dtype, s);
    case BinaryOp::kGreater:
      return CompareForOp<GreaterCmp>(dtype, s);
    case BinaryOp::kGreaterEqual:
      return CompareForOp<GreaterEqualCmp>(dtype, s);
    default:
      // Not a Highway op (binary.h): BinaryRow sends it elsewhere.
      return;
  }
}

void BinaryRowImpl(BinaryOp op, DType dtype, const void* a, int64_t sa,
                   const void* b, int64_t sb, void* out, int64_t so,
                   int64_t n) {
  BinaryRowsImpl(op, dtype,
                 RowSet{static_cast<const char*>(a), 0, sa,
                        static_cast<const char*>(b), 0, sb,
                        static_cast<char*>(out), 0, so, /*rows=*/1, n});
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
