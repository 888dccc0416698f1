// Copyright 2026 The Tessera Authors.
//
// Dispatch table of the reduction line kernels: compiled once per SIMD target
// by hwy/foreach_target.h, chosen at run time by HWY_DYNAMIC_DISPATCH.

#include "tensor/kernels/reduce.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "tensor/kernels/reduce.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/highway.h"
#include "tensor/kernels/reduce-inl.h"

HWY_BEFORE_NAMESPACE();
namespace tessera {
namespace kernels {
namespace HWY_NAMESPACE {

template <typename T>
void StoreResult(T value, void* out) {
  std::memcpy(out, &value, sizeof(T));
}

template <typename T>
void ReduceTyped(ReduceOp op, const char* p, int64_t stride, int64_t n,
                 void* out) {
  using Acc = std::conditional_t<
      std::is_floating_point<T>::value, T,
      std::conditional_t<std::is_unsigned<T>::value, uint64_t, int64_t>>;
  switch (op) {
    case ReduceOp::kProd:
      return StoreResult(ProdLine<T, Acc>(p, stride, n), out);
    case ReduceOp::kAll:
    case ReduceOp::kAny: {
      const uint8_t r = AllAnyLine<T>(p, stride, n, op == ReduceOp::kAll);
      return StoreResult(r, out);
    }
    case ReduceOp::kSum:
    case ReduceOp::kMin:
    case ReduceOp::kMax:
      break;
  }
  if (op == ReduceOp::kSum) {
    if constexpr (std::is_floating_point<T>::value) {
      StoreResult(SumFloats<T>(p, stride, n, kSumBlock), out);
    } else if constexpr (std::is_unsigned<T>::value) {
      StoreResult(SumIntegers<T, uint64_t>(p, stride, n), out);
    } else {
      StoreResult(SumIntegers<T, int64_t>(p, stride, n), out);
    }
    return;
  }
  StoreResult(MinMaxLine<T>(p, stride, n, op == ReduceOp::kMax), out);
}

void ReduceLineImpl(ReduceOp op, DType dtype, const void* data, int64_t stride,
                    int64_t n, void* out) {
  const char* p = static_cast<const char*>(data);
  switch (dtype) {
    case DType::kBool:
      // Bytes 0/1: sum counts (signed accumulator), min/max are and/or.
      if (op == ReduceOp::kSum) {
        return StoreResult(SumIntegers<uint8_t, int64_t>(p, stride, n), out);
      }
      if (op == ReduceOp::kProd) {
        return StoreResult(ProdLine<uint8_t, int64_t>(p, stride, n), out);
      }
      return ReduceTyped<uint8_t>(op, p, stride, n, out);
    case DType::kInt8: return ReduceTyped<int8_t>(op, p, stride, n, out);
    case DType::kInt16: return ReduceTyped<int16_t>(op, p, stride, n, out);
    case DType::kInt32: return ReduceTyped<int32_t>(op, p, stride, n, out);
    case DType::kInt64: return ReduceTyped<int64_t>(op, p, stride, n, out);
    case DType::kUInt8: return ReduceTyped<uint8_t>(op, p, stride, n, out);
    case DType::kUInt16: return ReduceTyped<uint16_t>(op, p, stride, n, out);
    case DType::kUInt32: return ReduceTyped<uint32_t>(op, p, stride, n, out);
    case DType::kUInt64: return ReduceTyped<uint64_t>(op, p, stride, n, out);
    case DType::kFloat32: return ReduceTyped<float>(op, p, stride, n, out);
    case DType::kFloat64: return ReduceTyped<double>(op, p, stride, n, out);
    case DType::kFloat16: return;  // computed in float32 by the caller
  }
}

int64_t ArgReduceLineImpl(bool is_max, DType dtype, const void* data,
                          int64_t stride, int64_t n) {
  const char* p = static_cast<const char*>(data);
  switch (dtype) {
    case DType::kBool: return ArgLine<uint8_t>(p, stride, n, is_max);
    case DType::kInt8: return ArgLine<int8_t>(p, stride, n, is_max);
    case DType::kInt16: return ArgLine<int16_t>(p, stride, n, is_max);
    case DType::kInt32: return ArgLine<int32_t>(p, stride, n, is_max);
    case DType::kInt64: return ArgLine<int64_t>(p, stride, n, is_max);
    case DType::kUInt8: return ArgLine<uint8_t>(p, stride, n, is_max);
    case DType::kUInt16: return ArgLine<uint16_t>(p, stride, n, is_max);
    case DType::kUInt32: return ArgLine<uint32_t>(p, stride, n, is_max);
    case DType::kUInt64: return ArgLine<uint64_t>(p, stride, n, is_max);
    case DType::kFloat32: return ArgLine<float>(p, stride, n, is_max);
    case DType::kFloat64: return ArgLine<double>(p, stride, n, is_max);
    case DType::kFloat16: break;  // computed in float32 by the caller
  }
  return 0;
}

}  // namespace HWY_NAMESPACE
}  // namespace kernels
}  // namespace tessera
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tessera {

const char* ReduceOpName(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum: return "sum";
    case ReduceOp::kMin: return "minimum";
    case ReduceOp::kMax: return "maximum";
    case ReduceOp::kProd: return "prod";
    case ReduceOp::kAll: return "all";
    case ReduceOp::kAny: return "any";
  }
  return "unknown";
}

DType SumDType(DType dtype) {
  if (IsFloat(dtype)) return dtype;
  if (IsUnsignedInt(dtype)) return DType::kUInt64;
  return DType::kInt64;
}

DType ReduceResultDType(ReduceOp op, DType dtype) {
  switch (op) {
    case ReduceOp::kSum:
    case ReduceOp::kProd:
      return SumDType(dtype);
    case ReduceOp::kAll:
    case ReduceOp::kAny:
      return DType::kBool;
    case ReduceOp::kMin:
    case ReduceOp::kMax:
      break;
  }
  return dtype;
}

namespace kernels {

HWY_EXPORT(ReduceLineImpl);
HWY_EXPORT(ArgReduceLineImpl);

void ReduceLine(ReduceOp op, DType dtype, const void* data, int64_t stride,
                int64_t n, void* out) {
  HWY_DYNAMIC_DISPATCH(ReduceLineImpl)(op, dtype, data, stride, n, out);
}

int64_t ArgReduceLine(bool is_max, DType dtype, const void* data,
                      int64_t stride, int64_t n) {
  return HWY_DYNAMIC_DISPATCH(ArgReduceLineImpl)(is_max, dtype, data, stride,
                                                 n);
}

}  // namespace kernels
}  // namespace tessera
#endif  // HWY_ONCE
