// Copyright 2026 The Tessera Authors.
//
// Every case of tensor/testdata/sort_golden.txt (written by NumPy, see
// gen_sort_golden.py): sort and argsort of every dtype along every axis and
// axis=None, with ties, the dtype's extremes, NaN, infinities and signed
// zeros, lanes long enough for vqsort's vector paths, empty tensors and
// NumPy's errors.

#include <optional>
#include <string>

#include "gtest/gtest.h"
#include "tensor/sort.h"
#include "tensor/testing/golden.h"

namespace tessera {
namespace {

TEST(SortGoldenTest, EveryCaseMatchesNumPy) {
  const auto lines = golden::ReadGoldenLines("tensor/testdata/sort_golden.txt");
  ASSERT_GT(lines.size(), 300u) << "golden file missing or truncated";
  int errors = 0;
  for (const std::string& line : lines) {
    const size_t arrow = line.find(" => ");
    ASSERT_NE(arrow, std::string::npos) << line;
    auto in = golden::Fields(line.substr(0, arrow));
    auto out = golden::Fields(line.substr(arrow + 4));
    auto t = golden::ParseTensor(in["dtype"], in["shape"], in["values"]);
    ASSERT_TRUE(t.ok()) << t.status() << "\n" << line;
    std::optional<int> axis;
    if (in["axis"] != "none") axis = std::stoi(in["axis"]);
    const bool stable = in["stable"] == "1";
    auto r = in["op"] == "sort" ? sort(*t, axis, stable)
                                : argsort(*t, axis, stable);
    if (out.count("error")) {
      ++errors;
      EXPECT_FALSE(r.ok()) << "NumPy raises for: " << line;
      continue;
    }
    ASSERT_TRUE(r.ok()) << r.status() << "\n" << line;
    EXPECT_EQ(golden::CompareWithGolden(*r, out["dtype"], out["shape"],
                                        out["values"], 0.0),
              "")
        << line.substr(0, 200);
  }
  EXPECT_GT(errors, 20);
}

}  // namespace
}  // namespace tessera
