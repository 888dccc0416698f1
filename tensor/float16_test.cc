// Copyright 2026 The Tessera Authors.
//
// The scalar float16 conversions of float16.h, which every vector path is
// tested against: all 65536 float16 values widen and narrow back unchanged,
// and narrowing float32 / float64 agrees with an independent reference (the
// nearest of the two neighbouring float16 values, decided against their
// exact midpoint, ties to the even one) over a million random bit patterns
// and every pattern near each rounding edge.

#include "tensor/float16.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace tessera {
namespace {

bool IsNanBits(uint16_t h) { return (h & 0x7FFFu) > 0x7C00u; }

TEST(Float16Test, EveryValueRoundTripsThroughFloatAndDouble) {
  for (uint32_t i = 0; i < 65536; ++i) {
    const uint16_t h = static_cast<uint16_t>(i);
    const float f = Float16BitsToFloat(h);
    if (IsNanBits(h)) {
      ASSERT_TRUE(std::isnan(f)) << std::hex << h;
      // The payload survives and the NaN comes back quiet.
      ASSERT_EQ(FloatToFloat16Bits(f), h | 0x200u) << std::hex << h;
      ASSERT_EQ(DoubleToFloat16Bits(f), h | 0x200u) << std::hex << h;
      continue;
    }
    ASSERT_EQ(FloatToFloat16Bits(f), h) << std::hex << h;
    ASSERT_EQ(DoubleToFloat16Bits(static_cast<double>(f)), h) << std::hex << h;
    ASSERT_EQ(std::signbit(f), (h & 0x8000u) != 0) << std::hex << h;
  }
}

TEST(Float16Test, WideningGivesTheValueTheBitsSpell) {
  EXPECT_EQ(Float16BitsToFloat(0x3C00), 1.0f);
  EXPECT_EQ(Float16BitsToFloat(0xC000), -2.0f);
  EXPECT_EQ(Float16BitsToFloat(0x7BFF), 65504.0f);
  EXPECT_EQ(Float16BitsToFloat(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(Float16BitsToFloat(0x03FF), 1023 * std::ldexp(1.0f, -24));
  EXPECT_EQ(Float16BitsToFloat(0x0400), std::ldexp(1.0f, -14));
  EXPECT_EQ(Float16BitsToFloat(0x7C00), std::numeric_limits<float>::infinity());
  EXPECT_EQ(Float16BitsToFloat(0xFC00), -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(Float16BitsToFloat(0x7E00)));
  EXPECT_TRUE(std::signbit(Float16BitsToFloat(0x8000)));
}

TEST(Float16Test, NarrowingRoundsTiesToEvenAndOverflowsAtTheTie) {
  EXPECT_EQ(FloatToFloat16Bits(65504.0f), 0x7BFF);
  EXPECT_EQ(FloatToFloat16Bits(65519.99f), 0x7BFF);
  EXPECT_EQ(FloatToFloat16Bits(65520.0f), 0x7C00);  // the tie goes to 2^16
  EXPECT_EQ(FloatToFloat16Bits(-65520.0f), 0xFC00);
  EXPECT_EQ(FloatToFloat16Bits(1e10f), 0x7C00);
  EXPECT_EQ(FloatToFloat16Bits(2049.0f), 0x6800);  // 2048, even
  EXPECT_EQ(FloatToFloat16Bits(2051.0f), 0x6802);  // 2052, even
  EXPECT_EQ(FloatToFloat16Bits(std::ldexp(1.0f, -24)), 0x0001);
  EXPECT_EQ(FloatToFloat16Bits(std::ldexp(1.0f, -25)), 0x0000);  // tie to 0
  EXPECT_EQ(FloatToFloat16Bits(std::nextafter(std::ldexp(1.0f, -25), 1.0f)),
            0x0001);
  EXPECT_EQ(FloatToFloat16Bits(3 * std::ldexp(1.0f, -25)), 0x0002);
  EXPECT_EQ(FloatToFloat16Bits(std::ldexp(1.0f, -14) - std::ldexp(1.0f, -25)),
            0x0400);  // rounds up into the normals
  EXPECT_EQ(FloatToFloat16Bits(-0.0f), 0x8000);
  EXPECT_EQ(FloatToFloat16Bits(1e-30f), 0x0000);
  EXPECT_EQ(FloatToFloat16Bits(-1e-30f), 0x8000);
  EXPECT_EQ(FloatToFloat16Bits(std::numeric_limits<float>::quiet_NaN()) &
                0x7E00u,
            0x7E00u);
}

// float32 would round 1 + 2^-11 + 2^-40 onto the tie 1 + 2^-11, and the tie
// to 1.0; rounded once from the double it is above the tie.
TEST(Float16Test, DoubleNarrowsInOneRounding) {
  const double d = 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
  EXPECT_EQ(DoubleToFloat16Bits(d), 0x3C01);
  EXPECT_EQ(FloatToFloat16Bits(static_cast<float>(d)), 0x3C00);
}

// The independent reference: the positive finite float16 values in order
// (plus 2^16 for infinity); the answer for |x| is the neighbour on its side
// of the exact midpoint (every midpoint is exact in double), ties even.
class MidpointReference {
 public:
  MidpointReference() {
    for (uint32_t h = 0; h <= 0x7BFF; ++h) {
      values_.push_back(Float16BitsToFloat(static_cast<uint16_t>(h)));
    }
    values_.push_back(65536.0);  // what rounds to infinity
  }

  uint16_t operator()(double x) const {
    const uint16_t sign = std::signbit(x) ? 0x8000 : 0;
    const double a = std::fabs(x);
    if (a >= 65536.0) return sign | 0x7C00;
    // The first value >= a.
    const size_t hi = static_cast<size_t>(
        std::lower_bound(values_.begin(), values_.end(), a) - values_.begin());
    if (values_[hi] == a || hi == 0) return sign | static_cast<uint16_t>(hi);
    const size_t lo = hi - 1;
    const double mid = (values_[lo] + values_[hi]) / 2;
    size_t pick;
    if (a < mid) {
      pick = lo;
    } else if (a > mid) {
      pick = hi;
    } else {
      pick = (lo % 2 == 0) ? lo : hi;  // the even bit pattern
    }
    return sign | static_cast<uint16_t>(pick);  // index 0x7C00 is infinity
  }

 private:
  std::vector<double> values_;
};

std::vector<uint32_t> EdgeFloatBits() {
  std::vector<uint32_t> bits;
  for (uint32_t base : {0x33000000u, 0x33800000u, 0x38800000u, 0x3F800000u,
                        0x45000000u, 0x477FE000u, 0x477FF000u, 0x47800000u}) {
    for (uint32_t d = 0; d < 0x4000u; ++d) bits.push_back(base - 0x2000u + d);
  }
  return bits;
}

TEST(Float16Test, FloatNarrowingMatchesTheMidpointReference) {
  const MidpointReference reference;
  std::mt19937 rng(1234);
  std::vector<uint32_t> bits = EdgeFloatBits();
  for (int i = 0; i < 1000000; ++i) bits.push_back(rng());
  for (uint32_t b : bits) {
    float f;
    std::memcpy(&f, &b, sizeof(f));
    if (std::isnan(f)) continue;
    ASSERT_EQ(FloatToFloat16Bits(f), reference(f))
        << std::hexfloat << f << " (0x" << std::hex << b << ")";
  }
}

TEST(Float16Test, DoubleNarrowingMatchesTheMidpointReference) {
  const MidpointReference reference;
  std::mt19937_64 rng(99);
  std::vector<double> values;
  for (uint32_t b : EdgeFloatBits()) {
    float f;
    std::memcpy(&f, &b, sizeof(f));
    // Just off the float values too: the bits float32 rounding would lose.
    values.push_back(f);
    values.push_back(std::nextafter(static_cast<double>(f), 0.0));
    values.push_back(std::nextafter(static_cast<double>(f), 1e300));
  }
  for (int i = 0; i < 300000; ++i) {
    uint64_t b = rng();
    double d;
    std::memcpy(&d, &b, sizeof(d));
    values.push_back(d);
    // And within float16's exponent range, where the answers differ.
    b = (b & 0x800FFFFFFFFFFFFFull) |
        (static_cast<uint64_t>(1023 - 26 + (rng() % 44)) << 52);
    std::memcpy(&d, &b, sizeof(d));
    values.push_back(d);
  }
  for (double d : values) {
    if (std::isnan(d)) continue;
    ASSERT_EQ(DoubleToFloat16Bits(d), reference(d)) << std::hexfloat << d;
  }
}

}  // namespace
}  // namespace tessera
