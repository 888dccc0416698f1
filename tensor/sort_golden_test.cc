// Copyright 2026 The Tessera Authors.
//
// Every case of tensor/testdata/sort_golden.txt (written by NumPy, see
// gen_sort_golden.py): sort and argsort of every dtype along every axis and
// axis=None, with ties, the dtype's extremes, NaN, infinities and signed
// zeros, lanes long enough for vqsort's vector paths, empty tensors and
// NumPy's errors.

#include <optional>
#include <map>
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
    std::map<std::string, std::string> in, out;
    ASSERT_TRUE(golden::SplitCase(line, &in, &out)) << line;
    auto t = golden::ParseTensor(in["dtype"], in["shape"], in["values"]);
    ASSERT_TRUE(t.ok()) << t.status() << "\n" << line;
    std::optional<int> axis;
    if (in["axis"] != "none") axis = std::stoi(in["axis"]);
    const bool stable = in["stable"] == "1";
    if (in["op"] == "unique") {
      auto u = unique(*t);
      ASSERT_TRUE(u.ok()) << u.status() << "\n" << line;
      EXPECT_EQ(golden::CompareWithGolden(u->values, out["dtype"], out["shape"],
                                          out["values"], 0.0),
                "")
          << line;
      EXPECT_EQ(golden::CompareWithGolden(u->counts, out["dtype2"],
                                          out["shape2"], out["values2"], 0.0),
                "")
          << line;
      continue;
    }
    absl::StatusOr<Tensor> r;
    if (in["op"] == "searchsorted") {
      auto v = golden::ParseTensor(in["dtype2"], in["shape2"], in["values2"]);
      ASSERT_TRUE(v.ok()) << v.status() << "\n" << line;
      r = searchsorted(*t, *v, in["side"] == "left" ? Side::kLeft
                                                    : Side::kRight);
    } else {
      r = in["op"] == "sort" ? sort(*t, axis, stable)
                             : argsort(*t, axis, stable);
    }
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
