// Copyright 2026 The Tessera Authors.
//
// The parallel forms of the contiguous kernels: what binary.cc, reduce.cc
// and the creation functions call instead of the row kernels when their
// operands are contiguous. Each runs on the calling thread alone below
// `kParallelMinBytes` (parallel.h) and otherwise splits the work with
// ParallelFor (thread_pool.h). Results are the same as the serial kernels',
// bit for bit:
//   * elementwise chunks are independent;
//   * float sums split along the top of the same pairwise tree the serial
//     kernel walks (kernels/reduce.h: halves at multiples of kSumBlock), and
//     combine the leaves in the same order; integer sums wrap, so any split
//     gives the same result.

#ifndef TESSERA_TENSOR_INTERNAL_PARALLEL_OPS_H_
#define TESSERA_TENSOR_INTERNAL_PARALLEL_OPS_H_

#include <cstdint>

#include "tensor/dtype.h"
#include "tensor/kernels/binary.h"
#include "tensor/kernels/reduce.h"

namespace tessera {
namespace internal {

// kernels::BinaryRow over `n` contiguous elements of each operand (same
// contract: `out` may equal `a` or `b` but not otherwise overlap them).
void ContiguousBinary(BinaryOp op, DType dtype, const void* a, const void* b,
                      void* out, int64_t n);

// kernels::ReduceLine over `n` contiguous elements (n >= 1), writing one
// value to `out`. Sums of large lines run in parallel; other ops run the
// serial kernel.
void ContiguousReduce(ReduceOp op, DType dtype, const void* data, int64_t n,
                      void* out);

}  // namespace internal
}  // namespace tessera

#endif  // TESSERA_TENSOR_INTERNAL_PARALLEL_OPS_H_
