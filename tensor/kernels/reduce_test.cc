// Copyright 2026 The Tessera Authors.
//
// Runs the reduction kernels of every compiled Highway target against scalar
// references: min/max of every lane type at lengths around each target's
// vector sizes (NaN anywhere wins), wrapping integer sums, and float sums
// within the pairwise error bound. Buffers are exactly `n` elements.

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "tensor/kernels/reduce_test.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/highway.h"
#include "hwy/tests/hwy_gtest.h"
#include "tensor/kernels/reduce-inl.h"
#include "tensor/kernels/reduce.h"

HWY_BEFORE_NAMESPACE();
namespace tessera {
namespace kernels {
namespace HWY_NAMESPACE {
namespace {

// The library's own kernel for this target.
template <typename Out, typename T>
Out Line(ReduceOp op, const char* p, int64_t stride, size_t n) {
  Out out;
  ReduceLineImpl(op, kDTypeOf<T>, p, stride, static_cast<int64_t>(n), &out);
  return out;
}

template <typename T>
T MinMax(const char* p, int64_t stride, size_t n, bool is_max) {
  return Line<T, T>(is_max ? ReduceOp::kMax : ReduceOp::kMin, p, stride, n);
}

const size_t kLengths[] = {1,  2,  3,  4,  5,  7,  8,  9,   15,  16,  17, 31,
                           32, 33, 63, 64, 65, 66, 127, 128, 129, 257, 1000};

template <typename T>
void CheckMinMax(std::mt19937_64& rng) {
  for (size_t n : kLengths) {
    std::vector<T> v(n);
    for (auto& x : v) x = static_cast<T>(rng());
    T lo = v[0], hi = v[0];
    for (T x : v) {
      lo = x < lo ? x : lo;
      hi = x > hi ? x : hi;
    }
    const char* p = reinterpret_cast<const char*>(v.data());
    ASSERT_EQ(MinMax<T>(p, sizeof(T), n, false), lo) << n;
    ASSERT_EQ(MinMax<T>(p, sizeof(T), n, true), hi) << n;
    // Strided view of the same data, backwards.
    ASSERT_EQ(MinMax<T>(p + (n - 1) * sizeof(T),
                            -static_cast<int64_t>(sizeof(T)), n, true),
              hi);
  }
}

template <typename T>
void CheckFloatMinMaxNaN() {
  for (size_t n : kLengths) {
    for (size_t at = 0; at < n; at += 1 + n / 5) {
      std::vector<T> v(n, T(1));
      v[at] = std::numeric_limits<T>::quiet_NaN();
      const char* p = reinterpret_cast<const char*>(v.data());
      ASSERT_TRUE(std::isnan(MinMax<T>(p, sizeof(T), n, true)))
          << "n=" << n << " at=" << at;
      ASSERT_TRUE(std::isnan(MinMax<T>(p, sizeof(T), n, false)))
          << "n=" << n << " at=" << at;
    }
  }
}

template <typename T, typename Acc>
void CheckIntegerSum(std::mt19937_64& rng) {
  for (size_t n : kLengths) {
    std::vector<T> v(n);
    uint64_t expected = 0;
    for (auto& x : v) {
      x = static_cast<T>(rng());
      expected += static_cast<uint64_t>(static_cast<Acc>(x));
    }
    ASSERT_EQ((Line<Acc, T>(ReduceOp::kSum,
                            reinterpret_cast<const char*>(v.data()), sizeof(T),
                            n)),
              static_cast<Acc>(expected))
        << n;
  }
}

template <typename T>
void CheckFloatSum(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  for (size_t n : {size_t{0}, size_t{1}, size_t{17}, size_t{1000},
                   size_t{1025}, size_t{4097}, size_t{100003}}) {
    std::vector<T> v(n);
    long double exact = 0, magnitude = 0;
    for (auto& x : v) {
      x = static_cast<T>(dist(rng));
      exact += x;
      magnitude += std::fabs(static_cast<long double>(x));
    }
    const char* p = reinterpret_cast<const char*>(v.data());
    // Pairwise bound: a few ulps of the magnitude per level.
    const long double tolerance =
        magnitude * std::numeric_limits<T>::epsilon() * 64;
    for (int64_t block : {int64_t{16}, kSumBlock}) {
      const T contiguous = SumFloats<T>(p, sizeof(T), n, block);
      ASSERT_LE(std::fabs(contiguous - exact), tolerance) << n;
      if (n == 0) continue;
      const T strided = SumFloats<T>(p + (n - 1) * sizeof(T),
                                     -static_cast<int64_t>(sizeof(T)), n, block);
      ASSERT_LE(std::fabs(strided - exact), tolerance) << n;
    }
  }
}

}  // namespace

void TestMinMaxMatchScalarReference() {
  std::mt19937_64 rng(99);
  CheckMinMax<int8_t>(rng);
  CheckMinMax<int16_t>(rng);
  CheckMinMax<int32_t>(rng);
  CheckMinMax<int64_t>(rng);
  CheckMinMax<uint8_t>(rng);
  CheckMinMax<uint16_t>(rng);
  CheckMinMax<uint32_t>(rng);
  CheckMinMax<uint64_t>(rng);
  CheckMinMax<float>(rng);
  CheckMinMax<double>(rng);
  CheckFloatMinMaxNaN<float>();
  CheckFloatMinMaxNaN<double>();
}

void TestSumsMatchReference() {
  std::mt19937_64 rng(5);
  CheckIntegerSum<int8_t, int64_t>(rng);
  CheckIntegerSum<int32_t, int64_t>(rng);
  CheckIntegerSum<int64_t, int64_t>(rng);
  CheckIntegerSum<uint16_t, uint64_t>(rng);
  CheckIntegerSum<uint64_t, uint64_t>(rng);
  CheckFloatSum<float>(rng);
  CheckFloatSum<double>(rng);
}

}  // namespace HWY_NAMESPACE
}  // namespace kernels
}  // namespace tessera
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tessera {
namespace kernels {

HWY_BEFORE_TEST(ReduceKernelTest);
HWY_EXPORT_AND_TEST_P(ReduceKernelTest, TestMinMaxMatchScalarReference);
HWY_EXPORT_AND_TEST_P(ReduceKernelTest, TestSumsMatchReference);

}  // namespace kernels
}  // namespace tessera
#endif  // HWY_ONCE
