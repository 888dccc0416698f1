// Copyright 2026 The Tessera Authors.
//
// Helpers for golden tests whose expectations NumPy wrote
// (tensor/testdata/gen_*.py): locating a data file under Bazel, splitting a
// line's key=value fields, running every case of a file, building a tensor
// from a value list and comparing a result with one. Values are spelled as
// the generators print them: bools 0/1, integers in decimal, floats as
// Python's repr() (nan, inf, -inf).

#ifndef TESSERA_TENSOR_TESTING_GOLDEN_H_
#define TESSERA_TENSOR_TESTING_GOLDEN_H_

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "gtest/gtest.h"
#include "tensor/dtype.h"
#include "tensor/tensor.h"

namespace tessera {
namespace golden {

// The path of a file of this workspace (e.g. "tensor/testdata/x.txt") in the
// test's runfiles, or the relative path outside Bazel.
inline std::string TestDataPath(const std::string& relative) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  if (srcdir == nullptr) return relative;
  return std::string(srcdir) + "/tessera/" + relative;
}

// The non-empty lines of a golden file that do not start with '#'.
inline std::vector<std::string> ReadGoldenLines(const std::string& relative) {
  std::ifstream in(TestDataPath(relative));
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line[0] != '#') lines.push_back(line);
  }
  return lines;
}

// The fields of one side of a golden case, by key.
using FieldMap = std::map<std::string, std::string>;

// "a=1 b=x" -> {a: 1, b: x}; a field without '=' maps to itself.
inline FieldMap Fields(absl::string_view text) {
  FieldMap fields;
  for (absl::string_view field : absl::StrSplit(text, ' ', absl::SkipEmpty())) {
    const size_t eq = field.find('=');
    if (eq == absl::string_view::npos) {
      fields[std::string(field)] = std::string(field);
    } else {
      fields[std::string(field.substr(0, eq))] =
          std::string(field.substr(eq + 1));
    }
  }
  return fields;
}

// A golden line "inputs => expected" as its two field maps (Fields of each
// side). False, and nothing set, when the line has no " => ".
inline bool SplitCase(absl::string_view line, FieldMap* in, FieldMap* out) {
  const size_t arrow = line.find(" => ");
  if (arrow == absl::string_view::npos) return false;
  *in = Fields(line.substr(0, arrow));
  *out = Fields(line.substr(arrow + 4));
  return true;
}

// Calls run_case(line, in, out) for every case of the golden file `relative`
// (which must hold more than `min_cases`), its line split by SplitCase.
// Stops at the first fatal failure: call it inside ASSERT_NO_FATAL_FAILURE so
// that the test stops there too, as it would with the loop in its own body.
template <typename RunCase>
void ForEachCase(const std::string& relative, size_t min_cases,
                 RunCase&& run_case) {
  const std::vector<std::string> lines = ReadGoldenLines(relative);
  ASSERT_GT(lines.size(), min_cases) << "golden file missing or truncated";
  for (const std::string& line : lines) {
    FieldMap in, out;
    ASSERT_TRUE(SplitCase(line, &in, &out)) << line;
    run_case(line, in, out);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// A case's "axis" field: "none" (the flattened tensor) is no axis.
inline std::optional<int> ParseAxis(const std::string& text) {
  std::optional<int> axis;
  if (text != "none") axis = std::stoi(text);
  return axis;
}

// For a case NumPy raised on: empty when `status` failed with
// InvalidArgument, as the ops report bad input; otherwise what differs.
inline std::string NumPyErrorMismatch(const absl::Status& status) {
  if (status.ok()) return "NumPy raises, the call succeeded";
  if (status.code() != absl::StatusCode::kInvalidArgument) {
    return absl::StrFormat("NumPy raises, the call failed with %s, not "
                           "InvalidArgument",
                           status.ToString());
  }
  return "";
}

// "2,3" -> {2, 3}; "" -> {} (0-d).
inline Shape ParseShape(absl::string_view text) {
  Shape shape;
  for (absl::string_view n : absl::StrSplit(text, ',', absl::SkipEmpty())) {
    int64_t extent = 0;
    if (absl::SimpleAtoi(n, &extent)) shape.push_back(extent);
  }
  return shape;
}

// One value of type T from its generator spelling.
template <typename T>
T ParseValue(const std::string& text) {
  if constexpr (std::is_same<T, bool>::value) {
    return text == "1";
  } else if constexpr (kIsFloat16<T>) {
    // Rounded once from the double (float16 goldens spell exact values).
    return ToFloat16(std::strtod(text.c_str(), nullptr));
  } else if constexpr (std::is_floating_point<T>::value) {
    return static_cast<T>(std::strtod(text.c_str(), nullptr));
  } else if constexpr (std::is_signed<T>::value) {
    return static_cast<T>(std::strtoll(text.c_str(), nullptr, 10));
  } else {
    return static_cast<T>(std::strtoull(text.c_str(), nullptr, 10));
  }
}

// "1,2,3" -> values of T ("-" is the empty list).
template <typename T>
std::vector<T> ParseValues(const std::string& text) {
  std::vector<T> values;
  if (text == "-") return values;
  for (absl::string_view v : absl::StrSplit(text, ',', absl::SkipEmpty())) {
    values.push_back(ParseValue<T>(std::string(v)));
  }
  return values;
}

// A tensor of `dtype` name, `shape` and C-order `values` (generator spelling).
inline absl::StatusOr<Tensor> ParseTensor(const std::string& dtype,
                                          const std::string& shape,
                                          const std::string& values) {
  auto d = DTypeFromName(dtype);
  if (!d.ok()) return d.status();
  return VisitDType(*d, [&](auto zero) {
    using T = decltype(zero);
    return FromVector<T>(ParseValues<T>(values), ParseShape(shape));
  });
}

// Empty when `actual` has the dtype, shape and values of the golden fields
// (floats within `rel_tol` of the larger of |expected| and 1, NaN matching
// NaN, infinities exact); otherwise what differs.
inline std::string CompareWithGolden(const Tensor& actual,
                                     const std::string& dtype,
                                     const std::string& shape,
                                     const std::string& values,
                                     double rel_tol) {
  if (std::string(DTypeName(actual.dtype())) != dtype) {
    return absl::StrFormat("dtype %s, NumPy %s", DTypeName(actual.dtype()),
                           dtype);
  }
  if (actual.shape() != ParseShape(shape)) {
    return absl::StrFormat("shape %s, NumPy (%s)",
                           ShapeString(actual.shape()), shape);
  }
  if (actual.dtype() == DType::kFloat16) {
    // Compared as their exact float32 values.
    auto wide = astype(actual, DType::kFloat32);
    if (!wide.ok()) return wide.status().ToString();
    std::vector<std::string> parts;
    for (Float16 v : ParseValues<Float16>(values)) {
      parts.push_back(absl::StrFormat("%.17g", ToFloat(v)));
    }
    return CompareWithGolden(*wide, "float32", shape,
                             parts.empty() ? "-" : absl::StrJoin(parts, ","),
                             rel_tol);
  }
  return VisitDType(actual.dtype(), [&](auto zero) -> std::string {
    using T = std::conditional_t<kIsFloat16<decltype(zero)>, float,
                                 decltype(zero)>;  // (float16: above)
    const std::vector<T> expected = ParseValues<T>(values);
    const std::vector<T> got = actual.ToVector<T>();
    if (got.size() != expected.size()) return "element count differs";
    for (size_t i = 0; i < got.size(); ++i) {
      bool same = got[i] == expected[i];
      if constexpr (std::is_floating_point<T>::value) {
        if (std::isnan(expected[i])) {
          same = std::isnan(got[i]);
        } else if (!std::isinf(expected[i]) && !same) {
          const double scale =
              std::fmax(std::fabs(static_cast<double>(expected[i])), 1.0);
          same = std::fabs(static_cast<double>(got[i]) -
                           static_cast<double>(expected[i])) <=
                 rel_tol * scale;
        }
      }
      if (!same) {
        return absl::StrFormat("element %d is %.17g, NumPy %.17g", i,
                               static_cast<double>(got[i]),
                               static_cast<double>(expected[i]));
      }
    }
    return std::string();
  });
}

// For a case NumPy answered: `r` must have succeeded (a fatal failure naming
// `line` otherwise) and hold out's dtype, shape and values (CompareWithGolden
// within `rel_tol`); a mismatch is reported with `shown`, the part of the
// line worth printing.
inline void ExpectNumPyResult(const absl::StatusOr<Tensor>& r, FieldMap& out,
                              double rel_tol, const std::string& line,
                              const std::string& shown) {
  ASSERT_TRUE(r.ok()) << r.status() << "\n" << line;
  EXPECT_EQ(CompareWithGolden(*r, out["dtype"], out["shape"], out["values"],
                              rel_tol),
            "")
      << shown;
}

}  // namespace golden
}  // namespace tessera

#endif  // TESSERA_TENSOR_TESTING_GOLDEN_H_
