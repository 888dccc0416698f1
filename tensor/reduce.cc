// Copyright 2026 The Tessera Authors.

#include "tensor/reduce.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <utility>

#include "absl/strings/str_format.h"
#include "tensor/internal/parallel_ops.h"
#include "tensor/internal/strided_loop.h"
#include "tensor/kernels/binary.h"
#include "tensor/kernels/float16_convert.h"
#include "tensor/view.h"

namespace tessera {
namespace {

bool HasIdentity(ReduceOp op) {
  return op != ReduceOp::kMin && op != ReduceOp::kMax;
}

absl::Status NoIdentity(ReduceOp op) {
  return absl::InvalidArgumentError(absl::StrFormat(
      "zero-size array to reduction operation %s which has no identity",
      ReduceOpName(op)));
}

// Writes the identity of `op` (sum 0, prod 1, all true, any false) in
// `dtype` to `n` elements at `out`.
void FillIdentity(ReduceOp op, DType dtype, void* out, int64_t n) {
  VisitDType(dtype, [&](auto zero) {
    using T = decltype(zero);
    const T value = ConvertValue<T>(
        (op == ReduceOp::kProd || op == ReduceOp::kAll) ? 1 : 0);
    T* p = static_cast<T*>(out);
    for (int64_t i = 0; i < n; ++i) p[i] = value;
  });
}

// Combines partial results `*acc` and `value` (both of `dtype`, the result
// dtype of `op`; never float16, which reduces in float32).
void Combine(ReduceOp op, DType dtype, void* acc, const void* value) {
  VisitDType(dtype, [&](auto zero) {
    using T = std::conditional_t<kIsFloat16<decltype(zero)>, float,
                                 decltype(zero)>;
    T a, v;
    std::memcpy(&a, acc, sizeof(T));
    std::memcpy(&v, value, sizeof(T));
    T r;
    if constexpr (std::is_same<T, bool>::value) {
      r = (op == ReduceOp::kMin || op == ReduceOp::kAll || op == ReduceOp::kProd)
              ? (a && v)
              : (a || v);
    } else if constexpr (std::is_floating_point<T>::value) {
      if (op == ReduceOp::kSum) {
        r = a + v;
      } else if (op == ReduceOp::kProd) {
        r = a * v;
      } else if (std::isnan(a) || std::isnan(v)) {
        r = std::numeric_limits<T>::quiet_NaN();
      } else {
        r = op == ReduceOp::kMax ? (v > a ? v : a) : (v < a ? v : a);
      }
    } else {
      using U = std::make_unsigned_t<T>;
      if (op == ReduceOp::kSum) {
        r = static_cast<T>(static_cast<U>(a) + static_cast<U>(v));
      } else if (op == ReduceOp::kProd) {
        r = static_cast<T>(static_cast<U>(a) * static_cast<U>(v));
      } else {
        r = op == ReduceOp::kMax ? (v > a ? v : a) : (v < a ? v : a);
      }
    }
    std::memcpy(acc, &r, sizeof(T));
  });
}

// How a reduction walks its input: the kept axes index the output, the
// reduced axes index the elements combined into each output element.
struct ReducePlan {
  Shape out_shape;        // kept extents, in input order (no keepdims 1s)
  Strides outer_strides;  // input byte strides of the kept axes
  Shape inner_shape;      // reduced extents, in input order
  Strides inner_strides;  // input byte strides of the reduced axes
  Shape kept_shape;       // the keepdims shape (reduced extents are 1)
  int64_t count = 0;      // elements per output element (saturates)
};

absl::StatusOr<ReducePlan> MakePlan(const Tensor& t, const Axes& axes) {
  auto reduced = ReducedAxes(axes, t.ndim());
  if (!reduced.ok()) return reduced.status();
  ReducePlan plan;
  plan.count = 1;
  bool saturated = false;
  for (int k = 0; k < t.ndim(); ++k) {
    if ((*reduced)[k]) {
      plan.inner_shape.push_back(t.shape(k));
      plan.inner_strides.push_back(t.strides()[k]);
      plan.kept_shape.push_back(1);
      if (!saturated &&
          __builtin_mul_overflow(plan.count, t.shape(k), &plan.count)) {
        saturated = true;
      }
    } else {
      plan.out_shape.push_back(t.shape(k));
      plan.outer_strides.push_back(t.strides()[k]);
      plan.kept_shape.push_back(t.shape(k));
    }
  }
  // Extents of an empty tensor may overflow; a zero makes the count zero.
  for (int64_t extent : plan.inner_shape) {
    if (extent == 0) plan.count = 0;
  }
  if (saturated && plan.count != 0) {
    plan.count = std::numeric_limits<int64_t>::max();
  }
  return plan;
}

// Reduces the block of `shape`/`strides` at `base` into `out` (one element
// of `ReduceResultDType(op, dtype)`). The block is not empty.
void ReduceBlock(ReduceOp op, DType dtype, const char* base,
                 absl::Span<const int64_t> shape,
                 absl::Span<const int64_t> strides, void* out) {
  if (shape.size() == 1) {
    kernels::ReduceLine(op, dtype, base, strides[0], shape[0], out);
    return;
  }
  const DType out_dtype = ReduceResultDType(op, dtype);
  bool first = true;
  internal::ForEachRow<1>(
      shape, {strides}, {const_cast<char*>(base)},
      [&](std::array<char*, 1> p, std::array<int64_t, 1> s, int64_t n) {
        alignas(8) char partial[8];
        kernels::ReduceLine(op, dtype, p[0], s[0], n, first ? out : partial);
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

// The elementwise kernel that folds one block of partial results into the
// output for `op`, when the accumulator is the input dtype.
std::optional<BinaryOp> RowCombiner(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum: return BinaryOp::kAdd;
    case ReduceOp::kProd: return BinaryOp::kMultiply;
    case ReduceOp::kMax: return BinaryOp::kMaximum;
    case ReduceOp::kMin: return BinaryOp::kMinimum;
    case ReduceOp::kAll:
    case ReduceOp::kAny:
      break;
  }
  return std::nullopt;
}

// The reshaped view of `out` with the keepdims shape.
Tensor WithKeptDims(const Tensor& out, const ReducePlan& plan) {
  Shape kept = plan.kept_shape;
  Strides strides = ContiguousStrides(kept, out.itemsize());
  return Tensor::UncheckedView(out.storage(), out.dtype(), std::move(kept),
                               std::move(strides), 0, true,
                               /*owns_data=*/true);
}

// Rounds `n` float32 values in place to float16 and back (the result of a
// float16 step, kept in float32).
void RoundThroughFloat16(float* values, int64_t n) {
  constexpr int64_t kChunk = 1024;
  uint16_t half[kChunk];
  for (int64_t i = 0; i < n; i += kChunk) {
    const size_t m = static_cast<size_t>(std::min(kChunk, n - i));
    kernels::Float32ToFloat16(values + i, half, m);
    kernels::Float16ToFloat32(half, values + i, m);
  }
}

// Runs `op` over the plan into `out` (C-contiguous, plan.out_shape, not
// empty); plan.count >= 1. `float16_steps`: `t` is float16 data widened to
// float32, and each row-by-row accumulation step rounds to float16, as
// NumPy's half loop does when it adds one row into the output at a time.
void RunReduce(ReduceOp op, const Tensor& t, const ReducePlan& plan,
               const Tensor& out, bool float16_steps = false) {
  const DType out_dtype = out.dtype();
  const char* in = static_cast<const char*>(t.data());
  char* o = static_cast<char*>(out.mutable_data());
  if (plan.out_shape.empty() && (t.c_contiguous() || t.f_contiguous())) {
    // Everything into one element, a single contiguous line.
    internal::ContiguousReduce(op, t.dtype(), in, t.size(), o);
    return;
  }
  const auto combiner = RowCombiner(op);
  if (combiner.has_value() && out_dtype == t.dtype() &&
      IsContiguousBlock(plan.out_shape, plan.outer_strides,
                        static_cast<int64_t>(t.itemsize())) &&
      plan.inner_strides.back() != static_cast<int64_t>(t.itemsize())) {
    // Each index combination of the reduced axes selects a contiguous block
    // shaped like the output (axis 0 of a C-order matrix, axes (0, 1) of a
    // 3-d tensor): accumulate blocks elementwise with the SIMD binary kernel.
    const int64_t size = static_cast<int64_t>(t.itemsize());
    bool first = true;
    internal::ForEachRow<1>(
        plan.inner_shape, {plan.inner_strides}, {const_cast<char*>(in)},
        [&](std::array<char*, 1> p, std::array<int64_t, 1> s, int64_t n) {
          for (int64_t i = 0; i < n; ++i) {
            const char* block = p[0] + i * s[0];
            if (first) {
              std::memcpy(o, block, static_cast<size_t>(out.nbytes()));
              first = false;
            } else {
              kernels::BinaryRow(*combiner, t.dtype(), o, size, block, size,
                                 o, size, out.size());
              if (float16_steps) {
                RoundThroughFloat16(reinterpret_cast<float*>(o), out.size());
              }
            }
          }
        });
    return;
  }
  internal::ForEachRow<2>(
      plan.out_shape, {plan.outer_strides, out.strides()},
      {const_cast<char*>(in), o},
      [&](std::array<char*, 2> p, std::array<int64_t, 2> s, int64_t n) {
        for (int64_t j = 0; j < n; ++j) {
          ReduceBlock(op, t.dtype(), p[0] + j * s[0], plan.inner_shape,
                      plan.inner_strides, p[1] + j * s[1]);
        }
      });
}

// Sum of squared deviations from `mean` over a block, in double.
template <typename T>
double SquaredDeviations(const char* base, absl::Span<const int64_t> shape,
                         absl::Span<const int64_t> strides, double mean) {
  double total = 0;
  internal::ForEachRow<1>(
      shape, {strides}, {const_cast<char*>(base)},
      [&](std::array<char*, 1> p, std::array<int64_t, 1> s, int64_t n) {
        double row = 0;
        int64_t i = 0;
        if (s[0] == static_cast<int64_t>(sizeof(T)) &&
            reinterpret_cast<uintptr_t>(p[0]) % alignof(T) == 0) {
          // Contiguous: four independent sums, which the compiler can keep
          // in vector registers (one serial chain of adds cannot).
          const T* q = reinterpret_cast<const T*>(p[0]);
          double r0 = 0, r1 = 0, r2 = 0, r3 = 0;
          for (; i + 4 <= n; i += 4) {
            const double d0 = static_cast<double>(q[i]) - mean;
            const double d1 = static_cast<double>(q[i + 1]) - mean;
            const double d2 = static_cast<double>(q[i + 2]) - mean;
            const double d3 = static_cast<double>(q[i + 3]) - mean;
            r0 += d0 * d0;
            r1 += d1 * d1;
            r2 += d2 * d2;
            r3 += d3 * d3;
          }
          row = (r0 + r1) + (r2 + r3);
        }
        for (; i < n; ++i) {
          T v;
          std::memcpy(&v, p[0] + i * s[0], sizeof(T));
          const double d = static_cast<double>(v) - mean;
          row += d * d;
        }
        total += row;
      });
  return total;
}

absl::StatusOr<Tensor> ArgReduce(bool is_max, const Tensor& t,
                                 std::optional<int> axis, bool keepdims,
                                 Allocator* allocator) {
  if (t.dtype() == DType::kFloat16) {
    // Widening keeps the order and the NaNs: the same indices.
    auto wide = astype(t, DType::kFloat32, allocator);
    if (!wide.ok()) return wide.status();
    return ArgReduce(is_max, *wide, axis, keepdims, allocator);
  }
  Tensor source = t;
  if (!axis.has_value() && t.ndim() != 1) {
    // NumPy flattens in C order; a copy only when no view can.
    auto flat = ravel(t, allocator);
    if (!flat.ok()) return flat.status();
    source = *std::move(flat);
  }
  const int a_input = axis.has_value() ? *axis : 0;
  auto plan = MakePlan(source, Axes(a_input));
  if (!plan.ok()) return plan.status();
  if (plan->count == 0) {
    return absl::InvalidArgumentError(
        absl::StrFormat("attempt to get %s of an empty sequence",
                        is_max ? "argmax" : "argmin"));
  }
  auto out = empty(plan->out_shape, DType::kInt64, allocator);
  if (!out.ok()) return out.status();
  const int64_t length = plan->inner_shape[0];
  const int64_t stride = plan->inner_strides[0];
  internal::ForEachRow<2>(
      plan->out_shape, {plan->outer_strides, out->strides()},
      {const_cast<char*>(static_cast<const char*>(source.data())),
       static_cast<char*>(out->mutable_data())},
      [&](std::array<char*, 2> p, std::array<int64_t, 2> s, int64_t n) {
        for (int64_t j = 0; j < n; ++j) {
          const int64_t i = kernels::ArgReduceLine(
              is_max, source.dtype(), p[0] + j * s[0], stride, length);
          std::memcpy(p[1] + j * s[1], &i, sizeof(i));
        }
      });
  if (!keepdims) return out;
  if (!axis.has_value()) {
    // NumPy keeps every axis of the original tensor, each of length 1.
    ReducePlan all;
    all.kept_shape.assign(static_cast<size_t>(t.ndim()), 1);
    return WithKeptDims(*out, all);
  }
  return WithKeptDims(*out, *plan);
}

// float16 reduces in float32, as NumPy's half loops accumulate in float:
// the values widen exactly, a line is summed pairwise in float32 and rounded
// once; rows accumulated into the output round after each row (as NumPy's,
// which store each step in the float16 output). min/max/all/any are exact.
absl::StatusOr<Tensor> ReduceFloat16(ReduceOp op, const Tensor& t,
                                     const Axes& axes, bool keepdims,
                                     Allocator* allocator) {
  auto wide = astype(t, DType::kFloat32, allocator);
  if (!wide.ok()) return wide.status();
  auto plan = MakePlan(*wide, axes);
  if (!plan.ok()) return plan.status();
  const DType wide_dtype = ReduceResultDType(op, DType::kFloat32);
  auto out = empty(plan->out_shape, wide_dtype, allocator);
  if (!out.ok()) return out.status();
  if (out->size() > 0) {
    if (plan->count == 0) {
      FillIdentity(op, wide_dtype, out->mutable_data(), out->size());
    } else {
      RunReduce(op, *wide, *plan, *out, /*float16_steps=*/true);
    }
  }
  Tensor result = *std::move(out);
  if (wide_dtype == DType::kFloat32) {
    auto narrowed = astype(result, DType::kFloat16, allocator);
    if (!narrowed.ok()) return narrowed.status();
    result = *std::move(narrowed);
  }
  if (!keepdims) return result;
  return WithKeptDims(result, *plan);
}

}  // namespace

absl::StatusOr<absl::InlinedVector<bool, 8>> ReducedAxes(const Axes& axes,
                                                          int ndim) {
  absl::InlinedVector<bool, 8> reduced(static_cast<size_t>(ndim), axes.all());
  if (axes.all()) return reduced;
  for (int axis : axes.list()) {
    auto a = NormalizeAxis(axis, ndim);
    if (!a.ok()) return a.status();
    if (reduced[*a]) {
      return absl::InvalidArgumentError(
          absl::StrFormat("duplicate value in 'axis': %d", axis));
    }
    reduced[*a] = true;
  }
  return reduced;
}

absl::StatusOr<Tensor> Reduce(ReduceOp op, const Tensor& t, Axes axes,
                              bool keepdims, Allocator* allocator) {
  auto plan = MakePlan(t, axes);
  if (!plan.ok()) return plan.status();
  if (plan->count == 0 && !HasIdentity(op)) return NoIdentity(op);
  if (t.dtype() == DType::kFloat16) return ReduceFloat16(op, t, axes, keepdims, allocator);
  const DType out_dtype = ReduceResultDType(op, t.dtype());
  auto out = empty(plan->out_shape, out_dtype, allocator);
  if (!out.ok()) return out.status();
  if (out->size() > 0) {
    if (plan->count == 0) {
      FillIdentity(op, out_dtype, out->mutable_data(), out->size());
    } else {
      RunReduce(op, t, *plan, *out);
    }
  }
  if (!keepdims) return out;
  return WithKeptDims(*out, *plan);
}

absl::StatusOr<Tensor> mean(const Tensor& t, Axes axes, bool keepdims,
                            Allocator* allocator) {
  if (t.dtype() == DType::kFloat16) {
    // NumPy's mean of float16 sums and divides in float32, then rounds.
    auto wide = astype(t, DType::kFloat32, allocator);
    if (!wide.ok()) return wide.status();
    auto m = mean(*wide, axes, keepdims, allocator);
    if (!m.ok()) return m.status();
    return astype(*m, DType::kFloat16, allocator);
  }
  auto plan = MakePlan(t, axes);
  if (!plan.ok()) return plan.status();
  absl::StatusOr<Tensor> total;
  if (IsFloat(t.dtype())) {
    total = Reduce(ReduceOp::kSum, t, axes, keepdims, allocator);
  } else {
    // NumPy converts each element to float64 before summing.
    auto converted = astype(t, DType::kFloat64, allocator);
    if (!converted.ok()) return converted.status();
    total = Reduce(ReduceOp::kSum, *converted, axes, keepdims, allocator);
  }
  if (!total.ok()) return total.status();
  VisitDType(total->dtype(), [&](auto zero) {
    using T = decltype(zero);
    if constexpr (std::is_floating_point<T>::value) {
      T* p = static_cast<T*>(total->mutable_data());
      const T divisor = static_cast<T>(plan->count);  // 0 / 0 is NaN
      for (int64_t i = 0; i < total->size(); ++i) p[i] = p[i] / divisor;
    }
  });
  return total;
}

absl::StatusOr<Tensor> var(const Tensor& t, Axes axes, int64_t ddof,
                           bool keepdims, Allocator* allocator) {
  if (t.dtype() == DType::kFloat16) {
    // In float32, rounded once (NumPy's _var takes float16 steps; this is
    // the more accurate of the two and may differ from it in the last bit).
    auto wide = astype(t, DType::kFloat32, allocator);
    if (!wide.ok()) return wide.status();
    auto v = var(*wide, axes, ddof, keepdims, allocator);
    if (!v.ok()) return v.status();
    return astype(*v, DType::kFloat16, allocator);
  }
  Tensor source = t;
  if (!IsFloat(t.dtype())) {
    auto converted = astype(t, DType::kFloat64, allocator);
    if (!converted.ok()) return converted.status();
    source = *std::move(converted);
  }
  auto plan = MakePlan(source, axes);
  if (!plan.ok()) return plan.status();
  // The first pass: the pairwise mean, in the source dtype as NumPy.
  auto means = mean(source, axes, /*keepdims=*/false, allocator);
  if (!means.ok()) return means.status();
  auto out = empty(plan->out_shape, source.dtype(), allocator);
  if (!out.ok()) return out.status();
  const int64_t n = plan->count;
  const double divisor = static_cast<double>(n > ddof ? n - ddof : 0);
  VisitDType(source.dtype(), [&](auto zero) {
    using T = decltype(zero);
    if constexpr (std::is_floating_point<T>::value) {
      const T* m = static_cast<const T*>(means->data());
      T* o = static_cast<T*>(out->mutable_data());
      int64_t next = 0;  // outputs are visited in C order
      internal::ForEachRow<1>(
          plan->out_shape, {plan->outer_strides},
          {const_cast<char*>(static_cast<const char*>(source.data()))},
          [&](std::array<char*, 1> p, std::array<int64_t, 1> s, int64_t len) {
            for (int64_t j = 0; j < len; ++j, ++next) {
              const double deviations =
                  n == 0 ? 0.0
                         : SquaredDeviations<T>(p[0] + j * s[0],
                                                plan->inner_shape,
                                                plan->inner_strides,
                                                static_cast<double>(m[next]));
              o[next] = static_cast<T>(deviations / divisor);
            }
          });
    }
  });
  if (!keepdims) return out;
  return WithKeptDims(*out, *plan);
}

absl::StatusOr<Tensor> stddev(const Tensor& t, Axes axes, int64_t ddof,
                              bool keepdims, Allocator* allocator) {
  if (t.dtype() == DType::kFloat16) {
    auto wide = astype(t, DType::kFloat32, allocator);
    if (!wide.ok()) return wide.status();
    auto s = stddev(*wide, axes, ddof, keepdims, allocator);
    if (!s.ok()) return s.status();
    return astype(*s, DType::kFloat16, allocator);
  }
  auto v = var(t, axes, ddof, keepdims, allocator);
  if (!v.ok()) return v.status();
  VisitDType(v->dtype(), [&](auto zero) {
    using T = decltype(zero);
    if constexpr (std::is_floating_point<T>::value) {
      T* p = static_cast<T*>(v->mutable_data());
      for (int64_t i = 0; i < v->size(); ++i) p[i] = std::sqrt(p[i]);
    }
  });
  return v;
}

absl::StatusOr<Tensor> argmin(const Tensor& t, std::optional<int> axis,
                              bool keepdims, Allocator* allocator) {
  return ArgReduce(false, t, axis, keepdims, allocator);
}

absl::StatusOr<Tensor> argmax(const Tensor& t, std::optional<int> axis,
                              bool keepdims, Allocator* allocator) {
  return ArgReduce(true, t, axis, keepdims, allocator);
}

}  // namespace tessera
