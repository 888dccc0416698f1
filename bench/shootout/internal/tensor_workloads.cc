// Copyright 2026 The Tessera Authors.

#include "bench/shootout/internal/tensor_workloads.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "bench/shootout/catalog.h"
#include "bench/shootout/internal/process_clock.h"
#include "tensor/binary.h"
#include "tensor/reduce.h"
#include "tensor/tensor.h"

namespace tessera {
namespace shootout {
namespace internal {
namespace {

absl::Status CheckTensor(const Tensor& t, int64_t n, const std::string& op) {
  if (t.dtype() != DType::kFloat32) {
    return absl::InternalError(
        absl::StrCat("validation: ", op, " returned ", t.DebugString()));
  }
  if (op == "sum") {
    absl::StatusOr<double> total = t.item<double>();
    if (!total.ok()) return total.status();
    const double want = double(n) * double(n - 1) / 2;
    if (std::fabs(*total - want) > 1e-4 * want) {
      return absl::InternalError(absl::StrFormat(
          "validation: sum of arange(%d) gave %.10g, want %.10g", n, *total,
          want));
    }
    return absl::OkStatus();
  }
  if (t.ndim() != 1 || t.size() != n || !t.c_contiguous()) {
    return absl::InternalError(
        absl::StrCat("validation: ", op, " returned ", t.DebugString()));
  }
  const float* v = static_cast<const float*>(t.data());
  for (int64_t i = 0; i < n; ++i) {
    const float want = op == "zeros" ? 0.0f
                       : op == "add" ? static_cast<float>(i + 1)
                                     : static_cast<float>(i);
    if (v[i] != want) {
      return absl::InternalError(absl::StrFormat(
          "validation: %s element %d is %g, want %g", op, i, v[i], want));
    }
  }
  return absl::OkStatus();
}
}  // namespace

absl::StatusOr<Metrics> RunTensor(Allocator& allocator,
                                  absl::string_view workload, Scale scale,
                                  double size_factor) {
  std::string op;
  int64_t n = 0;
  if (!ParseTensorWorkload(workload, &op, &n)) {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown tensor workload '", workload, "'"));
  }
  Tensor a, b;
  if (op == "add" || op == "sum") {
    absl::StatusOr<Tensor> made = arange(0, n, 1, DType::kFloat32, &allocator);
    if (!made.ok()) return made.status();
    a = *std::move(made);
    made = ones({n}, DType::kFloat32, &allocator);
    if (!made.ok()) return made.status();
    b = *std::move(made);
  }
  std::function<absl::StatusOr<Tensor>()> call;
  if (op == "arange") {
    call = [&] { return arange(0, n, 1, DType::kFloat32, &allocator); };
  } else if (op == "zeros") {
    call = [&] { return zeros({n}, DType::kFloat32, &allocator); };
  } else if (op == "add") {
    call = [&] { return add(a, b, &allocator); };
  } else {
    call = [&] { return sum(a, std::nullopt, false, &allocator); };
  }
  {
    absl::StatusOr<Tensor> first = call();
    if (!first.ok()) return first.status();
    absl::Status checked = CheckTensor(*first, n, op);
    if (!checked.ok()) return checked;
  }
  absl::Status integrity = allocator.CheckIntegrity();
  if (!integrity.ok()) return integrity;
  if (scale == Scale::kValidate) return Metrics{};
  const int64_t iters = TensorIterations(op, n, scale, size_factor);
  // Process CPU: large operations also run on the thread pool's workers.
  const int64_t t0 = ProcessCpuNs();
  for (int64_t i = 0; i < iters; ++i) {
    absl::StatusOr<Tensor> result = call();
    if (!result.ok()) return result.status();
  }
  const int64_t t1 = ProcessCpuNs();
  return Metrics{{"ns_per_op", double(t1 - t0) / double(iters)},
                 {"calls", double(iters)}};
}

}  // namespace internal

int64_t TensorIterations(absl::string_view op, int64_t elements, Scale scale,
                         double size_factor) {
  int64_t full = elements <= 1000 ? 20000 : elements <= 100000 ? 400 : 8;
  // zeros of 1e7 touches no element (both sides get lazily zeroed pages):
  // 8 calls took ~0.4 ms, short enough that one slow page fault moved the
  // ratio 2x between runs. 256 calls take ~13 ms, like the other 1e7 rows.
  if (op == "zeros" && elements > 100000) full *= 32;
  const int64_t n =
      scale == Scale::kFull ? full : std::max<int64_t>(2, full / 8);
  return std::max<int64_t>(1, static_cast<int64_t>(double(n) * size_factor));
}

}  // namespace shootout
}  // namespace tessera
