// Copyright 2026 The Tessera Authors.
//
// Every case of tensor/testdata/scan_golden.txt (written by NumPy, see
// gen_scan_golden.py): cumsum, cumprod and diff of every dtype on every axis
// and axis=None, NumPy's accumulator dtypes and overrides, wrap-around,
// NaN/inf, empty and 0-d inputs and NumPy's errors. Floats must be
// bit-identical (sequential accumulation, as NumPy).

#include <optional>
#include <map>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tensor/scan.h"
#include "tensor/testing/golden.h"
#include "tensor/view.h"

namespace tessera {
namespace {

TEST(ScanGoldenTest, EveryCaseMatchesNumPy) {
  int errors = 0;
  ASSERT_NO_FATAL_FAILURE(golden::ForEachCase(
      "tensor/testdata/scan_golden.txt", 150,
      [&](const std::string& line, golden::FieldMap& in,
          golden::FieldMap& out) {
        auto t = golden::ParseTensor(in["dtype"], in["shape"], in["values"]);
        ASSERT_TRUE(t.ok()) << t.status() << "\n" << line;
        const std::optional<int> axis = golden::ParseAxis(in["axis"]);
        std::optional<DType> acc;
        if (in["acc"] != "default") acc = *DTypeFromName(in["acc"]);
        absl::StatusOr<Tensor> r;
        if (in["op"] == "cumsum") {
          r = cumsum(*t, axis, acc);
        } else if (in["op"] == "cumprod") {
          r = cumprod(*t, axis, acc);
        } else {
          r = diff(*t, std::stoll(in["n"]), axis.value_or(-1));
        }
        if (out.count("error")) {
          ++errors;
          EXPECT_EQ(golden::NumPyErrorMismatch(r.status()), "") << line;
          return;
        }
        golden::ExpectNumPyResult(r, out, 0.0, line, line.substr(0, 300));
      }));
  EXPECT_GT(errors, 10);
}

TEST(ScanTest, StridedInputsScanAlongTheRightAxis) {
  auto a = reshape(*arange(0, 6, 1, DType::kInt32), {2, 3});
  auto t = transpose(*a);  // [[0,3],[1,4],[2,5]]
  auto c = cumsum(*t, 0);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->dtype(), DType::kInt64);
  EXPECT_EQ(c->ToVector<int64_t>(), (std::vector<int64_t>{0, 3, 1, 7, 3, 12}));
  auto d = diff(*t, 1, 0);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->ToVector<int32_t>(), (std::vector<int32_t>{1, 1, 1, 1}));
}

TEST(ScanTest, BadInputIsNamed) {
  auto a = *zeros({2, 3});
  EXPECT_EQ(cumsum(a, 2).status().message(),
            "axis 2 is out of bounds for tensor of dimension 2");
  EXPECT_EQ(diff(a, -1).status().message(),
            "order must be non-negative but got -1");
  EXPECT_FALSE(diff(*zeros({}), 1, 0).ok());
  EXPECT_FALSE(cumprod(Tensor()).ok());
}

}  // namespace
}  // namespace tessera
