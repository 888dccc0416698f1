// Copyright 2026 The Tessera Authors.

#include "tensor/unary.h"

#include <array>
#include <utility>

#include "absl/strings/str_format.h"
#include "tensor/internal/strided_loop.h"
#include "tensor/view.h"

namespace tessera {
namespace {

// The dtype `op` computes in for input dtype `dtype` (NumPy's loop
// selection). A float16 loop runs in float32 and rounds once (Unary).
absl::StatusOr<DType> ComputeType(UnaryOp op, DType dtype) {
  if (IsFloatFunction(op)) {
    if (IsFloat(dtype)) return dtype;
    switch (dtype) {
      case DType::kBool:
      case DType::kInt8:
      case DType::kUInt8:
        return DType::kFloat16;
      case DType::kInt16:
      case DType::kUInt16:
        return DType::kFloat32;
      default:
        return DType::kFloat64;
    }
  }
  if (dtype == DType::kBool) {
    if (op == UnaryOp::kNegative) {
      return absl::InvalidArgumentError(
          "The numpy boolean negative, the `-` operator, is not supported "
          "for bool: use logical_not");
    }
    if (op == UnaryOp::kSign) {
      return absl::InvalidArgumentError(
          "ufunc 'sign' did not contain a loop with signature matching "
          "types bool");
    }
    if (op == UnaryOp::kSquare) return DType::kInt8;
  }
  return dtype;
}

DType OutputType(UnaryOp op, DType compute) {
  return IsPredicate(op) ? DType::kBool : compute;
}

// Runs the kernel over `out`'s shape; `in` (dtype `dtype`) broadcasts to it.
void Run(UnaryOp op, DType dtype, const Tensor& in, const Tensor& out) {
  if (out.size() == 0) return;
  char* out_data = static_cast<char*>(out.mutable_data());
  const int64_t in_size = static_cast<int64_t>(in.itemsize());
  const int64_t out_size = static_cast<int64_t>(out.itemsize());
  if (in.c_contiguous() && out.c_contiguous() && in.shape() == out.shape()) {
    kernels::UnaryRow(op, dtype, in.data(), in_size, out_data, out_size,
                      out.size());
    return;
  }
  // Right-aligned broadcast strides of `in` (0 on new or stretched axes).
  Strides in_strides(out.ndim(), 0);
  const int lead = out.ndim() - in.ndim();
  for (int k = 0; k < in.ndim(); ++k) {
    if (in.shape(k) != 1) in_strides[lead + k] = in.strides()[k];
  }
  internal::ForEachRow<2>(
      out.shape(), {in_strides, out.strides()},
      {const_cast<char*>(static_cast<const char*>(in.data())), out_data},
      [&](std::array<char*, 2> p, std::array<int64_t, 2> s, int64_t n) {
        kernels::UnaryRow(op, dtype, p[0], s[0], p[1], s[1], n);
      });
}

bool CanWriteResultInto(DType result, DType out) {
  return result == out || CanCastSafely(result, out) ||
         (IsFloat(result) && IsFloat(out));
}

}  // namespace

absl::StatusOr<DType> UnaryResultType(UnaryOp op, DType dtype) {
  auto compute = ComputeType(op, dtype);
  if (!compute.ok()) return compute.status();
  return OutputType(op, *compute);
}

absl::StatusOr<Tensor> Unary(UnaryOp op, const Tensor& x,
                             Allocator* allocator) {
  auto compute = ComputeType(op, x.dtype());
  if (!compute.ok()) return compute.status();
  if (*compute == DType::kFloat16 && !IsPredicate(op)) {
    // NumPy's half loops: widen exactly, compute in float32, round once.
    auto x32 = astype(x, DType::kFloat32, allocator);
    if (!x32.ok()) return x32.status();
    auto r = Unary(op, *x32, allocator);
    if (!r.ok()) return r.status();
    return astype(*r, DType::kFloat16, allocator);
  }
  Tensor converted;
  const Tensor* in = &x;
  if (x.dtype() != *compute) {
    auto c = astype(x, *compute, allocator);
    if (!c.ok()) return c.status();
    converted = *std::move(c);
    in = &converted;
  }
  auto out = empty(x.shape(), OutputType(op, *compute), allocator);
  if (!out.ok()) return out.status();
  Run(op, *compute, *in, *out);
  return out;
}

absl::Status UnaryInto(UnaryOp op, const Tensor& x, const Tensor& out) {
  if (!out.writeable()) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "%s: output %s is read-only", UnaryOpName(op), out.DebugString()));
  }
  // Equal shapes (the common case) broadcast to themselves.
  if (x.shape() != out.shape()) {
    auto shape = BroadcastShapes(x.shape(), out.shape());
    if (!shape.ok()) return shape.status();
    if (*shape != out.shape()) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s: non-broadcastable output operand with shape %s doesn't match "
          "the broadcast shape %s",
          UnaryOpName(op), ShapeString(out.shape()), ShapeString(*shape)));
    }
  }
  auto compute = ComputeType(op, x.dtype());
  if (!compute.ok()) return compute.status();
  const DType result = OutputType(op, *compute);
  if (result != out.dtype() ||
      (*compute == DType::kFloat16 && !IsPredicate(op))) {
    if (!CanWriteResultInto(result, out.dtype())) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s: cannot cast the %s result to output dtype %s", UnaryOpName(op),
          DTypeName(result), DTypeName(out.dtype())));
    }
    auto x_full = broadcast_to(x, out.shape());
    if (!x_full.ok()) return x_full.status();
    auto temp = Unary(op, *x_full, &out.allocator());
    if (!temp.ok()) return temp.status();
    return CopyInto(*temp, out);
  }
  const bool in_place = x.data() == out.data() && x.dtype() == out.dtype() &&
                        x.shape() == out.shape() &&
                        x.strides() == out.strides();
  if (x.dtype() != *compute || (!in_place && MayShareMemory(x, out))) {
    // A converted or unaliased copy: `out` may be written before all of `x`
    // is read.
    auto c = astype(x, *compute, &out.allocator());
    if (!c.ok()) return c.status();
    Run(op, *compute, *c, out);
    return absl::OkStatus();
  }
  Run(op, *compute, x, out);
  return absl::OkStatus();
}

}  // namespace tessera
