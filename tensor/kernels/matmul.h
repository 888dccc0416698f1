// Copyright 2026 The Tessera Authors.
//
// Matrix-product kernels: C = A * B for row-major matrices, dispatched at run
// time to the best SIMD target Highway compiled (matmul-inl.h holds the
// per-target code, matmul.cc the dispatch table).
//
// Layout contract (kRowMajor): A is m x k with rows `lda` elements apart, B
// is k x n with rows `ldb` apart, C is m x n with rows `ldc` apart; the last
// axis of each is contiguous. C must not overlap A or B. Every element of C
// is overwritten (k == 0 gives zeros).
//
// Float kernels are cache-blocked: blocks of kBlockK rows of B by kBlockN
// columns stay in L2 while every row of A streams past them, and a register
// tile of 4 rows x 2 vectors of C accumulates with fused multiply-adds. Tails
// (rows not a multiple of 4, columns not a multiple of the vector) take
// narrower tiles and a scalar column loop: nothing outside the three
// matrices is read or written. Summation order differs from a naive loop, so
// results agree with it to rounding, not bit for bit.
//
// The integer and bool kernel is a plain i-p-j loop in the result dtype:
// integers wrap (as NumPy's), bool is OR of ANDs.

#ifndef TESSERA_TENSOR_KERNELS_MATMUL_H_
#define TESSERA_TENSOR_KERNELS_MATMUL_H_

#include <cstdint>

#include "tensor/dtype.h"

namespace tessera {
namespace kernels {

// Rows of B per cache block, and columns of B and C per cache block: 256 x
// 256 float32 is 256 KiB, about an L2.
inline constexpr int64_t kBlockK = 256;
inline constexpr int64_t kBlockN = 256;

// C = A * B for any dtype (float32/float64 SIMD, the rest scalar).
void MatMul(DType dtype, const void* a, int64_t lda, const void* b,
            int64_t ldb, void* c, int64_t ldc, int64_t m, int64_t k,
            int64_t n);

}  // namespace kernels
}  // namespace tessera

#endif  // TESSERA_TENSOR_KERNELS_MATMUL_H_
