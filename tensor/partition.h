// Copyright 2026 The Tessera Authors.
//
// -----------------------------------------------------------------------------
// File: partition.h
// -----------------------------------------------------------------------------
//
// Partial sorts along an axis, with NumPy's names and semantics:
// `partition` (np.partition) and `argpartition` (np.argpartition).
//
//   auto p = tessera::partition(t, {3});        // p[..., 3] as in sort(t)
//   auto i = tessera::argpartition(t, {0, -1}, std::nullopt);  // flattened
//
// For every kth (negative counts from the end) the element at kth along the
// axis is the one a full sort puts there, the elements before it are <= it
// and those after it >= it; with several kths this holds for each, so the
// elements between two kths are those a sort puts between them. Their order
// inside each stretch is unspecified (NumPy's is introselect's; compare
// stretches sorted). NaN sorts last, as in np.sort. argpartition gives int64
// positions whose gather is a partition.
//
// Cost: O(n) expected per lane and kth (std::nth_element on each stretch
// between consecutive kths), plus one copy into a contiguous lane order when
// the axis is not the last one.
//
// Errors (InvalidArgument): an axis out of bounds, a kth out of bounds
// ("kth(=5) out of bounds (5)", NumPy's wording, the kth after adding the
// extent to a negative one), no kth at all. An empty tensor checks no kth,
// as NumPy.

#ifndef TESSERA_TENSOR_PARTITION_H_
#define TESSERA_TENSOR_PARTITION_H_

#include <cstdint>
#include <optional>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "alloc/allocator.h"
#include "tensor/tensor.h"

namespace tessera {

// A partitioned copy of `t` along `axis` (nullopt: the flattened tensor).
absl::StatusOr<Tensor> partition(const Tensor& t,
                                 absl::Span<const int64_t> kth,
                                 std::optional<int> axis = -1,
                                 Allocator* allocator = nullptr);

// int64 positions along `axis` that partition `t` (t's shape; for axis
// nullopt, positions in the flattened tensor).
absl::StatusOr<Tensor> argpartition(const Tensor& t,
                                    absl::Span<const int64_t> kth,
                                    std::optional<int> axis = -1,
                                    Allocator* allocator = nullptr);

}  // namespace tessera

#endif  // TESSERA_TENSOR_PARTITION_H_
