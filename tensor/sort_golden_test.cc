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
  int errors = 0;
  ASSERT_NO_FATAL_FAILURE(golden::ForEachCase(
      "tensor/testdata/sort_golden.txt", 300,
      [&](const std::string& line, golden::FieldMap& in,
          golden::FieldMap& out) {
        auto t = golden::ParseTensor(in["dtype"], in["shape"], in["values"]);
        ASSERT_TRUE(t.ok()) << t.status() << "\n" << line;
        const std::optional<int> axis = golden::ParseAxis(in["axis"]);
        const bool stable = in["stable"] == "1";
        if (in["op"] == "unique") {
          auto u = unique(*t);
          ASSERT_TRUE(u.ok()) << u.status() << "\n" << line;
          EXPECT_EQ(golden::CompareWithGolden(u->values, out["dtype"],
                                              out["shape"], out["values"],
                                              0.0),
                    "")
              << line;
          EXPECT_EQ(golden::CompareWithGolden(u->counts, out["dtype2"],
                                              out["shape2"], out["values2"],
                                              0.0),
                    "")
              << line;
          return;
        }
        absl::StatusOr<Tensor> r;
        if (in["op"] == "searchsorted") {
          auto v =
              golden::ParseTensor(in["dtype2"], in["shape2"], in["values2"]);
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
          return;
        }
        golden::ExpectNumPyResult(r, out, 0.0, line, line.substr(0, 200));
      }));
  EXPECT_GT(errors, 20);
}

}  // namespace
}  // namespace tessera
