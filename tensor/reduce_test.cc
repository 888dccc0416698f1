// Copyright 2026 The Tessera Authors.

#include "tensor/reduce.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tensor/view.h"

namespace tessera {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string Message(const absl::Status& status) {
  return std::string(status.message());
}

Tensor Matrix() {  // np.arange(12).reshape(3, 4)
  return *reshape(*arange(12), {3, 4});
}

TEST(ReduceTest, AxisReductionsMatchNumPy) {
  const Tensor a = Matrix();
  EXPECT_THAT(sum(a, 0)->ToVector<int>(), ElementsAre(12, 15, 18, 21));
  EXPECT_THAT(sum(a, 1)->ToVector<int>(), ElementsAre(6, 22, 38));
  EXPECT_THAT(max(a, 0)->ToVector<int>(), ElementsAre(8, 9, 10, 11));
  EXPECT_THAT(min(a, -1)->ToVector<int>(), ElementsAre(0, 4, 8));
  EXPECT_THAT(mean(a, 0)->ToVector<double>(), ElementsAre(4, 5, 6, 7));
  EXPECT_EQ(*mean(a)->item<double>(), 5.5);
  EXPECT_EQ(*sum(a)->item<int>(), 66);
  EXPECT_EQ(sum(a)->ndim(), 0);
}

TEST(ReduceTest, FloatAxisZeroUsesRowAccumulationAndMatchesLines) {
  auto a = reshape(*arange(0.0, 60.0, 0.5, DType::kFloat32), {8, 15});
  ASSERT_TRUE(a.ok());
  auto by_rows = sum(*a, 0);  // accumulates contiguous rows
  auto t = copy(*transpose(*a));
  auto by_lines = sum(*t, 1);  // contiguous lines
  ASSERT_TRUE(by_rows.ok() && by_lines.ok());
  EXPECT_EQ(by_rows->ToVector<float>(), by_lines->ToVector<float>());
  EXPECT_EQ(max(*a, 0)->ToVector<float>(), max(*t, 1)->ToVector<float>());
}

TEST(ReduceTest, KeepdimsKeepsALengthOneAxis) {
  const Tensor a = Matrix();
  auto s = sum(a, 1, /*keepdims=*/true);
  ASSERT_TRUE(s.ok());
  EXPECT_THAT(s->shape(), ElementsAre(3, 1));
  EXPECT_THAT(s->ToVector<int>(), ElementsAre(6, 22, 38));
  auto all = max(a, std::nullopt, /*keepdims=*/true);
  EXPECT_THAT(all->shape(), ElementsAre(1, 1));
  EXPECT_EQ(*all->item<int>({0, 0}), 11);
}

TEST(ReduceTest, StridedAndReversedInputsReduceCorrectly) {
  const Tensor a = Matrix();
  auto view = index(a, {Slice{std::nullopt, std::nullopt, -1},
                        Slice{std::nullopt, std::nullopt, 2}});
  ASSERT_TRUE(view.ok());  // [[8, 10], [4, 6], [0, 2]]
  EXPECT_EQ(*sum(*view)->item<int>(), 30);
  EXPECT_THAT(sum(*view, 0)->ToVector<int>(), ElementsAre(12, 18));
  EXPECT_THAT(max(*view, 1)->ToVector<int>(), ElementsAre(10, 6, 2));
  EXPECT_EQ(*min(*view)->item<int>(), 0);
}

TEST(ReduceTest, AccumulatorDTypesMatchNumPy) {
  auto bools = FromVector<bool>({true, true, false});
  EXPECT_EQ(sum(*bools)->dtype(), DType::kInt64);
  EXPECT_EQ(*sum(*bools)->item<int>(), 2);
  auto u8 = FromVector<uint8_t>({200, 200});
  EXPECT_EQ(sum(*u8)->dtype(), DType::kUInt64);
  EXPECT_EQ(*sum(*u8)->item<int>(), 400);
  auto i8 = FromVector<int8_t>({100, 100});
  EXPECT_EQ(*sum(*i8)->item<int>(), 200);
  EXPECT_EQ(mean(*i8)->dtype(), DType::kFloat64);
  EXPECT_EQ(mean(*FromVector<float>({1, 2}))->dtype(), DType::kFloat32);
  EXPECT_EQ(max(*i8)->dtype(), DType::kInt8);
  EXPECT_EQ(*max(*bools)->item<int>(), 1);
  EXPECT_EQ(*min(*bools)->item<int>(), 0);
}

TEST(ReduceTest, MinAndMaxPropagateNaN) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto a = FromVector<double>({1, nan, 3, 4}, Shape{2, 2});
  EXPECT_TRUE(std::isnan(*max(*a)->item<double>()));
  EXPECT_TRUE(std::isnan(*min(*a)->item<double>()));
  const auto cols = max(*a, 0)->ToVector<double>();
  EXPECT_EQ(cols[0], 3);
  EXPECT_TRUE(std::isnan(cols[1]));
}

TEST(ReduceTest, EmptyReductionsFollowNumPy) {
  auto e = zeros({0, 3});
  EXPECT_EQ(*sum(*e)->item<double>(), 0);
  EXPECT_THAT(sum(*e, 0)->ToVector<double>(), ElementsAre(0, 0, 0));
  EXPECT_TRUE(std::isnan(*mean(*e)->item<double>()));
  auto no_identity = max(*e);
  EXPECT_EQ(no_identity.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(no_identity.status()),
              HasSubstr("zero-size array to reduction operation maximum"));
  EXPECT_FALSE(min(*e, 0).ok());
  // Reducing a non-empty axis of an empty tensor is an empty result.
  auto rows = max(*e, 1);
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_THAT(rows->shape(), ElementsAre(0));
}

TEST(ReduceTest, BadAxisIsNamed) {
  auto s = sum(Matrix(), 2);
  EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(s.status()), HasSubstr("axis 2 is out of bounds"));
  EXPECT_FALSE(mean(Matrix(), -3).ok());
}

Tensor Cube() {  // np.arange(24).reshape(2, 3, 4)
  return *reshape(*arange(24), {2, 3, 4});
}

TEST(ReduceTest, SeveralAxesReduceTogether) {
  const Tensor c = Cube();
  auto s = sum(c, {0, 2});
  ASSERT_TRUE(s.ok()) << s.status();
  // np.arange(24).reshape(2,3,4).sum(axis=(0,2)) == [60, 92, 124]
  EXPECT_THAT(s->ToVector<int>(), ElementsAre(60, 92, 124));
  auto k = max(c, {-1, 0}, /*keepdims=*/true);
  ASSERT_TRUE(k.ok()) << k.status();
  EXPECT_THAT(k->shape(), ElementsAre(1, 3, 1));
  EXPECT_THAT(k->ToVector<int>(), ElementsAre(15, 19, 23));
  auto m = mean(c, {1, 2});
  EXPECT_THAT(m->ToVector<double>(), ElementsAre(5.5, 17.5));
  // Every axis listed is the same as axis=None.
  EXPECT_EQ(*sum(c, {2, 0, 1})->item<int>(), 276);
  // A non-contiguous view reduced over two axes.
  auto t = transpose(c);  // (4, 3, 2)
  EXPECT_THAT(sum(*t, {0, 2})->ToVector<int>(), ElementsAre(60, 92, 124));
  EXPECT_THAT(prod(*t, {1, 2})->ToVector<int64_t>(),
              ElementsAre(int64_t{0}, int64_t{1} * 5 * 9 * 13 * 17 * 21,
                          int64_t{2} * 6 * 10 * 14 * 18 * 22,
                          int64_t{3} * 7 * 11 * 15 * 19 * 23));
  // axis=() reduces nothing: an elementwise cast to the accumulator dtype.
  auto none = sum(*FromVector<int8_t>({-1, 2}), std::vector<int>{});
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->dtype(), DType::kInt64);
  EXPECT_THAT(none->ToVector<int>(), ElementsAre(-1, 2));
}

TEST(ReduceTest, OuterAxesAccumulateContiguousBlocks) {
  // Axes (0, 1) of a C-order (3, 2, 4) tensor: six blocks of 4 elements.
  auto a = reshape(*arange(0.0, 24.0, 1.0), {3, 2, 4});
  ASSERT_TRUE(a.ok());
  EXPECT_THAT(sum(*a, {0, 1})->ToVector<double>(),
              ElementsAre(60, 66, 72, 78));
  EXPECT_THAT(sum(*a, {1, 0}, /*keepdims=*/true)->shape(),
              ElementsAre(1, 1, 4));
  EXPECT_THAT(min(*a, {0, 1})->ToVector<double>(), ElementsAre(0, 1, 2, 3));
  *a->mutable_ptr<double>({2, 1, 1}) = std::nan("");
  const auto m = max(*a, {0, 1})->ToVector<double>();
  EXPECT_EQ(m[0], 20);
  EXPECT_TRUE(std::isnan(m[1]));
  EXPECT_EQ(m[3], 23);
  auto i64 = reshape(*arange(24), {3, 2, 4});
  EXPECT_THAT(prod(*i64, {0, 1})->ToVector<int64_t>(),
              ElementsAre(int64_t{0}, int64_t{1} * 5 * 9 * 13 * 17 * 21,
                          int64_t{2} * 6 * 10 * 14 * 18 * 22,
                          int64_t{3} * 7 * 11 * 15 * 19 * 23));
}

TEST(ReduceTest, RepeatedOrOutOfRangeAxesAreNamed) {
  auto dup = sum(Cube(), {1, -2});
  EXPECT_EQ(dup.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(dup.status()), HasSubstr("duplicate value in 'axis': -2"));
  auto out = mean(Cube(), {0, 3});
  EXPECT_THAT(Message(out.status()), HasSubstr("axis 3 is out of bounds"));
  EXPECT_THAT(Message(var(Cube(), {-4}).status()), HasSubstr("axis -4"));
  EXPECT_THAT(Message(argmax(Cube(), 5).status()), HasSubstr("axis 5"));
}

TEST(ReduceTest, ProdAllAnyFollowNumPy) {
  auto a = FromVector<int32_t>({1, 2, 3, 4, 5, 6}, Shape{2, 3});
  EXPECT_EQ(prod(*a)->dtype(), DType::kInt64);
  EXPECT_EQ(*prod(*a)->item<int>(), 720);
  EXPECT_THAT(prod(*a, 0)->ToVector<int>(), ElementsAre(4, 10, 18));
  EXPECT_EQ(prod(*FromVector<uint8_t>({200, 2}))->dtype(), DType::kUInt64);
  EXPECT_EQ(*prod(*FromVector<uint8_t>({200, 2}))->item<int>(), 400);
  auto f = FromVector<double>({0.0, -0.0, 2.0, std::nan("")}, Shape{2, 2});
  EXPECT_EQ(all(*f)->dtype(), DType::kBool);
  EXPECT_FALSE(*all(*f)->item<bool>());
  EXPECT_TRUE(*any(*f)->item<bool>());
  // Row 0 is [0, -0]: no nonzero element; row 1 [2, nan]: all nonzero.
  EXPECT_THAT(any(*f, 1)->ToVector<bool>(), ElementsAre(false, true));
  EXPECT_THAT(all(*f, 1)->ToVector<bool>(), ElementsAre(false, true));
  EXPECT_THAT(all(*f, 0, true)->shape(), ElementsAre(1, 2));
}

TEST(ReduceTest, ArgMinArgMaxTakeFirstOccurrenceAndNaN) {
  auto a = FromVector<int16_t>({3, 7, 7, 1, 1, 9, 0, 9}, Shape{2, 4});
  EXPECT_EQ(argmax(*a)->dtype(), DType::kInt64);
  EXPECT_EQ(*argmax(*a)->item<int>(), 5);
  EXPECT_EQ(*argmin(*a)->item<int>(), 6);
  EXPECT_THAT(argmax(*a, 1)->ToVector<int>(), ElementsAre(1, 1));
  EXPECT_THAT(argmin(*a, 0)->ToVector<int>(), ElementsAre(1, 0, 1, 0));
  auto kept = argmax(*a, -1, /*keepdims=*/true);
  EXPECT_THAT(kept->shape(), ElementsAre(2, 1));
  EXPECT_THAT(argmax(*a, std::nullopt, true)->shape(), ElementsAre(1, 1));
  // Flattened in C order even for a transposed view.
  auto t = transpose(*a);  // [[3,1],[7,9],[7,0],[1,9]]
  EXPECT_EQ(*argmax(*t)->item<int>(), 3);
  EXPECT_EQ(*argmin(*t)->item<int>(), 5);
  const double nan = std::nan("");
  auto f = FromVector<double>({1, nan, 5, nan});
  EXPECT_EQ(*argmax(*f)->item<int>(), 1);
  EXPECT_EQ(*argmin(*f)->item<int>(), 1);
  auto b = FromVector<bool>({false, false, true, true});
  EXPECT_EQ(*argmax(*b)->item<int>(), 2);
  EXPECT_EQ(*argmin(*b)->item<int>(), 0);
}

TEST(ReduceTest, VarAndStdUseTwoPassMeanAndDdof) {
  auto a = FromVector<int32_t>({1, 2, 3, 4, 5, 6, 7, 9}, Shape{2, 4});
  auto v = var(*a);
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(v->dtype(), DType::kFloat64);
  // mean 4.625, squared deviations sum 49.875 (np.var gives 6.234375).
  EXPECT_DOUBLE_EQ(*v->item<double>(), 49.875 / 8);
  EXPECT_DOUBLE_EQ(*var(*a, std::nullopt, /*ddof=*/1)->item<double>(),
                   49.875 / 7);
  EXPECT_DOUBLE_EQ(*stddev(*a)->item<double>(), std::sqrt(49.875 / 8));
  auto rows = var(*a, 1, 0, /*keepdims=*/true);
  EXPECT_THAT(rows->shape(), ElementsAre(2, 1));
  EXPECT_THAT(rows->ToVector<double>(), ElementsAre(1.25, 2.1875));
  auto f = FromVector<float>({1e4f + 1, 1e4f + 2, 1e4f + 3});
  EXPECT_EQ(var(*f)->dtype(), DType::kFloat32);
  EXPECT_FLOAT_EQ(*var(*f)->item<float>(), 2.0f / 3);
  // ddof >= n: divisor 0, as NumPy (inf for a nonzero numerator).
  EXPECT_TRUE(std::isinf(*var(*f, std::nullopt, 3)->item<double>()));
}

TEST(ReduceTest, EmptyReductionsGiveIdentitiesOrNameTheOp) {
  auto e = zeros({0, 3}, DType::kInt32);
  EXPECT_EQ(*prod(*e)->item<int>(), 1);
  EXPECT_THAT(prod(*e, 0)->ToVector<int>(), ElementsAre(1, 1, 1));
  EXPECT_TRUE(*all(*e)->item<bool>());
  EXPECT_FALSE(*any(*e)->item<bool>());
  EXPECT_TRUE(std::isnan(*var(*e)->item<double>()));
  EXPECT_THAT(Message(argmax(*e).status()),
              HasSubstr("attempt to get argmax of an empty sequence"));
  EXPECT_THAT(Message(argmin(*e, 0).status()), HasSubstr("argmin"));
  EXPECT_THAT(Message(min(*e, {0, 1}).status()), HasSubstr("minimum"));
  EXPECT_THAT(argmax(*e, 1)->shape(), ElementsAre(0));
  // No identity: an error even when the result would be empty, as NumPy.
  EXPECT_FALSE(max(*zeros({0, 0}), 0).ok());
}

// 1e7 copies of 0.1f: the exact sum is 1e7 * 0.100000001490116...; a serial
// float32 loop drifts by about 9% once the running sum dwarfs each term.
TEST(ReduceTest, Float32SumOfTenMillionTermsIsAccurate) {
  const int64_t n = 10'000'000;
  auto t = full({n}, 0.1f, DType::kFloat32);
  ASSERT_TRUE(t.ok());
  const double exact = static_cast<double>(n) * static_cast<double>(0.1f);
  const float* p = static_cast<const float*>(t->data());
  float naive = 0;
  for (int64_t i = 0; i < n; ++i) naive += p[i];
  EXPECT_GT(std::fabs(naive - exact) / exact, 1e-2);
  auto s = sum(*t);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->dtype(), DType::kFloat32);
  EXPECT_LT(std::fabs(*s->item<double>() - exact) / exact, 1e-6)
      << *s->item<double>();
  auto m = mean(*t);
  EXPECT_NEAR(*m->item<double>(), 0.1, 1e-6);
}

}  // namespace
}  // namespace tessera
