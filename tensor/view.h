// Copyright 2026 The Tessera Authors.
//
// -----------------------------------------------------------------------------
// File: view.h
// -----------------------------------------------------------------------------
//
// NumPy's views: functions that return a new `Tensor` over the same storage
// with another shape, strides and offset, copying nothing (except `reshape`
// and `ravel`, which copy when no strides can express the result, as NumPy
// does). Views inherit `writeable()` and never own data; `broadcast_to`
// views are read-only because several indices alias one element.
//
// Axes may be negative (counting from the end) wherever an axis is taken.
//
// Errors (InvalidArgument, naming the values): slice step 0, integer index
// out of range, axis out of range or repeated, too many indices, a reshape
// whose element count differs, shapes that do not broadcast.

#ifndef TESSERA_TENSOR_VIEW_H_
#define TESSERA_TENSOR_VIEW_H_

#include <cstdint>
#include <optional>
#include <type_traits>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "tensor/tensor.h"

namespace tessera {

// Python's start:stop:step. Absent bounds mean "from the start/to the end" in
// the direction of `step`; negative bounds count from the end; bounds beyond
// the axis are clipped.
struct Slice {
  Slice() = default;
  // NOLINTNEXTLINE: Slice{1} reads as Python's 1:
  Slice(std::optional<int64_t> start_,
        std::optional<int64_t> stop_ = std::nullopt, int64_t step_ = 1)
      : start(start_), stop(stop_), step(step_) {}

  std::optional<int64_t> start;
  std::optional<int64_t> stop;
  int64_t step = 1;

  static Slice All() { return Slice{}; }
};

// One item of a NumPy basic index expression: an integer (selects and drops
// the axis), a slice, a new axis of length 1, or an ellipsis (as many full
// slices as needed).
class Index {
 public:
  enum class Kind { kInteger, kSlice, kNewAxis, kEllipsis };

  template <typename T, typename = std::enable_if_t<std::is_integral<T>::value>>
  Index(T i) : kind_(Kind::kInteger), integer_(static_cast<int64_t>(i)) {}  // NOLINT
  Index(Slice slice) : kind_(Kind::kSlice), slice_(slice) {}  // NOLINT
  static Index NewAxis() { return Index(Kind::kNewAxis); }
  static Index Ellipsis() { return Index(Kind::kEllipsis); }

  Kind kind() const { return kind_; }
  int64_t integer() const { return integer_; }
  const Slice& slice() const { return slice_; }

 private:
  explicit Index(Kind kind) : kind_(kind) {}
  Kind kind_;
  int64_t integer_ = 0;
  Slice slice_;
};

// `t[items...]` with NumPy's basic indexing: always a view.
absl::StatusOr<Tensor> index(const Tensor& t, absl::Span<const Index> items);

// `t[..., slice, ...]` on one axis.
absl::StatusOr<Tensor> slice(const Tensor& t, int axis, const Slice& s);

// The (start, length) a slice selects on an axis of `extent` elements:
// Python's PySlice_AdjustIndices. InvalidArgument for step 0.
struct SliceRange {
  int64_t start;
  int64_t length;
};
absl::StatusOr<SliceRange> ResolveSlice(const Slice& s, int64_t extent);

// `axis` in [-ndim, ndim) made non-negative, or InvalidArgument naming it.
absl::StatusOr<int> NormalizeAxis(int axis, int ndim);

// Same elements in C order with `shape` (one extent may be -1: inferred). A
// view when the strides allow (NumPy's no-copy rule), otherwise a copy from
// `allocator` (or the default).
absl::StatusOr<Tensor> reshape(const Tensor& t,
                               absl::Span<const int64_t> shape,
                               Allocator* allocator = nullptr);

// reshape(t, {-1}).
absl::StatusOr<Tensor> ravel(const Tensor& t, Allocator* allocator = nullptr);

// Permutes axes: result axis i is input axis axes[i]; reverses them when
// `axes` is empty.
absl::StatusOr<Tensor> transpose(const Tensor& t,
                                 absl::Span<const int> axes = {});

absl::StatusOr<Tensor> swapaxes(const Tensor& t, int axis1, int axis2);

// NumPy's broadcast of two shapes (right-aligned; extents equal or one of
// them 1; a 1 against a 0 gives 0). InvalidArgument naming both shapes.
absl::StatusOr<Shape> BroadcastShapes(absl::Span<const int64_t> a,
                                      absl::Span<const int64_t> b);

// A read-only view of `t` broadcast to `shape` (stride 0 on new and
// stretched axes).
absl::StatusOr<Tensor> broadcast_to(const Tensor& t,
                                    absl::Span<const int64_t> shape);

// Removes `axis` (which must have length 1), or every length-1 axis.
absl::StatusOr<Tensor> squeeze(const Tensor& t,
                               std::optional<int> axis = std::nullopt);

// Removes every axis of `axes` (a tuple, as np.squeeze(a, (0, 2))): each
// must have length 1 and appear once, else InvalidArgument naming it. (A
// one-axis tuple in braces, squeeze(t, {1}), is ambiguous with the overload
// above: pass that one as an int.)
absl::StatusOr<Tensor> squeeze(const Tensor& t, absl::Span<const int> axes);

// Inserts a length-1 axis so that it becomes axis `axis` of the result
// (in [-ndim - 1, ndim]).
absl::StatusOr<Tensor> expand_dims(const Tensor& t, int axis);

// Inserts a length-1 axis at each of `axes`, positions in the result (of
// ndim + axes.size() axes), as np.expand_dims(a, (0, 2)): an axis out of
// range or repeated is InvalidArgument naming it.
absl::StatusOr<Tensor> expand_dims(const Tensor& t,
                                   absl::Span<const int> axes);

}  // namespace tessera

#endif  // TESSERA_TENSOR_VIEW_H_
