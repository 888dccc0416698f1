// Copyright 2026 The Tessera Authors.
//
// Line kernels for reductions, dispatched at run time to the best SIMD target
// Highway compiled (reduce-inl.h holds the per-target code).
//
// A line is `n` elements at a byte stride. Contiguous lines (stride ==
// element size) take the SIMD path; others are read one element at a time.
//
// Sums accumulate in NumPy's accumulator dtype (`SumDType`): int64 for bool
// and signed integers, uint64 for unsigned ones (both wrap), the input dtype
// for floats. Float sums are pairwise over blocks of `kSumBlock` elements,
// each block summed into several vector accumulators, so the error grows
// with log(n) rather than n (NumPy's pairwise sum has the same shape); a
// naive serial float32 sum of 1e7 values is off by percents.
//
// Minimum and maximum return NaN if any element is NaN (np.min/np.max); they
// need n >= 1 (the caller reports empty reductions).
//
// Products accumulate in the same dtype as sums (`SumDType`), serially, as
// NumPy's `multiply.reduce`; integers wrap. `all`/`any` write a bool (one
// byte 0/1): whether every / some element is nonzero (NaN is nonzero), and
// stop at the first element that decides. For n == 0 every op except
// min/max writes its identity (0, 1, true, false).
//
// `ArgReduceLine` is argmin/argmax of a line: the index of the first
// occurrence of the extreme value, or of the first NaN if there is one (NaN
// wins, as np.argmax); needs n >= 1.

#ifndef TESSERA_TENSOR_KERNELS_REDUCE_H_
#define TESSERA_TENSOR_KERNELS_REDUCE_H_

#include <cstdint>

#include "tensor/dtype.h"

namespace tessera {

enum class ReduceOp : uint8_t { kSum, kMin, kMax, kProd, kAll, kAny };

// NumPy's name ("sum", "minimum", "maximum" as in its error messages;
// "prod", "all", "any").
const char* ReduceOpName(ReduceOp op);

// The dtype `sum` (and `prod`) accumulates in and returns for `dtype`.
DType SumDType(DType dtype);

// The dtype `op` returns for an input of `dtype`: `SumDType` for sum and
// prod, bool for all/any, `dtype` itself for min/max.
DType ReduceResultDType(ReduceOp op, DType dtype);

namespace kernels {

// Elements per pairwise block of float sums.
inline constexpr int64_t kSumBlock = 1024;

// Reduces the line and writes one value of `ReduceResultDType(op, dtype)`
// to `out`.
void ReduceLine(ReduceOp op, DType dtype, const void* data, int64_t stride,
                int64_t n, void* out);

// Index (0-based, along the line) of the first maximum (`is_max`) or
// minimum, or of the first NaN. n >= 1.
int64_t ArgReduceLine(bool is_max, DType dtype, const void* data,
                      int64_t stride, int64_t n);

}  // namespace kernels
}  // namespace tessera

#endif  // TESSERA_TENSOR_KERNELS_REDUCE_H_
