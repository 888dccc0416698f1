// Copyright 2026 The Tessera Authors.
//
// sort.h against a scalar reference (std::stable_sort with NumPy's NaN-last
// order) on lanes long enough for every vqsort path, plus strided inputs,
// stability and bad input.

#include "tensor/sort.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tensor/view.h"

namespace tessera {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

template <typename T>
bool NumPyLess(T a, T b) {
  if constexpr (std::is_floating_point<T>::value) {
    return a < b || (!std::isnan(a) && std::isnan(b));
  } else {
    return a < b;
  }
}

template <typename T>
std::vector<T> RandomValues(int64_t n, std::mt19937_64& rng) {
  std::vector<T> v(static_cast<size_t>(n));
  for (size_t i = 0; i < v.size(); ++i) {
    T x;
    const uint64_t r = rng();
    if constexpr (std::is_same<T, bool>::value) {
      x = r & 1;
    } else if constexpr (std::is_floating_point<T>::value) {
      switch (r % 16) {
        case 0: x = std::numeric_limits<T>::quiet_NaN(); break;
        case 1: x = -0.0; break;
        case 2: x = std::numeric_limits<T>::infinity(); break;
        default: x = static_cast<T>(static_cast<int64_t>(r >> 40) - 8000000) / 7;
      }
    } else {
      // Many ties (small range) half the time, the full range otherwise.
      x = static_cast<T>((r >> 63) ? (r >> 8) % 50 : r);
    }
    v[i] = x;
  }
  return v;
}

template <typename T>
void CheckAgainstReference(int64_t n, std::mt19937_64& rng) {
  const std::vector<T> values = RandomValues<T>(n, rng);
  auto t = FromVector<T>(values);
  ASSERT_TRUE(t.ok());
  std::vector<int64_t> order(values.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    return NumPyLess(values[a], values[b]);
  });
  auto idx = argsort(*t);
  ASSERT_TRUE(idx.ok());
  EXPECT_EQ(idx->template ToVector<int64_t>(), order) << DTypeName(kDTypeOf<T>) << " n=" << n;
  for (bool stable : {false, true}) {
    auto s = sort(*t, -1, stable);
    ASSERT_TRUE(s.ok());
    const std::vector<T> got = s->template ToVector<T>();
    for (size_t i = 0; i < order.size(); ++i) {
      const T want = values[order[i]];
      if constexpr (std::is_floating_point<T>::value) {
        if (std::isnan(want)) {
          ASSERT_TRUE(std::isnan(got[i])) << i;
          continue;
        }
        // A stable sort keeps -0.0 and +0.0 in input order.
        if (stable) {
          ASSERT_EQ(std::signbit(got[i]), std::signbit(want)) << i;
        }
      }
      ASSERT_EQ(got[i], want) << DTypeName(kDTypeOf<T>) << " n=" << n
                              << " element " << i;
    }
  }
}

TEST(SortTest, EveryDtypeMatchesAStableScalarReference) {
  std::mt19937_64 rng(42);
  for (int64_t n : {0, 1, 2, 3, 7, 16, 31, 64, 100, 257, 1000, 5003, 70001}) {
    CheckAgainstReference<bool>(n, rng);
    CheckAgainstReference<int8_t>(n, rng);
    CheckAgainstReference<uint8_t>(n, rng);
    CheckAgainstReference<int16_t>(n, rng);
    CheckAgainstReference<uint16_t>(n, rng);
    CheckAgainstReference<int32_t>(n, rng);
    CheckAgainstReference<uint32_t>(n, rng);
    CheckAgainstReference<int64_t>(n, rng);
    CheckAgainstReference<uint64_t>(n, rng);
    CheckAgainstReference<float>(n, rng);
    CheckAgainstReference<double>(n, rng);
  }
}

TEST(SortTest, StridedAndTransposedInputsSortAlongTheRightAxis) {
  auto a = reshape(*arange(0, 12, 1, DType::kInt32), {3, 4});
  auto t = transpose(*a);  // (4, 3): [[0,4,8],[1,5,9],...]
  auto r = slice(*t, 0, Slice(std::nullopt, std::nullopt, -1));
  auto s = sort(*r, 0);
  ASSERT_TRUE(s.ok());
  EXPECT_THAT(s->ToVector<int>(),
              ElementsAre(0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11));
  auto i = argsort(*r, 0);
  ASSERT_TRUE(i.ok());
  EXPECT_THAT(i->ToVector<int64_t>(),
              ElementsAre(3, 3, 3, 2, 2, 2, 1, 1, 1, 0, 0, 0));
  EXPECT_TRUE(s->c_contiguous());
  EXPECT_EQ(i->dtype(), DType::kInt64);
}

TEST(SortTest, BadAxesAreNamed) {
  auto a = *zeros({2, 3});
  EXPECT_THAT(sort(a, 2).status().message(),
              HasSubstr("axis 2 is out of bounds for tensor of dimension 2"));
  EXPECT_THAT(argsort(a, -3).status().message(), HasSubstr("axis -3"));
  EXPECT_FALSE(sort(*zeros({}), -1).ok());
  EXPECT_FALSE(sort(Tensor()).ok());
}

}  // namespace
}  // namespace tessera
