// Copyright 2026 The Tessera Authors.

#include "tensor/view.h"

#include <cstdint>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tensor/tensor.h"

namespace tessera {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string Message(const absl::Status& status) {
  return std::string(status.message());
}

// np.arange(24).reshape(2, 3, 4) as int64.
Tensor Cube() {
  auto t = reshape(*arange(24), {2, 3, 4});
  EXPECT_TRUE(t.ok());
  return *t;
}

TEST(SliceTest, NegativeStepsAndIndicesMatchPython) {
  auto v = arange(10);
  // np.arange(10)[8:2:-3] -> [8, 5]
  EXPECT_THAT(slice(*v, 0, Slice{8, 2, -3})->ToVector<int>(), ElementsAre(8, 5));
  // [-100:100:4] -> [0, 4, 8] (bounds clipped)
  EXPECT_THAT(slice(*v, 0, Slice{-100, 100, 4})->ToVector<int>(),
              ElementsAre(0, 4, 8));
  // [5:-100:-1] -> [5, 4, 3, 2, 1, 0]
  EXPECT_THAT(slice(*v, 0, Slice{5, -100, -1})->ToVector<int>(),
              ElementsAre(5, 4, 3, 2, 1, 0));
  // [::-1]
  EXPECT_THAT(slice(*v, 0, Slice{std::nullopt, std::nullopt, -1})
                  ->ToVector<int>(),
              ElementsAre(9, 8, 7, 6, 5, 4, 3, 2, 1, 0));
  EXPECT_EQ(slice(*v, 0, Slice{7, 3})->size(), 0);
}

TEST(SliceTest, ZeroStepIsAnError) {
  auto s = slice(*arange(5), 0, Slice{0, 5, 0});
  EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(s.status()), HasSubstr("step cannot be zero"));
}

TEST(SliceTest, ExtremeStepDoesNotOverflow) {
  auto s = ResolveSlice(Slice{std::nullopt, std::nullopt, INT64_MIN}, 5);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->start, 4);
  EXPECT_EQ(s->length, 1);
}

TEST(IndexTest, MixedIndexIsAViewWithNumPysStrides) {
  Tensor a = Cube();
  // a[1, ::-2, 1:] -> [[21, 22, 23], [13, 14, 15]], strides (-64, 8)
  auto v = index(a, {1, Slice{std::nullopt, std::nullopt, -2}, Slice{1}});
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_THAT(v->shape(), ElementsAre(2, 3));
  EXPECT_THAT(v->strides(), ElementsAre(-64, 8));
  EXPECT_THAT(v->ToVector<int>(), ElementsAre(21, 22, 23, 13, 14, 15));
  EXPECT_EQ(v->storage().get(), a.storage().get());
  EXPECT_FALSE(v->owns_data());
  EXPECT_FALSE(v->c_contiguous());
  // Writing through the view changes the base.
  *v->mutable_ptr<int64_t>({0, 0}) = -1;
  EXPECT_EQ(*a.item<int64_t>({1, 2, 1}), -1);
}

TEST(IndexTest, IntegerDropsTheAxisAndEllipsisFillsTheRest) {
  Tensor a = Cube();
  auto last_rows = index(a, {Slice::All(), -1});
  EXPECT_THAT(last_rows->ToVector<int>(),
              ElementsAre(8, 9, 10, 11, 20, 21, 22, 23));
  auto with_new_axis = index(a, {Index::Ellipsis(), Index::NewAxis(), 2});
  ASSERT_TRUE(with_new_axis.ok()) << with_new_axis.status();
  EXPECT_THAT(with_new_axis->shape(), ElementsAre(2, 3, 1));
  EXPECT_EQ(*with_new_axis->item<int>({1, 2, 0}), 22);
}

TEST(IndexTest, ViewsOfViewsShareTheUltimateStorage) {
  Tensor a = Cube();
  auto v1 = index(a, {1});
  auto v2 = index(*v1, {Slice{1}});
  auto v3 = transpose(*v2);
  EXPECT_EQ(v3->storage().get(), a.storage().get());
}

TEST(IndexTest, OutOfRangeAndTooManyIndicesAreNamed) {
  Tensor a = Cube();
  auto bad = index(a, {0, 3});
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(bad.status()),
              HasSubstr("index 3 is out of bounds for axis 1 with size 3"));
  auto many = index(a, {0, 0, 0, 0});
  EXPECT_THAT(Message(many.status()), HasSubstr("too many indices"));
  EXPECT_FALSE(index(a, {Index::Ellipsis(), Index::Ellipsis()}).ok());
}

TEST(ReshapeTest, ContiguousReshapeIsAView) {
  Tensor a = Cube();
  auto r = reshape(a, {4, -1});
  ASSERT_TRUE(r.ok());
  EXPECT_THAT(r->shape(), ElementsAre(4, 6));
  EXPECT_EQ(r->data(), a.data());
  EXPECT_FALSE(r->owns_data());
}

TEST(ReshapeTest, StridedReshapeIsAViewWhenStridesAllow) {
  // np.arange(12).reshape(3, 4)[:, ::2].reshape(3, 2, 1).strides == (32, 16, 16)
  auto b = index(*reshape(*arange(12), {3, 4}),
                 {Slice::All(), Slice{std::nullopt, std::nullopt, 2}});
  ASSERT_TRUE(b.ok());
  auto r = reshape(*b, {3, 2, 1});
  ASSERT_TRUE(r.ok());
  EXPECT_THAT(r->strides(), ElementsAre(32, 16, 16));
  EXPECT_EQ(r->data(), b->data());
}

TEST(ReshapeTest, TransposedReshapeCopiesInCOrder) {
  Tensor a = Cube();
  auto t = transpose(a, {2, 0, 1});
  ASSERT_TRUE(t.ok());
  auto r = ravel(*t);
  ASSERT_TRUE(r.ok());
  EXPECT_NE(r->storage().get(), a.storage().get());
  EXPECT_TRUE(r->c_contiguous());
  const auto v = r->ToVector<int>();
  EXPECT_THAT(std::vector<int>(v.begin(), v.begin() + 8),
              ElementsAre(0, 4, 8, 12, 16, 20, 1, 5));
}

TEST(ReshapeTest, IncompatibleSizesAreNamed) {
  auto r = reshape(*arange(6), {4});
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(r.status()),
              HasSubstr("cannot reshape tensor of size 6 into shape (4,)"));
  EXPECT_FALSE(reshape(*arange(6), {-1, -1}).ok());
  EXPECT_FALSE(reshape(*arange(6), {4, -1}).ok());
  EXPECT_FALSE(reshape(*arange(6), {-2, -3}).ok());
  // Size-0 reshapes keep working with -1 only when inferable.
  EXPECT_TRUE(reshape(*zeros({0, 3}), {3, 0}).ok());
  // A zero extent anywhere excuses extents whose product overflows, as in
  // zeros(); without one the overflow is named.
  constexpr int64_t kHuge = int64_t{1} << 40;
  auto wide = reshape(*zeros({0, 3}), {kHuge, kHuge, 0});
  ASSERT_TRUE(wide.ok()) << wide.status();
  EXPECT_THAT(wide->shape(), ElementsAre(kHuge, kHuge, 0));
  auto too_big = reshape(*arange(6), {kHuge, kHuge, -1});
  EXPECT_EQ(too_big.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(too_big.status()),
              HasSubstr("cannot reshape into shape (1099511627776, "
                        "1099511627776, -1)"));
}

TEST(TransposeTest, PermutesShapeAndStridesAndChecksAxes) {
  Tensor a = Cube();
  auto t = transpose(a);
  ASSERT_TRUE(t.ok());
  EXPECT_THAT(t->shape(), ElementsAre(4, 3, 2));
  EXPECT_THAT(t->strides(), ElementsAre(8, 32, 96));
  EXPECT_TRUE(t->f_contiguous());
  EXPECT_FALSE(t->c_contiguous());
  EXPECT_EQ(*t->item<int>({3, 1, 1}), 19);
  EXPECT_THAT(Message(transpose(a, {0, 0, 1}).status()),
              HasSubstr("repeated axis"));
  EXPECT_THAT(Message(transpose(a, {0, 1, 3}).status()),
              HasSubstr("axis 3 is out of bounds"));
  EXPECT_FALSE(transpose(a, {0, 1}).ok());
  auto s = swapaxes(a, 0, -1);
  EXPECT_THAT(s->shape(), ElementsAre(4, 3, 2));
}

TEST(BroadcastTest, ShapesBroadcastAsNumPy) {
  EXPECT_THAT(*BroadcastShapes({3, 1}, {1, 4}), ElementsAre(3, 4));
  EXPECT_THAT(*BroadcastShapes({1, 0}, {0, 1}), ElementsAre(0, 0));
  EXPECT_THAT(*BroadcastShapes({5, 1, 2}, {4, 1}), ElementsAre(5, 4, 2));
  EXPECT_THAT(*BroadcastShapes({}, {2}), ElementsAre(2));
  auto bad = BroadcastShapes({2, 3}, {4});
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(bad.status()), HasSubstr("(2, 3) (4,)"));
}

TEST(BroadcastTest, BroadcastViewIsReadOnlyWithZeroStrides) {
  auto row = arange(3);
  auto b = broadcast_to(*row, {2, 3});
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_FALSE(b->writeable());
  EXPECT_THAT(b->strides(), ElementsAre(0, 8));
  EXPECT_THAT(b->ToVector<int>(), ElementsAre(0, 1, 2, 0, 1, 2));
  // Views of a read-only view stay read-only.
  EXPECT_FALSE(index(*b, {0})->writeable());
  auto bad = broadcast_to(*row, {2, 4});
  EXPECT_THAT(Message(bad.status()), HasSubstr("(3,) to shape (2, 4)"));
  EXPECT_FALSE(broadcast_to(*zeros({2, 3}), {3}).ok());
  // Element count overflow is caught even though nothing is allocated.
  auto huge = broadcast_to(*zeros({1}), {int64_t{1} << 40, int64_t{1} << 40});
  EXPECT_EQ(huge.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(SqueezeTest, SqueezeAndExpandDimsAreInverse) {
  auto t = zeros({1, 3, 1});
  EXPECT_THAT(squeeze(*t)->shape(), ElementsAre(3));
  EXPECT_THAT(squeeze(*t, -1)->shape(), ElementsAre(1, 3));
  auto bad = squeeze(*t, 1);
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(bad.status()), HasSubstr("not one"));
  auto e = expand_dims(*arange(3), 1);
  EXPECT_THAT(e->shape(), ElementsAre(3, 1));
  EXPECT_THAT(expand_dims(*arange(3), -1)->shape(), ElementsAre(3, 1));
  EXPECT_THAT(expand_dims(*arange(3), 0)->shape(), ElementsAre(1, 3));
  EXPECT_FALSE(expand_dims(*arange(3), 2).ok());
  EXPECT_TRUE(e->c_contiguous());
}

// Shapes as NumPy 1.24 gives them: np.squeeze(a, (1, 3)) etc.
TEST(SqueezeTest, TuplesOfAxesMatchNumPy) {
  const Tensor a = *zeros({2, 1, 3, 1});
  const std::vector<int> both = {1, 3};
  EXPECT_THAT(squeeze(a, absl::MakeConstSpan(both))->shape(),
              ElementsAre(2, 3));
  const std::vector<int> last = {-1};
  EXPECT_THAT(squeeze(a, absl::MakeConstSpan(last))->shape(),
              ElementsAre(2, 1, 3));
  const Tensor b = *arange(0, 6, 1, DType::kInt32);
  const Tensor m = *reshape(b, {2, 3});
  auto e = expand_dims(m, {0, 3});
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_THAT(e->shape(), ElementsAre(1, 2, 3, 1));
  EXPECT_EQ(e->ToVector<int32_t>(), b.ToVector<int32_t>());
  EXPECT_THAT(expand_dims(m, {-1, 0})->shape(), ElementsAre(1, 2, 3, 1));
  EXPECT_THAT(expand_dims(m, absl::Span<const int>())->shape(),
              ElementsAre(2, 3));
  EXPECT_TRUE(squeeze(*expand_dims(m, {0, 2}), {0, 2})->shape() == m.shape());
}

TEST(SqueezeTest, BadTuplesNameTheAxis) {
  const Tensor a = *zeros({2, 1, 3, 1});
  EXPECT_EQ(Message(squeeze(a, {1, 1}).status()), "repeated axis 1 in squeeze");
  const std::vector<int> first = {0};
  EXPECT_EQ(Message(squeeze(a, absl::MakeConstSpan(first)).status()),
            "cannot squeeze axis 0 of shape (2, 1, 3, 1): its size is not one");
  EXPECT_EQ(Message(squeeze(a, {1, 4}).status()),
            "axis 4 is out of bounds for tensor of dimension 4");
  const Tensor m = *zeros({2, 3});
  EXPECT_EQ(Message(expand_dims(m, {0, 4}).status()),
            "axis 4 is out of bounds for tensor of dimension 4");
  EXPECT_EQ(Message(expand_dims(m, {1, -3}).status()),
            "repeated axis -3 in expand_dims");
}

}  // namespace
}  // namespace tessera
