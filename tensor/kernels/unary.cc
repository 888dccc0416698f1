// Copyright 2026 The Tessera Authors.
//
// Dispatch table of the unary row kernels: compiled once per SIMD target by
// hwy/foreach_target.h, chosen at run time by HWY_DYNAMIC_DISPATCH. The
// predicates (bool output) of contiguous floats are vectorised too; of
// anything else they are plain loops compiled once.

#include "tensor/kernels/unary.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "tensor/kernels/unary.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/highway.h"
#include "tensor/kernels/unary-inl.h"

HWY_BEFORE_NAMESPACE();
namespace tessera {
namespace kernels {
namespace HWY_NAMESPACE {

// Integer and float lanes (bool is uint8 here: abs of 0/1 is itself).
template <class Op>
void AnyTypeRow(DType dtype, const char* in, int64_t si, char* out,
                int64_t so, int64_t n) {
  switch (dtype) {
    case DType::kBool:
    case DType::kUInt8:
      return UnaryRowT<Op, uint8_t>(in, si, out, so, n);
    case DType::kInt8:
      return UnaryRowT<Op, int8_t>(in, si, out, so, n);
    case DType::kInt16:
      return UnaryRowT<Op, int16_t>(in, si, out, so, n);
    case DType::kInt32:
      return UnaryRowT<Op, int32_t>(in, si, out, so, n);
    case DType::kInt64:
      return UnaryRowT<Op, int64_t>(in, si, out, so, n);
    case DType::kUInt16:
      return UnaryRowT<Op, uint16_t>(in, si, out, so, n);
    case DType::kUInt32:
      return UnaryRowT<Op, uint32_t>(in, si, out, so, n);
    case DType::kUInt64:
      return UnaryRowT<Op, uint64_t>(in, si, out, so, n);
    case DType::kFloat32:
      return UnaryRowT<Op, float>(in, si, out, so, n);
    case DType::kFloat64:
      return UnaryRowT<Op, double>(in, si, out, so, n);
    case DType::kFloat16:  // computed in float32 by the caller
      return;
  }
}

// Float lanes only (the caller converts integers first).
template <class Op>
void FloatRow(DType dtype, const char* in, int64_t si, char* out, int64_t so,
              int64_t n) {
  if (dtype == DType::kFloat32) {
    return UnaryRowT<Op, float>(in, si, out, so, n);
  }
  return UnaryRowT<Op, double>(in, si, out, so, n);
}

void UnaryRowImpl(UnaryOp op, DType dtype, const void* in, int64_t si,
                  void* out, int64_t so, int64_t n) {
  const char* pi = static_cast<const char*>(in);
  char* po = static_cast<char*>(out);
  switch (op) {
    case UnaryOp::kNegative:
      return AnyTypeRow<NegativeOp>(dtype, pi, si, po, so, n);
    case UnaryOp::kAbs:
      return AnyTypeRow<AbsOp>(dtype, pi, si, po, so, n);
    case UnaryOp::kSign:
      return AnyTypeRow<SignOp>(dtype, pi, si, po, so, n);
    case UnaryOp::kSquare:
      return AnyTypeRow<SquareOp>(dtype, pi, si, po, so, n);
    case UnaryOp::kSqrt:
      return FloatRow<SqrtOp>(dtype, pi, si, po, so, n);
    case UnaryOp::kExp:
      return FloatRow<ExpOp>(dtype, pi, si, po, so, n);
    case UnaryOp::kLog:
      return FloatRow<LogOp>(dtype, pi, si, po, so, n);
    case UnaryOp::kSin:
      return FloatRow<SinOp>(dtype, pi, si, po, so, n);
    case UnaryOp::kCos:
      return FloatRow<CosOp>(dtype, pi, si, po, so, n);
    case UnaryOp::kTanh:
      return FloatRow<TanhOp>(dtype, pi, si, po, so, n);
    case UnaryOp::kFloor:
      return FloatRow<FloorOp>(dtype, pi, si, po, so, n);
    case UnaryOp::kCeil:
      return FloatRow<CeilOp>(dtype, pi, si, po, so, n);
    case UnaryOp::kIsNan:
    case UnaryOp::kIsFinite:
    case UnaryOp::kLogicalNot:
      // Contiguous floats only (UnaryRow sends the rest to a plain loop).
      return FloatPredicateForOp(op, dtype, in, out, static_cast<size_t>(n));
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace kernels
}  // namespace tessera
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tessera {

const char* UnaryOpName(UnaryOp op) {
  switch (op) {
    case UnaryOp::kNegative: return "negative";
    case UnaryOp::kAbs: return "absolute";
    case UnaryOp::kSign: return "sign";
    case UnaryOp::kSquare: return "square";
    case UnaryOp::kSqrt: return "sqrt";
    case UnaryOp::kExp: return "exp";
    case UnaryOp::kLog: return "log";
    case UnaryOp::kSin: return "sin";
    case UnaryOp::kCos: return "cos";
    case UnaryOp::kTanh: return "tanh";
    case UnaryOp::kFloor: return "floor";
    case UnaryOp::kCeil: return "ceil";
    case UnaryOp::kIsNan: return "isnan";
    case UnaryOp::kIsFinite: return "isfinite";
    case UnaryOp::kLogicalNot: return "logical_not";
  }
  return "unknown";
}

namespace kernels {
namespace {

// isnan / isfinite / logical_not: one byte 0/1 per element.
template <typename T>
void PredicateRow(UnaryOp op, const char* in, int64_t si, char* out,
                  int64_t so, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    T v;
    std::memcpy(&v, in + i * si, sizeof(T));
    bool r;
    if constexpr (kIsFloat16<T>) {
      // From the bit pattern: exponent all ones is inf or NaN.
      const uint16_t magnitude = v.bits & 0x7FFFu;
      r = op == UnaryOp::kLogicalNot ? magnitude == 0
          : op == UnaryOp::kIsNan    ? magnitude > 0x7C00u
                                     : magnitude < 0x7C00u;
    } else if (op == UnaryOp::kLogicalNot) {
      r = v == T(0);
    } else if constexpr (std::is_floating_point<T>::value) {
      r = op == UnaryOp::kIsNan ? std::isnan(v) : std::isfinite(v);
    } else {
      r = op == UnaryOp::kIsFinite;  // integers are never NaN or infinite
    }
    out[i * so] = r ? 1 : 0;
  }
}

}  // namespace

HWY_EXPORT(UnaryRowImpl);

void UnaryRow(UnaryOp op, DType dtype, const void* in, int64_t in_stride,
              void* out, int64_t out_stride, int64_t n) {
  if (IsPredicate(op)) {
    const size_t size = DTypeSize(dtype);
    if (IsFloat(dtype) && dtype != DType::kFloat16 &&
        in_stride == static_cast<int64_t>(size) &&
        out_stride == 1 && reinterpret_cast<uintptr_t>(in) % size == 0) {
      HWY_DYNAMIC_DISPATCH(UnaryRowImpl)(op, dtype, in, in_stride, out, 1, n);
      return;
    }
    VisitDType(dtype, [&](auto zero) {
      using T = std::conditional_t<std::is_same<decltype(zero), bool>::value,
                                   uint8_t, decltype(zero)>;
      PredicateRow<T>(op, static_cast<const char*>(in), in_stride,
                      static_cast<char*>(out), out_stride, n);
    });
    return;
  }
  HWY_DYNAMIC_DISPATCH(UnaryRowImpl)(op, dtype, in, in_stride, out, out_stride,
                                     n);
}

}  // namespace kernels
}  // namespace tessera
#endif  // HWY_ONCE
