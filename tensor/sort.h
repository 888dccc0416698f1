// Copyright 2026 The Tessera Authors.
//
// -----------------------------------------------------------------------------
// File: sort.h
// -----------------------------------------------------------------------------
//
// Sorting along an axis, with NumPy's names and semantics: `sort` (np.sort)
// and `argsort` (np.argsort). NaN sorts after +inf, as in NumPy; -0.0 and
// +0.0 compare equal.
//
//   auto s = tessera::sort(t);                      // last axis, new tensor
//   auto i = tessera::argsort(t, 0, /*stable=*/true);   // int64 indices
//
// How: each lane along the axis is made contiguous (one copy when the axis
// is not already the contiguous last one) and sorted with Highway's vqsort
// (hwy/contrib/sort/vqsort.h: vectorised quicksort, dynamic dispatch) for
// 16-, 32- and 64-bit types (floats as their order-preserving bit patterns,
// after moving NaNs to the end: vqsort 1.0.3 turns a +inf float into the
// largest finite value); 8-bit types and
// bool are counting-sorted. argsort sorts (order-preserving key, index)
// pairs as one 64-bit (keys up to 32 bits) or 128-bit word, so equal keys
// stay in index order: argsort is always stable, whatever `stable` says
// (NumPy's unstable kinds may order ties differently; any order of ties is
// a valid unstable result). `stable` sort of floats keeps -0.0/+0.0 in
// input order (std::stable_sort); for other types a stable and an unstable
// sort give the same values.
//
// Cost: O(n log n) per lane, plus the gather/scatter copies of a non-last
// axis. Lanes of 2^32 or more elements fall back to std::stable_sort.
//
// Errors (InvalidArgument): an axis out of bounds (naming it and the ndim).
// axis == nullopt sorts the flattened tensor, as NumPy's axis=None.

#ifndef TESSERA_TENSOR_SORT_H_
#define TESSERA_TENSOR_SORT_H_

#include <optional>

#include "absl/status/statusor.h"
#include "alloc/allocator.h"
#include "tensor/tensor.h"

namespace tessera {

// A sorted copy of `t` along `axis` (default the last one).
absl::StatusOr<Tensor> sort(const Tensor& t, std::optional<int> axis = -1,
                            bool stable = false,
                            Allocator* allocator = nullptr);

// int64 indices that sort `t` along `axis`: take_along_axis(t, result) is
// sort(t). Ties keep index order.
absl::StatusOr<Tensor> argsort(const Tensor& t, std::optional<int> axis = -1,
                               bool stable = false,
                               Allocator* allocator = nullptr);

// np.unique(t, return_counts=True): the sorted distinct values of the
// flattened tensor and how often each occurs (int64). NaNs count as one value
// (NumPy >= 1.21's equal_nan=True); -0.0 and +0.0 as one.
struct UniqueResult {
  Tensor values;
  Tensor counts;
};
absl::StatusOr<UniqueResult> unique(const Tensor& t,
                                    Allocator* allocator = nullptr);

// np.searchsorted(a, v, side): for each element of `v`, the index in the
// sorted 1-D `a` where it would be inserted to keep `a` sorted (before equal
// elements for kLeft, after them for kRight), NaN last. int64, v's shape.
// Both are compared in ResultType(a, v). `a` is not checked for order (as in
// NumPy: an unsorted `a` gives some index). InvalidArgument when `a` is not
// 1-D.
enum class Side { kLeft, kRight };
absl::StatusOr<Tensor> searchsorted(const Tensor& a, const Tensor& v,
                                    Side side = Side::kLeft,
                                    Allocator* allocator = nullptr);

}  // namespace tessera

#endif  // TESSERA_TENSOR_SORT_H_
