// Copyright 2026 The Tessera Authors.
//
// -----------------------------------------------------------------------------
// File: join.h
// -----------------------------------------------------------------------------
//
// Joining and splitting tensors, with NumPy's names and semantics:
// `concatenate`, `stack`, `hstack`, `vstack`, `split`, `array_split`, `tile`,
// `repeat` and `pad` (constant mode).
//
//   auto c = tessera::concatenate({a, b}, 0);          // StatusOr<Tensor>
//   auto parts = tessera::array_split(c, 3, 0);       // vector of views
//   auto p = tessera::pad(a, {{1, 2}}, 0.0);           // every axis 1 before, 2 after
//
// Results are new C-contiguous tensors (from `allocator`, or the default),
// except `split` / `array_split`, which return views of their input as NumPy
// does. Joins promote dtypes as np.concatenate does (`ResultType` of all
// inputs) and convert while copying.
//
// Cost: one pass over the output. When every input of a join has the
// result's dtype and is C-contiguous, each input contributes one block of
// bytes per index of the axes before `axis`, copied with memcpy (for
// axis 0: one memcpy per input); other inputs go through CopyInto.
//
// Errors (InvalidArgument, naming the value): no inputs, an axis out of
// bounds ("axis 2 is out of bounds for array of dimension 2", NumPy's
// words), inputs whose ndim or extents off the axis differ (naming the input
// index, the axis and both extents), 0-d inputs to concatenate, sections
// that do not divide the axis for `split`, non-positive section counts,
// negative repeats or pad widths, repeats whose length is neither 1 nor the
// axis's extent.

#ifndef TESSERA_TENSOR_JOIN_H_
#define TESSERA_TENSOR_JOIN_H_

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "alloc/allocator.h"
#include "tensor/scalar.h"
#include "tensor/tensor.h"

namespace tessera {

// Joins `tensors` along existing axis `axis` (negative counts from the end).
// With `axis == std::nullopt` the inputs are flattened first (NumPy's
// axis=None).
absl::StatusOr<Tensor> concatenate(absl::Span<const Tensor> tensors,
                                   std::optional<int> axis = 0,
                                   Allocator* allocator = nullptr);

// Joins equal-shaped `tensors` along a new axis `axis` (in [-ndim-1, ndim]).
absl::StatusOr<Tensor> stack(absl::Span<const Tensor> tensors, int axis = 0,
                             Allocator* allocator = nullptr);

// np.hstack: 0-d inputs become 1-D; joins 1-D inputs along axis 0, others
// along axis 1.
absl::StatusOr<Tensor> hstack(absl::Span<const Tensor> tensors,
                              Allocator* allocator = nullptr);

// np.vstack: inputs of fewer than 2 axes become (1, n) / (1, 1); joins along
// axis 0.
absl::StatusOr<Tensor> vstack(absl::Span<const Tensor> tensors,
                              Allocator* allocator = nullptr);

// np.split with a section count: `sections` equal views along `axis`;
// InvalidArgument when the extent is not a multiple of `sections`.
absl::StatusOr<std::vector<Tensor>> split(const Tensor& t, int64_t sections,
                                          int axis = 0);

// np.split with indices: views [0, i0), [i0, i1), ..., [ik, n) along `axis`
// (indices clamp to [0, n] and may decrease, giving empty views, as NumPy).
absl::StatusOr<std::vector<Tensor>> split(const Tensor& t,
                                          absl::Span<const int64_t> indices,
                                          int axis = 0);

// np.array_split: `sections` views, the first n % sections one longer.
absl::StatusOr<std::vector<Tensor>> array_split(const Tensor& t,
                                                int64_t sections,
                                                int axis = 0);

// np.tile: the tensor repeated reps[k] times along axis k. Shorter `reps` are
// padded with leading 1s; a tensor with fewer axes than `reps` gets leading
// axes of extent 1. Negative reps are InvalidArgument.
absl::StatusOr<Tensor> tile(const Tensor& t, absl::Span<const int64_t> reps,
                            Allocator* allocator = nullptr);

// np.repeat: each element repeated `repeats[i]` times along `axis` (one count
// for all when `repeats` has one entry); axis == nullopt flattens first.
absl::StatusOr<Tensor> repeat(const Tensor& t,
                              absl::Span<const int64_t> repeats,
                              std::optional<int> axis = std::nullopt,
                              Allocator* allocator = nullptr);

// np.pad(mode='constant'): pad_width[k] = (before, after) for axis k, or one
// pair for every axis; new elements are `value` converted to t's dtype.
absl::StatusOr<Tensor> pad(const Tensor& t,
                           absl::Span<const std::pair<int64_t, int64_t>> pad_width,
                           Scalar value = 0, Allocator* allocator = nullptr);

}  // namespace tessera

#endif  // TESSERA_TENSOR_JOIN_H_
