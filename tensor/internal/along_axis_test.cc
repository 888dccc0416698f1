// Copyright 2026 The Tessera Authors.
//
// along_axis.h: NumPy's axis choice, an axis moved last and back to the
// same elements, shape splits and the lanes of a contiguous tensor.

#include "tensor/internal/along_axis.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tensor/view.h"

namespace tessera {
namespace internal {
namespace {

Tensor Arange234() {
  return *reshape(*arange(0, 24, 1, DType::kInt32), {2, 3, 4});
}

TEST(FlattenOrNormalizeAxisTest, NoAxisFlattensAlongAxisZero) {
  auto operand = FlattenOrNormalizeAxis(Arange234(), std::nullopt);
  ASSERT_TRUE(operand.ok()) << operand.status();
  EXPECT_EQ(operand->axis, 0);
  EXPECT_EQ(operand->tensor.shape(), Shape({24}));
}

TEST(FlattenOrNormalizeAxisTest, NegativeAxisCountsFromTheEnd) {
  auto operand = FlattenOrNormalizeAxis(Arange234(), -1);
  ASSERT_TRUE(operand.ok()) << operand.status();
  EXPECT_EQ(operand->axis, 2);
  EXPECT_EQ(operand->tensor.shape(), Shape({2, 3, 4}));
}

TEST(FlattenOrNormalizeAxisTest, AxisOutOfRangeIsAnErrorNamingIt) {
  auto operand = FlattenOrNormalizeAxis(Arange234(), 3);
  ASSERT_FALSE(operand.ok());
  EXPECT_NE(operand.status().message().find("axis 3"), std::string::npos)
      << operand.status();
}

TEST(FlattenOrNormalizeAxisRavelingZeroDTest, ZeroDIsOneDAlongAxisZeroOrMinusOne) {
  const Tensor scalar = *reshape(*arange(7, 8, 1, DType::kInt32), {});
  for (int axis : {0, -1}) {
    auto operand = FlattenOrNormalizeAxisRavelingZeroD(scalar, axis);
    ASSERT_TRUE(operand.ok()) << operand.status();
    EXPECT_EQ(operand->axis, 0);
    EXPECT_EQ(operand->tensor.shape(), Shape({1}));
  }
  auto bad = FlattenOrNormalizeAxisRavelingZeroD(scalar, 1);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("axis 1"), std::string::npos)
      << bad.status();
  // Without the raveling rule axis 0 of a 0-d tensor is out of range.
  EXPECT_FALSE(FlattenOrNormalizeAxis(scalar, 0).ok());
  // Tensors with axes are unchanged by the rule.
  auto kept = FlattenOrNormalizeAxisRavelingZeroD(Arange234(), -1);
  ASSERT_TRUE(kept.ok()) << kept.status();
  EXPECT_EQ(kept->axis, 2);
}

TEST(MoveAxisLastTest, LanesRunAlongTheMovedAxisAndComeBackUnchanged) {
  const Tensor t = Arange234();
  auto moved = MoveAxisLast(t, 1);
  ASSERT_TRUE(moved.ok()) << moved.status();
  EXPECT_EQ(moved->view.shape(), Shape({2, 4, 3}));
  // Lane (0, 1) is t[0, :, 1] = 1, 5, 9.
  EXPECT_EQ(*moved->view.item<int32_t>({0, 1, 2}), 9);
  auto lanes = copy(moved->view);
  ASSERT_TRUE(lanes.ok());
  auto back = MoveLastAxisBack(*lanes, 1, moved->inverse, nullptr);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->shape(), t.shape());
  EXPECT_TRUE(back->c_contiguous());
  EXPECT_EQ(back->ToVector<int32_t>(), t.ToVector<int32_t>());
}

TEST(MoveAxisLastTest, LastAxisComesBackAsTheSameTensorWithoutACopy) {
  const Tensor t = Arange234();
  auto moved = MoveAxisLast(t, 2);
  ASSERT_TRUE(moved.ok()) << moved.status();
  EXPECT_EQ(moved->view.shape(), t.shape());
  auto back = MoveLastAxisBack(t, 2, moved->inverse, nullptr);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->data(), t.data());
}

TEST(SplitAtAxisTest, OuterAndInnerAreTheProductsOnEitherSide) {
  const std::vector<int64_t> shape = {2, 3, 4, 5};
  const AxisSplit middle = SplitAtAxis(shape, 2);
  EXPECT_EQ(middle.outer, 6);
  EXPECT_EQ(middle.extent, 4);
  EXPECT_EQ(middle.inner, 5);
  const AxisSplit first = SplitAtAxis(shape, 0);
  EXPECT_EQ(first.outer, 1);
  EXPECT_EQ(first.inner, 60);
  const AxisSplit last = SplitAtAxis(shape, 3);
  EXPECT_EQ(last.outer, 24);
  EXPECT_EQ(last.inner, 1);
}

TEST(LaneCountTest, EmptyLastAxisHasNoLanes) {
  EXPECT_EQ(LaneCount(*zeros({3, 0}, DType::kFloat32)), 0);
  EXPECT_EQ(LaneCount(*zeros({0, 3}, DType::kFloat32)), 0);
  EXPECT_EQ(LaneCount(Arange234()), 6);
}

TEST(ForEachLaneTest, VisitsEveryLaneInOrderAndNoneWhenEmpty) {
  const Tensor t = Arange234();
  std::vector<int32_t> firsts;
  std::vector<int64_t> rows;
  ForEachLane(t, [&](char* lane, int64_t n, int64_t r) {
    EXPECT_EQ(n, 4);
    firsts.push_back(*reinterpret_cast<int32_t*>(lane));
    rows.push_back(r);
  });
  EXPECT_EQ(firsts, std::vector<int32_t>({0, 4, 8, 12, 16, 20}));
  EXPECT_EQ(rows, std::vector<int64_t>({0, 1, 2, 3, 4, 5}));
  int calls = 0;
  ForEachLane(*zeros({2, 0}, DType::kInt8),
              [&](char*, int64_t, int64_t) { ++calls; });
  EXPECT_EQ(calls, 0);
}

}  // namespace
}  // namespace internal
}  // namespace tessera
