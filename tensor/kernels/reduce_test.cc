// Copyright 2026 The Tessera Authors.
//
// Runs the reduction kernels of every compiled Highway target against scalar
// references: min/max of every lane type at lengths around each target's
// vector sizes (NaN anywhere wins), wrapping integer sums, and float sums
// within the pairwise error bound; contiguous lines also starting on or off
// a vector boundary (Highway's ForeachMisalign). Buffers are exactly `n`
// elements.

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
#include "tensor/testing/misaligned_buffer.h"

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

using kernel_testing::MisalignedBuffer;

// Element offsets from vector alignment to try on this target: 0, 1, half
// a vector and one short of a vector of T.
template <typename T>
std::vector<size_t> Misalignments() {
  return kernel_testing::MisalignmentsFor(
      hwy::HWY_NAMESPACE::Lanes(hwy::HWY_NAMESPACE::ScalableTag<T>()));
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
    for (size_t shift : Misalignments<T>()) {
      MisalignedBuffer<T> m(v, shift);
      ASSERT_EQ(MinMax<T>(m.bytes(), sizeof(T), n, false), lo)
          << n << " misaligned by " << shift;
      ASSERT_EQ(MinMax<T>(m.bytes(), sizeof(T), n, true), hi)
          << n << " misaligned by " << shift;
    }
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
      for (size_t shift : Misalignments<T>()) {
        MisalignedBuffer<T> m(v, shift);
        ASSERT_TRUE(std::isnan(MinMax<T>(m.bytes(), sizeof(T), n, true)))
            << "n=" << n << " at=" << at << " misaligned by " << shift;
      }
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
    for (size_t shift : Misalignments<T>()) {
      MisalignedBuffer<T> m(v, shift);
      ASSERT_EQ((Line<Acc, T>(ReduceOp::kSum, m.bytes(), sizeof(T), n)),
                static_cast<Acc>(expected))
          << n << " misaligned by " << shift;
    }
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
      if (n <= 4097) {
        for (size_t shift : Misalignments<T>()) {
          MisalignedBuffer<T> m(v, shift);
          const T misaligned = SumFloats<T>(m.bytes(), sizeof(T), n, block);
          ASSERT_LE(std::fabs(misaligned - exact), tolerance)
              << n << " misaligned by " << shift;
        }
      }
      if (n == 0) continue;
      const T strided = SumFloats<T>(p + (n - 1) * sizeof(T),
                                     -static_cast<int64_t>(sizeof(T)), n, block);
      ASSERT_LE(std::fabs(strided - exact), tolerance) << n;
    }
  }
}

// argmin/argmax against a scalar loop that moves only on a strictly better
// element: random values from a small range (so the extreme repeats and the
// first occurrence matters), forwards and backwards.
template <typename T>
int64_t ReferenceArg(const std::vector<T>& v, bool is_max, bool reversed) {
  const size_t n = v.size();
  auto at = [&](size_t i) { return reversed ? v[n - 1 - i] : v[i]; };
  int64_t best = 0;
  for (size_t i = 0; i < n; ++i) {
    if constexpr (std::is_floating_point<T>::value) {
      if (std::isnan(at(i))) return static_cast<int64_t>(i);
    }
    if (is_max ? at(i) > at(best) : at(i) < at(best)) {
      best = static_cast<int64_t>(i);
    }
  }
  return best;
}

template <typename T>
void CheckArg(std::mt19937_64& rng, bool with_nan) {
  for (size_t n : kLengths) {
    std::vector<T> v(n);
    for (auto& x : v) x = static_cast<T>(rng() % 7);
    if (with_nan) {
      if constexpr (std::is_floating_point<T>::value) {
        v[rng() % n] = std::numeric_limits<T>::quiet_NaN();
        v[rng() % n] = std::numeric_limits<T>::quiet_NaN();
      }
    }
    const char* p = reinterpret_cast<const char*>(v.data());
    const int64_t size = sizeof(T);
    for (bool is_max : {false, true}) {
      ASSERT_EQ(ArgReduceLineImpl(is_max, kDTypeOf<T>, p, size,
                                  static_cast<int64_t>(n)),
                ReferenceArg(v, is_max, false))
          << "n=" << n << " max=" << is_max;
      ASSERT_EQ(ArgReduceLineImpl(is_max, kDTypeOf<T>, p + (n - 1) * size,
                                  -size, static_cast<int64_t>(n)),
                ReferenceArg(v, is_max, true))
          << "n=" << n << " max=" << is_max;
      for (size_t shift : Misalignments<T>()) {
        MisalignedBuffer<T> m(v, shift);
        ASSERT_EQ(ArgReduceLineImpl(is_max, kDTypeOf<T>, m.bytes(), size,
                                    static_cast<int64_t>(n)),
                  ReferenceArg(v, is_max, false))
            << "n=" << n << " max=" << is_max << " misaligned by " << shift;
      }
    }
  }
}

// prod (wrapping for integers), all and any against scalar loops.
template <typename T, typename Acc>
void CheckProdAllAny(std::mt19937_64& rng) {
  for (size_t n : kLengths) {
    std::vector<T> v(n);
    // Integers in {-1, 0, 1, 2, 3} (unsigned: wrapped); floats +-1, so that
    // every order of multiplication gives the same exact product.
    for (auto& x : v) {
      if constexpr (std::is_floating_point<T>::value) {
        x = rng() % 2 ? T(1) : T(-1);
      } else {
        x = static_cast<T>(static_cast<int>(rng() % 5) - 1);
      }
    }
    if (rng() % 2) v[rng() % n] = T(0);
    Acc expected_prod = 1;
    uint64_t wrapped = 1;
    bool all = true, any = false;
    for (T x : v) {
      if constexpr (std::is_floating_point<T>::value) {
        expected_prod *= x;
      } else {
        wrapped *= static_cast<uint64_t>(static_cast<Acc>(x));
      }
      all = all && x != T(0);
      any = any || x != T(0);
    }
    if constexpr (!std::is_floating_point<T>::value) {
      expected_prod = static_cast<Acc>(wrapped);
    }
    const char* p = reinterpret_cast<const char*>(v.data());
    ASSERT_EQ((Line<Acc, T>(ReduceOp::kProd, p, sizeof(T), n)), expected_prod)
        << n;
    ASSERT_EQ((Line<uint8_t, T>(ReduceOp::kAll, p, sizeof(T), n)), all) << n;
    ASSERT_EQ((Line<uint8_t, T>(ReduceOp::kAny, p, sizeof(T), n)), any) << n;
    for (size_t shift : Misalignments<T>()) {
      MisalignedBuffer<T> m(v, shift);
      ASSERT_EQ((Line<Acc, T>(ReduceOp::kProd, m.bytes(), sizeof(T), n)),
                expected_prod)
          << n << " misaligned by " << shift;
      ASSERT_EQ((Line<uint8_t, T>(ReduceOp::kAll, m.bytes(), sizeof(T), n)),
                all)
          << n << " misaligned by " << shift;
      ASSERT_EQ((Line<uint8_t, T>(ReduceOp::kAny, m.bytes(), sizeof(T), n)),
                any)
          << n << " misaligned by " << shift;
    }
    // The same line backwards (the strided path).
    const char* last = p + (n - 1) * sizeof(T);
    const int64_t back = -static_cast<int64_t>(sizeof(T));
    ASSERT_EQ((Line<uint8_t, T>(ReduceOp::kAll, last, back, n)), all) << n;
    ASSERT_EQ((Line<uint8_t, T>(ReduceOp::kAny, last, back, n)), any) << n;
    // A single zero (or nonzero) at every position decides all (any).
    for (size_t at = 0; at < n; at += 1 + n / 7) {
      std::vector<T> ones(n, T(1)), zeros(n, T(0));
      ones[at] = T(0);
      zeros[at] = T(2);
      ASSERT_EQ((Line<uint8_t, T>(ReduceOp::kAll,
                                  reinterpret_cast<const char*>(ones.data()),
                                  sizeof(T), n)),
                0)
          << n << " " << at;
      ASSERT_EQ((Line<uint8_t, T>(ReduceOp::kAny,
                                  reinterpret_cast<const char*>(zeros.data()),
                                  sizeof(T), n)),
                1)
          << n << " " << at;
    }
  }
  // Integer products wrap in the 64-bit accumulator: 3^41 mod 2^64.
  std::vector<T> threes(41, T(3));
  uint64_t power = 1;
  for (int i = 0; i < 41; ++i) power *= 3;
  if constexpr (!std::is_floating_point<T>::value) {
    ASSERT_EQ((Line<Acc, T>(ReduceOp::kProd,
                            reinterpret_cast<const char*>(threes.data()),
                            sizeof(T), threes.size())),
              static_cast<Acc>(power));
  }
}

}  // namespace

void TestArgMinMaxFindFirstOccurrenceAndNaN() {
  std::mt19937_64 rng(17);
  CheckArg<uint8_t>(rng, false);
  CheckArg<int8_t>(rng, false);
  CheckArg<int16_t>(rng, false);
  CheckArg<int32_t>(rng, false);
  CheckArg<uint32_t>(rng, false);
  CheckArg<int64_t>(rng, false);
  CheckArg<uint64_t>(rng, false);
  CheckArg<float>(rng, false);
  CheckArg<double>(rng, false);
  CheckArg<float>(rng, true);
  CheckArg<double>(rng, true);
}

void TestProdAllAnyMatchScalarReference() {
  std::mt19937_64 rng(23);
  CheckProdAllAny<int8_t, int64_t>(rng);
  CheckProdAllAny<int32_t, int64_t>(rng);
  CheckProdAllAny<int64_t, int64_t>(rng);
  CheckProdAllAny<uint8_t, uint64_t>(rng);
  CheckProdAllAny<uint64_t, uint64_t>(rng);
  CheckProdAllAny<float, float>(rng);
  CheckProdAllAny<double, double>(rng);
}

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
HWY_EXPORT_AND_TEST_P(ReduceKernelTest, TestArgMinMaxFindFirstOccurrenceAndNaN);
HWY_EXPORT_AND_TEST_P(ReduceKernelTest, TestProdAllAnyMatchScalarReference);

}  // namespace kernels
}  // namespace tessera
#endif  // HWY_ONCE
