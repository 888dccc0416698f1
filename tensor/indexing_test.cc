// Copyright 2026 The Tessera Authors.
//
// indexing.h beyond the NumPy goldens: the branch-free selection against a
// plain loop for every element width and mask shape (selected elements at
// the start, the end, none, all), strided inputs, and bad input named.

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "tensor/indexing.h"
#include "tensor/partition.h"
#include "tensor/view.h"

namespace tessera {
namespace {

Tensor BoolTensor(const std::vector<uint8_t>& bits) {
  std::vector<bool> b(bits.begin(), bits.end());
  return *astype(*FromVector(std::vector<int32_t>(bits.begin(), bits.end())),
                 DType::kBool);
}

TEST(MaskedSelectTest, BranchFreePathMatchesAPlainLoopForEveryWidth) {
  std::mt19937 rng(5);
  for (DType d : {DType::kInt8, DType::kInt16, DType::kFloat32,
                  DType::kFloat64}) {
    for (int64_t n : {1, 2, 7, 64, 1001}) {
      for (int pattern = 0; pattern < 5; ++pattern) {
        std::vector<uint8_t> bits(n);
        for (int64_t i = 0; i < n; ++i) {
          switch (pattern) {
            case 0: bits[i] = rng() & 1; break;
            case 1: bits[i] = i < n / 2 + 1; break;   // trues first
            case 2: bits[i] = i >= n / 2; break;      // trues last
            case 3: bits[i] = 1; break;
            default: bits[i] = 0; break;
          }
        }
        const Tensor a = *astype(*arange(0, n, 1, DType::kInt64), d);
        auto r = masked_select(a, BoolTensor(bits));
        ASSERT_TRUE(r.ok()) << r.status();
        std::vector<double> want;
        for (int64_t i = 0; i < n; ++i) {
          if (bits[i]) want.push_back(static_cast<double>(static_cast<int8_t>(i)));
        }
        std::vector<double> got = r->ToVector<double>();
        ASSERT_EQ(got.size(), want.size()) << DTypeName(d) << " n=" << n;
        if (d != DType::kInt8) {
          want.clear();
          for (int64_t i = 0; i < n; ++i) {
            if (bits[i]) want.push_back(static_cast<double>(d == DType::kInt16 ? static_cast<int16_t>(i) : i));
          }
        }
        EXPECT_EQ(got, want) << DTypeName(d) << " n=" << n << " pattern "
                             << pattern;
      }
    }
  }
}

TEST(MaskedSelectTest, StridedTensorAndMaskSelectInCOrder) {
  auto a = transpose(*reshape(*arange(0, 6, 1, DType::kInt32), {2, 3}));
  // a = [[0,3],[1,4],[2,5]]
  auto m = transpose(*reshape(BoolTensor({1, 0, 1, 1, 1, 0}), {2, 3}));
  // m = [[1,1],[0,1],[1,0]]
  auto r = masked_select(*a, *m);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->ToVector<int32_t>(), (std::vector<int32_t>{0, 3, 4, 2}));
}

TEST(MaskedAssignTest, StridedDestinationIsWrittenThroughTheView) {
  auto base = *zeros({2, 3}, DType::kFloat32);
  auto t = *transpose(base);  // shape 3x2, writes land in base
  ASSERT_TRUE(masked_assign(t, BoolTensor({1, 0, 1}), 5.0).ok());
  EXPECT_EQ(base.ToVector<float>(),
            (std::vector<float>{5, 0, 5, 5, 0, 5}));
}

TEST(IndexingTest, BadInputIsNamed) {
  const Tensor a = *arange(0, 6, 1, DType::kFloat32);
  EXPECT_EQ(take(a, *FromVector(std::vector<int64_t>{1, 7})).status().message(),
            "index 7 is out of bounds for axis 0 with size 6");
  EXPECT_EQ(take(a, *FromVector(std::vector<uint64_t>{1ull << 63}))
                .status()
                .message(),
            "index 9223372036854775808 is out of bounds for axis 0 with size 6");
  EXPECT_EQ(take(a, *FromVector(std::vector<float>{1})).status().message(),
            "index array of dtype float32 is not an integer dtype");
  EXPECT_EQ(take(a, *FromVector(std::vector<int8_t>{0}), 1).status().message(),
            "axis 1 is out of bounds for tensor of dimension 1");
  EXPECT_EQ(masked_select(a, *FromVector(std::vector<int32_t>{1, 0, 1, 0, 1, 0}))
                .status()
                .message(),
            "mask of dtype int32 is not bool");
  EXPECT_EQ(masked_select(a, BoolTensor({1, 0})).status().message(),
            "boolean index did not match indexed array along dimension 0; "
            "dimension is 6 but corresponding boolean dimension is 2");
  EXPECT_FALSE(masked_select(a, *reshape(BoolTensor({1, 0, 1, 0, 1, 0}),
                                         {1, 6}))
                   .ok());
  auto mask = BoolTensor({1, 0, 1, 0, 1, 0});
  EXPECT_EQ(masked_assign(a, mask, *FromVector(std::vector<float>{1, 2}))
                .message(),
            "NumPy boolean array indexing assignment cannot assign 2 input "
            "values to the 3 output values where the mask is true");
  auto w = *copy(a);
  EXPECT_EQ(put(w, *FromVector(std::vector<int16_t>{-7}),
                *FromVector(std::vector<float>{1}))
                .message(),
            "index -7 is out of bounds for axis 0 with size 6");
  EXPECT_EQ(w.ToVector<float>(), a.ToVector<float>()) << "nothing written";
  EXPECT_FALSE(put(w, *FromVector(std::vector<int16_t>{1}),
                   *zeros({0}, DType::kFloat32))
                   .ok());
  auto ro = *broadcast_to(a, {2, 6});
  EXPECT_FALSE(masked_assign(ro, *reshape(*astype(*zeros({12}), DType::kBool),
                                           {2, 6}),
                             1.0)
                   .ok());
  EXPECT_FALSE(compress(*zeros({2, 2}), a).ok());
  EXPECT_EQ(take(*zeros({0}), *FromVector(std::vector<int64_t>{0}), 0,
                 IndexMode::kWrap)
                .status()
                .message(),
            "cannot do a non-empty take from an empty axes.");
  // An empty axis: NumPy refuses a take with a non-empty result in every
  // mode; with an empty result, raise names the index.
  EXPECT_EQ(take(*zeros({0}), *FromVector(std::vector<int64_t>{0}))
                .status()
                .message(),
            "cannot do a non-empty take from an empty axes.");
  EXPECT_EQ(take(*zeros({0, 0}), *FromVector(std::vector<int64_t>{0}), 0)
                .status()
                .message(),
            "index 0 is out of bounds for axis 0 with size 0");
  // Rows of two int8 at an odd offset: moved as two bytes at any alignment.
  const Tensor odd = *reshape(
      *slice(*arange(0, 9, 1, DType::kInt8), 0, Slice(1, std::nullopt, 1)),
      {4, 2});
  auto rows = take(odd, *FromVector(std::vector<int64_t>{3, 0, -2}), 0);
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_EQ(astype(*rows, DType::kInt32)->ToVector<int>(),
            (std::vector<int>{7, 8, 1, 2, 5, 6}));
  // Empty rows: nothing is copied, but the indices are still checked.
  EXPECT_EQ(take(*zeros({3, 0}), *FromVector(std::vector<int64_t>{5}), 0)
                .status()
                .message(),
            "index 5 is out of bounds for axis 0 with size 3");
  auto empty_rows =
      take(*zeros({3, 0}), *FromVector(std::vector<int64_t>{2, -1}), 0);
  ASSERT_TRUE(empty_rows.ok());
  EXPECT_EQ(empty_rows->shape(), (Shape{2, 0}));
  EXPECT_FALSE(nonzero(Tensor()).ok());
  EXPECT_FALSE(take(Tensor(), a).ok());
}

TEST(IndexingTest, WhereWithOneArgumentIsNonzero) {
  auto m = *reshape(*FromVector(std::vector<int32_t>{0, 2, 3, 0}), {2, 2});
  auto w = where(m);
  ASSERT_TRUE(w.ok());
  ASSERT_EQ(w->size(), 2u);
  EXPECT_EQ((*w)[0].dtype(), DType::kInt64);
  EXPECT_EQ((*w)[0].ToVector<int64_t>(), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ((*w)[1].ToVector<int64_t>(), (std::vector<int64_t>{1, 0}));
}

// np.take(np.array(5), [0, 0], axis=0) is [5, 5] and np.compress([True],
// np.array(5), axis=-1) is [5]: NumPy ravels a 0-d tensor before checking
// the axis (PyArray_CheckAxis), so axis 0 and -1 are valid and axis 1 is
// not. Both were rejected as "axis 0 is out of bounds for array of
// dimension 0" (found while writing tensor_fuzzer's NumPy reference of
// take, compress and repeat: repeat already did it NumPy's way).
TEST(IndexingTest, ZeroDTensorsAreTakenFromAndCompressedAsOneD) {
  const Tensor scalar = *full({}, 5, DType::kInt16);
  const Tensor idx = *FromVector(std::vector<int64_t>{0, -1});
  for (int axis : {0, -1}) {
    auto t = take(scalar, idx, axis);
    ASSERT_TRUE(t.ok()) << t.status();
    EXPECT_EQ(t->shape(), Shape({2}));
    EXPECT_EQ(t->ToVector<int16_t>(), (std::vector<int16_t>{5, 5}));
    auto c = compress(BoolTensor({1}), scalar, axis);
    ASSERT_TRUE(c.ok()) << c.status();
    EXPECT_EQ(c->ToVector<int16_t>(), (std::vector<int16_t>{5}));
  }
  auto none = compress(BoolTensor({0}), scalar, 0);
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_EQ(none->shape(), Shape({0}));
  EXPECT_FALSE(take(scalar, idx, 1).ok());
  EXPECT_FALSE(compress(BoolTensor({1}), scalar, -2).ok());
  // The index still has to be in range of the one element.
  EXPECT_FALSE(take(scalar, *FromVector(std::vector<int64_t>{1}), 0).ok());
  EXPECT_FALSE(compress(BoolTensor({0, 1}), scalar, 0).ok());
}

// a[mask] = values broadcasts values to the selection, as NumPy: the same
// element count in another shape is refused and nothing is written (it was
// accepted and copied in flat order; tensor_fuzzer found (2, 0) values
// accepted for a (1, 0) selection).
TEST(MaskedAssignTest, ValuesMustBroadcastToTheSelectionNotJustMatchItsSize) {
  const Tensor a = *zeros({2, 3}, DType::kInt32);
  const Tensor rows = BoolTensor({1, 1});  // selection (2, 3)
  absl::Status s = masked_assign(
      a, rows, *reshape(*FromVector(std::vector<int32_t>{1, 2, 3, 4, 5, 6}),
                        {3, 2}));
  EXPECT_TRUE(absl::IsInvalidArgument(s));
  EXPECT_EQ(s.message(),
            "shape mismatch: value array of shape (3, 2) could not be "
            "broadcast to indexing result of shape (2, 3)");
  EXPECT_FALSE(masked_assign(a, rows, *FromVector(std::vector<int32_t>(6, 1)))
                   .ok());  // (6,) is not (2, 3) either
  EXPECT_EQ(a.ToVector<int32_t>(), std::vector<int32_t>(6, 0));
  const Tensor empty_rows = *zeros({1, 0}, DType::kInt32);
  EXPECT_FALSE(masked_assign(empty_rows, BoolTensor({1}),
                             *zeros({2, 0}, DType::kInt32))
                   .ok());
  // A full-shape mask keeps NumPy's fast-path rule: 0-d or 1-D values.
  EXPECT_EQ(masked_assign(a, *reshape(BoolTensor({1, 0, 0, 0, 0, 1}), {2, 3}),
                          *zeros({1, 2}, DType::kInt32))
                .message(),
            "NumPy boolean array indexing assignment requires a 0 or "
            "1-dimensional input, input has 2 dimensions");

  // What does broadcast: a row, a column of one value per row, the whole
  // selection.
  ASSERT_TRUE(masked_assign(a, rows, *FromVector(std::vector<int32_t>{1, 2, 3}))
                  .ok());
  EXPECT_EQ(a.ToVector<int32_t>(), (std::vector<int32_t>{1, 2, 3, 1, 2, 3}));
  ASSERT_TRUE(masked_assign(a, rows,
                            *reshape(*FromVector(std::vector<int32_t>{7, 8}),
                                     {2, 1}))
                  .ok());
  EXPECT_EQ(a.ToVector<int32_t>(), (std::vector<int32_t>{7, 7, 7, 8, 8, 8}));
  ASSERT_TRUE(masked_assign(a, BoolTensor({0, 1}),
                            *reshape(*FromVector(std::vector<int32_t>{4, 5, 6}),
                                     {1, 3}))
                  .ok());
  EXPECT_EQ(a.ToVector<int32_t>(), (std::vector<int32_t>{7, 7, 7, 4, 5, 6}));
}

// float16 (merged after these ops): nonzero treats -0 as zero and NaN as
// non-zero, as NumPy; take and masks move its 2-byte elements unchanged;
// partition orders by value with NaN last.
TEST(IndexingTest, Float16IsIndexedAndPartitionedByValue) {
  const std::vector<float> values = {0.0f, -0.0f, 1.5f, std::nanf(""), -2.0f,
                                     65504.0f};
  const Tensor h = *astype(*FromVector(values), DType::kFloat16);
  auto nz = nonzero(h);
  ASSERT_TRUE(nz.ok()) << nz.status();
  EXPECT_EQ((*nz)[0].ToVector<int64_t>(), (std::vector<int64_t>{2, 3, 4, 5}));
  auto taken = take(h, *FromVector(std::vector<int64_t>{5, 2, -2}));
  ASSERT_TRUE(taken.ok()) << taken.status();
  EXPECT_EQ(taken->dtype(), DType::kFloat16);
  EXPECT_EQ(taken->ToVector<float>(), (std::vector<float>{65504.0f, 1.5f, -2.0f}));
  auto p = partition(h, std::vector<int64_t>{0});
  ASSERT_TRUE(p.ok()) << p.status();
  const std::vector<float> got = p->template ToVector<float>();
  EXPECT_EQ(got[0], -2.0f);         // the smallest at kth 0
  EXPECT_TRUE(std::isnan(got[5]));  // NaN last
}

}  // namespace
}  // namespace tessera
