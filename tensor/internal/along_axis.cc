// Copyright 2026 The Tessera Authors.
//
// Axis choice, moving an axis last and back, and shape splits
// (along_axis.h).

#include "tensor/internal/along_axis.h"

#include <utility>

#include "tensor/view.h"

namespace tessera {
namespace internal {

absl::StatusOr<AxisOperand> FlattenOrNormalizeAxis(const Tensor& t,
                                                   std::optional<int> axis) {
  if (!axis.has_value()) {
    auto flat = ravel(t);
    if (!flat.ok()) return flat.status();
    return AxisOperand{*std::move(flat), 0};
  }
  auto a = NormalizeAxis(*axis, t.ndim());
  if (!a.ok()) return a.status();
  return AxisOperand{t, *a};
}

absl::StatusOr<AxisOperand> FlattenOrNormalizeAxisRavelingZeroD(
    const Tensor& t, std::optional<int> axis) {
  if (t.ndim() != 0 || !axis.has_value()) {
    return FlattenOrNormalizeAxis(t, axis);
  }
  auto a = NormalizeAxis(*axis, 1);
  if (!a.ok()) return a.status();
  return FlattenOrNormalizeAxis(t, std::nullopt);
}

absl::StatusOr<AxisMovedLast> MoveAxisLast(const Tensor& t, int axis) {
  const int nd = t.ndim();
  std::vector<int> perm, inverse(nd);
  for (int k = 0; k < nd; ++k) {
    if (k != axis) perm.push_back(k);
  }
  perm.push_back(axis);
  for (int k = 0; k < nd; ++k) inverse[perm[k]] = k;
  auto view = transpose(t, perm);
  if (!view.ok()) return view.status();
  return AxisMovedLast{*std::move(view), std::move(inverse)};
}

absl::StatusOr<Tensor> MoveLastAxisBack(const Tensor& lanes, int axis,
                                        const std::vector<int>& inverse,
                                        Allocator* allocator) {
  if (axis == lanes.ndim() - 1) return lanes;
  auto back = transpose(lanes, inverse);
  if (!back.ok()) return back.status();
  return copy(*back, allocator);
}

AxisSplit SplitAtAxis(absl::Span<const int64_t> shape, int axis) {
  AxisSplit split;
  for (int k = 0; k < axis; ++k) split.outer *= shape[k];
  split.extent = shape[axis];
  for (size_t k = axis + 1; k < shape.size(); ++k) split.inner *= shape[k];
  return split;
}

int64_t LaneCount(const Tensor& lanes) {
  const int64_t n = lanes.shape(lanes.ndim() - 1);
  return n == 0 ? 0 : lanes.size() / n;
}

}  // namespace internal
}  // namespace tessera
