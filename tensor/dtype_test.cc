// Copyright 2026 The Tessera Authors.

#include "tensor/dtype.h"

#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <utility>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;

std::string GoldenPath() {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const std::string relative = "tensor/testdata/promotion_table.txt";
  if (srcdir == nullptr) return relative;
  return std::string(srcdir) + "/tessera/" + relative;
}

TEST(DTypeTest, SizesAndNamesMatchNumPy) {
  const std::pair<DType, size_t> sizes[] = {
      {DType::kBool, 1},    {DType::kInt8, 1},    {DType::kInt16, 2},
      {DType::kInt32, 4},   {DType::kInt64, 8},   {DType::kUInt8, 1},
      {DType::kUInt16, 2},  {DType::kUInt32, 4},  {DType::kUInt64, 8},
      {DType::kFloat32, 4}, {DType::kFloat64, 8},
  };
  for (const auto& [dtype, size] : sizes) {
    EXPECT_EQ(DTypeSize(dtype), size) << DTypeName(dtype);
  }
  EXPECT_EQ(DTypeName(DType::kBool), "bool");
  EXPECT_EQ(DTypeName(DType::kUInt16), "uint16");
  EXPECT_EQ(DTypeName(DType::kFloat32), "float32");
}

TEST(DTypeTest, NamesRoundTripAndUnknownNameIsNamed) {
  for (DType d : kAllDTypes) {
    auto parsed = DTypeFromName(DTypeName(d));
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    EXPECT_EQ(*parsed, d);
  }
  auto bad = DTypeFromName("complex64");
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("complex64"));
}

TEST(DTypeTest, CTypeMappingAgreesWithSizes) {
  for (DType d : kAllDTypes) {
    const size_t size = VisitDType(d, [](auto v) { return sizeof(v); });
    EXPECT_EQ(size, DTypeSize(d)) << DTypeName(d);
    const DType back = VisitDType(d, [](auto v) { return kDTypeOf<decltype(v)>; });
    EXPECT_EQ(back, d);
  }
}

// Every one of the 144 pairs, against the table NumPy printed.
TEST(DTypeTest, ResultTypeMatchesNumPyForEveryPair) {
  std::ifstream in(GoldenPath());
  ASSERT_TRUE(in.good()) << "cannot open " << GoldenPath();
  std::set<std::pair<int, int>> seen;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string a, b, result;
    fields >> a >> b >> result;
    auto da = DTypeFromName(a), db = DTypeFromName(b), dr = DTypeFromName(result);
    ASSERT_TRUE(da.ok() && db.ok() && dr.ok()) << line;
    EXPECT_EQ(DTypeName(ResultType(*da, *db)), result) << a << " + " << b;
    seen.insert({static_cast<int>(*da), static_cast<int>(*db)});
  }
  EXPECT_EQ(seen.size(), kNumDTypes * kNumDTypes);
}

TEST(DTypeTest, ResultTypeIsSymmetric) {
  for (DType a : kAllDTypes) {
    for (DType b : kAllDTypes) {
      EXPECT_EQ(ResultType(a, b), ResultType(b, a))
          << DTypeName(a) << ", " << DTypeName(b);
    }
  }
}

TEST(DTypeTest, SafeCastsFollowPromotion) {
  EXPECT_TRUE(CanCastSafely(DType::kInt32, DType::kFloat64));
  EXPECT_FALSE(CanCastSafely(DType::kInt32, DType::kFloat32));
  EXPECT_TRUE(CanCastSafely(DType::kUInt8, DType::kInt16));
  EXPECT_FALSE(CanCastSafely(DType::kInt8, DType::kUInt64));
  EXPECT_TRUE(CanCastSafely(DType::kBool, DType::kInt8));
  EXPECT_FALSE(CanCastSafely(DType::kFloat64, DType::kInt64));
}

}  // namespace
}  // namespace tessera
