// Copyright 2026 The Tessera Authors.
//
// Every case of tensor/testdata/indexing_golden.txt (written by NumPy, see
// gen_indexing_golden.py): take on every axis and axis=None with index
// arrays of every integer dtype, N-d and 0-d index arrays, negative indices
// and the three modes; put; boolean-mask selection and assignment with full
// and leading-axis masks; compress; nonzero and argwhere of every dtype
// (NaN and -0.0 included), and NumPy's errors.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tensor/indexing.h"
#include "tensor/join.h"
#include "tensor/testing/golden.h"

namespace tessera {
namespace {

IndexMode ModeOf(const std::string& name) {
  if (name == "wrap") return IndexMode::kWrap;
  if (name == "clip") return IndexMode::kClip;
  return IndexMode::kRaise;
}

absl::StatusOr<Tensor> RunCase(std::map<std::string, std::string>& in,
                           const Tensor& a, const Tensor& idx,
                           const Tensor& values) {
  const std::optional<int> axis = golden::ParseAxis(in["axis"]);
  const std::string& op = in["op"];
  const IndexMode mode = ModeOf(in["mode"]);
  if (op == "take") return take(a, idx, axis, mode);
  if (op == "select") return masked_select(a, idx);
  if (op == "compress") return compress(idx, a, axis);
  if (op == "argwhere") return argwhere(a);
  if (op == "nonzero") {
    auto parts = nonzero(a);
    if (!parts.ok()) return parts.status();
    return stack(*parts, 0);
  }
  auto r = copy(a);
  if (!r.ok()) return r;
  absl::Status s = op == "put" ? put(*r, idx, values, mode)
                               : masked_assign(*r, idx, values);
  if (!s.ok()) return s;
  return r;
}

TEST(IndexingGoldenTest, EveryCaseMatchesNumPy) {
  int errors = 0;
  ASSERT_NO_FATAL_FAILURE(golden::ForEachCase(
      "tensor/testdata/indexing_golden.txt", 250,
      [&](const std::string& line, golden::FieldMap& in,
          golden::FieldMap& out) {
        auto a = golden::ParseTensor(in["dtype"], in["shape"], in["values"]);
        auto idx =
            golden::ParseTensor(in["idtype"], in["ishape"], in["ivalues"]);
        auto values =
            golden::ParseTensor(in["vdtype"], in["vshape"], in["vvalues"]);
        ASSERT_TRUE(a.ok() && idx.ok() && values.ok()) << line;
        absl::StatusOr<Tensor> r = RunCase(in, *a, *idx, *values);
        if (out.count("error")) {
          ++errors;
          EXPECT_EQ(golden::NumPyErrorMismatch(r.status()), "") << line;
          return;
        }
        golden::ExpectNumPyResult(r, out, 0.0, line, line.substr(0, 300));
      }));
  EXPECT_GT(errors, 25);
}

}  // namespace
}  // namespace tessera
