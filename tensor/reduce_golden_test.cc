// Copyright 2026 The Tessera Authors.
//
// Every reduction of tensor/testdata/reduce_golden.txt (written by NumPy,
// see gen_reduce_golden.py): each dtype, axis=None/one/several, keepdims,
// ddof, empty inputs, NaN and inf. The result's dtype, shape and values must
// be NumPy's, and NumPy's errors must be errors here.

#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "tensor/reduce.h"
#include "tensor/testing/golden.h"

namespace tessera {
namespace {

absl::StatusOr<Tensor> RunReduction(const std::string& op, const Tensor& t,
                                    const std::string& axis_text, bool keepdims,
                                    int64_t ddof) {
  Axes axes;
  std::optional<int> one_axis;
  if (axis_text != "none") {
    std::vector<int> list;
    for (absl::string_view a : absl::StrSplit(axis_text, ',')) {
      list.push_back(std::stoi(std::string(a)));
    }
    axes = Axes(list);
    one_axis = list[0];
  }
  if (op == "sum") return sum(t, axes, keepdims);
  if (op == "prod") return prod(t, axes, keepdims);
  if (op == "min") return min(t, axes, keepdims);
  if (op == "max") return max(t, axes, keepdims);
  if (op == "mean") return mean(t, axes, keepdims);
  if (op == "var") return var(t, axes, ddof, keepdims);
  if (op == "std") return stddev(t, axes, ddof, keepdims);
  if (op == "all") return all(t, axes, keepdims);
  if (op == "any") return any(t, axes, keepdims);
  if (op == "argmin") return argmin(t, one_axis, keepdims);
  if (op == "argmax") return argmax(t, one_axis, keepdims);
  return absl::InvalidArgumentError("unknown op " + op);
}

TEST(ReduceGoldenTest, EveryCaseMatchesNumPy) {
  int errors_expected = 0;
  ASSERT_NO_FATAL_FAILURE(golden::ForEachCase(
      "tensor/testdata/reduce_golden.txt", 3000,
      [&](const std::string& line, golden::FieldMap& in,
          golden::FieldMap& out) {
        auto t = golden::ParseTensor(in["dtype"], in["shape"], in["values"]);
        ASSERT_TRUE(t.ok()) << t.status() << "\n" << line;
        auto r = RunReduction(in["op"], *t, in["axis"],
                              in["keepdims"] == "1", std::stoll(in["ddof"]));
        if (out.count("error")) {
          ++errors_expected;
          EXPECT_FALSE(r.ok()) << "NumPy raises for: " << line;
          return;
        }
        // float32 sums may add in another order than NumPy's.
        const double tolerance = out["dtype"] == "float32" ? 1e-5 : 1e-12;
        golden::ExpectNumPyResult(r, out, tolerance, line, line);
      }));
  EXPECT_GT(errors_expected, 0);
}

}  // namespace
}  // namespace tessera
