// Copyright 2026 The Tessera Authors.
//
// join.h beyond the NumPy goldens: strided and transposed inputs, mixed
// dtypes through the converting path, inputs big enough for the parallel
// copy, split's views sharing memory, and the messages of bad input.

#include "tensor/join.h"

#include <cstdint>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tensor/testing/counting_allocator.h"
#include "tensor/view.h"

namespace tessera {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

Tensor Arange(int64_t n, DType d = DType::kInt32) {
  return *arange(0, n, 1, d);
}

TEST(JoinTest, ConcatenateReadsTransposedAndReversedInputs) {
  const Tensor a = *reshape(Arange(6), {2, 3});
  const Tensor t = *transpose(a);                       // (3, 2), F order
  const Tensor r = *slice(t, 0, Slice(std::nullopt, std::nullopt, -1));
  auto c = concatenate({t, r}, 1);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->shape(), Shape({3, 4}));
  EXPECT_THAT(c->ToVector<int>(),
              ElementsAre(0, 3, 2, 5, 1, 4, 1, 4, 2, 5, 0, 3));
}

TEST(JoinTest, ConcatenateOfLargeInputsMatchesElementByElement) {
  // Above kParallelMinBytes: the copy is split over the thread pool.
  const int64_t n = 3 << 20;
  const Tensor a = Arange(n, DType::kFloat32);
  const Tensor b = *astype(Arange(n + 5), DType::kFloat32);
  auto c = concatenate({a, b});
  ASSERT_TRUE(c.ok());
  ASSERT_EQ(c->size(), 2 * n + 5);
  const float* p = static_cast<const float*>(c->data());
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(p[i], static_cast<float>(i));
  for (int64_t i = 0; i < n + 5; ++i) {
    ASSERT_EQ(p[n + i], static_cast<float>(i));
  }
}

// Inputs of one block size are interleaved row by row (blocks of 1, 2, 4, 8
// and 16 bytes; two inputs and three); other block sizes and mixed dtypes
// take the copy per input. Every case against element-by-element indexing.
TEST(JoinTest, StackAndConcatenateAlongTheLastAxisInterleaveRows) {
  struct Case {
    DType dtype;
    int64_t inner;  // elements per block
    int inputs;
  };
  for (const Case& c : {Case{DType::kInt8, 1, 2}, Case{DType::kInt16, 1, 3},
                        Case{DType::kFloat32, 1, 2}, Case{DType::kFloat32, 2, 3},
                        Case{DType::kFloat64, 2, 2}, Case{DType::kInt32, 3, 2},
                        Case{DType::kUInt8, 5, 4}}) {
    constexpr int64_t kRows = 37;
    std::vector<Tensor> parts;
    for (int i = 0; i < c.inputs; ++i) {
      parts.push_back(*reshape(
          *astype(*arange(100 * i, 100 * i + kRows * c.inner, 1, DType::kInt32),
                  c.dtype),
          {kRows, c.inner}));
    }
    auto joined = concatenate(parts, 1);
    ASSERT_TRUE(joined.ok()) << joined.status();
    ASSERT_EQ(joined->shape(), Shape({kRows, c.inner * c.inputs}));
    auto as_int = astype(*joined, DType::kInt32);
    ASSERT_TRUE(as_int.ok());
    const std::vector<int> got = as_int->ToVector<int>();
    for (int64_t r = 0; r < kRows; ++r) {
      for (int i = 0; i < c.inputs; ++i) {
        for (int64_t e = 0; e < c.inner; ++e) {
          const int want = static_cast<int>(
              static_cast<int8_t>(100 * i + r * c.inner + e));
          const int64_t at = (r * c.inputs + i) * c.inner + e;
          if (c.dtype == DType::kInt8) {
            ASSERT_EQ(got[at], want) << DTypeName(c.dtype) << " " << at;
          } else if (c.dtype == DType::kUInt8) {
            ASSERT_EQ(got[at], (100 * i + r * c.inner + e) & 0xFF) << at;
          } else {
            ASSERT_EQ(got[at], 100 * i + r * c.inner + e)
                << DTypeName(c.dtype) << " " << at;
          }
        }
      }
    }
  }
  // stack(axis=-1) of two 1-D float32: the common case.
  auto s = stack({Arange(5, DType::kFloat32), *astype(Arange(5), DType::kFloat32)},
                 -1);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->shape(), Shape({5, 2}));
  EXPECT_THAT(s->ToVector<float>(), ElementsAre(0, 0, 1, 1, 2, 2, 3, 3, 4, 4));
  // Mixed dtypes promote and take the per-input copy.
  auto m = stack({Arange(3, DType::kInt8), Arange(3, DType::kFloat32)}, 1);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->dtype(), DType::kFloat32);
  EXPECT_THAT(m->ToVector<float>(), ElementsAre(0, 0, 1, 1, 2, 2));
}

TEST(JoinTest, ConcatenateAllocatesOnceFromTheGivenAllocator) {
  const Tensor a = Arange(10), b = Arange(5);
  ::tessera::testing::CountingAllocator counting;
  auto c = concatenate({a, b}, 0, &counting);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(counting.stats().allocations, 1u);
  EXPECT_EQ(&c->allocator(), &counting);
}

TEST(JoinTest, SplitReturnsViewsOfTheInput) {
  const Tensor a = *reshape(Arange(12), {4, 3});
  auto parts = split(a, std::vector<int64_t>{1, 3}, 0);
  ASSERT_TRUE(parts.ok());
  ASSERT_EQ(parts->size(), 3u);
  EXPECT_EQ((*parts)[1].shape(), Shape({2, 3}));
  EXPECT_TRUE(MayShareMemory((*parts)[1], a));
  EXPECT_FALSE((*parts)[1].owns_data());
  *a.mutable_ptr<int32_t>({1, 0}) = 99;
  EXPECT_EQ(*(*parts)[1].item<int32_t>({0, 0}), 99);
}

TEST(JoinTest, BadInputIsNamed) {
  const Tensor a = *reshape(Arange(6), {2, 3});
  const Tensor b = *reshape(Arange(4), {2, 2});
  EXPECT_THAT(concatenate({a, b}, 0).status().message(),
              HasSubstr("along dimension 1, the array at index 0 has size 3 "
                        "and the array at index 1 has size 2"));
  EXPECT_THAT(concatenate({a, Arange(3)}, 0).status().message(),
              HasSubstr("the array at index 1 has 1 dimension(s)"));
  EXPECT_THAT(concatenate({a, a}, 2).status().message(),
              HasSubstr("axis 2 is out of bounds"));
  EXPECT_THAT(concatenate({}, 0).status().message(),
              HasSubstr("need at least one array"));
  EXPECT_THAT(stack({a, b}).status().message(),
              HasSubstr("index 1 has shape (2, 2)"));
  EXPECT_THAT(split(a, 4, 1).status().message(),
              HasSubstr("extent 3 of axis 1 into 4 sections"));
  EXPECT_THAT(array_split(a, 0).status().message(),
              HasSubstr("larger than 0, not 0"));
  EXPECT_THAT(tile(a, {2, -1}).status().message(),
              HasSubstr("negative repetition -1 for axis 1"));
  EXPECT_THAT(repeat(a, {1, 2}, 1).status().message(),
              HasSubstr("2 repeats for axis 1 of extent 3"));
  EXPECT_THAT(repeat(a, {-2}).status().message(), HasSubstr("(-2)"));
  EXPECT_THAT(pad(a, {{1, 1}, {0, -3}}).status().message(),
              HasSubstr("negative pad width (0, -3) for axis 1"));
  EXPECT_THAT(pad(a, {{1, 1}, {1, 1}, {1, 1}}).status().message(),
              HasSubstr("3 pairs for a tensor of 2 axes"));
}

// np.pad(np.array(5), (-1, 2)) raises: one (before, after) pair for a 0-d
// tensor pads no axis, but a negative width is still refused (it was
// accepted: the check sat in the loop over axes, which never ran).
TEST(JoinTest, NegativePadWidthIsRejectedForEveryNdim) {
  const Tensor scalar = *full({}, 5, DType::kInt32);
  auto p = pad(scalar, {{-1, 2}});
  ASSERT_FALSE(p.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(p.status()));
  EXPECT_THAT(p.status().message(),
              HasSubstr("negative pad width (-1, 2) for a 0-d tensor"));
  EXPECT_THAT(pad(scalar, {{0, -4}}).status().message(),
              HasSubstr("(0, -4)"));
  // A valid pair pads nothing: the 0-d tensor comes back as it was.
  auto same = pad(scalar, {{1, 2}});
  ASSERT_TRUE(same.ok()) << same.status();
  EXPECT_EQ(same->ndim(), 0);
  EXPECT_EQ(*same->item<int32_t>({}), 5);
  // One pair for every axis of a 2-D tensor, negative before or after.
  const Tensor a = *zeros({2, 3}, DType::kFloat32);
  EXPECT_THAT(pad(a, {{-2, 0}}).status().message(),
              HasSubstr("negative pad width (-2, 0) for axis 0"));
  // The per-axis pairs of an empty tensor are checked too.
  const Tensor e = *zeros({0, 3}, DType::kInt8);
  EXPECT_TRUE(absl::IsInvalidArgument(pad(e, {{0, 0}, {1, -1}}).status()));
}

TEST(JoinTest, RepeatAndTileOfStridedViews) {
  const Tensor a = *reshape(Arange(6), {2, 3});
  const Tensor t = *transpose(a);  // [[0,3],[1,4],[2,5]]
  auto r = repeat(t, {2}, 1);
  ASSERT_TRUE(r.ok());
  EXPECT_THAT(r->ToVector<int>(),
              ElementsAre(0, 0, 3, 3, 1, 1, 4, 4, 2, 2, 5, 5));
  auto tl = tile(*slice(t, 0, Slice(std::nullopt, std::nullopt, 2)), {1, 2});
  ASSERT_TRUE(tl.ok());
  EXPECT_EQ(tl->shape(), Shape({2, 4}));
  EXPECT_THAT(tl->ToVector<int>(), ElementsAre(0, 3, 0, 3, 2, 5, 2, 5));
}

}  // namespace
}  // namespace tessera
