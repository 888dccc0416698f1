// Copyright 2026 The Tessera Authors.

#include "tensor/binary.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tensor/parallel.h"
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

// Reference through an independent path: broadcast views read with item(),
// op(a, b) of each pair of elements in C order.
template <typename Op>
std::vector<double> ReferenceElementwise(const Tensor& a, const Tensor& b,
                                         Op op) {
  auto shape = *BroadcastShapes(a.shape(), b.shape());
  auto ba = *broadcast_to(a, shape);
  auto bb = *broadcast_to(b, shape);
  std::vector<double> out;
  Shape index(shape.size(), 0);
  const int64_t size = ba.size();
  for (int64_t n = 0; n < size; ++n) {
    out.push_back(op(*ba.item<double>(index), *bb.item<double>(index)));
    for (int k = static_cast<int>(shape.size()) - 1; k >= 0; --k) {
      if (++index[k] < shape[k]) break;
      index[k] = 0;
    }
  }
  return out;
}

std::vector<double> ReferenceAdd(const Tensor& a, const Tensor& b) {
  return ReferenceElementwise(a, b, [](double x, double y) { return x + y; });
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

// Reference for subtract (not commutative) read through item().
std::vector<double> ReferenceSubtract(const Tensor& a, const Tensor& b) {
  return ReferenceElementwise(a, b, [](double x, double y) { return x - y; });
}

// `shape` filled with 0, 1, 2, ... laid out in reverse axis order: the
// transpose of a C-contiguous tensor, so its first axes are the contiguous
// ones.
Tensor Transposed(const Shape& shape, DType dtype, int64_t first = 0) {
  Shape reversed(shape.rbegin(), shape.rend());
  const int64_t n = *CheckedElementCount(reversed, 8);
  return *transpose(*reshape(*arange(first, first + n, 1, dtype), reversed));
}

Tensor Contiguous(const Shape& shape, DType dtype, int64_t first = 0) {
  const int64_t n = *CheckedElementCount(shape, 8);
  return *reshape(*arange(first, first + n, 1, dtype), shape);
}

// The blocked walk of transposed operands (kernels/binary_plane-inl.h) and
// the row walk give what reading each element in logical order gives, for
// every mix of a transposed operand with a contiguous, broadcast, reversed
// or transposed one, at shapes below, at and around the block sizes.
TEST(BinaryTest, TransposedAndBroadcastMixesMatchTheReference) {
  const Shape shapes[] = {{1, 1},  {2, 3},   {17, 33}, {33, 17}, {16, 16},
                          {40, 25}, {64, 48}, {0, 5},   {5, 0},   {3, 17, 33}};
  for (DType dtype : {DType::kFloat32, DType::kFloat64, DType::kInt32,
                      DType::kInt64, DType::kInt16}) {
    for (const Shape& shape : shapes) {
      const int nd = static_cast<int>(shape.size());
      const int64_t rows = shape[nd - 2], cols = shape[nd - 1];
      Tensor t = Transposed(shape, dtype);
      Shape row_shape = {cols};
      Shape col_shape = shape;
      col_shape[nd - 1] = 1;
      std::vector<std::pair<std::string, Tensor>> others = {
          {"contiguous", Contiguous(shape, dtype, 7)},
          {"row", Contiguous(row_shape, dtype, 3)},
          {"column", Contiguous(col_shape, dtype, 5)},
          {"transposed", Transposed(shape, dtype, 11)},
      };
      // The last two axes swapped only: a transposed plane inside a batch.
      Shape swapped = shape;
      std::swap(swapped[nd - 2], swapped[nd - 1]);
      others.push_back(
          {"swapaxes", *swapaxes(Contiguous(swapped, dtype, 2), nd - 2,
                                 nd - 1)});
      // Columns read backwards: negative strides.
      if (rows > 0 && cols > 0) {
        others.push_back(
            {"reversed", *index(Transposed(shape, dtype, 1),
                                {Index::Ellipsis(),
                                 Slice{std::nullopt, std::nullopt, -1}})});
      }
      for (const auto& [name, other] : others) {
        auto sum = add(t, other);
        ASSERT_TRUE(sum.ok()) << sum.status();
        EXPECT_EQ(sum->ToVector<double>(), ReferenceAdd(t, other))
            << DTypeName(dtype) << " " << ShapeString(shape) << " + " << name;
        auto difference = subtract(other, t);
        ASSERT_TRUE(difference.ok()) << difference.status();
        EXPECT_EQ(difference->ToVector<double>(),
                  ReferenceSubtract(other, t))
            << DTypeName(dtype) << " " << name << " - "
            << ShapeString(shape);
      }
    }
  }
}

// A transposed plane of megabytes runs as bands of rows on the thread pool;
// every element is the same as on one thread.
TEST(BinaryTest, LargeTransposedPlaneSplitAcrossThreadsIsCorrect) {
  const int64_t rows = 1000, cols = 1100;  // 4.4 MB per operand
  Tensor t = Transposed({rows, cols}, DType::kFloat32);
  Tensor ones_ = *full({rows, cols}, 1, DType::kFloat32);
  for (int threads : {1, 2}) {
    SetNumThreads(threads);
    auto sum = add(t, ones_);
    ASSERT_TRUE(sum.ok()) << sum.status();
    const std::vector<float> v = sum->ToVector<float>();
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t c = 0; c < cols; ++c) {
        // t[r, c] = c * rows + r, exact in float32 below 2^24.
        ASSERT_EQ(v[r * cols + c], static_cast<float>(c * rows + r + 1))
            << threads << " threads at (" << r << ", " << c << ")";
      }
    }
  }
  SetNumThreads(0);
}

TEST(BinaryOutTest, TransposedOutputsAreWrittenInLogicalOrder) {
  for (const Shape& shape : {Shape{3, 2}, Shape{17, 33}, Shape{40, 25}}) {
    // out is an F-ordered view: its rows are contiguous.
    Tensor out = Transposed(shape, DType::kFloat32);
    std::fill_n(static_cast<float*>(out.mutable_data()), out.size(), -1.0f);
    Tensor a = Contiguous(shape, DType::kFloat32);
    Tensor b = Contiguous(shape, DType::kFloat32, 100);
    ASSERT_TRUE(subtract(a, b, out).ok());
    EXPECT_EQ(out.ToVector<double>(), ReferenceSubtract(a, b))
        << ShapeString(shape);
    // Both inputs transposed like the output: a plain walk of its memory.
    Tensor ta = Transposed(shape, DType::kFloat32, 1);
    Tensor tb = Transposed(shape, DType::kFloat32, 9);
    ASSERT_TRUE(subtract(ta, tb, out).ok());
    EXPECT_EQ(out.ToVector<double>(), ReferenceSubtract(ta, tb))
        << ShapeString(shape);
  }
}

TEST(BinaryOutTest, InPlaceWithATransposedOperandIsCorrect) {
  for (int64_t n : {1, 5, 16, 17, 33, 40}) {
    // x -= y.T with an unrelated y: the blocked walk with x as output.
    Tensor x = Contiguous({n, n}, DType::kFloat32);
    Tensor y = Transposed({n, n}, DType::kFloat32, 1000);
    const Tensor before = *copy(x);
    ASSERT_TRUE(subtract(x, y, x).ok());
    EXPECT_EQ(x.ToVector<double>(), ReferenceSubtract(before, y)) << n;
    // y.T -= x, written through the transposed view itself.
    const Tensor y_before = *copy(y);
    ASSERT_TRUE(subtract(y, x, y).ok());
    EXPECT_EQ(y.ToVector<double>(), ReferenceSubtract(y_before, x)) << n;
    // x -= x.T overlaps itself transposed: NumPy reads the old x throughout.
    const Tensor old = *copy(x);
    Tensor xt = *transpose(x);
    ASSERT_TRUE(subtract(x, xt, x).ok());
    EXPECT_EQ(x.ToVector<double>(),
              ReferenceSubtract(old, *transpose(old)))
        << n;
  }
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

// Contiguous same-shape operands compare straight into the bool output;
// one that is an operand (bool in place) takes the general path.
TEST(BinaryOutTest, ComparisonsIntoBoolOutputMatchAllocatingForm) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> xs(70), ys(70);
  for (int i = 0; i < 70; ++i) {
    xs[i] = i % 9 == 0 ? nan : static_cast<float>(i % 7) - 3;
    ys[i] = static_cast<float>(i % 5) - 2;
  }
  auto a = reshape(*FromVector(xs), {7, 10});
  auto b = reshape(*FromVector(ys), {7, 10});
  auto out = empty({7, 10}, DType::kBool);
  for (BinaryOp op : {BinaryOp::kEqual, BinaryOp::kNotEqual, BinaryOp::kLess,
                      BinaryOp::kLessEqual, BinaryOp::kGreater,
                      BinaryOp::kGreaterEqual}) {
    ASSERT_TRUE(BinaryInto(op, *a, *b, *out).ok()) << BinaryOpName(op);
    EXPECT_EQ(out->ToVector<int>(), Binary(op, *a, *b)->ToVector<int>())
        << BinaryOpName(op);
  }
  auto m = FromVector<bool>({false, true, false, true});
  auto n = FromVector<bool>({false, false, true, true});
  ASSERT_TRUE(less(*m, *n, *m).ok());
  EXPECT_THAT(m->ToVector<int>(), ElementsAre(0, 0, 1, 0));
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

TEST(BinaryTest, FloorDivideAndRemainderFollowPythonSigns) {
  auto a = FromVector<int32_t>({7, -7, 7, -7, 5, 0});
  auto b = FromVector<int32_t>({2, 2, -2, -2, 0, 0});
  auto q = floor_divide(*a, *b);
  ASSERT_TRUE(q.ok()) << q.status();
  EXPECT_EQ(q->dtype(), DType::kInt32);
  EXPECT_THAT(q->ToVector<int>(), ElementsAre(3, -4, -4, 3, 0, 0));
  auto r = remainder(*a, *b);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(r->ToVector<int>(), ElementsAre(1, 1, -1, -1, 0, 0));
  const double inf = std::numeric_limits<double>::infinity();
  auto fr = remainder(*FromVector<double>({-7.5, 7.5, 1}),
                      *FromVector<double>({2, -2, 0}));
  const auto frv = fr->ToVector<double>();
  EXPECT_EQ(frv[0], 0.5);
  EXPECT_EQ(frv[1], -0.5);
  EXPECT_TRUE(std::isnan(frv[2]));
  auto fq = floor_divide(*FromVector<double>({-7.5, 1}),
                         *FromVector<double>({2, 0}));
  EXPECT_THAT(fq->ToVector<double>(), ElementsAre(-4, inf));
  // Scalar divisor, both sides.
  EXPECT_THAT(remainder(*FromVector<int8_t>({-3, 3}), 2)->ToVector<int>(),
              ElementsAre(1, 1));
  EXPECT_THAT(floor_divide(7, *FromVector<int8_t>({-2, 2}))->ToVector<int>(),
              ElementsAre(-4, 3));
}

TEST(BinaryTest, BoolArithmeticWithoutABoolLoopIsInt8) {
  auto t = FromVector<bool>({true, false});
  for (auto op : {BinaryOp::kFloorDivide, BinaryOp::kRemainder,
                  BinaryOp::kPower}) {
    auto r = Binary(op, *t, *t);
    ASSERT_TRUE(r.ok()) << BinaryOpName(op) << r.status();
    EXPECT_EQ(r->dtype(), DType::kInt8) << BinaryOpName(op);
  }
  EXPECT_THAT(power(*t, *t)->ToVector<int>(), ElementsAre(1, 1));
}

TEST(BinaryTest, PowerWrapsAndRejectsNegativeIntegerExponents) {
  auto p = power(*FromVector<int8_t>({2, 3, -2}), *FromVector<int8_t>({7, 5, 3}));
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_THAT(p->ToVector<int>(), ElementsAre(-128, -13, -8));  // 243 wraps
  auto bad = power(*FromVector<int32_t>({2, 2}), *FromVector<int32_t>({1, -2}));
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(bad.status()), HasSubstr("negative integer powers"));
  EXPECT_THAT(Message(bad.status()), HasSubstr("exponent -2"));
  EXPECT_FALSE(power(*FromVector<int64_t>({2}), -1).ok());
  // The exponent is checked before `out` is touched.
  auto out = full({2}, 7, DType::kInt32);
  auto base = FromVector<int32_t>({2, 2});
  EXPECT_FALSE(power(*base, *FromVector<int32_t>({1, -2}), *out).ok());
  EXPECT_THAT(out->ToVector<int>(), ElementsAre(7, 7));
  // A negative base is fine, as are unsigned and float exponents.
  EXPECT_THAT(power(-2, *FromVector<int64_t>({0, 3}))->ToVector<int>(),
              ElementsAre(1, -8));
  EXPECT_THAT(power(*FromVector<double>({2}), -1)->ToVector<double>(),
              ElementsAre(0.5));
  EXPECT_THAT(power(*FromVector<uint8_t>({3}), *FromVector<uint8_t>({2}))
                  ->ToVector<int>(),
              ElementsAre(9));
}

TEST(BinaryTest, FmaxFminIgnoreNaNWhileMaximumPropagatesIt) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto a = FromVector<double>({1, nan, 3, nan});
  auto b = FromVector<double>({2, 2, nan, nan});
  const auto mx = fmax(*a, *b)->ToVector<double>();
  EXPECT_EQ(mx[0], 2);
  EXPECT_EQ(mx[1], 2);
  EXPECT_EQ(mx[2], 3);
  EXPECT_TRUE(std::isnan(mx[3]));
  const auto mn = fmin(*a, *b)->ToVector<double>();
  EXPECT_EQ(mn[0], 1);
  EXPECT_EQ(mn[1], 2);
  EXPECT_EQ(mn[2], 3);
  EXPECT_TRUE(std::isnan(mn[3]));
  // Long float32 rows take the vector path of every op.
  auto big = full({100}, 1.0, DType::kFloat32);
  auto with_nan = full({100}, nan, DType::kFloat32);
  EXPECT_THAT(fmax(*big, *with_nan)->ToVector<float>(),
              ::testing::Each(1.0f));
  for (float v : maximum(*big, *with_nan)->ToVector<float>()) {
    EXPECT_TRUE(std::isnan(v));
  }
  for (float v : minimum(*with_nan, *big)->ToVector<float>()) {
    EXPECT_TRUE(std::isnan(v));
  }
}

TEST(BinaryTest, BitwiseOpsTakeIntegersAndBoolButNotFloats) {
  auto a = FromVector<uint8_t>({0xF0, 0x0F});
  auto b = FromVector<int16_t>({0xFF, 0x01});
  auto r = bitwise_and(*a, *b);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->dtype(), DType::kInt16);
  EXPECT_THAT(r->ToVector<int>(), ElementsAre(0xF0, 0x01));
  EXPECT_THAT(bitwise_or(*a, *b)->ToVector<int>(), ElementsAre(0xFF, 0x0F));
  EXPECT_THAT(bitwise_xor(*a, *b)->ToVector<int>(), ElementsAre(0x0F, 0x0E));
  auto t = FromVector<bool>({true, false});
  auto bx = bitwise_xor(*t, true);
  EXPECT_EQ(bx->dtype(), DType::kBool);
  EXPECT_THAT(bx->ToVector<int>(), ElementsAre(0, 1));
  auto f = bitwise_or(*FromVector<double>({1.0}), *a);
  EXPECT_EQ(f.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(f.status()), HasSubstr("bitwise_or"));
  EXPECT_THAT(Message(f.status()), HasSubstr("float64"));
  EXPECT_FALSE(bitwise_and(*FromVector<float>({1}), 1).ok());
}

TEST(BinaryTest, ComparisonsGiveBoolAfterPromotion) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto a = FromVector<double>({1, 2, nan});
  auto b = FromVector<int8_t>({2, 2, 2});
  auto lt = less(*a, *b);
  ASSERT_TRUE(lt.ok()) << lt.status();
  EXPECT_EQ(lt->dtype(), DType::kBool);
  EXPECT_THAT(lt->ToVector<int>(), ElementsAre(1, 0, 0));
  EXPECT_THAT(less_equal(*a, *b)->ToVector<int>(), ElementsAre(1, 1, 0));
  EXPECT_THAT(greater(*a, *b)->ToVector<int>(), ElementsAre(0, 0, 0));
  EXPECT_THAT(greater_equal(*a, *b)->ToVector<int>(), ElementsAre(0, 1, 0));
  EXPECT_THAT(equal(*a, *b)->ToVector<int>(), ElementsAre(0, 1, 0));
  EXPECT_THAT(not_equal(*a, *b)->ToVector<int>(), ElementsAre(1, 0, 1));
  // Broadcast and scalar forms; int8 -1 < uint8 255 holds (int16).
  auto col = reshape(*arange(3), {3, 1});
  auto grid = less(*col, *arange(3));
  EXPECT_THAT(grid->shape(), ElementsAre(3, 3));
  EXPECT_THAT(grid->ToVector<int>(), ElementsAre(0, 1, 1, 0, 0, 1, 0, 0, 0));
  EXPECT_THAT(less(200, *FromVector<uint8_t>({255, 100}))->ToVector<int>(),
              ElementsAre(1, 0));
  EXPECT_THAT(less(*FromVector<int8_t>({-1}), *FromVector<uint8_t>({255}))
                  ->ToVector<int>(),
              ElementsAre(1));
  // Into an existing bool output, and into a wider one (bool -> int32).
  auto out = empty({3}, DType::kBool);
  ASSERT_TRUE(equal(*a, *b, *out).ok());
  EXPECT_THAT(out->ToVector<int>(), ElementsAre(0, 1, 0));
  auto ints = empty({3}, DType::kInt32);
  ASSERT_TRUE(greater_equal(*a, *b, *ints).ok());
  EXPECT_THAT(ints->ToVector<int>(), ElementsAre(0, 1, 0));
  EXPECT_EQ(*BinaryResultType(BinaryOp::kLess, DType::kFloat32,
                              DType::kInt64),
            DType::kBool);
}

TEST(BinaryTest, LogicalOpsReadTruthValues) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto a = FromVector<double>({0, 0, 2.5, nan});
  auto b = FromVector<int32_t>({0, -3, 0, 7});
  auto r = logical_and(*a, *b);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->dtype(), DType::kBool);
  EXPECT_THAT(r->ToVector<int>(), ElementsAre(0, 0, 0, 1));
  EXPECT_THAT(logical_or(*a, *b)->ToVector<int>(), ElementsAre(0, 1, 1, 1));
  EXPECT_THAT(logical_xor(*a, *b)->ToVector<int>(), ElementsAre(0, 1, 1, 0));
  EXPECT_THAT(logical_or(*a, 0)->ToVector<int>(), ElementsAre(0, 0, 1, 1));
}

TEST(BinaryOutTest, NewOpsAreCorrectInPlaceAndOverlapping) {
  // In place: a = a // 3, a %= -4 on the same layout.
  auto a = arange(-6, 6, 1, DType::kInt32);
  ASSERT_TRUE(floor_divide(*a, *full({12}, 3, DType::kInt32), *a).ok());
  EXPECT_THAT(a->ToVector<int>(),
              ElementsAre(-2, -2, -2, -1, -1, -1, 0, 0, 0, 1, 1, 1));
  auto m = arange(-6, 6, 1, DType::kInt32);
  ASSERT_TRUE(remainder(*m, *full({12}, -4, DType::kInt32), *m).ok());
  EXPECT_THAT(m->ToVector<int>(),
              ElementsAre(-2, -1, 0, -3, -2, -1, 0, -3, -2, -1, 0, -3));
  // Shifted overlap: x[1:] = x[:-1] ** 2 must read the old values.
  auto x = arange(1, 6, 1, DType::kInt64);
  auto src = slice(*x, 0, Slice{0, 4});
  auto dst = slice(*x, 0, Slice{1, 5});
  ASSERT_TRUE(power(*src, *full({4}, 2, DType::kInt64), *dst).ok());
  EXPECT_THAT(x->ToVector<int>(), ElementsAre(1, 1, 4, 9, 16));
  // Reversed overlap through the Highway bitwise kernel.
  auto y = arange(0, 40, 1, DType::kUInt16);
  const std::vector<int> before = y->ToVector<int>();
  auto rev = slice(*y, 0, Slice{std::nullopt, std::nullopt, -1});
  ASSERT_TRUE(bitwise_xor(*y, *rev, *y).ok());
  for (int i = 0; i < 40; ++i) {
    EXPECT_EQ(y->ToVector<int>()[i], before[i] ^ before[39 - i]) << i;
  }
}

TEST(BinaryOutTest, NewOpsRejectReadOnlyAndMismatchedOutputs) {
  auto a = arange(3, DType::kInt32);
  auto ro = broadcast_to(*a, {3});
  auto status = remainder(*a, *a, *ro);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(Message(status), HasSubstr("read-only"));
  EXPECT_EQ(less(*a, *a, *ro).code(), absl::StatusCode::kFailedPrecondition);
  auto shapes = fmax(*zeros({2, 3}), *zeros({3, 2}));
  EXPECT_THAT(Message(shapes.status()), HasSubstr("(2, 3) (3, 2)"));
  // A bool comparison result fits int32, but an int32 remainder does not
  // fit bool.
  auto flags = empty({3}, DType::kBool);
  status = remainder(*a, *a, *flags);
  EXPECT_THAT(Message(status), HasSubstr("int32 result to output dtype bool"));
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
