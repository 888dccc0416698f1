// Copyright 2026 The Tessera Authors.

#include "tensor/linalg.h"

#include <cmath>
#include <cstdint>
#include <random>
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

// Naive reference: C[b][i][j] = sum_p A[b][i][p] * B[b][p][j] in double,
// with `a`/`b` read through ToVector (C order) of matching batch counts.
std::vector<double> Reference(const std::vector<double>& a,
                              const std::vector<double>& b, int64_t batches,
                              int64_t m, int64_t k, int64_t n,
                              bool broadcast_b = false) {
  std::vector<double> c(static_cast<size_t>(batches * m * n), 0.0);
  for (int64_t t = 0; t < batches; ++t) {
    const int64_t tb = broadcast_b ? 0 : t;
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double s = 0;
        for (int64_t p = 0; p < k; ++p) {
          s += a[(t * m + i) * k + p] * b[(tb * k + p) * n + j];
        }
        c[(t * m + i) * n + j] = s;
      }
    }
  }
  return c;
}

Tensor Random(Shape shape, DType dtype, uint64_t seed) {
  std::mt19937_64 rng(seed);
  int64_t size = 1;
  for (int64_t e : shape) size *= e;
  std::vector<double> v(static_cast<size_t>(size));
  for (auto& x : v) x = static_cast<double>(static_cast<int>(rng() % 19) - 9);
  return *astype(*FromVector<double>(v, shape), dtype);
}

TEST(MatmulTest, TwoDimensionalProductsMatchNaiveLoop) {
  for (DType dtype : {DType::kFloat32, DType::kFloat64, DType::kInt32,
                      DType::kInt64, DType::kUInt8}) {
    for (auto [m, k, n] : {std::array<int64_t, 3>{1, 1, 1}, {3, 5, 7},
                           {17, 33, 9}, {64, 300, 70}}) {
      const Tensor a = Random({m, k}, dtype, 1);
      const Tensor b = Random({k, n}, dtype, 2);
      auto c = matmul(a, b);
      ASSERT_TRUE(c.ok()) << c.status();
      EXPECT_EQ(c->dtype(), dtype);
      EXPECT_THAT(c->shape(), ElementsAre(m, n));
      // Small integers: every product sum is exact in float32 too; uint8
      // wraps modulo 256 like the reference converted back.
      const auto expected = *astype(
          *FromVector<double>(Reference(a.ToVector<double>(),
                                        b.ToVector<double>(), 1, m, k, n),
                              Shape{m, n}),
          DType::kInt64);
      const auto wrapped = *astype(expected, dtype);
      EXPECT_EQ(c->ToVector<double>(), wrapped.ToVector<double>())
          << DTypeName(dtype) << " " << m << "x" << k << "x" << n;
    }
  }
}

TEST(MatmulTest, VectorsFollowNumPyShapes) {
  auto v = FromVector<double>({1, 2, 3});
  auto m = FromVector<double>({1, 2, 3, 4, 5, 6}, Shape{3, 2});
  auto inner = matmul(*v, *v);
  ASSERT_TRUE(inner.ok()) << inner.status();
  EXPECT_EQ(inner->ndim(), 0);
  EXPECT_EQ(*inner->item<double>(), 14);
  auto row = matmul(*v, *m);  // (3,) @ (3, 2) -> (2,)
  EXPECT_THAT(row->shape(), ElementsAre(2));
  EXPECT_THAT(row->ToVector<double>(), ElementsAre(22, 28));
  auto col = matmul(*transpose(*m), *v);  // (2, 3) @ (3,) -> (2,)
  EXPECT_THAT(col->shape(), ElementsAre(2));
  EXPECT_THAT(col->ToVector<double>(), ElementsAre(22, 28));
  EXPECT_EQ(*dot(*v, *v)->item<double>(), 14);
  auto scaled = dot(*v, *full({}, 2.0));
  EXPECT_THAT(scaled->ToVector<double>(), ElementsAre(2, 4, 6));
}

TEST(MatmulTest, BatchAxesBroadcast) {
  const Tensor a = Random({2, 1, 3, 4}, DType::kFloat64, 3);
  const Tensor b = Random({5, 4, 6}, DType::kFloat64, 4);
  auto c = matmul(a, b);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_THAT(c->shape(), ElementsAre(2, 5, 3, 6));
  // Each (i, j) batch is a[i, 0] @ b[j].
  for (int64_t i = 0; i < 2; ++i) {
    for (int64_t j = 0; j < 5; ++j) {
      auto ai = index(a, {i, 0});
      auto bj = index(b, {j});
      auto cij = index(*c, {i, j});
      EXPECT_EQ(cij->ToVector<double>(),
                Reference(ai->ToVector<double>(), bj->ToVector<double>(), 1, 3,
                          4, 6));
    }
  }
  // A 2-D operand broadcasts against every batch.
  const Tensor stack = Random({3, 2, 4}, DType::kFloat32, 5);
  const Tensor w = Random({4, 5}, DType::kFloat32, 6);
  auto y = matmul(stack, w);
  EXPECT_THAT(y->shape(), ElementsAre(3, 2, 5));
  EXPECT_EQ(y->ToVector<double>(),
            Reference(stack.ToVector<double>(), w.ToVector<double>(), 3, 2, 4,
                      5, /*broadcast_b=*/true));
}

TEST(MatmulTest, StridedAndMixedDTypeOperandsArePromoted) {
  const Tensor a = Random({4, 6}, DType::kInt8, 7);
  const Tensor b = Random({5, 4}, DType::kFloat32, 8);
  // b.T is (4, 5) with a non-contiguous last axis; a[:, ::2] is (4, 3).
  auto bt = transpose(b);
  auto c = matmul(*index(a, {Slice::All(), Slice{std::nullopt, std::nullopt, 2}}),
                  *index(*bt, {Slice{0, 3}}));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->dtype(), DType::kFloat32);  // int8 with float32
  auto ac = copy(*index(a, {Slice::All(), Slice{std::nullopt, std::nullopt, 2}}));
  auto bc = copy(*index(*bt, {Slice{0, 3}}));
  EXPECT_EQ(c->ToVector<double>(),
            Reference(ac->ToVector<double>(), bc->ToVector<double>(), 1, 4, 3,
                      5));
  auto i8 = FromVector<int8_t>({100, 100});
  auto wrapped = matmul(*i8, *i8);  // int8 @ int8 stays int8 and wraps
  EXPECT_EQ(wrapped->dtype(), DType::kInt8);
  EXPECT_EQ(*wrapped->item<int>(), static_cast<int8_t>(20000));
  auto bools = FromVector<bool>({true, false, true, true}, Shape{2, 2});
  auto bb = matmul(*bools, *bools);
  EXPECT_EQ(bb->dtype(), DType::kBool);
  EXPECT_THAT(bb->ToVector<bool>(), ElementsAre(true, false, true, true));
}

TEST(MatmulTest, EmptyInnerAxisGivesZeros) {
  auto c = matmul(*zeros({2, 0}), *zeros({0, 3}));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_THAT(c->shape(), ElementsAre(2, 3));
  EXPECT_THAT(c->ToVector<double>(), ElementsAre(0, 0, 0, 0, 0, 0));
  EXPECT_THAT(matmul(*zeros({0, 4}), *zeros({4, 3}))->shape(),
              ElementsAre(0, 3));
}

TEST(DotTest, EmptyContractedAxisGivesZeros) {
  auto c = dot(*zeros({2, 3, 0}), *zeros({4, 0, 5}));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_THAT(c->shape(), ElementsAre(2, 3, 4, 5));
  EXPECT_EQ(*c->item<double>({1, 2, 3, 4}), 0);
  EXPECT_EQ(dot(*zeros({0, 3, 2}), *zeros({4, 2, 5}))->size(), 0);
}

// Zero-size operands may carry extents whose product overflows int64: the
// flattening into rows and columns must neither overflow nor lose the shape.
TEST(DotTest, ZeroSizeOperandsWithHugeExtents) {
  constexpr int64_t kHuge = int64_t{1} << 40;
  auto c = dot(*zeros({kHuge, kHuge, 0, 0}), *zeros({3, 0, 2}));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_THAT(c->shape(), ElementsAre(kHuge, kHuge, 0, 3, 2));
  // Columns of 2**80 elements cannot be flattened: an error, as NumPy's
  // "array is too big", never a wrapped extent.
  auto too_big = dot(*zeros({2, 0}), *zeros({kHuge, 0, kHuge}));
  EXPECT_EQ(too_big.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(too_big.status()), HasSubstr("overflows int64"));
}

TEST(MatmulTest, MismatchesNameBothShapes) {
  auto bad = matmul(*zeros({2, 3}), *zeros({4, 5}));
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(bad.status()), HasSubstr("(2, 3)"));
  EXPECT_THAT(Message(bad.status()), HasSubstr("(4, 5)"));
  auto batch = matmul(*zeros({2, 3, 4}), *zeros({3, 4, 5}));
  EXPECT_THAT(Message(batch.status()),
              HasSubstr("batch axes of shapes (2, 3, 4) and (3, 4, 5)"));
  auto scalar = matmul(*full({}, 1.0), *zeros({3}));
  EXPECT_THAT(Message(scalar.status()), HasSubstr("not have enough dimensions"));
  EXPECT_THAT(Message(dot(*zeros({2, 3, 4}), *zeros({2, 5, 6})).status()),
              HasSubstr("(2, 3, 4) and (2, 5, 6)"));
}

TEST(DotTest, NDimensionalDotSumsLastAxisOfAWithSecondToLastOfB) {
  const Tensor a = Random({2, 3, 4}, DType::kFloat64, 9);
  const Tensor b = Random({5, 4, 6}, DType::kFloat64, 10);
  auto c = dot(a, b);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_THAT(c->shape(), ElementsAre(2, 3, 5, 6));
  // c[i, j, k, l] = sum_p a[i, j, p] * b[k, p, l]
  for (int64_t i = 0; i < 2; ++i) {
    for (int64_t j = 0; j < 3; ++j) {
      for (int64_t k = 0; k < 5; ++k) {
        for (int64_t l = 0; l < 6; ++l) {
          double s = 0;
          for (int64_t p = 0; p < 4; ++p) {
            s += *a.item<double>({i, j, p}) * *b.item<double>({k, p, l});
          }
          ASSERT_EQ(*c->item<double>({i, j, k, l}), s);
        }
      }
    }
  }
}

}  // namespace
}  // namespace tessera
