// Copyright 2026 The Tessera Authors.

#include "tensor/reduce.h"

#include <array>
#include <cstring>
#include <cmath>
#include <limits>
#include <type_traits>
#include <utility>

#include "absl/strings/str_format.h"
#include "tensor/internal/strided_loop.h"
#include "tensor/kernels/binary.h"
#include "tensor/view.h"

namespace tessera {
namespace {

absl::Status NoIdentity(ReduceOp op) {
  return absl::InvalidArgumentError(absl::StrFormat(
      "zero-size array to reduction operation %s which has no identity",
      ReduceOpName(op)));
}

// Combines partial results `*acc` and `value` (both of `dtype`).
void Combine(ReduceOp op, DType dtype, void* acc, const void* value) {
  VisitDType(dtype, [&](auto zero) {
    using T = decltype(zero);
    T a, v;
    std::memcpy(&a, acc, sizeof(T));
    std::memcpy(&v, value, sizeof(T));
    T r;
    if constexpr (std::is_floating_point<T>::value) {
      if (op == ReduceOp::kSum) {
        r = a + v;
      } else if (std::isnan(a) || std::isnan(v)) {
        r = std::numeric_limits<T>::quiet_NaN();
      } else {
        r = op == ReduceOp::kMax ? (v > a ? v : a) : (v < a ? v : a);
      }
    } else if constexpr (std::is_same<T, bool>::value) {
      r = op == ReduceOp::kMin ? (a && v) : (a || v);
    } else {
      if (op == ReduceOp::kSum) {
        r = static_cast<T>(static_cast<uint64_t>(a) + static_cast<uint64_t>(v));
      } else {
        r = op == ReduceOp::kMax ? (v > a ? v : a) : (v < a ? v : a);
      }
    }
    std::memcpy(acc, &r, sizeof(T));
  });
}

Shape KeptShape(const Tensor& t, std::optional<int> axis) {
  Shape shape(t.shape().begin(), t.shape().end());
  for (int k = 0; k < t.ndim(); ++k) {
    if (!axis.has_value() || k == *axis) shape[k] = 1;
  }
  return shape;
}

// Reduces everything into the single element at `out`.
void ReduceAll(ReduceOp op, const Tensor& t, DType out_dtype, char* out) {
  if (t.size() == 0) {
    std::memset(out, 0, DTypeSize(out_dtype));  // sum's identity
    return;
  }
  if (t.c_contiguous() || t.f_contiguous()) {
    kernels::ReduceLine(op, t.dtype(), t.data(),
                        static_cast<int64_t>(t.itemsize()), t.size(), out);
    return;
  }
  bool first = true;
  internal::ForEachRow<1>(
      t.shape(), {t.strides()}, {const_cast<char*>(
                                     static_cast<const char*>(t.data()))},
      [&](std::array<char*, 1> p, std::array<int64_t, 1> s, int64_t n) {
        alignas(8) char partial[8];
        kernels::ReduceLine(op, t.dtype(), p[0], s[0], n,
                            first ? out : partial);
        if (!first) Combine(op, out_dtype, out, partial);
        first = false;
      });
}

// True when `shape`/`strides` describe a C-contiguous block.
bool IsContiguousBlock(absl::Span<const int64_t> shape,
                       absl::Span<const int64_t> strides, int64_t itemsize) {
  int64_t expected = itemsize;
  for (int k = static_cast<int>(shape.size()) - 1; k >= 0; --k) {
    if (shape[k] == 1) continue;
    if (strides[k] != expected) return false;
    expected *= shape[k];
  }
  return true;
}

}  // namespace

absl::StatusOr<Tensor> Reduce(ReduceOp op, const Tensor& t,
                              std::optional<int> axis, bool keepdims,
                              Allocator* allocator) {
  const DType out_dtype = op == ReduceOp::kSum ? SumDType(t.dtype()) : t.dtype();
  if (!axis.has_value()) {
    if (op != ReduceOp::kSum && t.size() == 0) return NoIdentity(op);
    const Shape shape = keepdims ? KeptShape(t, std::nullopt) : Shape{};
    auto out = empty(shape, out_dtype, allocator);
    if (!out.ok()) return out.status();
    ReduceAll(op, t, out_dtype, static_cast<char*>(out->mutable_data()));
    return out;
  }
  auto a = NormalizeAxis(*axis, t.ndim());
  if (!a.ok()) return a.status();
  const int64_t length = t.shape(*a);
  Shape rest_shape;
  Strides rest_strides;
  for (int k = 0; k < t.ndim(); ++k) {
    if (k == *a) continue;
    rest_shape.push_back(t.shape(k));
    rest_strides.push_back(t.strides()[k]);
  }
  const int64_t axis_stride = t.strides()[*a];
  auto out = empty(rest_shape, out_dtype, allocator);
  if (!out.ok()) return out.status();
  if (out->size() > 0) {
    if (length == 0) {
      if (op != ReduceOp::kSum) return NoIdentity(op);
      std::memset(out->mutable_data(), 0, static_cast<size_t>(out->nbytes()));
    } else if (out_dtype == t.dtype() &&
               IsContiguousBlock(rest_shape, rest_strides,
                                 static_cast<int64_t>(t.itemsize())) &&
               axis_stride != static_cast<int64_t>(t.itemsize())) {
      // Each index along the axis is a contiguous block shaped like the
      // output: accumulate blocks elementwise with the SIMD binary kernel.
      const BinaryOp combine = op == ReduceOp::kSum   ? BinaryOp::kAdd
                               : op == ReduceOp::kMax ? BinaryOp::kMaximum
                                                      : BinaryOp::kMinimum;
      const int64_t size = static_cast<int64_t>(t.itemsize());
      const char* in = static_cast<const char*>(t.data());
      char* o = static_cast<char*>(out->mutable_data());
      std::memcpy(o, in, static_cast<size_t>(out->nbytes()));
      for (int64_t i = 1; i < length; ++i) {
        kernels::BinaryRow(combine, t.dtype(), o, size, in + i * axis_stride,
                           size, o, size, out->size());
      }
    } else {
      internal::ForEachRow<2>(
          rest_shape, {rest_strides, out->strides()},
          {const_cast<char*>(static_cast<const char*>(t.data())),
           static_cast<char*>(out->mutable_data())},
          [&](std::array<char*, 2> p, std::array<int64_t, 2> s, int64_t n) {
            for (int64_t j = 0; j < n; ++j) {
              kernels::ReduceLine(op, t.dtype(), p[0] + j * s[0], axis_stride,
                                  length, p[1] + j * s[1]);
            }
          });
    }
  }
  if (!keepdims) return out;
  Shape kept = KeptShape(t, *a);
  Strides strides = ContiguousStrides(kept, out->itemsize());
  return Tensor::UncheckedView(out->storage(), out_dtype, std::move(kept),
                               std::move(strides), 0, true,
                               /*owns_data=*/true);
}

absl::StatusOr<Tensor> mean(const Tensor& t, std::optional<int> axis,
                            bool keepdims, Allocator* allocator) {
  int64_t count = t.size();
  if (axis.has_value()) {
    auto a = NormalizeAxis(*axis, t.ndim());
    if (!a.ok()) return a.status();
    count = t.shape(*a);
  }
  absl::StatusOr<Tensor> total;
  if (IsFloat(t.dtype())) {
    total = Reduce(ReduceOp::kSum, t, axis, keepdims, allocator);
  } else {
    // NumPy converts each element to float64 before summing.
    auto converted = astype(t, DType::kFloat64, allocator);
    if (!converted.ok()) return converted.status();
    total = Reduce(ReduceOp::kSum, *converted, axis, keepdims, allocator);
  }
  if (!total.ok()) return total.status();
  VisitDType(total->dtype(), [&](auto zero) {
    using T = decltype(zero);
    if constexpr (std::is_floating_point<T>::value) {
      T* p = static_cast<T*>(total->mutable_data());
      const T divisor = static_cast<T>(count);  // 0 / 0 is NaN, as NumPy
      for (int64_t i = 0; i < total->size(); ++i) p[i] = p[i] / divisor;
    }
  });
  return total;
}

}  // namespace tessera
