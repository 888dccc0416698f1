// Copyright 2026 The Tessera Authors.

#include "tensor/ternary.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tensor/binary.h"
#include "tensor/view.h"

namespace tessera {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string Message(const absl::Status& status) {
  return std::string(status.message());
}

TEST(WhereTest, SelectsWithThreeWayBroadcastAndPromotion) {
  auto cond = reshape(*FromVector<bool>({true, false}), {2, 1});
  auto x = FromVector<int8_t>({1, 2, 3});      // (3,)
  auto y = FromVector<float>({-1.5f});         // (1,)
  auto r = where(*cond, *x, *y);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(r->shape(), ElementsAre(2, 3));
  EXPECT_EQ(r->dtype(), DType::kFloat32);
  EXPECT_THAT(r->ToVector<float>(), ElementsAre(1, 2, 3, -1.5, -1.5, -1.5));
}

TEST(WhereTest, ConditionIsReadAsTruthValues) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto cond = FromVector<double>({0.0, 2.0, nan, -0.0});
  auto r = where(*cond, 1, 0);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->dtype(), DType::kInt64);  // two int scalars: default int64
  EXPECT_THAT(r->ToVector<int>(), ElementsAre(0, 1, 1, 0));
  // A comparison result as the mask, every element size.
  auto a = arange(-3, 4, 1, DType::kInt16);
  auto mask = less(*a, 0);
  EXPECT_THAT(where(*mask, 0, *a)->ToVector<int>(),
              ElementsAre(0, 0, 0, 0, 1, 2, 3));
  EXPECT_EQ(where(*mask, 0, *a)->dtype(), DType::kInt16);  // weak scalar
  auto d = arange(-3, 4, 1, DType::kFloat64);
  EXPECT_THAT(where(*mask, *d, 2.5)->ToVector<double>(),
              ElementsAre(-3, -2, -1, 2.5, 2.5, 2.5, 2.5));
  EXPECT_EQ(where(*mask, 1, 2.5)->dtype(), DType::kFloat64);
  EXPECT_THAT(where(*mask, true, false)->ToVector<int>(),
              ElementsAre(1, 1, 1, 0, 0, 0, 0));
}

TEST(WhereTest, OutFormsAndOverlap) {
  // a = where(a > 2, a, -a) in place, with a reversed operand aliasing it.
  auto a = arange(0, 6, 1, DType::kInt32);
  auto rev = index(*a, {Slice{std::nullopt, std::nullopt, -1}});
  ASSERT_TRUE(where(*greater(*a, 2), *a, *rev, *a).ok());
  EXPECT_THAT(a->ToVector<int>(), ElementsAre(5, 4, 3, 3, 4, 5));
  // int32 selection into a float64 output.
  auto wide = empty({6}, DType::kFloat64);
  ASSERT_TRUE(where(*FromVector<bool>({true}), *a, 0, *wide).ok());
  EXPECT_THAT(wide->ToVector<double>(), ElementsAre(5, 4, 3, 3, 4, 5));
}

// Long contiguous rows (the vectorised loop and its tail) of every element
// size, with a tensor and with a scalar `y`, and in place.
TEST(WhereTest, ContiguousRowsSelectElementwise) {
  const int64_t n = 1003;
  std::vector<bool> flags(n);
  for (int64_t i = 0; i < n; ++i) flags[i] = (i * 7919) % 3 == 0;
  auto cond = FromVector<bool>(flags);
  for (DType dtype : {DType::kInt8, DType::kInt16, DType::kFloat32,
                      DType::kFloat64}) {
    auto x = arange(0, n, 1, dtype);
    auto y = arange(-n, 0, 1, dtype);
    auto both = where(*cond, *x, *y);
    auto scalar = where(*cond, *x, -1);
    ASSERT_TRUE(both.ok() && scalar.ok()) << DTypeName(dtype);
    const auto got = both->ToVector<double>();
    const auto got_scalar = scalar->ToVector<double>();
    const auto xs = x->ToVector<double>(), ys = y->ToVector<double>();
    for (int64_t i = 0; i < n; ++i) {
      ASSERT_EQ(got[i], flags[i] ? xs[i] : ys[i]) << DTypeName(dtype) << i;
      ASSERT_EQ(got_scalar[i], flags[i] ? xs[i] : -1) << DTypeName(dtype) << i;
    }
    ASSERT_TRUE(where(*cond, *x, *y, *y).ok());  // out is y
    EXPECT_EQ(y->ToVector<double>(), got) << DTypeName(dtype);
  }
}

TEST(WhereTest, ErrorsNameShapesAndDTypes) {
  auto r = where(*zeros({2, 3}), *zeros({4}), *zeros({1}));
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(r.status()), HasSubstr("(2, 3) (4,) (1,)"));
  auto ro = broadcast_to(*zeros({3}), {2, 3});
  auto status = where(*zeros({3}), 1.0, 2.0, *ro);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  status = where(*zeros({3}), 1.0, 2.0, *empty({3}, DType::kInt32));
  EXPECT_THAT(Message(status), HasSubstr("float64 result to output dtype int32"));
  status = where(*zeros({3}), 1.0, 2.0, *empty({2}));
  EXPECT_THAT(Message(status), HasSubstr("shape (2,)"));
  auto big = where(*zeros({1}), *FromVector<uint8_t>({1}), 300);
  EXPECT_THAT(Message(big.status()), HasSubstr("300"));
}

TEST(ClipTest, ScalarAndTensorBoundsKeepNumPyDTypes) {
  auto a = FromVector<int8_t>({-100, -5, 0, 5, 100});
  auto r = clip(*a, -10, 10);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->dtype(), DType::kInt8);
  EXPECT_THAT(r->ToVector<int>(), ElementsAre(-10, -5, 0, 5, 10));
  // Tensor bounds broadcast; the result is promoted (int8 with float32).
  auto lo = FromVector<float>({-1.5f, 0, 0, 0, 0});
  auto hi = reshape(*FromVector<float>({50, 2}), {2, 1});
  auto t = clip(*a, *lo, *hi);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->dtype(), DType::kFloat32);
  EXPECT_THAT(t->shape(), ElementsAre(2, 5));
  EXPECT_THAT(t->ToVector<float>(),
              ElementsAre(-1.5, 0, 0, 5, 50, -1.5, 0, 0, 2, 2));
  // lo > hi gives hi, as NumPy.
  EXPECT_THAT(clip(*a, 10, -10)->ToVector<int>(), ElementsAre(-10, -10, -10, -10, -10));
}

TEST(ClipTest, NaNPropagatesAndInPlaceWorks) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto a = FromVector<double>({-2, nan, 0.5, 9});
  ASSERT_TRUE(clip(*a, 0.0, 1.0, *a).ok());
  const auto v = a->ToVector<double>();
  EXPECT_EQ(v[0], 0);
  EXPECT_TRUE(std::isnan(v[1]));
  EXPECT_EQ(v[2], 0.5);
  EXPECT_EQ(v[3], 1);
  // Into an output whose elements alias the input shifted by one.
  auto x = arange(0, 6, 1, DType::kInt64);
  ASSERT_TRUE(clip(*slice(*x, 0, Slice{0, 5}), 1, 3, *slice(*x, 0, Slice{1, 6}))
                  .ok());
  EXPECT_THAT(x->ToVector<int>(), ElementsAre(0, 1, 1, 2, 3, 3));
}

TEST(ClipTest, ErrorsNameShapesAndReadOnlyOutput) {
  auto a = zeros({2, 3});
  auto r = clip(*a, *zeros({4}), 1.0);
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(r.status()), HasSubstr("(2, 3) (4,) ()"));
  auto ro = broadcast_to(*zeros({3}), {2, 3});
  EXPECT_EQ(clip(*a, 0.0, 1.0, *ro).code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_FALSE(clip(*a, 0.0, 1.0, *empty({2, 3}, DType::kInt32)).ok());
}

}  // namespace
}  // namespace tessera
