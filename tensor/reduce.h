// Copyright 2026 The Tessera Authors.
//
// -----------------------------------------------------------------------------
// File: reduce.h
// -----------------------------------------------------------------------------
//
// NumPy's reductions `sum`, `mean`, `min`, `max` over all axes or one axis,
// with `keepdims`:
//
//   auto total = tessera::sum(t);                 // 0-d tensor
//   auto cols = tessera::max(t, /*axis=*/0, /*keepdims=*/true);
//
// Result dtypes as NumPy: `sum` of bool and signed integers is int64, of
// unsigned integers uint64 (both wrap on overflow), of floats the same float;
// `mean` of bool/integers is float64 (each element converted, then summed),
// of floats the same float; `min`/`max` keep the dtype and return NaN when
// any element is NaN.
//
// Float sums are pairwise (kernels/reduce.h) along a contiguous line; when
// the reduced axis is not the contiguous one (axis 0 of a C-order matrix)
// rows are accumulated into the output one after another, as NumPy does.
//
// Empty reductions follow NumPy: `sum` gives 0, `mean` gives NaN, `min` and
// `max` of zero elements are InvalidArgument ("zero-size array to reduction
// operation maximum which has no identity"). A bad axis is InvalidArgument
// naming it; allocation failure is ResourceExhausted.

#ifndef TESSERA_TENSOR_REDUCE_H_
#define TESSERA_TENSOR_REDUCE_H_

#include <optional>

#include "absl/status/statusor.h"
#include "alloc/allocator.h"
#include "tensor/kernels/reduce.h"
#include "tensor/tensor.h"

namespace tessera {

absl::StatusOr<Tensor> Reduce(ReduceOp op, const Tensor& t,
                              std::optional<int> axis = std::nullopt,
                              bool keepdims = false,
                              Allocator* allocator = nullptr);

inline absl::StatusOr<Tensor> sum(const Tensor& t,
                                  std::optional<int> axis = std::nullopt,
                                  bool keepdims = false,
                                  Allocator* allocator = nullptr) {
  return Reduce(ReduceOp::kSum, t, axis, keepdims, allocator);
}
inline absl::StatusOr<Tensor> min(const Tensor& t,
                                  std::optional<int> axis = std::nullopt,
                                  bool keepdims = false,
                                  Allocator* allocator = nullptr) {
  return Reduce(ReduceOp::kMin, t, axis, keepdims, allocator);
}
inline absl::StatusOr<Tensor> max(const Tensor& t,
                                  std::optional<int> axis = std::nullopt,
                                  bool keepdims = false,
                                  Allocator* allocator = nullptr) {
  return Reduce(ReduceOp::kMax, t, axis, keepdims, allocator);
}

absl::StatusOr<Tensor> mean(const Tensor& t,
                            std::optional<int> axis = std::nullopt,
                            bool keepdims = false,
                            Allocator* allocator = nullptr);

}  // namespace tessera

#endif  // TESSERA_TENSOR_REDUCE_H_
