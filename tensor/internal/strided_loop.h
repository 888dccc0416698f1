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

#ifndef TESSERA_TENSOR_INTERNAL_STRIDED_LOOP_H_
#define TESSERA_TENSOR_INTERNAL_STRIDED_LOOP_H_

#include <array>
#include <cstdint>

#include "absl/container/inlined_vector.h"
#include "absl/types/span.h"

namespace tessera {
namespace internal {

template <int K, typename Fn>
void ForEachRow(absl::Span<const int64_t> shape,
                const std::array<absl::Span<const int64_t>, K>& strides,
                std::array<char*, K> base, Fn&& fn) {
  // Coalesced axes, outermost first.
  absl::InlinedVector<int64_t, 8> dims;
  absl::InlinedVector<std::array<int64_t, K>, 8> steps;
  // Empty first: an empty shape's other extents and strides may be huge.
  for (int64_t extent : shape) {
    if (extent == 0) return;
  }
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
  if (dims.empty()) {
    std::array<int64_t, K> zero{};
    fn(base, zero, int64_t{1});
    return;
  }
  const int outer = static_cast<int>(dims.size()) - 1;
  const int64_t inner_length = dims[outer];
  const std::array<int64_t, K> inner_steps = steps[outer];
  if (outer == 0) {
    fn(base, inner_steps, inner_length);
    return;
  }
  absl::InlinedVector<int64_t, 8> index(outer, 0);
  std::array<char*, K> ptr = base;
  while (true) {
    fn(ptr, inner_steps, inner_length);
    // Odometer over the outer axes, innermost outer axis fastest.
    int axis = outer - 1;
    for (; axis >= 0; --axis) {
      if (++index[axis] < dims[axis]) {
        for (int k = 0; k < K; ++k) ptr[k] += steps[axis][k];
        break;
      }
      for (int k = 0; k < K; ++k) {
        ptr[k] -= steps[axis][k] * (dims[axis] - 1);
      }
      index[axis] = 0;
    }
    if (axis < 0) return;
  }
}

}  // namespace internal
}  // namespace tessera

#endif  // TESSERA_TENSOR_INTERNAL_STRIDED_LOOP_H_
