// Copyright 2026 The Tessera Authors.

#include "tensor/binary.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
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

// Reference through an independent path: broadcast views read with item().
std::vector<double> ReferenceAdd(const Tensor& a, const Tensor& b) {
  auto shape = *BroadcastShapes(a.shape(), b.shape());
  auto ba = *broadcast_to(a, shape);
  auto bb = *broadcast_to(b, shape);
  std::vector<double> out;
  Shape index(shape.size(), 0);
  const int64_t size = ba.size();
  for (int64_t n = 0; n < size; ++n) {
    out.push_back(*ba.item<double>(index) + *bb.item<double>(index));
    for (int k = static_cast<int>(shape.size()) - 1; k >= 0; --k) {
      if (++index[k] < shape[k]) break;
      index[k] = 0;
    }
  }
  return out;
}

TEST(BinaryTest, RowPlusColumnBroadcasts) {
  auto col = reshape(*arange(3), {3, 1});
  auto row = reshape(*arange(4), {1, 4});
  auto sum = add(*col, *row);
  ASSERT_TRUE(sum.ok()) << sum.status();
  EXPECT_THAT(sum->shape(), ElementsAre(3, 4));
  EXPECT_EQ(sum->dtype(), DType::kInt64);
  EXPECT_THAT(sum->ToVector<int>(),
              ElementsAre(0, 1, 2, 3, 1, 2, 3, 4, 2, 3, 4, 5));
}

TEST(BinaryTest, ZeroLengthAxesBroadcastToAnEmptyResult) {
  auto sum = add(*zeros({1, 0}), *zeros({0, 1}));
  ASSERT_TRUE(sum.ok()) << sum.status();
  EXPECT_THAT(sum->shape(), ElementsAre(0, 0));
  // Empty tensors whose other extents multiply past int64 are still fine.
  const int64_t big = int64_t{1} << 32;
  auto huge = add(*zeros({big, big, 0}), *zeros({big, 1, 0}));
  ASSERT_TRUE(huge.ok()) << huge.status();
  EXPECT_EQ(huge->size(), 0);
  EXPECT_TRUE(add(*zeros({big, big, 0}), *zeros({big, big, 0})).ok());
  auto three = add(*zeros({2, 1, 0}), *zeros({3, 1}));
  ASSERT_TRUE(three.ok());
  EXPECT_THAT(three->shape(), ElementsAre(2, 3, 0));
}

TEST(BinaryTest, IncompatibleShapesNameBothShapes) {
  auto sum = add(*zeros({2, 3}), *zeros({4}));
  EXPECT_EQ(sum.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(sum.status()), HasSubstr("(2, 3) (4,)"));
}

TEST(BinaryTest, RandomShapesMatchTheBroadcastReference) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 60; ++trial) {
    const int nd = 1 + rng() % 4;
    Shape sa, sb;
    for (int k = 0; k < nd; ++k) {
      const int64_t extent = 1 + rng() % 5;
      sa.push_back(rng() % 3 == 0 ? 1 : extent);
      sb.push_back(rng() % 3 == 0 ? 1 : extent);
    }
    if (nd > 1 && rng() % 2) sb.erase(sb.begin());  // different ranks
    auto a = reshape(*arange(0.5, 0.5 + static_cast<double>(
                                              *CheckedElementCount(sa, 8))),
                     sa);
    auto b = reshape(
        *arange(int64_t{0}, *CheckedElementCount(sb, 8), 1, DType::kInt32),
        sb);
    ASSERT_TRUE(a.ok() && b.ok());
    // Reverse b's last axis to exercise negative strides too.
    auto b_rev = index(*b, {Index::Ellipsis(),
                            Slice{std::nullopt, std::nullopt, -1}});
    ASSERT_TRUE(b_rev.ok());
    auto sum = add(*a, *b_rev);
    ASSERT_TRUE(sum.ok()) << sum.status();
    EXPECT_EQ(sum->dtype(), DType::kFloat64);
    EXPECT_EQ(sum->ToVector<double>(), ReferenceAdd(*a, *b_rev))
        << ShapeString(sa) << " + " << ShapeString(sb);
  }
}

TEST(BinaryTest, TransposedOperandIsReadInLogicalOrder) {
  auto m = reshape(*arange(6, DType::kFloat32), {2, 3});
  auto t = transpose(*m);
  auto sum = add(*t, *t);
  ASSERT_TRUE(sum.ok());
  EXPECT_THAT(sum->ToVector<float>(), ElementsAre(0, 6, 2, 8, 4, 10));
}

TEST(BinaryTest, PromotionFollowsNumPy) {
  auto i8 = FromVector<int8_t>({-100, 100});
  auto u8 = FromVector<uint8_t>({200, 200});
  auto sum = add(*i8, *u8);
  ASSERT_TRUE(sum.ok());
  EXPECT_EQ(sum->dtype(), DType::kInt16);
  EXPECT_THAT(sum->ToVector<int>(), ElementsAre(100, 300));
  auto f = add(*FromVector<float>({0.5f}), *FromVector<int64_t>({1}));
  EXPECT_EQ(f->dtype(), DType::kFloat64);
  EXPECT_EQ(*f->item<double>({0}), 1.5);
}

TEST(BinaryTest, IntegerDivideIsTrueDivisionInFloat64) {
  auto q = divide(*FromVector<int32_t>({7, -7, 1}), *FromVector<int32_t>({2, 2, 0}));
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q->dtype(), DType::kFloat64);
  const auto v = q->ToVector<double>();
  EXPECT_EQ(v[0], 3.5);
  EXPECT_EQ(v[1], -3.5);
  EXPECT_TRUE(std::isinf(v[2]));
  auto f32 = divide(*FromVector<float>({1}), *FromVector<float>({4}));
  EXPECT_EQ(f32->dtype(), DType::kFloat32);
}

TEST(BinaryTest, IntegerOverflowWraps) {
  auto s = add(*FromVector<int8_t>({127}), *FromVector<int8_t>({1}));
  EXPECT_EQ(*s->item<int>({0}), -128);
  auto p = multiply(*FromVector<uint16_t>({60000}), *FromVector<uint16_t>({3}));
  EXPECT_EQ(*p->item<int>({0}), (60000 * 3) % 65536);
}

TEST(BinaryTest, BoolArithmeticIsLogicalAndSubtractIsAnError) {
  auto a = FromVector<bool>({false, false, true, true});
  auto b = FromVector<bool>({false, true, false, true});
  EXPECT_THAT(add(*a, *b)->ToVector<int>(), ElementsAre(0, 1, 1, 1));
  EXPECT_EQ(add(*a, *b)->dtype(), DType::kBool);
  EXPECT_THAT(multiply(*a, *b)->ToVector<int>(), ElementsAre(0, 0, 0, 1));
  auto diff = subtract(*a, *b);
  EXPECT_EQ(diff.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(diff.status()), HasSubstr("boolean subtract"));
  EXPECT_FALSE(subtract(*a, true).ok());
  // bool - int is fine: promoted to int.
  EXPECT_TRUE(subtract(*a, *FromVector<int8_t>({1, 1, 1, 1})).ok());
}

TEST(BinaryTest, MaximumAndMinimumPropagateNaN) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto a = FromVector<double>({1, nan, 3, nan});
  auto b = FromVector<double>({2, 2, nan, nan});
  const auto mx = maximum(*a, *b)->ToVector<double>();
  EXPECT_EQ(mx[0], 2);
  EXPECT_TRUE(std::isnan(mx[1]) && std::isnan(mx[2]) && std::isnan(mx[3]));
  const auto mn = minimum(*a, *b)->ToVector<double>();
  EXPECT_EQ(mn[0], 1);
  EXPECT_TRUE(std::isnan(mn[1]) && std::isnan(mn[2]) && std::isnan(mn[3]));
}

TEST(BinaryTest, ScalarsAreWeak) {
  auto f32 = arange(4, DType::kFloat32);
  auto scaled = multiply(*f32, 2.5);
  ASSERT_TRUE(scaled.ok());
  EXPECT_EQ(scaled->dtype(), DType::kFloat32);
  EXPECT_THAT(scaled->ToVector<float>(), ElementsAre(0, 2.5, 5, 7.5));
  auto i8 = FromVector<int8_t>({1, 2});
  EXPECT_EQ(add(*i8, 1)->dtype(), DType::kInt8);
  EXPECT_EQ(add(*i8, 1.5)->dtype(), DType::kFloat64);
  // Scalar on the left keeps its operand order.
  EXPECT_THAT(subtract(10, *i8)->ToVector<int>(), ElementsAre(9, 8));
  EXPECT_THAT(divide(1, *FromVector<int32_t>({4}))->ToVector<double>(),
              ElementsAre(0.25));
  auto too_big = add(*FromVector<uint8_t>({1}), 300);
  EXPECT_EQ(too_big.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(too_big.status()), HasSubstr("300"));
}

TEST(BinaryOutTest, WritesIntoAnExistingTensor) {
  auto a = arange(5, DType::kFloat32);
  auto b = full({5}, 1, DType::kFloat32);
  auto out = empty({5}, DType::kFloat32);
  ASSERT_TRUE(add(*a, *b, *out).ok());
  EXPECT_THAT(out->ToVector<float>(), ElementsAre(1, 2, 3, 4, 5));
  // Inputs broadcast up to the output's shape.
  auto big = empty({2, 5}, DType::kFloat32);
  ASSERT_TRUE(add(*a, *b, *big).ok());
  EXPECT_THAT(big->ToVector<float>(),
              ElementsAre(1, 2, 3, 4, 5, 1, 2, 3, 4, 5));
}

TEST(BinaryOutTest, InPlaceAndOverlappingOutputsAreCorrect) {
  auto a = arange(6, DType::kInt32);
  ASSERT_TRUE(add(*a, *a, *a).ok());  // a += a
  EXPECT_THAT(a->ToVector<int>(), ElementsAre(0, 2, 4, 6, 8, 10));
  // out = a[1:], inputs a[:-1] and a[::-1][1:] all alias a.
  auto head = slice(*a, 0, Slice{0, 5});
  auto tail = slice(*a, 0, Slice{1});
  auto rev = slice(*a, 0, Slice{4, std::nullopt, -1});
  const std::vector<int> before = a->ToVector<int>();
  ASSERT_TRUE(add(*head, *rev, *tail).ok());
  std::vector<int> expected = before;
  for (int i = 0; i < 5; ++i) expected[i + 1] = before[i] + before[4 - i];
  EXPECT_EQ(a->ToVector<int>(), expected);
}

TEST(BinaryOutTest, ShiftedContiguousOverlapReadsACopy) {
  auto a = arange(8, DType::kFloat32);
  auto src = slice(*a, 0, Slice{0, 7});
  auto dst = slice(*a, 0, Slice{1, 8});
  ASSERT_TRUE(src->c_contiguous() && dst->c_contiguous());
  // a[1:] = a[:-1] + a[:-1]; a forward loop over shared memory would reuse
  // freshly written values.
  ASSERT_TRUE(add(*src, *src, *dst).ok());
  EXPECT_THAT(a->ToVector<float>(), ElementsAre(0, 0, 2, 4, 6, 8, 10, 12));
}

TEST(BinaryOutTest, RejectsReadOnlyWrongShapeAndUnsafeDType) {
  auto a = arange(3, DType::kFloat32);
  auto ro = broadcast_to(*a, {3});
  EXPECT_EQ(add(*a, *a, *ro).code(), absl::StatusCode::kFailedPrecondition);
  auto small = empty({2}, DType::kFloat32);
  auto status = add(*a, *a, *small);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(status), HasSubstr("(2,)"));
  auto ints = empty({3}, DType::kInt32);
  status = add(*a, *a, *ints);
  EXPECT_THAT(Message(status), HasSubstr("float32 result to output dtype int32"));
  // A safe cast works: float32 result into float64.
  auto wide = empty({3}, DType::kFloat64);
  ASSERT_TRUE(add(*a, *a, *wide).ok());
  EXPECT_THAT(wide->ToVector<double>(), ElementsAre(0, 2, 4));
}

TEST(BinaryTest, AllocationFailureLeavesNothingBehind) {
  CountingAllocator allocator;
  auto a = arange(0, 100, 1, DType::kInt32, &allocator);
  auto b = arange(0, 100, 1, DType::kInt8, &allocator);
  ASSERT_TRUE(a.ok() && b.ok());
  const uint64_t live = allocator.stats().live_allocations();
  // Promotion needs a converted copy of b, then the result: fail each.
  for (uint64_t allowed = 0; allowed < 2; ++allowed) {
    allocator.set_fail_after(allocator.stats().allocations + allowed);
    auto sum = add(*a, *b, &allocator);
    EXPECT_EQ(sum.status().code(), absl::StatusCode::kResourceExhausted)
        << allowed;
    EXPECT_EQ(allocator.stats().live_allocations(), live);
  }
  allocator.set_fail_after(UINT64_MAX);
  EXPECT_TRUE(add(*a, *b, &allocator).ok());
  EXPECT_EQ(allocator.stats().live_allocations(), live);
}

}  // namespace
}  // namespace tessera
