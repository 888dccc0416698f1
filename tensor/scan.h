// Copyright 2026 The Tessera Authors.
//
// -----------------------------------------------------------------------------
// File: scan.h
// -----------------------------------------------------------------------------
//
// Scans along an axis, with NumPy's names and semantics: `cumsum`
// (np.cumsum), `cumprod` (np.cumprod) and `diff` (np.diff).
//
//   auto c = tessera::cumsum(t);            // axis=None: the flattened tensor
//   auto d = tessera::diff(t, 1, 0);        // a[i + 1] - a[i] along axis 0
//
// Accumulator dtypes are NumPy's (as for np.sum): bool and signed integers
// narrower than int64 accumulate in int64, unsigned ones in uint64, int64,
// uint64, float32 and float64 in themselves; `dtype` overrides. Each lane is
// accumulated in order, one element after another, in the accumulator dtype,
// exactly as NumPy's add.accumulate does, so float results are bit-identical
// to NumPy's (a vectorised prefix sum would round differently). Integers
// wrap. `diff` keeps the dtype (bool: not_equal, as NumPy) and drops `n`
// elements along the axis (to 0 when n exceeds the extent).
//
// Cost: one pass converting into the result (moving `axis` last when it is
// not) and one sequential pass per lane; `diff` one pass per order.
//
// Errors (InvalidArgument): an axis out of bounds, a negative `n`
// ("order must be non-negative but got -1"), diff of a 0-d tensor.

#ifndef TESSERA_TENSOR_SCAN_H_
#define TESSERA_TENSOR_SCAN_H_

#include <cstdint>
#include <optional>

#include "absl/status/statusor.h"
#include "alloc/allocator.h"
#include "tensor/dtype.h"
#include "tensor/tensor.h"

namespace tessera {

// NumPy's accumulator dtype of cumsum/cumprod (and sum/prod) for `d`.
DType AccumulatorDType(DType d);

absl::StatusOr<Tensor> cumsum(const Tensor& t,
                              std::optional<int> axis = std::nullopt,
                              std::optional<DType> dtype = std::nullopt,
                              Allocator* allocator = nullptr);

absl::StatusOr<Tensor> cumprod(const Tensor& t,
                               std::optional<int> axis = std::nullopt,
                               std::optional<DType> dtype = std::nullopt,
                               Allocator* allocator = nullptr);

// The n-th discrete difference along `axis` (default the last).
absl::StatusOr<Tensor> diff(const Tensor& t, int64_t n = 1, int axis = -1,
                            Allocator* allocator = nullptr);

}  // namespace tessera

#endif  // TESSERA_TENSOR_SCAN_H_
