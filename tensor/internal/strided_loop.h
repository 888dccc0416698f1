// Copyright 2026 The Tessera Authors.
//
// The N-d iteration under every elementwise loop, as NumPy's iterator does
// it: operands share one shape and each has its own byte strides; axes of
// length 1 are dropped and adjacent axes that are contiguous with each other
// in every operand are merged, so that the callback sees the longest possible
// inner rows (a C-contiguous tensor of any shape is one row).
//
// `ForEachRow<K>(shape, strides, base, fn)` calls
//   fn(std::array<char*, K> row_start, std::array<int64_t, K> row_strides,
//      int64_t row_length)
// once per inner row, in C order of the outer axes. A shape with a zero axis
// makes no call; a 0-d shape makes one call of length 1.
//
// `ForEachPlane<K>(shape, strides, base, fn)` walks the same coalesced axes
// two at a time: it calls
//   fn(std::array<char*, K> start, std::array<int64_t, K> row_strides,
//      std::array<int64_t, K> col_strides, int64_t rows, int64_t cols)
// once per 2-D plane of the two innermost coalesced axes (rows = 1 and
// row_strides = 0 when only one axis is left; rows = cols = 1 for a 0-d
// shape), in C order of the axes outside them. The callee chooses the order
// inside a plane: this is what lets a kernel walk a transposed operand in
// cache-sized blocks instead of one long strided row after another.
//
// Cost: O(ndim) to coalesce, then O(1) per row (or plane) for the odometer.

#ifndef TESSERA_TENSOR_INTERNAL_STRIDED_LOOP_H_
#define TESSERA_TENSOR_INTERNAL_STRIDED_LOOP_H_

#include <array>
#include <cstdint>

#include "absl/container/inlined_vector.h"
#include "absl/types/span.h"

namespace tessera {
namespace internal {

// The axes of a shape after dropping length-1 axes and merging adjacent
// axes that are contiguous with each other in every operand, outermost
// first. `dims` is empty for a 0-d shape (or one of all ones).
template <int K>
struct CoalescedAxes {
  absl::InlinedVector<int64_t, 8> dims;
  absl::InlinedVector<std::array<int64_t, K>, 8> steps;
};

// Coalesces `shape` (which has no zero extent) for the `K` stride lists.
template <int K>
CoalescedAxes<K> Coalesce(
    absl::Span<const int64_t> shape,
    const std::array<absl::Span<const int64_t>, K>& strides) {
  CoalescedAxes<K> axes;
  auto& dims = axes.dims;
  auto& steps = axes.steps;
  for (size_t axis = 0; axis < shape.size(); ++axis) {
    if (shape[axis] == 1) continue;
    std::array<int64_t, K> s;
    for (int k = 0; k < K; ++k) s[k] = strides[k][axis];
    if (!dims.empty()) {
      // Merge into the previous (outer) axis when, for every operand, one
      // step of the outer axis equals a full run of this one.
      bool mergeable = true;
      for (int k = 0; k < K; ++k) {
        if (steps.back()[k] != s[k] * shape[axis]) mergeable = false;
      }
      if (mergeable) {
        dims.back() *= shape[axis];
        steps.back() = s;
        continue;
      }
    }
    dims.push_back(shape[axis]);
    steps.push_back(s);
  }
  return axes;
}

// Calls fn(ptr) for every index of the first `count` axes of `axes`, in C
// order, with `ptr` = `base` advanced by that index's steps.
template <int K, typename Fn>
void ForEachOuterIndex(const CoalescedAxes<K>& axes, int count,
                       std::array<char*, K> base, Fn&& fn) {
  if (count == 0) {
    fn(base);
    return;
  }
  absl::InlinedVector<int64_t, 8> index(count, 0);
  std::array<char*, K> ptr = base;
  while (true) {
    fn(ptr);
    // Odometer, innermost of the counted axes fastest.
    int axis = count - 1;
    for (; axis >= 0; --axis) {
      if (++index[axis] < axes.dims[axis]) {
        for (int k = 0; k < K; ++k) ptr[k] += axes.steps[axis][k];
        break;
      }
      for (int k = 0; k < K; ++k) {
        ptr[k] -= axes.steps[axis][k] * (axes.dims[axis] - 1);
      }
      index[axis] = 0;
    }
    if (axis < 0) return;
  }
}

template <int K, typename Fn>
void ForEachRow(absl::Span<const int64_t> shape,
                const std::array<absl::Span<const int64_t>, K>& strides,
                std::array<char*, K> base, Fn&& fn) {
  // Empty first: an empty shape's other extents and strides may be huge.
  for (int64_t extent : shape) {
    if (extent == 0) return;
  }
  const CoalescedAxes<K> axes = Coalesce<K>(shape, strides);
  if (axes.dims.empty()) {
    std::array<int64_t, K> zero{};
    fn(base, zero, int64_t{1});
    return;
  }
  const int outer = static_cast<int>(axes.dims.size()) - 1;
  const int64_t inner_length = axes.dims[outer];
  const std::array<int64_t, K> inner_steps = axes.steps[outer];
  ForEachOuterIndex<K>(axes, outer, base, [&](std::array<char*, K> ptr) {
    fn(ptr, inner_steps, inner_length);
  });
}

template <int K, typename Fn>
void ForEachPlane(absl::Span<const int64_t> shape,
                  const std::array<absl::Span<const int64_t>, K>& strides,
                  std::array<char*, K> base, Fn&& fn) {
  for (int64_t extent : shape) {
    if (extent == 0) return;
  }
  const CoalescedAxes<K> axes = Coalesce<K>(shape, strides);
  const int ndim = static_cast<int>(axes.dims.size());
  std::array<int64_t, K> row_steps{};
  std::array<int64_t, K> col_steps{};
  int64_t rows = 1;
  int64_t cols = 1;
  if (ndim >= 1) {
    cols = axes.dims[ndim - 1];
    col_steps = axes.steps[ndim - 1];
  }
  if (ndim >= 2) {
    rows = axes.dims[ndim - 2];
    row_steps = axes.steps[ndim - 2];
  }
  const int outer = ndim >= 2 ? ndim - 2 : 0;
  ForEachOuterIndex<K>(axes, outer, base, [&](std::array<char*, K> ptr) {
    fn(ptr, row_steps, col_steps, rows, cols);
  });
}

}  // namespace internal
}  // namespace tessera

#endif  // TESSERA_TENSOR_INTERNAL_STRIDED_LOOP_H_
