// Copyright 2026 The Tessera Authors.

#include "tensor/linalg.h"

#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "absl/strings/str_format.h"
#include "absl/types/span.h"
#include "tensor/binary.h"
#include "tensor/kernels/matmul.h"
#include "tensor/view.h"

namespace tessera {
namespace {

// One operand seen as a stack of matrices: `rows` x `cols` cores whose
// element (r, c) is at `data + r * row_stride + c * col_stride` (bytes),
// under batch axes `batch_shape`/`batch_strides`.
struct MatrixStack {
  Tensor tensor;  // keeps the data alive (a converted copy or the input)
  Shape batch_shape;
  Strides batch_strides;
  int64_t rows = 0;
  int64_t cols = 0;
  int64_t row_stride = 0;
  int64_t col_stride = 0;
};

// The stack for `t`; a 1-D tensor is a row (`as_row`) or a column vector.
MatrixStack StackOf(const Tensor& t, bool as_row) {
  MatrixStack s;
  s.tensor = t;
  const int nd = t.ndim();
  if (nd == 1) {
    if (as_row) {
      s.rows = 1;
      s.cols = t.shape(0);
      s.col_stride = t.strides()[0];
    } else {
      s.rows = t.shape(0);
      s.cols = 1;
      s.row_stride = t.strides()[0];
    }
    return s;
  }
  s.batch_shape.assign(t.shape().begin(), t.shape().end() - 2);
  s.batch_strides.assign(t.strides().begin(), t.strides().end() - 2);
  s.rows = t.shape(nd - 2);
  s.cols = t.shape(nd - 1);
  s.row_stride = t.strides()[nd - 2];
  s.col_stride = t.strides()[nd - 1];
  return s;
}

// Whether the kernel can read the stack in place: the result dtype, a
// contiguous last axis (when longer than 1) and rows a whole number of
// elements apart.
bool KernelReadable(const MatrixStack& s, DType dtype) {
  const int64_t item = static_cast<int64_t>(DTypeSize(dtype));
  return s.tensor.dtype() == dtype && (s.cols <= 1 || s.col_stride == item) &&
         s.row_stride % item == 0;
}

// `s` made kernel-readable: a C-order copy converted to `dtype` if needed.
absl::StatusOr<MatrixStack> Readable(const Tensor& t, bool as_row,
                                     DType dtype, Allocator* allocator) {
  MatrixStack s = StackOf(t, as_row);
  if (KernelReadable(s, dtype)) return s;
  auto converted = astype(t, dtype, allocator);
  if (!converted.ok()) return converted.status();
  return StackOf(*converted, as_row);
}

}  // namespace

absl::StatusOr<Tensor> matmul(const Tensor& a, const Tensor& b,
                              Allocator* allocator) {
  for (const Tensor* t : {&a, &b}) {
    if (t->ndim() == 0) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "matmul: input operand %d does not have enough dimensions (0-d "
          "tensor of shape %s and %s; use multiply)",
          t == &a ? 0 : 1, ShapeString(a.shape()), ShapeString(b.shape())));
    }
  }
  const MatrixStack sa0 = StackOf(a, /*as_row=*/true);
  const MatrixStack sb0 = StackOf(b, /*as_row=*/false);
  if (sa0.cols != sb0.rows) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "matmul: shapes %s and %s are not aligned: %d (last axis of the "
        "first) != %d (%s axis of the second)",
        ShapeString(a.shape()), ShapeString(b.shape()), sa0.cols, sb0.rows,
        b.ndim() == 1 ? "only" : "second-to-last"));
  }
  auto batch = BroadcastShapes(sa0.batch_shape, sb0.batch_shape);
  if (!batch.ok()) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "matmul: batch axes of shapes %s and %s do not broadcast",
        ShapeString(a.shape()), ShapeString(b.shape())));
  }
  const DType dtype = ResultType(a.dtype(), b.dtype());
  if (dtype == DType::kFloat16) {
    // NumPy has a float16 matmul (accumulating in float32); Tessera has no
    // float16 kernel yet. astype(x, DType::kFloat32) first.
    return absl::UnimplementedError(absl::StrFormat(
        "matmul: dtype float16 is not supported (operands %s and %s); "
        "convert to float32 first",
        DTypeName(a.dtype()), DTypeName(b.dtype())));
  }
  const int64_t m = sa0.rows, k = sa0.cols, n = sb0.cols;
  // The full (batch..., m, n) result; 1-D operands' axes dropped below.
  Shape full = *batch;
  full.push_back(m);
  full.push_back(n);
  auto out = empty(full, dtype, allocator);
  if (!out.ok()) return out.status();
  if (out->size() > 0) {
    auto sa = Readable(a, true, dtype, allocator);
    if (!sa.ok()) return sa.status();
    auto sb = Readable(b, false, dtype, allocator);
    if (!sb.ok()) return sb.status();
    const int64_t item = static_cast<int64_t>(DTypeSize(dtype));
    // Batch strides aligned to the broadcast batch shape (0 where broadcast).
    const int nb = static_cast<int>(batch->size());
    std::vector<int64_t> a_step(nb, 0), b_step(nb, 0);
    for (int i = 0; i < nb; ++i) {
      const int ia = i - (nb - static_cast<int>(sa->batch_shape.size()));
      const int ib = i - (nb - static_cast<int>(sb->batch_shape.size()));
      if (ia >= 0 && sa->batch_shape[ia] != 1) a_step[i] = sa->batch_strides[ia];
      if (ib >= 0 && sb->batch_shape[ib] != 1) b_step[i] = sb->batch_strides[ib];
    }
    const char* pa = static_cast<const char*>(sa->tensor.data());
    const char* pb = static_cast<const char*>(sb->tensor.data());
    char* pc = static_cast<char*>(out->mutable_data());
    const int64_t matrix_bytes = m * n * item;
    std::vector<int64_t> index(nb, 0);
    const int64_t count = out->size() / (m * n);
    for (int64_t batch_i = 0; batch_i < count; ++batch_i) {
      kernels::MatMul(dtype, pa, sa->row_stride / item, pb,
                      sb->row_stride / item, pc + batch_i * matrix_bytes, n, m,
                      k, n);
      // Odometer over the batch axes, last fastest.
      for (int i = nb - 1; i >= 0; --i) {
        pa += a_step[i];
        pb += b_step[i];
        if (++index[i] < (*batch)[i]) break;
        pa -= a_step[i] * (*batch)[i];
        pb -= b_step[i] * (*batch)[i];
        index[i] = 0;
      }
    }
  }
  if (a.ndim() > 1 && b.ndim() > 1) return out;
  Shape shape = *batch;
  if (a.ndim() > 1) shape.push_back(m);
  if (b.ndim() > 1) shape.push_back(n);
  Strides strides = ContiguousStrides(shape, DTypeSize(dtype));
  return Tensor::UncheckedView(out->storage(), dtype, std::move(shape),
                               std::move(strides), 0, true,
                               /*owns_data=*/true);
}

absl::StatusOr<Tensor> dot(const Tensor& a, const Tensor& b,
                           Allocator* allocator) {
  if (a.ndim() == 0 || b.ndim() == 0) {
    return Binary(BinaryOp::kMultiply, a, b, allocator);
  }
  // Up to a 2-D `b`, np.dot is np.matmul: a's leading axes against none.
  if (b.ndim() <= 2) return matmul(a, b, allocator);
  // General N-d: move b's second-to-last axis to the front, flatten the rest
  // of b into columns and a's leading axes into rows, one matrix product.
  const int64_t k = a.shape(a.ndim() - 1);
  const int bk = b.ndim() >= 2 ? b.ndim() - 2 : 0;
  if (b.shape(bk) != k) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "dot: shapes %s and %s are not aligned: %d (last axis of the first) "
        "!= %d (second-to-last axis of the second)",
        ShapeString(a.shape()), ShapeString(b.shape()), k, b.shape(bk)));
  }
  std::vector<int> order = {bk};
  for (int i = 0; i < b.ndim(); ++i) {
    if (i != bk) order.push_back(i);
  }
  auto moved = transpose(b, order);
  if (!moved.ok()) return moved.status();
  // Explicit extents rather than -1, which cannot be inferred when k is 0.
  // Checked: a zero-size operand may have other extents whose product
  // overflows, and then so may the rows or columns of the other one.
  auto a_rows = CheckedElementCount(
      absl::MakeConstSpan(a.shape()).first(a.ndim() - 1), 1);
  if (!a_rows.ok()) return a_rows.status();
  auto b_cols =
      CheckedElementCount(absl::MakeConstSpan(moved->shape()).subspan(1), 1);
  if (!b_cols.ok()) return b_cols.status();
  if (*a_rows != 0 && *b_cols > std::numeric_limits<int64_t>::max() / *a_rows) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "dot: the product of %s and %s has %d x %d elements, more than int64",
        ShapeString(a.shape()), ShapeString(b.shape()), *a_rows, *b_cols));
  }
  auto b2 = reshape(*moved, {k, *b_cols}, allocator);
  if (!b2.ok()) return b2.status();
  auto a2 = reshape(a, {*a_rows, k}, allocator);
  if (!a2.ok()) return a2.status();
  auto product = matmul(*a2, *b2, allocator);
  if (!product.ok()) return product.status();
  Shape shape(a.shape().begin(), a.shape().end() - 1);
  for (int i = 0; i < b.ndim(); ++i) {
    if (i != bk) shape.push_back(b.shape(i));
  }
  return reshape(*product, shape, allocator);
}

}  // namespace tessera
