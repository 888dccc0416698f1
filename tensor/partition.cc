// Copyright 2026 The Tessera Authors.
//
// partition and argpartition (partition.h).

#include "tensor/partition.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_format.h"
#include "tensor/dtype.h"
#include "tensor/internal/along_axis.h"
#include "tensor/view.h"

namespace tessera {
namespace {

// NumPy's order: a before b, NaN last.
template <typename T>
bool Less(T a, T b) {
  if constexpr (std::is_same<T, Float16>::value) {
    return Less(ToFloat(a), ToFloat(b));  // exact: every half is a float
  } else if constexpr (std::is_floating_point<T>::value) {
    return a < b || (!std::isnan(a) && std::isnan(b));
  } else {
    return a < b;
  }
}

// The kths made non-negative, checked against `extent`, sorted and unique.
absl::StatusOr<std::vector<int64_t>> ResolveKth(absl::Span<const int64_t> kth,
                                                int64_t extent) {
  if (kth.empty()) {
    return absl::InvalidArgumentError("partition needs at least one kth");
  }
  std::vector<int64_t> out;
  for (int64_t k : kth) {
    const int64_t v = k < 0 ? k + extent : k;
    if (v < 0 || v >= extent) {
      return absl::InvalidArgumentError(
          absl::StrFormat("kth(=%d) out of bounds (%d)", v, extent));
    }
    out.push_back(v);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// Runs nth_element on each stretch [previous kth + 1, end) for each kth in
// ascending order: afterwards every kth holds its sorted element and every
// stretch between kths holds its sorted elements.
template <typename It, typename Cmp>
void PartitionLane(It begin, int64_t n, const std::vector<int64_t>& kth,
                   Cmp less) {
  int64_t lo = 0;
  for (int64_t k : kth) {
    std::nth_element(begin + lo, begin + k, begin + n, less);
    lo = k + 1;
  }
}

template <bool kArg>
absl::StatusOr<Tensor> Partition(const Tensor& t,
                                 absl::Span<const int64_t> kth,
                                 std::optional<int> axis,
                                 Allocator* allocator) {
  if (!t.valid()) {
    return absl::InvalidArgumentError("partition of an empty handle");
  }
  auto operand = internal::FlattenOrNormalizeAxis(t, axis);
  if (!operand.ok()) return operand.status();
  const Tensor& src = operand->tensor;
  const int a = operand->axis;
  const int64_t extent = src.shape(a);
  std::vector<int64_t> ks;
  if (src.size() > 0) {
    auto resolved = ResolveKth(kth, extent);
    if (!resolved.ok()) return resolved.status();
    ks = *std::move(resolved);
  }
  auto moved = internal::MoveAxisLast(src, a);
  if (!moved.ok()) return moved.status();
  auto values = copy(moved->view, kArg ? nullptr : allocator);
  if (!values.ok()) return values.status();
  Tensor work = *values;
  if constexpr (kArg) {
    auto idx = empty(values->shape(), DType::kInt64, allocator);
    if (!idx.ok()) return idx.status();
    work = *std::move(idx);
  }
  VisitDType(t.dtype(), [&](auto zero) {
    using T = decltype(zero);
    internal::ForEachLane(*values, [&](char* bytes, int64_t n, int64_t r) {
      T* lane = reinterpret_cast<T*>(bytes);
      if constexpr (kArg) {
        int64_t* pos = static_cast<int64_t*>(work.mutable_data()) + r * n;
        for (int64_t i = 0; i < n; ++i) pos[i] = i;
        PartitionLane(pos, n, ks, [lane](int64_t x, int64_t y) {
          return Less(lane[x], lane[y]);
        });
      } else {
        PartitionLane(lane, n, ks, Less<T>);
      }
    });
  });
  return internal::MoveLastAxisBack(work, a, moved->inverse, allocator);
}

}  // namespace

absl::StatusOr<Tensor> partition(const Tensor& t,
                                 absl::Span<const int64_t> kth,
                                 std::optional<int> axis,
                                 Allocator* allocator) {
  return Partition<false>(t, kth, axis, allocator);
}

absl::StatusOr<Tensor> argpartition(const Tensor& t,
                                    absl::Span<const int64_t> kth,
                                    std::optional<int> axis,
                                    Allocator* allocator) {
  return Partition<true>(t, kth, axis, allocator);
}

}  // namespace tessera
