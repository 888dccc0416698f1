// Copyright 2026 The Tessera Authors.
//
// Runs the unary row kernels of every compiled Highway target against a
// scalar reference written here with the std:: functions: every op, every
// lane type it takes, contiguous, strided (negative input stride, every
// other output element) and in place, at lengths around each target's
// vector sizes, with the contiguous input and output each starting on or off
// a vector boundary (Highway's ForeachMisalign). Buffers are exactly `n`
// elements, so a tail that read past the end would be caught by ASan.
//
// Exact ops must match bit for bit (NaN for NaN). exp, log, sin, cos and
// tanh come from Highway's contrib/math: they must be within
// kMathUlps units in the last place of the std:: result, or (for sin/cos,
// whose range reduction loses absolute accuracy) within kMathUlps * eps
// absolute when the result is below 1 in magnitude.

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "tensor/kernels/unary_test.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/highway.h"
#include "hwy/tests/hwy_gtest.h"
#include "tensor/kernels/unary-inl.h"
#include "tensor/kernels/unary.h"
#include "tensor/testing/kernel_values.h"
#include "tensor/testing/misaligned_buffer.h"

HWY_BEFORE_NAMESPACE();
namespace tessera {
namespace kernels {
namespace HWY_NAMESPACE {
namespace {

constexpr double kMathUlps = 4;

template <typename T>
T Reference(UnaryOp op, T x) {
  if constexpr (std::is_floating_point<T>::value) {
    switch (op) {
      case UnaryOp::kNegative: return -x;
      case UnaryOp::kAbs: return std::fabs(x);
      case UnaryOp::kSign:
        return x != x ? x : x > 0 ? T(1) : x < 0 ? T(-1) : T(0);
      case UnaryOp::kSquare: return x * x;
      case UnaryOp::kSqrt: return std::sqrt(x);
      case UnaryOp::kExp: return std::exp(x);
      case UnaryOp::kLog: return std::log(x);
      case UnaryOp::kSin: return std::sin(x);
      case UnaryOp::kCos: return std::cos(x);
      case UnaryOp::kTanh: return std::tanh(x);
      case UnaryOp::kFloor: return std::floor(x);
      case UnaryOp::kCeil: return std::ceil(x);
      default: break;
    }
  } else {
    // Two's complement modulo 2^64, low bits kept.
    const uint64_t u = static_cast<uint64_t>(x);
    switch (op) {
      case UnaryOp::kNegative: return static_cast<T>(0 - u);
      case UnaryOp::kAbs: return x < 0 ? static_cast<T>(0 - u) : x;
      case UnaryOp::kSign: return x > 0 ? T(1) : x < 0 ? T(-1) : T(0);
      case UnaryOp::kSquare: return static_cast<T>(u * u);
      default: break;
    }
  }
  return T();
}

bool IsMath(UnaryOp op) {
  return op == UnaryOp::kExp || op == UnaryOp::kLog || op == UnaryOp::kSin ||
         op == UnaryOp::kCos || op == UnaryOp::kTanh;
}

template <typename T>
bool Close(UnaryOp op, T expected, T actual) {
  if constexpr (std::is_floating_point<T>::value) {
    if (std::isnan(expected)) return std::isnan(actual);
    if (!IsMath(op)) {
      return expected == actual &&
             std::signbit(expected) == std::signbit(actual);
    }
    if (std::isinf(expected)) return expected == actual;
    const T eps = std::numeric_limits<T>::epsilon();
    const T scale = std::max(std::fabs(expected), std::numeric_limits<T>::min());
    if (std::fabs(expected - actual) <= T(kMathUlps) * eps * scale) return true;
    const bool range_reduced = op == UnaryOp::kSin || op == UnaryOp::kCos;
    return range_reduced && std::fabs(expected) < 1 &&
           std::fabs(expected - actual) <= T(kMathUlps) * eps;
  } else {
    return expected == actual;
  }
}

template <typename T>
T RandomValue(UnaryOp op, std::mt19937_64& rng) {
  if constexpr (std::is_floating_point<T>::value) {
    const uint64_t pick = rng() % 32;
    // Special values land in random lanes, sending their vector to the
    // scalar form (or, for exact ops, through the vector form).
    if (pick == 0) return std::numeric_limits<T>::quiet_NaN();
    if (pick == 1) return std::numeric_limits<T>::infinity();
    if (pick == 2) return -std::numeric_limits<T>::infinity();
    if (pick == 3) return T(-0.0);
    if (pick == 4) return T(1e5);  // outside sin/cos's vector range
    if (pick == 5) return T(800);  // exp overflows
    double lo = -100, hi = 100;
    if (op == UnaryOp::kLog || op == UnaryOp::kSqrt) lo = 1e-30;
    if (op == UnaryOp::kExp) lo = -80, hi = 80;
    if (op == UnaryOp::kFloor || op == UnaryOp::kCeil) lo = -1e7, hi = 1e7;
    std::uniform_real_distribution<double> dist(lo, hi);
    return static_cast<T>(dist(rng));
  } else {
    if (rng() % 16 == 0) return std::numeric_limits<T>::min();
    return static_cast<T>(rng());
  }
}

const size_t kLengths[] = {0,  1,  2,  3,  4,  5,  7,  8,   9,   15,  16, 17,
                           31, 32, 33, 63, 64, 65, 66, 127, 128, 129, 257};

template <typename T>
void CheckOp(UnaryOp op, std::mt19937_64& rng) {
  const DType dtype = kDTypeOf<T>;
  constexpr int64_t kSize = sizeof(T);
  for (size_t n : kLengths) {
    std::vector<T> in(n), out(n);
    for (size_t i = 0; i < n; ++i) in[i] = RandomValue<T>(op, rng);
    auto bytes = [](auto& v) { return reinterpret_cast<char*>(v.data()); };
    const int64_t len = static_cast<int64_t>(n);

    UnaryRowImpl(op, dtype, bytes(in), kSize, bytes(out), kSize, len);
    for (size_t i = 0; i < n; ++i) {
      ASSERT_TRUE(Close(op, Reference(op, in[i]), out[i]))
          << UnaryOpName(op) << " contiguous n=" << n << " i=" << i
          << " x=" << +in[i] << " got " << +out[i] << " want "
          << +Reference(op, in[i]);
    }

    // Contiguous, misaligned on purpose: input and output each start 0, 1,
    // half a vector or one short of a vector of this target past alignment.
    const std::vector<size_t> shifts =
        kernel_testing::MisalignmentsFor(hwy::HWY_NAMESPACE::Lanes(
            hwy::HWY_NAMESPACE::ScalableTag<T>()));
    for (size_t in_shift : shifts) {
      for (size_t out_shift : shifts) {
        kernel_testing::MisalignedBuffer<T> min(in, in_shift), mout(n, out_shift);
        UnaryRowImpl(op, dtype, min.bytes(), kSize, mout.bytes(), kSize, len);
        for (size_t i = 0; i < n; ++i) {
          ASSERT_TRUE(Close(op, Reference(op, in[i]), mout[i]))
              << UnaryOpName(op) << " misaligned n=" << n
              << " input shift=" << in_shift << " output shift=" << out_shift
              << " i=" << i;
        }
      }
    }
    if (n == 0) continue;

    // Strided: input read backwards, output every other element.
    std::vector<T> wide(2 * n);
    UnaryRowImpl(op, dtype, bytes(in) + (len - 1) * kSize, -kSize,
                 bytes(wide), 2 * kSize, len);
    for (size_t i = 0; i < n; ++i) {
      ASSERT_TRUE(Close(op, Reference(op, in[n - 1 - i]), wide[2 * i]))
          << UnaryOpName(op) << " strided n=" << n << " i=" << i;
    }

    // In place.
    std::vector<T> expected(n);
    for (size_t i = 0; i < n; ++i) expected[i] = Reference(op, in[i]);
    UnaryRowImpl(op, dtype, bytes(in), kSize, bytes(in), kSize, len);
    for (size_t i = 0; i < n; ++i) {
      ASSERT_TRUE(Close(op, expected[i], in[i]))
          << UnaryOpName(op) << " in place n=" << n << " i=" << i;
    }
  }
}

template <typename T>
void CheckAllOps(std::mt19937_64& rng) {
  for (UnaryOp op : {UnaryOp::kNegative, UnaryOp::kAbs, UnaryOp::kSign,
                     UnaryOp::kSquare}) {
    CheckOp<T>(op, rng);
  }
  if constexpr (std::is_floating_point<T>::value) {
    for (UnaryOp op : {UnaryOp::kSqrt, UnaryOp::kExp, UnaryOp::kLog,
                       UnaryOp::kSin, UnaryOp::kCos, UnaryOp::kTanh,
                       UnaryOp::kFloor, UnaryOp::kCeil}) {
      CheckOp<T>(op, rng);
    }
  }
}

}  // namespace

void TestUnaryKernelsMatchScalarReference() {
  std::mt19937_64 rng(2026);
  kernel_testing::ForEachLaneType(
      [&](auto zero) { CheckAllOps<decltype(zero)>(rng); });
}

// isnan / isfinite / logical_not of contiguous floats (the vector path) at
// every length, with NaN, infinities and zeros in random lanes.
template <typename T>
void CheckFloatPredicates(std::mt19937_64& rng) {
  for (size_t n : kLengths) {
    std::vector<T> in(n);
    for (size_t i = 0; i < n; ++i) {
      in[i] = rng() % 5 == 0 ? T(0) : RandomValue<T>(UnaryOp::kSin, rng);
    }
    std::vector<uint8_t> out(n);
    for (UnaryOp op :
         {UnaryOp::kIsNan, UnaryOp::kIsFinite, UnaryOp::kLogicalNot}) {
      UnaryRowImpl(op, kDTypeOf<T>, in.data(), sizeof(T), out.data(), 1,
                   static_cast<int64_t>(n));
      for (size_t i = 0; i < n; ++i) {
        const bool want = op == UnaryOp::kIsNan      ? std::isnan(in[i])
                          : op == UnaryOp::kIsFinite ? std::isfinite(in[i])
                                                     : in[i] == T(0);
        ASSERT_EQ(out[i], want ? 1 : 0)
            << UnaryOpName(op) << " n=" << n << " i=" << i << " x=" << in[i];
      }
    }
  }
}

void TestFloatPredicatesMatchStd() {
  std::mt19937_64 rng(31);
  CheckFloatPredicates<float>(rng);
  CheckFloatPredicates<double>(rng);
}

// One out-of-range lane sends its whole vector to std::, in every lane
// position, and the other lanes still get their values.
// float32 tanh over a dense sweep of both signs up to past its saturation
// (every 4093rd bit pattern below 9.5, zeros and subnormals included), one
// row, against std::tanh with the kMathUlps bound.
void TestFloat32TanhSweepIsWithinBound() {
  std::vector<float> in;
  const float top = 9.5f;
  uint32_t top_bits;
  std::memcpy(&top_bits, &top, sizeof(top));
  for (uint32_t bits = 0; bits <= top_bits; bits += 4093) {
    float x;
    std::memcpy(&x, &bits, sizeof(x));
    in.push_back(x);
    in.push_back(-x);
  }
  std::vector<float> out(in.size());
  UnaryRowImpl(UnaryOp::kTanh, DType::kFloat32, in.data(), 4, out.data(), 4,
               static_cast<int64_t>(in.size()));
  for (size_t i = 0; i < in.size(); ++i) {
    const float want = std::tanh(in[i]);
    ASSERT_TRUE(Close(UnaryOp::kTanh, want, out[i]))
        << "tanh(" << in[i] << ") gave " << out[i] << ", want " << want;
    if (want == 0) {
      ASSERT_EQ(std::signbit(want), std::signbit(out[i])) << in[i];
    }
  }
}

void TestOutOfRangeLaneFallsBackPerVector() {
  const size_t n = 41;
  for (size_t at = 0; at < n; at += 5) {
    std::vector<float> in(n, 0.5f), out(n);
    in[at] = -1.0f;  // log of a negative number: NaN
    UnaryRowImpl(UnaryOp::kLog, DType::kFloat32, in.data(), 4, out.data(), 4,
                 n);
    for (size_t i = 0; i < n; ++i) {
      if (i == at) {
        ASSERT_TRUE(std::isnan(out[i])) << i;
      } else {
        ASSERT_TRUE(Close(UnaryOp::kLog, std::log(0.5f), out[i])) << i;
      }
    }
    in[at] = 0.0f;
    UnaryRowImpl(UnaryOp::kLog, DType::kFloat32, in.data(), 4, out.data(), 4,
                 n);
    ASSERT_EQ(out[at], -std::numeric_limits<float>::infinity());
    in[at] = 1000.0f;
    UnaryRowImpl(UnaryOp::kExp, DType::kFloat32, in.data(), 4, out.data(), 4,
                 n);
    ASSERT_EQ(out[at], std::numeric_limits<float>::infinity());
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace kernels
}  // namespace tessera
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tessera {
namespace kernels {

HWY_BEFORE_TEST(UnaryKernelTest);
HWY_EXPORT_AND_TEST_P(UnaryKernelTest, TestUnaryKernelsMatchScalarReference);
HWY_EXPORT_AND_TEST_P(UnaryKernelTest, TestOutOfRangeLaneFallsBackPerVector);
HWY_EXPORT_AND_TEST_P(UnaryKernelTest, TestFloatPredicatesMatchStd);
HWY_EXPORT_AND_TEST_P(UnaryKernelTest, TestFloat32TanhSweepIsWithinBound);

TEST(UnaryRowTest, PredicatesWriteBoolForEveryDType) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const double f[5] = {0.0, -1.5, nan, inf, -inf};
  uint8_t out[5];
  UnaryRow(UnaryOp::kIsNan, DType::kFloat64, f, 8, out, 1, 5);
  EXPECT_EQ(std::vector<uint8_t>(out, out + 5),
            (std::vector<uint8_t>{0, 0, 1, 0, 0}));
  UnaryRow(UnaryOp::kIsFinite, DType::kFloat64, f, 8, out, 1, 5);
  EXPECT_EQ(std::vector<uint8_t>(out, out + 5),
            (std::vector<uint8_t>{1, 1, 0, 0, 0}));
  UnaryRow(UnaryOp::kLogicalNot, DType::kFloat64, f, 8, out, 1, 5);
  EXPECT_EQ(std::vector<uint8_t>(out, out + 5),
            (std::vector<uint8_t>{1, 0, 0, 0, 0}));
  const int16_t i[3] = {0, -7, 3};
  UnaryRow(UnaryOp::kLogicalNot, DType::kInt16, i, 2, out, 1, 3);
  EXPECT_EQ(std::vector<uint8_t>(out, out + 3),
            (std::vector<uint8_t>{1, 0, 0}));
  UnaryRow(UnaryOp::kIsNan, DType::kInt16, i, 2, out, 1, 3);
  EXPECT_EQ(out[0] + out[1] + out[2], 0);
  UnaryRow(UnaryOp::kIsFinite, DType::kInt16, i, 2, out, 1, 3);
  EXPECT_EQ(out[0] + out[1] + out[2], 3);
  const uint8_t b[2] = {1, 0};
  UnaryRow(UnaryOp::kLogicalNot, DType::kBool, b, 1, out, 2, 2);
  EXPECT_EQ(out[0], 0);
  EXPECT_EQ(out[2], 1);
}

}  // namespace kernels
}  // namespace tessera
#endif  // HWY_ONCE
