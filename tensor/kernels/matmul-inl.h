// Copyright 2026 The Tessera Authors.
//
// Per-target code of the matrix-product kernels (see matmul.h). Included once
// per SIMD target through hwy/foreach_target.h, hence the toggling guard.

#if defined(TESSERA_TENSOR_KERNELS_MATMUL_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TESSERA_TENSOR_KERNELS_MATMUL_INL_H_
#undef TESSERA_TENSOR_KERNELS_MATMUL_INL_H_
#else
#define TESSERA_TENSOR_KERNELS_MATMUL_INL_H_
#endif

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "hwy/highway.h"
#include "tensor/kernels/matmul.h"

HWY_BEFORE_NAMESPACE();
namespace tessera {
namespace kernels {
namespace HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

// This target's float kernels (defined in matmul.cc).
void MatMulF32Impl(const float* a, int64_t lda, const float* b, int64_t ldb,
                   float* c, int64_t ldc, int64_t m, int64_t k, int64_t n);
void MatMulF64Impl(const double* a, int64_t lda, const double* b, int64_t ldb,
                   double* c, int64_t ldc, int64_t m, int64_t k, int64_t n);

// C[i0 .. i0+R, j .. j+V*N] += A[i0 .. i0+R, p0 .. p1] * B[p0 .. p1, j ..]:
// R x V vector accumulators in registers, loaded from C and stored back.
// Requires R rows of A/C and V full vectors of columns of B/C at `j`.
template <size_t R, size_t V, typename T>
HWY_INLINE void Tile(const T* HWY_RESTRICT a, int64_t lda,
                     const T* HWY_RESTRICT b, int64_t ldb, T* HWY_RESTRICT c,
                     int64_t ldc, int64_t p0, int64_t p1, int64_t j) {
  const hn::ScalableTag<T> d;
  const size_t N = hn::Lanes(d);
  using V_t = decltype(hn::Zero(d));
  V_t acc[R][V];
  for (size_t r = 0; r < R; ++r) {
    for (size_t v = 0; v < V; ++v) {
      acc[r][v] = hn::LoadU(d, c + r * ldc + j + v * N);
    }
  }
  for (int64_t p = p0; p < p1; ++p) {
    V_t bv[V];
    for (size_t v = 0; v < V; ++v) bv[v] = hn::LoadU(d, b + p * ldb + j + v * N);
    for (size_t r = 0; r < R; ++r) {
      const V_t av = hn::Set(d, a[r * lda + p]);
      for (size_t v = 0; v < V; ++v) acc[r][v] = hn::MulAdd(av, bv[v], acc[r][v]);
    }
  }
  for (size_t r = 0; r < R; ++r) {
    for (size_t v = 0; v < V; ++v) {
      hn::StoreU(acc[r][v], d, c + r * ldc + j + v * N);
    }
  }
}

// R rows of C, columns [j0, j1), one K block: two-vector tiles, then one
// vector, then scalar columns.
template <size_t R, typename T>
HWY_INLINE void RowStrip(const T* HWY_RESTRICT a, int64_t lda,
                         const T* HWY_RESTRICT b, int64_t ldb,
                         T* HWY_RESTRICT c, int64_t ldc, int64_t p0,
                         int64_t p1, int64_t j0, int64_t j1) {
  const hn::ScalableTag<T> d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  int64_t j = j0;
  for (; j + 2 * N <= j1; j += 2 * N) {
    Tile<R, 2>(a, lda, b, ldb, c, ldc, p0, p1, j);
  }
  for (; j + N <= j1; j += N) Tile<R, 1>(a, lda, b, ldb, c, ldc, p0, p1, j);
  for (; j < j1; ++j) {
    for (size_t r = 0; r < R; ++r) {
      T sum = c[r * ldc + j];
      for (int64_t p = p0; p < p1; ++p) sum += a[r * lda + p] * b[p * ldb + j];
      c[r * ldc + j] = sum;
    }
  }
}

template <typename T>
HWY_NOINLINE void MatMulFloat(const T* HWY_RESTRICT a, int64_t lda,
                              const T* HWY_RESTRICT b, int64_t ldb,
                              T* HWY_RESTRICT c, int64_t ldc, int64_t m,
                              int64_t k, int64_t n) {
  for (int64_t i = 0; i < m; ++i) std::fill(c + i * ldc, c + i * ldc + n, T(0));
  for (int64_t p0 = 0; p0 < k; p0 += kBlockK) {
    const int64_t p1 = std::min(k, p0 + kBlockK);
    for (int64_t j0 = 0; j0 < n; j0 += kBlockN) {
      const int64_t j1 = std::min(n, j0 + kBlockN);
      // The B block [p0, p1) x [j0, j1) stays in cache across all rows.
      int64_t i = 0;
      for (; i + 4 <= m; i += 4) {
        RowStrip<4>(a + i * lda, lda, b, ldb, c + i * ldc, ldc, p0, p1, j0,
                    j1);
      }
      for (; i < m; ++i) {
        RowStrip<1>(a + i * lda, lda, b, ldb, c + i * ldc, ldc, p0, p1, j0,
                    j1);
      }
    }
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace kernels
}  // namespace tessera
HWY_AFTER_NAMESPACE();

#endif  // TESSERA_TENSOR_KERNELS_MATMUL_INL_H_
