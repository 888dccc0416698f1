// Copyright 2026 The Tessera Authors.
//
// -----------------------------------------------------------------------------
// File: reduce.h
// -----------------------------------------------------------------------------
//
// NumPy's reductions `sum`, `prod`, `min`, `max`, `all`, `any`, `mean`,
// `var`, `stddev` (np.std) over all axes, one axis or several, with
// `keepdims`, and `argmin`/`argmax` over one axis or the flattened tensor:
//
//   auto total = tessera::sum(t);                      // 0-d tensor
//   auto cols = tessera::max(t, /*axes=*/0, /*keepdims=*/true);
//   auto plane = tessera::mean(t, {0, 2});             // several axes
//   auto where = tessera::argmax(t, 1);                // int64 indices
//
// Axes may be negative (counting from the end). An axis out of range or
// repeated is InvalidArgument naming it; allocation failure is
// ResourceExhausted.
//
// Result dtypes as NumPy: `sum` and `prod` of bool and signed integers are
// int64, of unsigned integers uint64 (both wrap on overflow), of floats the
// same float; `all`/`any` are bool (NaN counts as true); `mean`, `var` and
// `stddev` of bool/integers are float64 (each element converted first), of
// floats the same float; `min`/`max` keep the dtype and return NaN when any
// reduced element is NaN; `argmin`/`argmax` are int64, the first occurrence
// of the extreme, or of the first NaN.
//
// Float sums are pairwise (kernels/reduce.h) along a contiguous line; when
// the reduced axis is not the contiguous one (axis 0 of a C-order matrix)
// rows are accumulated into the output one after another, as NumPy does.
// `var` is NumPy's two-pass formula: mean(|x - mean(x)|^2) with divisor
// max(n - ddof, 0) (a zero divisor gives inf or NaN, as NumPy).
//
// Empty reductions follow NumPy: `sum` gives 0, `prod` 1, `all` true, `any`
// false, `mean`/`var` NaN; `min`, `max`, `argmin` and `argmax` over zero
// elements are InvalidArgument naming the operation ("zero-size array to
// reduction operation maximum which has no identity", "attempt to get argmax
// of an empty sequence"), even when the result itself would be empty.

#ifndef TESSERA_TENSOR_REDUCE_H_
#define TESSERA_TENSOR_REDUCE_H_

#include <initializer_list>
#include <optional>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "alloc/allocator.h"
#include "tensor/kernels/reduce.h"
#include "tensor/tensor.h"

namespace tessera {

// NumPy's `axis=` argument: none (every axis), one axis, or several.
class Axes {
 public:
  Axes() = default;                   // every axis
  Axes(std::nullopt_t) {}             // NOLINT: axis=None
  Axes(int axis) : all_(false), axes_{axis} {}  // NOLINT: axis=1
  Axes(std::optional<int> axis)                 // NOLINT
      : all_(!axis.has_value()) {
    if (axis.has_value()) axes_.push_back(*axis);
  }
  Axes(std::initializer_list<int> axes)  // NOLINT: axis=(0, 2)
      : all_(false), axes_(axes.begin(), axes.end()) {}
  Axes(const std::vector<int>& axes)  // NOLINT
      : all_(false), axes_(axes.begin(), axes.end()) {}

  // True for axis=None. An empty list (axis=()) reduces nothing.
  bool all() const { return all_; }
  absl::Span<const int> list() const { return axes_; }

 private:
  bool all_ = true;
  absl::InlinedVector<int, 4> axes_;
};

// The reduced-axis mask of `axes` for a tensor of `ndim` dimensions, or
// InvalidArgument naming an axis out of range or repeated.
absl::StatusOr<absl::InlinedVector<bool, 8>> ReducedAxes(const Axes& axes,
                                                          int ndim);

absl::StatusOr<Tensor> Reduce(ReduceOp op, const Tensor& t, Axes axes = {},
                              bool keepdims = false,
                              Allocator* allocator = nullptr);

inline absl::StatusOr<Tensor> sum(const Tensor& t, Axes axes = {},
                                  bool keepdims = false,
                                  Allocator* allocator = nullptr) {
  return Reduce(ReduceOp::kSum, t, axes, keepdims, allocator);
}
inline absl::StatusOr<Tensor> prod(const Tensor& t, Axes axes = {},
                                   bool keepdims = false,
                                   Allocator* allocator = nullptr) {
  return Reduce(ReduceOp::kProd, t, axes, keepdims, allocator);
}
inline absl::StatusOr<Tensor> min(const Tensor& t, Axes axes = {},
                                  bool keepdims = false,
                                  Allocator* allocator = nullptr) {
  return Reduce(ReduceOp::kMin, t, axes, keepdims, allocator);
}
inline absl::StatusOr<Tensor> max(const Tensor& t, Axes axes = {},
                                  bool keepdims = false,
                                  Allocator* allocator = nullptr) {
  return Reduce(ReduceOp::kMax, t, axes, keepdims, allocator);
}
inline absl::StatusOr<Tensor> all(const Tensor& t, Axes axes = {},
                                  bool keepdims = false,
                                  Allocator* allocator = nullptr) {
  return Reduce(ReduceOp::kAll, t, axes, keepdims, allocator);
}
inline absl::StatusOr<Tensor> any(const Tensor& t, Axes axes = {},
                                  bool keepdims = false,
                                  Allocator* allocator = nullptr) {
  return Reduce(ReduceOp::kAny, t, axes, keepdims, allocator);
}

absl::StatusOr<Tensor> mean(const Tensor& t, Axes axes = {},
                            bool keepdims = false,
                            Allocator* allocator = nullptr);

// Variance with `ddof` delta degrees of freedom (divisor n - ddof).
absl::StatusOr<Tensor> var(const Tensor& t, Axes axes = {}, int64_t ddof = 0,
                           bool keepdims = false,
                           Allocator* allocator = nullptr);

// np.std: the square root of `var`.
absl::StatusOr<Tensor> stddev(const Tensor& t, Axes axes = {},
                              int64_t ddof = 0, bool keepdims = false,
                              Allocator* allocator = nullptr);

// Index of the first minimum / maximum (or first NaN) along `axis`, or in
// the flattened C-order tensor when `axis` is absent. int64.
absl::StatusOr<Tensor> argmin(const Tensor& t,
                              std::optional<int> axis = std::nullopt,
                              bool keepdims = false,
                              Allocator* allocator = nullptr);
absl::StatusOr<Tensor> argmax(const Tensor& t,
                              std::optional<int> axis = std::nullopt,
                              bool keepdims = false,
                              Allocator* allocator = nullptr);

}  // namespace tessera

#endif  // TESSERA_TENSOR_REDUCE_H_
