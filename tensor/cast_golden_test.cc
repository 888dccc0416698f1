// Copyright 2026 The Tessera Authors.
//
// `astype` against tensor/testdata/cast_golden.txt (written by NumPy, see
// gen_cast_golden.py): every dtype pair over values at and beyond each
// integer range (wrapping), fractional floats (truncation toward zero),
// float64 -> float32 rounding, overflow to inf and underflow to 0.

#include <cmath>
#include <string>

#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "tensor/tensor.h"
#include "tensor/testing/golden.h"

namespace tessera {
namespace {

// The comparison itself must see a wrong dtype, shape or value.
TEST(CastGoldenTest, ComparisonRejectsDifferences) {
  auto t = FromVector<int8_t>({-2, 5});
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(golden::CompareWithGolden(*t, "int8", "2", "-2,5", 0.0), "");
  EXPECT_NE(golden::CompareWithGolden(*t, "int8", "2", "-3,5", 0.0), "");
  EXPECT_NE(golden::CompareWithGolden(*t, "int16", "2", "-2,5", 0.0), "");
  EXPECT_NE(golden::CompareWithGolden(*t, "int8", "1,2", "-2,5", 0.0), "");
  auto f = FromVector<float>({1.0f, std::nanf("")});
  EXPECT_EQ(golden::CompareWithGolden(*f, "float32", "2", "1.0,nan", 0.0), "");
  EXPECT_NE(golden::CompareWithGolden(*f, "float32", "2", "1.0,1.0", 0.0), "");
  EXPECT_NE(golden::CompareWithGolden(*f, "float32", "2", "1.1,nan", 1e-3),
            "");
}

TEST(CastGoldenTest, AstypeMatchesNumPyForEveryPair) {
  const auto lines = golden::ReadGoldenLines("tensor/testdata/cast_golden.txt");
  ASSERT_GT(lines.size(), 1500u) << "golden file missing or truncated";
  for (const std::string& line : lines) {
    const std::vector<std::string> f = absl::StrSplit(line, ' ');
    ASSERT_EQ(f.size(), 4u) << line;
    auto source = golden::ParseTensor(f[0], "1", f[2]);
    ASSERT_TRUE(source.ok()) << source.status() << "\n" << line;
    auto to = DTypeFromName(f[1]);
    ASSERT_TRUE(to.ok()) << line;
    auto r = astype(*source, *to);
    ASSERT_TRUE(r.ok()) << r.status() << "\n" << line;
    // Casts are exact: no tolerance.
    EXPECT_EQ(golden::CompareWithGolden(*r, f[1], "1", f[3], 0.0), "")
        << line;
  }
}

}  // namespace
}  // namespace tessera
