// Copyright 2026 The Tessera Authors.
//
// Every case of tensor/testdata/partition_golden.txt (inputs NumPy
// partitions, see gen_partition_golden.py): partition and argpartition of
// every dtype, one and several kths, negative kths, axis=None, NaN, +-inf and
// -0.0, and NumPy's errors. NumPy leaves the order inside each stretch
// between kths unspecified, so the test sorts each stretch of the result and
// compares with np.sort: that holds exactly when each kth holds its sorted
// element with <= before and >= after it.

#include <algorithm>
#include <optional>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "tensor/indexing.h"
#include "tensor/partition.h"
#include "tensor/sort.h"
#include "tensor/testing/golden.h"
#include "tensor/view.h"

namespace tessera {
namespace {

// values[..., idx] along the last axis of a 1-d or 2-d tensor.
absl::StatusOr<Tensor> GatherLastAxis(const Tensor& values,
                                      const Tensor& idx) {
  if (values.ndim() == 1) return take(values, idx);
  auto out = empty(values.shape(), values.dtype());
  if (!out.ok()) return out;
  for (int64_t r = 0; r < values.shape(0); ++r) {
    auto row = take(*index(values, {Index(r)}), *index(idx, {Index(r)}));
    if (!row.ok()) return row;
    absl::Status s = CopyInto(*row, *index(*out, {Index(r)}));
    if (!s.ok()) return s;
  }
  return out;
}

// `p` with each stretch along `axis` between consecutive kths sorted.
Tensor SortStretches(const Tensor& p, int axis, std::vector<int64_t> kth) {
  const int64_t extent = p.shape(axis);
  for (int64_t& k : kth) k = k < 0 ? k + extent : k;
  std::sort(kth.begin(), kth.end());
  std::vector<int64_t> cuts = {0};
  for (int64_t k : kth) {
    cuts.push_back(k);
    cuts.push_back(k + 1);
  }
  cuts.push_back(extent);
  Tensor out = *copy(p);
  for (size_t i = 0; i + 1 < cuts.size(); ++i) {
    if (cuts[i + 1] <= cuts[i]) continue;
    Tensor part = *slice(out, axis, Slice(cuts[i], cuts[i + 1], 1));
    Tensor sorted = *sort(part, axis);
    EXPECT_TRUE(CopyInto(sorted, part).ok());
  }
  return out;
}

TEST(PartitionGoldenTest, EveryStretchHoldsTheSortedElements) {
  int errors = 0;
  ASSERT_NO_FATAL_FAILURE(golden::ForEachCase(
      "tensor/testdata/partition_golden.txt", 140,
      [&](const std::string& line, golden::FieldMap& in,
          golden::FieldMap& out) {
        auto t = golden::ParseTensor(in["dtype"], in["shape"], in["values"]);
        ASSERT_TRUE(t.ok()) << t.status() << "\n" << line;
        const std::optional<int> axis = golden::ParseAxis(in["axis"]);
        std::vector<int64_t> kth;
        for (absl::string_view k : absl::StrSplit(in["kth"], ',')) {
          int64_t v;
          ASSERT_TRUE(absl::SimpleAtoi(k, &v)) << line;
          kth.push_back(v);
        }
        const bool arg = in["op"] == "argpartition";
        absl::StatusOr<Tensor> r =
            arg ? argpartition(*t, kth, axis) : partition(*t, kth, axis);
        if (out.count("error")) {
          ++errors;
          EXPECT_EQ(golden::NumPyErrorMismatch(r.status()), "") << line;
          return;
        }
        ASSERT_TRUE(r.ok()) << r.status() << "\n" << line;
        Tensor source = axis.has_value() ? *t : *ravel(*t);
        const int a =
            axis.has_value() ? (*axis < 0 ? *axis + t->ndim() : *axis) : 0;
        Tensor values = *r;
        if (arg) {
          ASSERT_EQ(r->dtype(), DType::kInt64) << line;
          ASSERT_EQ(a, source.ndim() - 1)
              << "argpartition cases use the last axis";
          auto gathered = GatherLastAxis(source, *r);
          ASSERT_TRUE(gathered.ok()) << gathered.status() << "\n" << line;
          values = *gathered;
        }
        if (values.size() == 0) {
          EXPECT_EQ(golden::CompareWithGolden(values, out["dtype"],
                                              out["shape"], out["values"],
                                              0.0),
                    "");
          return;
        }
        EXPECT_EQ(golden::CompareWithGolden(SortStretches(values, a, kth),
                                            out["dtype"], out["shape"],
                                            out["values"], 0.0),
                  "")
            << line.substr(0, 300);
      }));
  EXPECT_GT(errors, 30);
}

TEST(PartitionTest, StridedInputOnAFirstAxisKeepsItsShape) {
  auto a = transpose(*reshape(*FromVector(std::vector<int32_t>{
                                  5, 1, 4, 2, 3, 0}),
                              {2, 3}));  // [[5,2],[1,3],[4,0]]
  auto p = partition(*a, {1}, 0);
  ASSERT_TRUE(p.ok()) << p.status();
  ASSERT_EQ(p->shape(), a->shape());
  EXPECT_EQ(*p->item<int32_t>({1, 0}), 4);  // median of 5, 1, 4
  EXPECT_EQ(*p->item<int32_t>({1, 1}), 2);  // median of 2, 3, 0
}

TEST(PartitionTest, BadInputIsNamed) {
  const Tensor a = *arange(0, 5, 1, DType::kFloat32);
  EXPECT_EQ(partition(a, {5}).status().message(), "kth(=5) out of bounds (5)");
  EXPECT_EQ(argpartition(a, {-6}).status().message(),
            "kth(=-1) out of bounds (5)");
  EXPECT_EQ(partition(a, {}).status().message(),
            "partition needs at least one kth");
  EXPECT_EQ(partition(a, {0}, 1).status().message(),
            "axis 1 is out of bounds for tensor of dimension 1");
  EXPECT_FALSE(partition(Tensor(), {0}).ok());
}

}  // namespace
}  // namespace tessera
