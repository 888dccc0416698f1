// Copyright 2026 The Tessera Authors.
//
// -----------------------------------------------------------------------------
// File: indexing.h
// -----------------------------------------------------------------------------
//
// Indexing beyond views, with NumPy's names and semantics: integer-array
// gathers (`take`, np.take and `a[idx]` on one axis), scatters (`put`,
// np.put), boolean masks (`masked_select` is `a[mask]`, `masked_assign` is
// `a[mask] = v`, `compress` is np.compress) and the positions of non-zero
// elements (`nonzero`, `argwhere`, `where` with one argument). Every result
// is a new tensor (a copy), never a view.
//
//   auto rows = tessera::take(t, *idx, 0);        // t[idx] on axis 0
//   auto pos  = tessera::masked_select(t, *m);    // t[m]: 1-D when m is t's shape
//   absl::Status s = tessera::masked_assign(t, *m, 0.0);  // t[m] = 0
//
// Index arrays may have any integer dtype (int8..uint64; bool counts as 0/1
// as in np.take) and any shape: `take` on an axis replaces that axis by the
// index array's shape. `take` and `compress` see a 0-d tensor as one of
// shape (1,), also with axis 0 or -1 (NumPy ravels it before checking the
// axis). Negative indices count from the end. Modes are
// NumPy's: `kRaise` (the default) rejects an out-of-range index, `kWrap`
// wraps it modulo the extent, `kClip` clips it into range (a negative index
// clips to 0: clip disables counting from the end, as in NumPy). Positions
// (`nonzero`, `argwhere`) are int64, as NumPy's intp.
//
// Cost: one pass over the index array or mask, then one copy of each
// selected element (rows of contiguous elements with one memcpy each); a
// `take` along the outermost axis does both in one pass, checking each
// index as it copies (so, as in NumPy, its result is allocated before an
// out-of-range index is found).
// `masked_select` of a contiguous tensor by a mask of its own shape, the
// hot case, is one branch-free pass (no mispredicted branch per element on
// a random mask).
//
// Errors (InvalidArgument, as NumPy's IndexError/TypeError/ValueError):
//   - "index 7 is out of bounds for axis 0 with size 6" (mode kRaise);
//   - an index array of a non-integer dtype ("index array of dtype float32
//     is not an integer dtype");
//   - a mask of another dtype than bool, a mask with more axes than the
//     tensor, or one that does not match it ("boolean index did not match
//     indexed array along dimension 0; dimension is 2 but corresponding
//     boolean dimension is 3");
//   - values that do not broadcast to the selection ("cannot assign 2 input
//     values to the 3 output values where the mask is true" for a mask of
//     the tensor's shape, "shape mismatch: value array of shape (3, 2) could
//     not be broadcast to indexing result of shape (2, 3)" otherwise), a
//     read-only destination;
//   - take from an empty axis with a non-empty index array whose result
//     would not be empty, or in mode kWrap or kClip (NumPy: "cannot do a
//     non-empty take from an empty axes"); with an empty result, kRaise
//     names the index as above.
// Nothing is written when an error is returned.

#ifndef TESSERA_TENSOR_INDEXING_H_
#define TESSERA_TENSOR_INDEXING_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "alloc/allocator.h"
#include "tensor/scalar.h"
#include "tensor/tensor.h"

namespace tessera {

// NumPy's `mode` of take/put.
enum class IndexMode { kRaise, kWrap, kClip };

// np.take(t, indices, axis, mode=...): `axis` nullopt takes from the
// flattened tensor. The result's shape is t.shape[:axis] + indices.shape +
// t.shape[axis + 1:].
absl::StatusOr<Tensor> take(const Tensor& t, const Tensor& indices,
                            std::optional<int> axis = std::nullopt,
                            IndexMode mode = IndexMode::kRaise,
                            Allocator* allocator = nullptr);

// np.put(t, indices, values, mode=...): t.flat[indices[i]] = values[i %
// values.size], in order (a repeated index keeps the last value). `values`
// is cast to t's dtype; it must not be empty unless `indices` is.
absl::Status put(const Tensor& t, const Tensor& indices, const Tensor& values,
                 IndexMode mode = IndexMode::kRaise);

// t[mask]: `mask` is bool with t's leading mask.ndim() extents; the result
// has shape (count of true,) + t.shape[mask.ndim():], in C order.
absl::StatusOr<Tensor> masked_select(const Tensor& t, const Tensor& mask,
                                     Allocator* allocator = nullptr);

// t[mask] = value / t[mask] = values (values cast to t's dtype, broadcast
// to the selection's shape as NumPy does: one value, one row, or exactly
// the selection).
absl::Status masked_assign(const Tensor& t, const Tensor& mask, Scalar value);
absl::Status masked_assign(const Tensor& t, const Tensor& mask,
                           const Tensor& values);

// np.compress(condition, t, axis): the slices along `axis` (nullopt: of the
// flattened tensor) where the 1-D `condition` is non-zero. A condition
// shorter than the axis selects from its first elements; a true entry past
// the axis' end is out of bounds.
absl::StatusOr<Tensor> compress(const Tensor& condition, const Tensor& t,
                                std::optional<int> axis = std::nullopt,
                                Allocator* allocator = nullptr);

// np.nonzero(t): one int64 tensor of positions per axis (a 0-d tensor is
// treated as 1-d, as NumPy 1.24 does).
absl::StatusOr<std::vector<Tensor>> nonzero(const Tensor& t,
                                            Allocator* allocator = nullptr);

// np.argwhere(t): an int64 tensor of shape (count, ndim).
absl::StatusOr<Tensor> argwhere(const Tensor& t,
                                Allocator* allocator = nullptr);

// np.where(condition) with one argument: nonzero(condition).
absl::StatusOr<std::vector<Tensor>> where(const Tensor& condition,
                                          Allocator* allocator = nullptr);

}  // namespace tessera

#endif  // TESSERA_TENSOR_INDEXING_H_
