// Copyright 2026 The Tessera Authors.
//
// Dispatch table of the matrix-product kernels: the float kernels compiled
// once per SIMD target by hwy/foreach_target.h and chosen at run time by
// HWY_DYNAMIC_DISPATCH; the integer/bool kernel is compiled once.

#include "tensor/kernels/matmul.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "tensor/kernels/matmul.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/highway.h"
#include "tensor/kernels/matmul-inl.h"

HWY_BEFORE_NAMESPACE();
namespace tessera {
namespace kernels {
namespace HWY_NAMESPACE {

void MatMulF32Impl(const float* a, int64_t lda, const float* b, int64_t ldb,
                   float* c, int64_t ldc, int64_t m, int64_t k, int64_t n) {
  MatMulFloat(a, lda, b, ldb, c, ldc, m, k, n);
}

void MatMulF64Impl(const double* a, int64_t lda, const double* b, int64_t ldb,
                   double* c, int64_t ldc, int64_t m, int64_t k, int64_t n) {
  MatMulFloat(a, lda, b, ldb, c, ldc, m, k, n);
}

}  // namespace HWY_NAMESPACE
}  // namespace kernels
}  // namespace tessera
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include <type_traits>

namespace tessera {
namespace kernels {
namespace {

// i-p-j order: the inner loop walks rows of B and C contiguously.
template <typename T>
void MatMulScalar(const T* a, int64_t lda, const T* b, int64_t ldb, T* c,
                  int64_t ldc, int64_t m, int64_t k, int64_t n) {
  for (int64_t i = 0; i < m; ++i) {
    T* row = c + i * ldc;
    for (int64_t j = 0; j < n; ++j) row[j] = T(0);
    for (int64_t p = 0; p < k; ++p) {
      const T x = a[i * lda + p];
      const T* brow = b + p * ldb;
      if constexpr (std::is_same<T, bool>::value) {
        if (!x) continue;
        for (int64_t j = 0; j < n; ++j) row[j] = row[j] || brow[j];
      } else {
        // Wrapping arithmetic through the unsigned type, as NumPy's.
        using U = std::make_unsigned_t<T>;
        for (int64_t j = 0; j < n; ++j) {
          row[j] = static_cast<T>(static_cast<U>(row[j]) +
                                  static_cast<U>(x) * static_cast<U>(brow[j]));
        }
      }
    }
  }
}

}  // namespace

HWY_EXPORT(MatMulF32Impl);
HWY_EXPORT(MatMulF64Impl);

void MatMul(DType dtype, const void* a, int64_t lda, const void* b,
            int64_t ldb, void* c, int64_t ldc, int64_t m, int64_t k,
            int64_t n) {
  switch (dtype) {
    case DType::kFloat32:
      return HWY_DYNAMIC_DISPATCH(MatMulF32Impl)(
          static_cast<const float*>(a), lda, static_cast<const float*>(b), ldb,
          static_cast<float*>(c), ldc, m, k, n);
    case DType::kFloat64:
      return HWY_DYNAMIC_DISPATCH(MatMulF64Impl)(
          static_cast<const double*>(a), lda, static_cast<const double*>(b),
          ldb, static_cast<double*>(c), ldc, m, k, n);
    default:
      break;
  }
  VisitDType(dtype, [&](auto zero) {
    using T = decltype(zero);
    // float16 is refused by linalg.cc before it gets here.
    if constexpr (!std::is_floating_point<T>::value && !kIsFloat16<T>) {
      MatMulScalar<T>(static_cast<const T*>(a), lda,
                      static_cast<const T*>(b), ldb, static_cast<T*>(c), ldc,
                      m, k, n);
    }
  });
}

}  // namespace kernels
}  // namespace tessera
#endif  // HWY_ONCE
