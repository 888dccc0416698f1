// Copyright 2026 The Tessera Authors.

#include "tensor/unary.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tensor/testing/counting_allocator.h"
#include "tensor/view.h"

namespace tessera {
namespace {

using ::tessera::testing::CountingAllocator;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string Message(const absl::Status& status) {
  return std::string(status.message());
}

TEST(UnaryTest, IntegerAbsAndNegativeWrapAsNumPy) {
  auto a = FromVector<int8_t>({-128, -5, 0, 127});
  auto r = abs(*a);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->dtype(), DType::kInt8);
  EXPECT_THAT(r->ToVector<int>(), ElementsAre(-128, 5, 0, 127));
  EXPECT_THAT(negative(*a)->ToVector<int>(), ElementsAre(-128, 5, 0, -127));
  EXPECT_THAT(negative(*FromVector<uint8_t>({1, 0}))->ToVector<int>(),
              ElementsAre(255, 0));
  EXPECT_THAT(square(*FromVector<int8_t>({16, -3}))->ToVector<int>(),
              ElementsAre(0, 9));  // 256 wraps
  EXPECT_THAT(sign(*FromVector<int64_t>({-9, 0, 4}))->ToVector<int>(),
              ElementsAre(-1, 0, 1));
}

TEST(UnaryTest, BoolHasNumPysLoopsOnly) {
  auto t = FromVector<bool>({true, false});
  auto n = negative(*t);
  EXPECT_EQ(n.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(n.status()), HasSubstr("boolean negative"));
  auto s = sign(*t);
  EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(s.status()), HasSubstr("'sign'"));
  EXPECT_THAT(Message(s.status()), HasSubstr("bool"));
  EXPECT_EQ(abs(*t)->dtype(), DType::kBool);
  EXPECT_EQ(square(*t)->dtype(), DType::kInt8);
  EXPECT_THAT(square(*t)->ToVector<int>(), ElementsAre(1, 0));
  EXPECT_EQ(logical_not(*t)->dtype(), DType::kBool);
  EXPECT_THAT(logical_not(*t)->ToVector<int>(), ElementsAre(0, 1));
}

TEST(UnaryTest, FloatFunctionsOfIntegersComputeInFloat) {
  auto r = sqrt(*FromVector<int32_t>({4, 2, -1}));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->dtype(), DType::kFloat64);
  const auto v = r->ToVector<double>();
  EXPECT_EQ(v[0], 2.0);
  EXPECT_EQ(v[1], std::sqrt(2.0));
  EXPECT_TRUE(std::isnan(v[2]));
  // NumPy's float16 for one-byte ints and bool, float32 for two-byte ones.
  EXPECT_EQ(floor(*FromVector<int8_t>({3}))->dtype(), DType::kFloat16);
  EXPECT_EQ(*floor(*FromVector<int8_t>({3}))->item<double>({0}), 3.0);
  EXPECT_EQ(sqrt(*FromVector<bool>({true}))->dtype(), DType::kFloat16);
  EXPECT_EQ(exp(*FromVector<uint16_t>({0}))->dtype(), DType::kFloat32);
  EXPECT_EQ(*UnaryResultType(UnaryOp::kLog, DType::kUInt64), DType::kFloat64);
  EXPECT_EQ(*UnaryResultType(UnaryOp::kIsNan, DType::kInt32), DType::kBool);
  EXPECT_EQ(*UnaryResultType(UnaryOp::kCos, DType::kFloat32), DType::kFloat32);
}

TEST(UnaryTest, SpecialValuesFollowC) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto x = FromVector<double>({0.0, -1.0, inf, nan, -0.0});
  const auto lg = log(*x)->ToVector<double>();
  EXPECT_EQ(lg[0], -inf);
  EXPECT_TRUE(std::isnan(lg[1]));
  EXPECT_EQ(lg[2], inf);
  EXPECT_TRUE(std::isnan(lg[3]));
  const auto ex = exp(*x)->ToVector<double>();
  EXPECT_EQ(ex[2], inf);
  EXPECT_TRUE(std::isnan(ex[3]));
  EXPECT_THAT(isnan(*x)->ToVector<int>(), ElementsAre(0, 0, 0, 1, 0));
  EXPECT_THAT(isfinite(*x)->ToVector<int>(), ElementsAre(1, 1, 0, 0, 1));
  const auto sg = sign(*x)->ToVector<double>();
  EXPECT_EQ(sg[1], -1);
  EXPECT_EQ(sg[2], 1);
  EXPECT_TRUE(std::isnan(sg[3]));
  EXPECT_FALSE(std::signbit(sg[4]));  // sign(-0.0) is +0.0 in NumPy
  EXPECT_TRUE(std::signbit(floor(*x)->ToVector<double>()[4]));
  EXPECT_TRUE(std::signbit(negative(*FromVector<double>({0.0}))
                               ->ToVector<double>()[0]));
}

TEST(UnaryTest, LongRowsMatchStdWithinTolerance) {
  // 1000 float32 elements: the vector path with its tail, every function.
  auto x = linspace(-20, 20, 1001, true, DType::kFloat32);
  const auto in = x->ToVector<float>();
  struct Case {
    UnaryOp op;
    float (*reference)(float);
  };
  const Case cases[] = {
      {UnaryOp::kExp, [](float v) { return std::exp(v); }},
      {UnaryOp::kSin, [](float v) { return std::sin(v); }},
      {UnaryOp::kCos, [](float v) { return std::cos(v); }},
      {UnaryOp::kTanh, [](float v) { return std::tanh(v); }},
      {UnaryOp::kLog, [](float v) { return std::log(std::fabs(v)); }},
  };
  auto magnitudes = abs(*x);
  for (const Case& c : cases) {
    auto r = Unary(c.op, c.op == UnaryOp::kLog ? *magnitudes : *x);
    ASSERT_TRUE(r.ok());
    ASSERT_EQ(r->dtype(), DType::kFloat32);
    const auto got = r->ToVector<float>();
    for (size_t i = 0; i < in.size(); ++i) {
      const float want = c.reference(in[i]);
      if (std::isinf(want)) {  // log(0)
        ASSERT_EQ(got[i], want);
        continue;
      }
      const float tolerance =
          4 * std::numeric_limits<float>::epsilon() *
          std::max(1.0f, std::fabs(want));
      ASSERT_NEAR(got[i], want, tolerance)
          << UnaryOpName(c.op) << "(" << in[i] << ")";
    }
  }
}

TEST(UnaryTest, StridedInputIsReadInLogicalOrder) {
  auto m = reshape(*arange(-3, 3, 1, DType::kFloat64), {2, 3});
  auto t = transpose(*m);  // [[-3, 0], [-2, 1], [-1, 2]]
  auto r = abs(*t);
  ASSERT_TRUE(r.ok());
  EXPECT_THAT(r->shape(), ElementsAre(3, 2));
  EXPECT_THAT(r->ToVector<int>(), ElementsAre(3, 0, 2, 1, 1, 2));
  auto rev = index(*arange(5, DType::kInt32),
                   {Slice{std::nullopt, std::nullopt, -1}});
  EXPECT_THAT(square(*rev)->ToVector<int>(), ElementsAre(16, 9, 4, 1, 0));
}

TEST(UnaryOutTest, InPlaceBroadcastAndOverlap) {
  auto a = arange(-2, 3, 1, DType::kFloat32);
  ASSERT_TRUE(abs(*a, *a).ok());
  EXPECT_THAT(a->ToVector<float>(), ElementsAre(2, 1, 0, 1, 2));
  // The input broadcasts up to the output's shape.
  auto out = empty({2, 5}, DType::kFloat32);
  ASSERT_TRUE(square(*a, *out).ok());
  EXPECT_THAT(out->ToVector<float>(),
              ElementsAre(4, 1, 0, 1, 4, 4, 1, 0, 1, 4));
  // x[1:] = negative(x[:-1]) reads the old values.
  auto x = arange(1, 6, 1, DType::kInt32);
  ASSERT_TRUE(negative(*slice(*x, 0, Slice{0, 4}), *slice(*x, 0, Slice{1, 5}))
                  .ok());
  EXPECT_THAT(x->ToVector<int>(), ElementsAre(1, -1, -2, -3, -4));
  // Reversed view of itself.
  auto y = arange(0, 40, 1, DType::kFloat64);
  auto y_rev = index(*y, {Slice{std::nullopt, std::nullopt, -1}});
  ASSERT_TRUE(sqrt(*y_rev, *y).ok());
  const auto yv = y->ToVector<double>();
  for (int i = 0; i < 40; ++i) EXPECT_EQ(yv[i], std::sqrt(39.0 - i)) << i;
  // Predicates into a wider dtype; float32 result into float64.
  auto ints = empty({5}, DType::kInt32);
  ASSERT_TRUE(isfinite(*a, *ints).ok());
  EXPECT_THAT(ints->ToVector<int>(), ElementsAre(1, 1, 1, 1, 1));
  auto wide = empty({5}, DType::kFloat64);
  ASSERT_TRUE(sqrt(*a, *wide).ok());
  EXPECT_EQ(wide->ToVector<double>()[0], std::sqrt(2.0f));
}

TEST(UnaryOutTest, RejectsReadOnlyWrongShapeAndUnsafeDType) {
  auto a = arange(3, DType::kFloat64);
  auto ro = broadcast_to(*a, {3});
  auto status = exp(*a, *ro);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(Message(status), HasSubstr("read-only"));
  status = exp(*a, *empty({2}, DType::kFloat64));
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(status), HasSubstr("(3,) (2,)"));
  status = exp(*zeros({2, 3}), *empty({3}, DType::kFloat64));
  EXPECT_THAT(Message(status), HasSubstr("shape (3,)"));
  EXPECT_THAT(Message(status), HasSubstr("(2, 3)"));
  status = sqrt(*a, *empty({3}, DType::kInt64));
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(status), HasSubstr("float64 result to output dtype int64"));
  EXPECT_FALSE(negative(*FromVector<bool>({true}), *empty({1}, DType::kBool))
                   .ok());
}

TEST(UnaryTest, AllocationFailureLeavesNothingBehind) {
  CountingAllocator allocator;
  auto a = arange(0, 100, 1, DType::kInt32, &allocator);
  ASSERT_TRUE(a.ok());
  const uint64_t live = allocator.stats().live_allocations();
  // sqrt of int32 converts to float64 first, then allocates the result.
  for (uint64_t allowed = 0; allowed < 2; ++allowed) {
    allocator.set_fail_after(allocator.stats().allocations + allowed);
    auto r = sqrt(*a, &allocator);
    EXPECT_EQ(r.status().code(), absl::StatusCode::kResourceExhausted)
        << allowed;
    EXPECT_EQ(allocator.stats().live_allocations(), live);
  }
  allocator.set_fail_after(UINT64_MAX);
  EXPECT_TRUE(sqrt(*a, &allocator).ok());
  EXPECT_EQ(allocator.stats().live_allocations(), live);
}

}  // namespace
}  // namespace tessera
