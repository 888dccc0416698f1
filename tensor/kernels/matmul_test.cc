// Copyright 2026 The Tessera Authors.
//
// Runs the float matrix-product kernels of every compiled Highway target
// against a naive scalar reference (long double), over shapes that exercise
// every tile tail (rows not a multiple of 4, columns not a multiple of one or
// two vectors), K and N crossing the cache-block sizes, k == 0, and padded
// leading dimensions whose padding must stay untouched; each of A, B and C
// starting on or off a vector boundary (Highway's ForeachMisalign).

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "tensor/kernels/matmul_test.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/highway.h"
#include "hwy/tests/hwy_gtest.h"
#include "tensor/kernels/matmul-inl.h"
#include "tensor/kernels/matmul.h"
#include "tensor/testing/misaligned_buffer.h"

HWY_BEFORE_NAMESPACE();
namespace tessera {
namespace kernels {
namespace HWY_NAMESPACE {
namespace {

struct Dims {
  int64_t m, k, n;
};

const Dims kShapes[] = {{1, 1, 1},   {3, 7, 5},    {4, 8, 16},
                        {5, 17, 33}, {2, 0, 3},    {13, 33, 65},
                        {9, 300, 31}, {6, 257, 530}, {1, 513, 2}};

void Run(const float* a, int64_t lda, const float* b, int64_t ldb, float* c,
         int64_t ldc, const Dims& s) {
  MatMulF32Impl(a, lda, b, ldb, c, ldc, s.m, s.k, s.n);
}
void Run(const double* a, int64_t lda, const double* b, int64_t ldb,
         double* c, int64_t ldc, const Dims& s) {
  MatMulF64Impl(a, lda, b, ldb, c, ldc, s.m, s.k, s.n);
}

template <typename T>
void CheckShapes() {
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  const T kSentinel = T(12345);
  // 0, 1, half and one short of a vector of T on this target; round r
  // starts A, B and C at shifts r, r + 1 and r + 2 (cyclically).
  const std::vector<size_t> shifts = kernel_testing::MisalignmentsFor(
      hwy::HWY_NAMESPACE::Lanes(hwy::HWY_NAMESPACE::ScalableTag<T>()));
  for (const Dims& s : kShapes) {
    for (size_t round = 0; round < shifts.size(); ++round) {
      const size_t sa = shifts[round];
      const size_t sb = shifts[(round + 1) % shifts.size()];
      const size_t sc = shifts[(round + 2) % shifts.size()];
      const int64_t lda = s.k + 3, ldb = s.n + 2, ldc = s.n + 1;
      using kernel_testing::MisalignedBuffer;
      MisalignedBuffer<T> a(static_cast<size_t>(s.m * lda), sa);
      MisalignedBuffer<T> b(static_cast<size_t>(s.k * ldb), sb);
      for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<T>(dist(rng));
      for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<T>(dist(rng));
      MisalignedBuffer<T> c(static_cast<size_t>(s.m * ldc), sc);
      for (size_t i = 0; i < c.size(); ++i) c[i] = kSentinel;
      Run(a.data(), lda, b.data(), ldb, c.data(), ldc, s);
      for (int64_t i = 0; i < s.m; ++i) {
        for (int64_t j = 0; j < s.n; ++j) {
          long double exact = 0, magnitude = 0;
          for (int64_t p = 0; p < s.k; ++p) {
            const long double term =
                static_cast<long double>(a[i * lda + p]) *
                static_cast<long double>(b[p * ldb + j]);
            exact += term;
            magnitude += std::fabs(term);
          }
          // The rigorous bound of any summation order; a missing or doubled
          // term (about 0.25) is far above it.
          const long double tolerance =
              (magnitude + 1) * std::numeric_limits<T>::epsilon() * (s.k + 1);
          ASSERT_LE(std::fabs(c[i * ldc + j] - exact), tolerance)
              << "m=" << s.m << " k=" << s.k << " n=" << s.n << " shifts "
              << sa << "/" << sb << "/" << sc << " at " << i << "," << j;
        }
        // The padding column past n is never written.
        ASSERT_EQ(c[i * ldc + s.n], kSentinel) << i;
      }
    }
  }
}

}  // namespace

void TestFloatMatMulMatchesNaiveReference() {
  CheckShapes<float>();
  CheckShapes<double>();
}

}  // namespace HWY_NAMESPACE
}  // namespace kernels
}  // namespace tessera
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tessera {
namespace kernels {

HWY_BEFORE_TEST(MatMulKernelTest);
HWY_EXPORT_AND_TEST_P(MatMulKernelTest, TestFloatMatMulMatchesNaiveReference);

// The integer/bool kernel (compiled once) against the same kind of loop,
// with wrapping: int8 products overflow and wrap.
TEST(MatMulScalarKernelTest, IntegersWrapAndBoolIsOrOfAnds) {
  const int8_t a[] = {100, 3, -7, 1};  // 2 x 2
  const int8_t b[] = {2, 1, 5, -128};  // 2 x 2
  int8_t c[4];
  MatMul(DType::kInt8, a, 2, b, 2, c, 2, 2, 2, 2);
  EXPECT_EQ(c[0], static_cast<int8_t>(100 * 2 + 3 * 5));    // 215 wraps
  EXPECT_EQ(c[1], static_cast<int8_t>(100 * 1 + 3 * -128)); // -284 wraps
  EXPECT_EQ(c[2], static_cast<int8_t>(-7 * 2 + 1 * 5));
  EXPECT_EQ(c[3], static_cast<int8_t>(-7 * 1 + 1 * -128));  // -135 wraps
  const bool x[] = {true, false, false, false};  // 2 x 2
  const bool y[] = {false, true, true, true};
  bool z[4];
  MatMul(DType::kBool, x, 2, y, 2, z, 2, 2, 2, 2);
  EXPECT_FALSE(z[0]);
  EXPECT_TRUE(z[1]);
  EXPECT_FALSE(z[2]);
  EXPECT_FALSE(z[3]);
}

}  // namespace kernels
}  // namespace tessera
#endif  // HWY_ONCE
