// Copyright 2026 The Tessera Authors.
//
// Runs the binary row kernels of every compiled Highway target against a
// scalar reference written independently here: every op, every lane type,
// every path (contiguous, scalar right/left, generic strided with negative
// strides, in place), and lengths around each target's vector sizes so that
// every tail is exercised; the contiguous and scalar paths (comparisons and
// floor_divide/remainder too) also with each operand starting on or off a
// vector boundary (Highway's ForeachMisalign). Buffers are exactly `n`
// elements, so a tail that read past the end would be caught by ASan.

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "tensor/kernels/binary_test.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/highway.h"
#include "hwy/tests/hwy_gtest.h"
#include "tensor/kernels/binary-inl.h"
#include "tensor/kernels/binary.h"
#include "tensor/testing/kernel_values.h"
#include "tensor/testing/misaligned_buffer.h"

HWY_BEFORE_NAMESPACE();
namespace tessera {
namespace kernels {
namespace HWY_NAMESPACE {
namespace {

template <typename T>
T Reference(BinaryOp op, T a, T b) {
  if constexpr (std::is_floating_point<T>::value) {
    switch (op) {
      case BinaryOp::kAdd: return a + b;
      case BinaryOp::kSubtract: return a - b;
      case BinaryOp::kMultiply: return a * b;
      case BinaryOp::kDivide: return a / b;
      case BinaryOp::kMaximum:
        return (a != a || b != b) ? std::numeric_limits<T>::quiet_NaN()
                                  : std::fmax(a, b);
      case BinaryOp::kMinimum:
        return (a != a || b != b) ? std::numeric_limits<T>::quiet_NaN()
                                  : std::fmin(a, b);
      case BinaryOp::kFmax: return std::fmax(a, b);
      case BinaryOp::kFmin: return std::fmin(a, b);
      default: break;
    }
  } else {
    // Two's-complement wrap: compute modulo 2^64, keep the low bits.
    const uint64_t ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
    switch (op) {
      case BinaryOp::kAdd: return static_cast<T>(ua + ub);
      case BinaryOp::kSubtract: return static_cast<T>(ua - ub);
      case BinaryOp::kMultiply: return static_cast<T>(ua * ub);
      case BinaryOp::kDivide: break;
      case BinaryOp::kMaximum: return a < b ? b : a;
      case BinaryOp::kMinimum: return b < a ? b : a;
      case BinaryOp::kFmax: return a < b ? b : a;
      case BinaryOp::kFmin: return b < a ? b : a;
      case BinaryOp::kBitwiseAnd: return static_cast<T>(ua & ub);
      case BinaryOp::kBitwiseOr: return static_cast<T>(ua | ub);
      case BinaryOp::kBitwiseXor: return static_cast<T>(ua ^ ub);
      case BinaryOp::kPower: {
        // Squaring modulo 2^64, the exponent read as unsigned T.
        uint64_t result = 1, base = ua;
        for (uint64_t e = static_cast<std::make_unsigned_t<T>>(b); e != 0;
             e >>= 1) {
          if (e & 1) result *= base;
          base *= base;
        }
        return static_cast<T>(result);
      }
      default: break;
    }
  }
  return T();
}

using kernel_testing::RandomValue;
using kernel_testing::SameValue;

const size_t kLengths[] = {0,  1,  2,  3,  4,  5,  7,  8,  9,  15,  16,  17,
                           31, 32, 33, 63, 64, 65, 66, 127, 128, 129, 130, 257};

using kernel_testing::MisalignedBuffer;

// Element offsets from vector alignment to try on this target: 0, 1, half
// a vector and one short of a vector of T.
template <typename T>
std::vector<size_t> Misalignments() {
  return kernel_testing::MisalignmentsFor(
      hwy::HWY_NAMESPACE::Lanes(hwy::HWY_NAMESPACE::ScalableTag<T>()));
}

// Calls check(a, b, out, a_shift, b_shift, out_shift) for every pair of
// operand misalignments, with `a` and `b` copied into buffers that start
// that far past alignment and an output buffer of `out_n` elements whose
// misalignment cycles through the same offsets.
template <typename T, typename Out, typename Check>
void ForEachMisalignment(const std::vector<T>& a, const std::vector<T>& b,
                         size_t out_n, const Check& check) {
  const std::vector<size_t> shifts = Misalignments<T>();
  for (size_t ia = 0; ia < shifts.size(); ++ia) {
    for (size_t ib = 0; ib < shifts.size(); ++ib) {
      const size_t so = shifts[(ia + ib) % shifts.size()];
      MisalignedBuffer<T> ma(a, shifts[ia]), mb(b, shifts[ib]);
      MisalignedBuffer<Out> mo(out_n, so);
      check(ma, mb, mo, shifts[ia], shifts[ib], so);
    }
  }
}

template <typename T>
void CheckOp(BinaryOp op, std::mt19937_64& rng) {
  // The library's own kernel for this target; uint8 stands for bool here.
  const DType dtype = kDTypeOf<T>;
  auto row = [&](const char* a, int64_t sa, const char* b, int64_t sb,
                 char* out, int64_t so, int64_t n) {
    BinaryRowImpl(op, dtype, a, sa, b, sb, out, so, n);
  };
  constexpr int64_t kSize = sizeof(T);
  for (size_t n : kLengths) {
    std::vector<T> a(n), b(n), out(n);
    for (size_t i = 0; i < n; ++i) {
      a[i] = RandomValue<T>(rng);
      b[i] = RandomValue<T>(rng);
    }
    auto bytes = [](auto& v) { return reinterpret_cast<char*>(v.data()); };
    const int64_t len = static_cast<int64_t>(n);

    // Contiguous.
    row(bytes(a), kSize, bytes(b), kSize, bytes(out), kSize, len);
    for (size_t i = 0; i < n; ++i) {
      ASSERT_TRUE(SameValue(Reference(op, a[i], b[i]), out[i]))
          << BinaryOpName(op) << " contiguous n=" << n << " i=" << i;
    }

    // Contiguous and scalar right, each operand misaligned on purpose.
    ForEachMisalignment<T, T>(
        a, b, n,
        [&](MisalignedBuffer<T>& ma, MisalignedBuffer<T>& mb,
            MisalignedBuffer<T>& mo, size_t sa, size_t sb, size_t so) {
          row(ma.bytes(), kSize, mb.bytes(), kSize, mo.bytes(), kSize, len);
          for (size_t i = 0; i < n; ++i) {
            ASSERT_TRUE(SameValue(Reference(op, a[i], b[i]), mo[i]))
                << BinaryOpName(op) << " misaligned n=" << n << " shifts a="
                << sa << " b=" << sb << " out=" << so << " i=" << i;
          }
          if (n == 0) return;
          row(ma.bytes(), kSize, mb.bytes(), 0, mo.bytes(), kSize, len);
          for (size_t i = 0; i < n; ++i) {
            ASSERT_TRUE(SameValue(Reference(op, a[i], b[0]), mo[i]))
                << BinaryOpName(op) << " misaligned scalar right n=" << n
                << " shifts a=" << sa << " out=" << so << " i=" << i;
          }
        });
    if (n == 0) continue;

    // Scalar on the right, then on the left (stride 0).
    row(bytes(a), kSize, bytes(b), 0, bytes(out), kSize, len);
    for (size_t i = 0; i < n; ++i) {
      ASSERT_TRUE(SameValue(Reference(op, a[i], b[0]), out[i]))
          << BinaryOpName(op) << " scalar right n=" << n << " i=" << i;
    }
    row(bytes(a), 0, bytes(b), kSize, bytes(out), kSize, len);
    for (size_t i = 0; i < n; ++i) {
      ASSERT_TRUE(SameValue(Reference(op, a[0], b[i]), out[i]))
          << BinaryOpName(op) << " scalar left n=" << n << " i=" << i;
    }

    // Generic: `a` read backwards, output every other element.
    std::vector<T> wide(2 * n);
    row(bytes(a) + (len - 1) * kSize, -kSize, bytes(b), kSize,
                      bytes(wide), 2 * kSize, len);
    for (size_t i = 0; i < n; ++i) {
      ASSERT_TRUE(SameValue(Reference(op, a[n - 1 - i], b[i]), wide[2 * i]))
          << BinaryOpName(op) << " strided n=" << n << " i=" << i;
    }

    // In place: out is a.
    std::vector<T> expected(n);
    for (size_t i = 0; i < n; ++i) expected[i] = Reference(op, a[i], b[i]);
    row(bytes(a), kSize, bytes(b), kSize, bytes(a), kSize, len);
    for (size_t i = 0; i < n; ++i) {
      ASSERT_TRUE(SameValue(expected[i], a[i]))
          << BinaryOpName(op) << " in place n=" << n << " i=" << i;
    }
  }
}

template <typename T>
void CheckAllOps(std::mt19937_64& rng) {
  CheckOp<T>(BinaryOp::kAdd, rng);
  CheckOp<T>(BinaryOp::kSubtract, rng);
  CheckOp<T>(BinaryOp::kMultiply, rng);
  CheckOp<T>(BinaryOp::kMaximum, rng);
  CheckOp<T>(BinaryOp::kMinimum, rng);
  CheckOp<T>(BinaryOp::kFmax, rng);
  CheckOp<T>(BinaryOp::kFmin, rng);
  if constexpr (std::is_floating_point<T>::value) {
    CheckOp<T>(BinaryOp::kDivide, rng);
  } else {
    CheckOp<T>(BinaryOp::kBitwiseAnd, rng);
    CheckOp<T>(BinaryOp::kBitwiseOr, rng);
    CheckOp<T>(BinaryOp::kBitwiseXor, rng);
    CheckOp<T>(BinaryOp::kPower, rng);
  }
}

}  // namespace

// fmax/fmin return the other operand of a NaN lane, in every lane position.
void TestFmaxFminIgnoreNaNInEveryLane() {
  const size_t n = 37;
  for (size_t nan_at = 0; nan_at < n; nan_at += 3) {
    std::vector<double> a(n, 1.0), b(n, 2.0), out(n);
    a[nan_at] = std::numeric_limits<double>::quiet_NaN();
    auto bytes = [](auto& v) { return reinterpret_cast<char*>(v.data()); };
    BinaryRowImpl(BinaryOp::kFmax, DType::kFloat64, bytes(a), 8, bytes(b), 8,
                  bytes(out), 8, n);
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(out[i], 2.0) << "fmax i=" << i;
    BinaryRowImpl(BinaryOp::kFmin, DType::kFloat64, bytes(b), 8, bytes(a), 8,
                  bytes(out), 8, n);
    for (size_t i = 0; i < n; ++i) {
      ASSERT_EQ(out[i], i == nan_at ? 2.0 : 1.0) << "fmin i=" << i;
    }
  }
}

// Every comparison on every lane type and path (contiguous, scalar right
// and left, strided), bool output, at lengths around every vector size;
// floats include NaN and infinities.
template <typename T>
void CheckComparisons(std::mt19937_64& rng) {
  const BinaryOp ops[] = {BinaryOp::kEqual,   BinaryOp::kNotEqual,
                          BinaryOp::kLess,    BinaryOp::kLessEqual,
                          BinaryOp::kGreater, BinaryOp::kGreaterEqual};
  auto reference = [](BinaryOp op, T x, T y) {
    switch (op) {
      case BinaryOp::kEqual: return x == y;
      case BinaryOp::kNotEqual: return x != y;
      case BinaryOp::kLess: return x < y;
      case BinaryOp::kLessEqual: return x <= y;
      case BinaryOp::kGreater: return x > y;
      default: return x >= y;
    }
  };
  constexpr int64_t k = sizeof(T);
  for (size_t n : kLengths) {
    std::vector<T> a(n), b(n);
    for (size_t i = 0; i < n; ++i) {
      a[i] = RandomValue<T>(rng);
      // A third of the pairs equal, the rest random (small ints collide).
      b[i] = rng() % 3 == 0 ? a[i] : RandomValue<T>(rng);
    }
    std::vector<uint8_t> out(n), wide(2 * n);
    const char* pa = reinterpret_cast<const char*>(a.data());
    const char* pb = reinterpret_cast<const char*>(b.data());
    const int64_t len = static_cast<int64_t>(n);
    for (BinaryOp op : ops) {
      BinaryRowImpl(op, kDTypeOf<T>, pa, k, pb, k, out.data(), 1, len);
      for (size_t i = 0; i < n; ++i) {
        ASSERT_EQ(out[i], reference(op, a[i], b[i]) ? 1 : 0)
            << BinaryOpName(op) << " n=" << n << " i=" << i;
      }
      // Both operands and the bool output misaligned on purpose.
      ForEachMisalignment<T, uint8_t>(
          a, b, n,
          [&](MisalignedBuffer<T>& ma, MisalignedBuffer<T>& mb,
              MisalignedBuffer<uint8_t>& mo, size_t sa, size_t sb,
              size_t so) {
            BinaryRowImpl(op, kDTypeOf<T>, ma.bytes(), k, mb.bytes(), k,
                          mo.data(), 1, len);
            for (size_t i = 0; i < n; ++i) {
              ASSERT_EQ(mo[i], reference(op, a[i], b[i]) ? 1 : 0)
                  << BinaryOpName(op) << " misaligned n=" << n
                  << " shifts a=" << sa << " b=" << sb << " out=" << so
                  << " i=" << i;
            }
          });
      if (n == 0) continue;
      BinaryRowImpl(op, kDTypeOf<T>, pa, k, pb, 0, out.data(), 1, len);
      for (size_t i = 0; i < n; ++i) {
        ASSERT_EQ(out[i], reference(op, a[i], b[0]) ? 1 : 0)
            << BinaryOpName(op) << " scalar right n=" << n << " i=" << i;
      }
      BinaryRowImpl(op, kDTypeOf<T>, pa, 0, pb, k, out.data(), 1, len);
      for (size_t i = 0; i < n; ++i) {
        ASSERT_EQ(out[i], reference(op, a[0], b[i]) ? 1 : 0)
            << BinaryOpName(op) << " scalar left n=" << n << " i=" << i;
      }
      BinaryRowImpl(op, kDTypeOf<T>, pa + (len - 1) * k, -k, pb, k,
                    wide.data(), 2, len);
      for (size_t i = 0; i < n; ++i) {
        ASSERT_EQ(wide[2 * i], reference(op, a[n - 1 - i], b[i]) ? 1 : 0)
            << BinaryOpName(op) << " strided n=" << n << " i=" << i;
      }
    }
  }
}

void TestComparisonsMatchScalarReference() {
  std::mt19937_64 rng(777);
  kernel_testing::ForEachLaneType(
      [&](auto zero) { CheckComparisons<decltype(zero)>(rng); });
}

void TestBinaryKernelsMatchScalarReference() {
  std::mt19937_64 rng(12345);
  kernel_testing::ForEachLaneType(
      [&](auto zero) { CheckAllOps<decltype(zero)>(rng); });
}

// NumPy's floor_divide and remainder, written out from its definitions:
// npy_divmod (npymath) for floats, Python's // and % (computed in 128 bits)
// for integers, where a zero divisor gives 0 and min // -1 wraps.
template <typename T>
T DivmodReference(BinaryOp op, T a, T b) {
  const bool floor_divide = op == BinaryOp::kFloorDivide;
  if constexpr (std::is_floating_point<T>::value) {
    T mod = std::fmod(a, b);
    if (b == 0) return floor_divide ? a / b : mod;
    T div = (a - mod) / b;
    if (mod != 0) {
      if ((b < 0) != (mod < 0)) {
        mod += b;
        div -= 1;
      }
    } else {
      mod = std::copysign(T(0), b);
    }
    if (!floor_divide) return mod;
    if (div == 0) return std::copysign(T(0), a / b);
    T floordiv = std::floor(div);
    if (div - floordiv > T(0.5)) floordiv += 1;
    return floordiv;
  } else {
    const __int128 x = a, y = b;
    if (y == 0) return T(0);
    __int128 q = x / y;
    if (q * y != x && ((x < 0) != (y < 0))) --q;
    const __int128 r = x - q * y;
    return static_cast<T>(static_cast<uint64_t>(floor_divide ? q : r));
  }
}

// Equal bits up to the NaN payload: the sign of a zero counts.
template <typename T>
bool SameBits(T expected, T actual) {
  if constexpr (std::is_floating_point<T>::value) {
    if (std::isnan(expected)) return std::isnan(actual);
    return expected == actual &&
           std::signbit(expected) == std::signbit(actual);
  }
  return expected == actual;
}

// With `plain`, values whose vectors take the vector form: integral values
// (exact multiples, zero remainders), fractions and uniform ones. Otherwise
// also wide magnitudes (quotients beyond the mantissa, where fmod matters)
// and special values (NaN, infinities, zeros of both signs, subnormals, the
// extremes), which send most vectors to the scalar form.
template <typename T>
T DivmodValue(bool plain, std::mt19937_64& rng) {
  using L = std::numeric_limits<T>;
  if constexpr (std::is_floating_point<T>::value) {
    const T specials[] = {L::quiet_NaN(), L::infinity(), -L::infinity(),
                          T(0),           T(-0.0),       L::denorm_min(),
                          -L::min(),      L::max(),      -L::max()};
    const uint64_t pick = rng() % 64;
    if (!plain && pick < sizeof(specials) / sizeof(specials[0])) {
      return specials[pick];
    }
    const T sign = rng() % 2 ? T(1) : T(-1);
    switch (rng() % (plain ? 3 : 4)) {
      case 0: return sign * static_cast<T>(rng() % 41);
      case 1: return sign * static_cast<T>(rng() % 1000) / T(10);
      case 2: {
        std::uniform_real_distribution<double> dist(-100.0, 100.0);
        return static_cast<T>(dist(rng));
      }
      default: {
        std::uniform_real_distribution<double> dist(1.0, 2.0);
        return sign * std::ldexp(static_cast<T>(dist(rng)),
                                 static_cast<int>(rng() % 100) - 50);
      }
    }
  } else {
    // Small operands (int32: the float32 shortcut); otherwise also
    // full-range ones (the float64 one), zero, -1 and the minimum.
    switch (plain ? 7 : rng() % 8) {
      case 0: return T(0);
      case 1: return static_cast<T>(-1);
      case 2: return L::min();
      case 3:
      case 4: return static_cast<T>(rng());
      default: return static_cast<T>(static_cast<int64_t>(rng() % 201) - 100);
    }
  }
}

// One row of n operand pairs through every path: contiguous, scalar right
// and left, strided (negative input stride, every other output), in place.
template <typename T>
void CheckDivmodRow(BinaryOp op, size_t n, bool plain, std::mt19937_64& rng) {
  constexpr int64_t k = sizeof(T);
  std::vector<T> a(n), b(n), out(n), wide(2 * n);
  for (size_t i = 0; i < n; ++i) {
    a[i] = DivmodValue<T>(plain, rng);
    b[i] = DivmodValue<T>(plain, rng);
  }
  auto bytes = [](auto& v) { return reinterpret_cast<char*>(v.data()); };
  const int64_t len = static_cast<int64_t>(n);
  auto row = [&](const char* x, int64_t sx, const char* y, int64_t sy,
                 char* o, int64_t so) {
    BinaryRowImpl(op, kDTypeOf<T>, x, sx, y, sy, o, so, len);
  };
  auto check = [&](const char* path, auto a_at, auto b_at, const T* got,
                   size_t step) {
    for (size_t i = 0; i < n; ++i) {
      const T x = a_at(i), y = b_at(i);
      const T want = DivmodReference(op, x, y);
      ASSERT_TRUE(SameBits(want, got[i * step]))
          << BinaryOpName(op) << " " << path << " n=" << n << " i=" << i
          << ": " << +x << ", " << +y << " gave " << +got[i * step]
          << ", want " << +want;
    }
  };
  auto a_i = [&](size_t i) { return a[i]; };
  auto b_i = [&](size_t i) { return b[i]; };
  row(bytes(a), k, bytes(b), k, bytes(out), k);
  check("contiguous", a_i, b_i, out.data(), 1);
  ForEachMisalignment<T, T>(
      a, b, n,
      [&](MisalignedBuffer<T>& ma, MisalignedBuffer<T>& mb,
          MisalignedBuffer<T>& mo, size_t, size_t, size_t) {
        row(ma.bytes(), k, mb.bytes(), k, mo.bytes(), k);
        check("misaligned", a_i, b_i, mo.data(), 1);
      });
  if (n == 0) return;
  row(bytes(a), k, bytes(b), 0, bytes(out), k);
  check("scalar right", a_i, [&](size_t) { return b[0]; }, out.data(), 1);
  row(bytes(a), 0, bytes(b), k, bytes(out), k);
  check("scalar left", [&](size_t) { return a[0]; }, b_i, out.data(), 1);
  row(bytes(a) + (len - 1) * k, -k, bytes(b), k, bytes(wide), 2 * k);
  check("strided", [&](size_t i) { return a[n - 1 - i]; }, b_i, wide.data(),
        2);
  const std::vector<T> a0 = a;
  row(bytes(a), k, bytes(b), k, bytes(a), k);
  check("in place", [&](size_t i) { return a0[i]; }, b_i, a.data(), 1);
}

template <typename T>
void CheckDivmod(BinaryOp op, std::mt19937_64& rng) {
  for (size_t n : kLengths) {
    CheckDivmodRow<T>(op, n, /*plain=*/true, rng);
    CheckDivmodRow<T>(op, n, /*plain=*/false, rng);
  }
}

void TestFloorDivideRemainderMatchNumPy() {
  std::mt19937_64 rng(2024);
  for (BinaryOp op : {BinaryOp::kFloorDivide, BinaryOp::kRemainder}) {
    CheckDivmod<float>(op, rng);
    CheckDivmod<double>(op, rng);
    CheckDivmod<int8_t>(op, rng);
    CheckDivmod<int16_t>(op, rng);
    CheckDivmod<int32_t>(op, rng);
    CheckDivmod<int64_t>(op, rng);
    CheckDivmod<uint8_t>(op, rng);
    CheckDivmod<uint32_t>(op, rng);
    CheckDivmod<uint64_t>(op, rng);
  }
}

// NaN in either operand wins, in every lane position (x86 max/min alone
// would return the second operand).
void TestMaximumMinimumPropagateNaNInEveryLane() {
  const size_t n = 100;
  for (size_t nan_at = 0; nan_at < n; nan_at += 7) {
    for (int side = 0; side < 2; ++side) {
      std::vector<float> a(n, 1.0f), b(n, 2.0f), out(n);
      (side == 0 ? a : b)[nan_at] = std::numeric_limits<float>::quiet_NaN();
      auto bytes = [](auto& v) { return reinterpret_cast<char*>(v.data()); };
      BinaryRowImpl(BinaryOp::kMaximum, DType::kFloat32, bytes(a), 4, bytes(b), 4,
                    bytes(out), 4, n);
      for (size_t i = 0; i < n; ++i) {
        ASSERT_EQ(std::isnan(out[i]), i == nan_at) << "max i=" << i;
      }
      BinaryRowImpl(BinaryOp::kMinimum, DType::kFloat32, bytes(a), 4, bytes(b), 4,
                    bytes(out), 4, n);
      for (size_t i = 0; i < n; ++i) {
        ASSERT_EQ(std::isnan(out[i]), i == nan_at) << "min i=" << i;
      }
    }
  }
}

// The streaming form (non-temporal stores after a scalar head up to the
// first vector-aligned output element) against the reference: every output
// misalignment within a vector, lengths around every vector size, and
// buffers of exactly the elements written so that no access strays.
template <typename T>
void CheckStreaming(BinaryOp op, std::mt19937_64& rng) {
  const DType dtype = kDTypeOf<T>;
  const size_t max_shift = HWY_MAX_BYTES / sizeof(T) + 1;
  for (size_t n : kLengths) {
    for (size_t shift = 0; shift <= max_shift; ++shift) {
      std::vector<T> a(n), b(n), out(n + shift);
      for (size_t i = 0; i < n; ++i) {
        a[i] = RandomValue<T>(rng);
        b[i] = RandomValue<T>(rng);
        if (op == BinaryOp::kDivide && b[i] == T(0)) b[i] = T(3);
      }
      ASSERT_TRUE(BinaryStreamImpl(op, dtype, a.data(), b.data(),
                                   out.data() + shift,
                                   static_cast<int64_t>(n)))
          << BinaryOpName(op);
      for (size_t i = 0; i < n; ++i) {
        ASSERT_TRUE(SameValue(Reference(op, a[i], b[i]), out[shift + i]))
            << BinaryOpName(op) << " streaming n=" << n << " shift=" << shift
            << " i=" << i;
      }
    }
  }
}

void TestStreamingStoresMatchScalarReference() {
  std::mt19937_64 rng(2026);
  for (BinaryOp op :
       {BinaryOp::kAdd, BinaryOp::kSubtract, BinaryOp::kMultiply}) {
    CheckStreaming<float>(op, rng);
    CheckStreaming<double>(op, rng);
    CheckStreaming<int32_t>(op, rng);
    CheckStreaming<int64_t>(op, rng);
  }
  CheckStreaming<float>(BinaryOp::kDivide, rng);
  CheckStreaming<double>(BinaryOp::kDivide, rng);
}

// What the streaming form declines, writing nothing: other ops, other
// dtypes, integer division, and operands not aligned for their type.
void TestStreamingDeclinesWhatItDoesNotServe() {
  std::vector<float> a(64, 1.0f), b(64, 2.0f), out(64, -1.0f);
  EXPECT_FALSE(BinaryStreamImpl(BinaryOp::kMaximum, DType::kFloat32, a.data(),
                                b.data(), out.data(), 64));
  EXPECT_FALSE(BinaryStreamImpl(BinaryOp::kLess, DType::kFloat32, a.data(),
                                b.data(), out.data(), 64));
  EXPECT_FALSE(BinaryStreamImpl(BinaryOp::kAdd, DType::kInt16, a.data(),
                                b.data(), out.data(), 64));
  EXPECT_FALSE(BinaryStreamImpl(BinaryOp::kDivide, DType::kInt32, a.data(),
                                b.data(), out.data(), 64));
  EXPECT_FALSE(BinaryStreamImpl(
      BinaryOp::kAdd, DType::kFloat32, a.data(), b.data(),
      reinterpret_cast<char*>(out.data()) + 1, 32));
  for (float v : out) ASSERT_EQ(v, -1.0f);
}

}  // namespace HWY_NAMESPACE
}  // namespace kernels
}  // namespace tessera
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tessera {
namespace kernels {

HWY_BEFORE_TEST(BinaryKernelTest);
HWY_EXPORT_AND_TEST_P(BinaryKernelTest, TestBinaryKernelsMatchScalarReference);
HWY_EXPORT_AND_TEST_P(BinaryKernelTest,
                      TestMaximumMinimumPropagateNaNInEveryLane);
HWY_EXPORT_AND_TEST_P(BinaryKernelTest, TestFmaxFminIgnoreNaNInEveryLane);
HWY_EXPORT_AND_TEST_P(BinaryKernelTest, TestComparisonsMatchScalarReference);
HWY_EXPORT_AND_TEST_P(BinaryKernelTest, TestFloorDivideRemainderMatchNumPy);
HWY_EXPORT_AND_TEST_P(BinaryKernelTest,
                      TestStreamingStoresMatchScalarReference);
HWY_EXPORT_AND_TEST_P(BinaryKernelTest,
                      TestStreamingDeclinesWhatItDoesNotServe);

// Integer floor_divide/remainder/power (plain C++ loops) against references
// computed in 128-bit arithmetic, and the dispatched comparisons.
template <typename T>
void CheckScalarOps(std::mt19937_64& rng) {
  const size_t n = 67;
  std::vector<T> a(n), b(n), out(n), wide(2 * n);
  std::vector<uint8_t> flags(n);
  for (size_t i = 0; i < n; ++i) {
    a[i] = static_cast<T>(rng());
    // Small divisors and exponents, some zero, some -1 (min / -1 wraps).
    b[i] = static_cast<T>(static_cast<int64_t>(rng() % 9) - 4);
    if (std::is_unsigned<T>::value) b[i] = static_cast<T>(rng() % 5);
    if (i % 11 == 0) a[i] = std::numeric_limits<T>::min();
  }
  auto bytes = [](auto& v) { return reinterpret_cast<char*>(v.data()); };
  const int64_t k = sizeof(T);
  using I = __int128;
  auto wrap = [](I v) { return static_cast<T>(static_cast<uint64_t>(v)); };
  for (BinaryOp op : {BinaryOp::kFloorDivide, BinaryOp::kRemainder}) {
    // Strided output exercises the generic loop, contiguous the fast one.
    for (int64_t so : {k, 2 * k}) {
      char* o = so == k ? bytes(out) : bytes(wide);
      BinaryRow(op, kDTypeOf<T>, bytes(a), k, bytes(b), k, o, so, n);
      for (size_t i = 0; i < n; ++i) {
        const I x = a[i], y = b[i];
        I q = 0, r = 0;
        if (y != 0) {
          q = x / y;
          if (q * y != x && ((x < 0) != (y < 0))) --q;
          r = x - q * y;
        }
        T got;
        std::memcpy(&got, o + i * so, sizeof(T));
        ASSERT_EQ(got, wrap(op == BinaryOp::kFloorDivide ? q : r))
            << BinaryOpName(op) << " " << +a[i] << ", " << +b[i];
      }
    }
  }
  for (size_t i = 0; i < n; ++i) b[i] = static_cast<T>(rng() % 7);
  BinaryRow(BinaryOp::kPower, kDTypeOf<T>, bytes(a), k, bytes(b), k,
            bytes(out), k, n);
  for (size_t i = 0; i < n; ++i) {
    uint64_t p = 1;
    for (T e = 0; e < b[i]; ++e) p *= static_cast<uint64_t>(a[i]);
    ASSERT_EQ(out[i], static_cast<T>(p)) << +a[i] << " ** " << +b[i];
  }
  for (size_t i = 0; i < n; ++i) {
    if (i % 3 == 0) b[i] = a[i];  // some equal pairs
  }
  const BinaryOp comparisons[] = {BinaryOp::kEqual, BinaryOp::kNotEqual,
                                  BinaryOp::kLess,  BinaryOp::kLessEqual,
                                  BinaryOp::kGreater, BinaryOp::kGreaterEqual};
  for (size_t c = 0; c < 6; ++c) {
    const BinaryOp op = comparisons[c];
    BinaryRow(op, kDTypeOf<T>, bytes(a), k, bytes(b), 0, bytes(flags), 1, n);
    for (size_t i = 0; i < n; ++i) {
      const T x = a[i], y = b[0];
      const bool expected[] = {x == y, x != y, x < y, x <= y, x > y, x >= y};
      ASSERT_EQ(flags[i], expected[c] ? 1 : 0)
          << BinaryOpName(op) << " " << +x << ", " << +y;
    }
  }
}

TEST(BinaryRowTest, IntegerOpsAndComparisonsMatchWideReference) {
  std::mt19937_64 rng(99);
  kernel_testing::ForEachIntegerLaneType(
      [&](auto zero) { CheckScalarOps<decltype(zero)>(rng); });
}

TEST(BinaryRowTest, FloatComparisonsWithNaNAreFalseButNotEqual) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double a[3] = {nan, 1.0, nan};
  const double b[3] = {1.0, nan, nan};
  uint8_t out[3];
  for (BinaryOp op : {BinaryOp::kEqual, BinaryOp::kLess, BinaryOp::kLessEqual,
                      BinaryOp::kGreater, BinaryOp::kGreaterEqual}) {
    BinaryRow(op, DType::kFloat64, a, 8, b, 8, out, 1, 3);
    EXPECT_EQ(out[0] + out[1] + out[2], 0) << BinaryOpName(op);
  }
  BinaryRow(BinaryOp::kNotEqual, DType::kFloat64, a, 8, b, 8, out, 1, 3);
  EXPECT_EQ(out[0] + out[1] + out[2], 3);
}

// The public entry point maps bool add/multiply to or/and.
TEST(BinaryRowTest, BoolAddIsOrAndMultiplyIsAnd) {
  const uint8_t a[4] = {0, 0, 1, 1};
  const uint8_t b[4] = {0, 1, 0, 1};
  uint8_t out[4];
  BinaryRow(BinaryOp::kAdd, DType::kBool, a, 1, b, 1, out, 1, 4);
  EXPECT_EQ(std::vector<uint8_t>(out, out + 4),
            (std::vector<uint8_t>{0, 1, 1, 1}));
  BinaryRow(BinaryOp::kMultiply, DType::kBool, a, 1, b, 1, out, 1, 4);
  EXPECT_EQ(std::vector<uint8_t>(out, out + 4),
            (std::vector<uint8_t>{0, 0, 0, 1}));
}

}  // namespace kernels
}  // namespace tessera
#endif  // HWY_ONCE
