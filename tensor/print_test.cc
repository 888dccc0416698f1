// Copyright 2026 The Tessera Authors.

#include "tensor/print.h"

#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tensor/testing/golden.h"
#include "tensor/view.h"

namespace tessera {
namespace {

// Every array of tensor/testdata/print_golden.txt (NumPy's own repr and str,
// see gen_print_golden.py): float widths, scientific switch, nan/inf, bools,
// integers, 0-d, empty, line wrapping, dtype on its own line, summarisation.
TEST(PrintGoldenTest, ReprAndStrMatchNumPy) {
  const auto lines =
      golden::ReadGoldenLines("tensor/testdata/print_golden.txt");
  ASSERT_GT(lines.size(), 200u) << "golden file missing or truncated";
  ASSERT_EQ(lines.size() % 3, 0u);
  for (size_t i = 0; i < lines.size(); i += 3) {
    ASSERT_EQ(lines[i].rfind("case ", 0), 0u) << lines[i];
    ASSERT_EQ(lines[i + 1].rfind("repr ", 0), 0u) << lines[i + 1];
    ASSERT_EQ(lines[i + 2].rfind("str ", 0), 0u) << lines[i + 2];
    auto f = golden::Fields(lines[i].substr(5));
    auto t = golden::ParseTensor(f["dtype"], f["shape"], f["values"]);
    ASSERT_TRUE(t.ok()) << t.status() << "\n" << lines[i];
    const std::string want_repr =
        absl::StrReplaceAll(lines[i + 1].substr(5), {{"\\n", "\n"}});
    const std::string want_str =
        absl::StrReplaceAll(lines[i + 2].substr(4), {{"\\n", "\n"}});
    EXPECT_EQ(repr(*t), want_repr) << lines[i].substr(0, 200);
    EXPECT_EQ(str(*t), want_str) << lines[i].substr(0, 200);
  }
}

TEST(PrintTest, ViewsPrintTheirOwnElements) {
  auto a = reshape(*arange(6.0), {2, 3});
  ASSERT_TRUE(a.ok());
  auto t = transpose(*a);
  EXPECT_EQ(repr(*t), "array([[0., 3.],\n       [1., 4.],\n       [2., 5.]])");
  auto reversed = index(*a, {1, Slice{std::nullopt, std::nullopt, -1}});
  EXPECT_EQ(str(*reversed), "[5. 4. 3.]");
  std::ostringstream os;
  os << *reversed;
  EXPECT_EQ(os.str(), "[5. 4. 3.]");
}

TEST(PrintTest, OptionsChangeThresholdAndPrecision) {
  auto a = arange(10);
  PrintOptions options;
  options.threshold = 5;
  options.edgeitems = 2;
  EXPECT_EQ(str(*a, options), "[0 1 ... 8 9]");
  options = PrintOptions();
  options.precision = 3;
  EXPECT_EQ(str(*FromVector<double>({1.0 / 3, 2.5})), "[0.33333333 2.5       ]");
  EXPECT_EQ(str(*FromVector<double>({1.0 / 3, 2.5}), options), "[0.333 2.5  ]");
}

}  // namespace
}  // namespace tessera
