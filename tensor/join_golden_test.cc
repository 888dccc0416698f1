// Copyright 2026 The Tessera Authors.
//
// Every case of tensor/testdata/join_golden.txt (written by NumPy, see
// gen_join_golden.py): concatenate, stack, hstack, vstack, split,
// array_split, tile, repeat and pad over dtypes, axes, promotion, empty
// pieces and NumPy's errors. Results must have NumPy's dtype, shape and
// values, and NumPy's errors must be errors here.

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "tensor/join.h"
#include "tensor/testing/golden.h"

namespace tessera {
namespace {

std::vector<int64_t> Ints(const std::string& text) {
  std::vector<int64_t> out;
  if (text == "-") return out;
  for (absl::string_view v : absl::StrSplit(text, ',', absl::SkipEmpty())) {
    int64_t x = 0;
    EXPECT_TRUE(absl::SimpleAtoi(absl::StripSuffix(v, ":"), &x)) << text;
    out.push_back(x);
  }
  return out;
}

absl::StatusOr<std::vector<Tensor>> RunJoinOp(std::map<std::string, std::string>& in,
                                        const std::vector<Tensor>& inputs) {
  const std::string op = in["op"];
  const std::optional<int> axis = golden::ParseAxis(in["axis"]);
  const std::string param = in["param"];
  auto one = [](absl::StatusOr<Tensor> t) -> absl::StatusOr<std::vector<Tensor>> {
    if (!t.ok()) return t.status();
    return std::vector<Tensor>{*std::move(t)};
  };
  if (op == "concatenate") return one(concatenate(inputs, axis));
  if (op == "stack") return one(stack(inputs, *axis));
  if (op == "hstack") return one(hstack(inputs));
  if (op == "vstack") return one(vstack(inputs));
  if (op == "split" || op == "array_split") {
    const std::vector<int64_t> p = Ints(param);
    const bool indices = param.find(',') != std::string::npos ||
                         param.back() == ':';
    if (op == "array_split") return array_split(inputs[0], p[0], *axis);
    if (indices) return split(inputs[0], p, *axis);
    return split(inputs[0], p[0], *axis);
  }
  if (op == "tile") return one(tile(inputs[0], Ints(param)));
  if (op == "repeat") return one(repeat(inputs[0], Ints(param), axis));
  if (op == "pad") {
    std::vector<std::pair<int64_t, int64_t>> pairs;
    for (absl::string_view p : absl::StrSplit(param, ',')) {
      std::vector<std::string> ab = absl::StrSplit(p, ':');
      pairs.push_back({std::stoll(ab[0]), std::stoll(ab[1])});
    }
    const std::string v = in["value"];
    const Scalar value = v == "nan" ? Scalar(std::nan(""))
                         : v.find('.') != std::string::npos
                             ? Scalar(std::stod(v))
                             : Scalar(static_cast<int64_t>(std::stoll(v)));
    return one(pad(inputs[0], pairs, value));
  }
  return absl::InvalidArgumentError("unknown op " + op);
}

TEST(JoinGoldenTest, EveryCaseMatchesNumPy) {
  int errors = 0;
  ASSERT_NO_FATAL_FAILURE(golden::ForEachCase(
      "tensor/testdata/join_golden.txt", 100,
      [&](const std::string& line, golden::FieldMap& in,
          golden::FieldMap& out) {
        std::vector<Tensor> inputs;
        for (int i = 0; i < std::stoi(in["n"]); ++i) {
          const std::string k = std::to_string(i);
          auto t = golden::ParseTensor(in["dtype" + k], in["shape" + k],
                                       in["values" + k]);
          ASSERT_TRUE(t.ok()) << t.status() << "\n" << line;
          inputs.push_back(*std::move(t));
        }
        auto r = RunJoinOp(in, inputs);
        if (out.count("error")) {
          ++errors;
          EXPECT_EQ(golden::NumPyErrorMismatch(r.status()), "") << line;
          return;
        }
        ASSERT_TRUE(r.ok()) << r.status() << "\n" << line;
        ASSERT_EQ(static_cast<int>(r->size()), std::stoi(out["count"]))
            << line;
        for (size_t j = 0; j < r->size(); ++j) {
          const std::string k = std::to_string(j);
          EXPECT_EQ(golden::CompareWithGolden((*r)[j], out["dtype" + k],
                                              out["shape" + k],
                                              out["values" + k], 0.0),
                    "")
              << "output " << j << " of " << line;
        }
      }));
  EXPECT_GT(errors, 10);
}

}  // namespace
}  // namespace tessera
