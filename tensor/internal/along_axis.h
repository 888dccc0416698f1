// Copyright 2026 The Tessera Authors.
//
// The steps every "along one axis" op shares (partition, scan, sort,
// indexing): choosing the axis as NumPy does (none means the flattened
// tensor), moving it last so that each lane along it is one contiguous row
// of a copy and moving it back afterwards, splitting a shape into the
// extents before, at and after the axis, and walking the lanes of a
// C-contiguous tensor.
//
// Errors are the ones NumPy raises (an axis out of range names the axis and
// the tensor's number of dimensions, from NormalizeAxis in view.h).

#ifndef TESSERA_TENSOR_INTERNAL_ALONG_AXIS_H_
#define TESSERA_TENSOR_INTERNAL_ALONG_AXIS_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "alloc/allocator.h"
#include "tensor/tensor.h"

namespace tessera {
namespace internal {

// What an op along an axis works on: the tensor and a non-negative axis.
struct AxisOperand {
  Tensor tensor;
  int axis = 0;
};

// `t` with `axis` made non-negative, or for no axis (NumPy's axis=None) `t`
// flattened (a view when its strides allow), along axis 0.
absl::StatusOr<AxisOperand> FlattenOrNormalizeAxis(const Tensor& t,
                                                   std::optional<int> axis);

// As FlattenOrNormalizeAxis, but a 0-d tensor is first seen as shape (1,),
// so axis 0 and -1 are valid for it: NumPy's PyArray_CheckAxis, which take,
// compress, repeat and the scans go through (partition and sort do not).
absl::StatusOr<AxisOperand> FlattenOrNormalizeAxisRavelingZeroD(
    const Tensor& t, std::optional<int> axis);

// A tensor with one axis moved last, as a view, and the permutation that
// moves it back (transpose(view, inverse) has the original's shape).
struct AxisMovedLast {
  Tensor view;
  std::vector<int> inverse;
};

// `t` with `axis` (non-negative, < t.ndim()) moved last.
absl::StatusOr<AxisMovedLast> MoveAxisLast(const Tensor& t, int axis);

// `lanes`, shaped like a MoveAxisLast view of a tensor whose axis `axis`
// was moved last, with that axis moved back: `lanes` itself when `axis` was
// already last, else a C-contiguous copy from `allocator`.
absl::StatusOr<Tensor> MoveLastAxisBack(const Tensor& lanes, int axis,
                                        const std::vector<int>& inverse,
                                        Allocator* allocator);

// A shape seen from one of its axes: `outer` is the product of the extents
// before it, `inner` of those after it (1 when there are none), so element
// (o, i, j) is at flat index (o * extent + i) * inner + j in C order.
struct AxisSplit {
  int64_t outer = 1;
  int64_t extent = 1;
  int64_t inner = 1;
};

// `shape` split at `axis` (non-negative, < shape.size()).
AxisSplit SplitAtAxis(absl::Span<const int64_t> shape, int axis);

// The number of lanes along the last axis of `lanes` (at least 1-d): 0 when
// that axis is empty, though the others may not be.
int64_t LaneCount(const Tensor& lanes);

// Runs fn(char* lane, int64_t n, int64_t r) for every lane r of the
// C-contiguous `lanes` (at least 1-d), in order: `lane` is the lane's first
// byte and `n` its length. `fn` writes through `lane` only when `lanes` is
// its own copy. No call when `lanes` is empty.
template <typename Fn>
void ForEachLane(const Tensor& lanes, Fn&& fn) {
  if (lanes.size() == 0) return;
  const int64_t n = lanes.shape(lanes.ndim() - 1);
  const int64_t rows = lanes.size() / n;
  char* base = static_cast<char*>(lanes.mutable_data());
  const int64_t row_bytes = n * static_cast<int64_t>(lanes.itemsize());
  for (int64_t r = 0; r < rows; ++r) fn(base + r * row_bytes, n, r);
}

}  // namespace internal
}  // namespace tessera

#endif  // TESSERA_TENSOR_INTERNAL_ALONG_AXIS_H_
