// Copyright 2026 The Tessera Authors.

#include "tensor/binary.h"

#include <array>
#include <cstring>
#include <utility>

#include "absl/strings/str_format.h"
#include "tensor/internal/parallel_ops.h"
#include "tensor/internal/strided_loop.h"
#include "tensor/internal/thread_pool.h"
#include "tensor/parallel.h"
#include "tensor/view.h"

namespace tessera {
namespace {

// One input as the loop sees it: element 0, its dtype, shape and strides.
struct Operand {
  const char* data;
  absl::Span<const int64_t> shape;
  absl::Span<const int64_t> strides;
};

Operand OperandOf(const Tensor& t) {
  return {static_cast<const char*>(t.data()), t.shape(), t.strides()};
}

// Strides of `x` broadcast to `shape` (right-aligned, 0 on new or
// stretched axes). The caller has checked that the shapes broadcast.
Strides BroadcastStrides(const Operand& x, absl::Span<const int64_t> shape) {
  Strides out(shape.size(), 0);
  const size_t lead = shape.size() - x.shape.size();
  for (size_t k = 0; k < x.shape.size(); ++k) {
    if (x.shape[k] != 1) out[lead + k] = x.strides[k];
  }
  return out;
}

// Runs the kernel over `out`'s shape. The inputs have dtype `dtype`, and so
// has `out` except for comparisons, where it is bool.
void Run(BinaryOp op, DType dtype, const Operand& a, const Operand& b,
         const Tensor& out) {
  if (out.size() == 0) return;
  char* out_data = static_cast<char*>(out.mutable_data());
  const int64_t out_size = static_cast<int64_t>(out.itemsize());
  // Fast path: same shape, all C-contiguous: one kernel call.
  if (out.c_contiguous() && a.shape == out.shape() &&
      b.shape == out.shape()) {
    const int64_t size = static_cast<int64_t>(DTypeSize(dtype));
    bool contiguous = true;
    int64_t expected = size;
    for (int k = out.ndim() - 1; k >= 0; --k) {
      if (out.shape(k) != 1 &&
          (a.strides[k] != expected || b.strides[k] != expected)) {
        contiguous = false;
        break;
      }
      expected *= out.shape(k);
    }
    if (contiguous) {
      if (out.size() > 0) {
        kernels::BinaryRow(op, dtype, a.data, size, b.data, size, out_data,
                           out_size, out.size());
      }
      return;
    }
  }
  const Strides sa = BroadcastStrides(a, out.shape());
  const Strides sb = BroadcastStrides(b, out.shape());
  // Plane by plane: the kernel orders each plane's elements (blocks when an
  // operand is transposed against the output) and dispatches once per plane.
  // A plane of megabytes runs as bands of rows on the thread pool: elements
  // are independent, so the result is the same, and bands are multiples of
  // kBandRows rows (a multiple of every block side) so that the blocked
  // walk's edges fall inside one band.
  constexpr int64_t kBandRows = 64;
  const size_t itemsize = DTypeSize(dtype);
  internal::ForEachPlane<3>(
      out.shape(), {sa, sb, out.strides()},
      {const_cast<char*>(a.data), const_cast<char*>(b.data), out_data},
      [&](std::array<char*, 3> p, std::array<int64_t, 3> row,
          std::array<int64_t, 3> col, int64_t rows, int64_t cols) {
        const uint64_t bytes =
            static_cast<uint64_t>(rows) * static_cast<uint64_t>(cols) *
            itemsize * 3;
        if (bytes < kParallelMinBytes || rows < 2 * kBandRows) {
          kernels::BinaryPlane(op, dtype, p[0], row[0], col[0], p[1], row[1],
                               col[1], p[2], row[2], col[2], rows, cols);
          return;
        }
        const int64_t min_rows =
            (internal::MinChunkElements(itemsize) / cols / kBandRows + 1) *
            kBandRows;
        internal::ParallelFor(rows, min_rows, [&](int64_t begin, int64_t end) {
          kernels::BinaryPlane(op, dtype, p[0] + begin * row[0], row[0],
                               col[0], p[1] + begin * row[1], row[1], col[1],
                               p[2] + begin * row[2], row[2], col[2],
                               end - begin, cols);
        });
      });
}

absl::Status UndefinedForBool(BinaryOp op) {
  return absl::InvalidArgumentError(absl::StrFormat(
      "numpy boolean %s is not supported (bool - bool): use logical_xor",
      BinaryOpName(op)));
}

// The dtype `op` computes in for a promoted dtype (NumPy's loop selection):
// true division of non-floats is float64; floor_divide, remainder and power
// have no bool loop and use int8; logical ops work on truth values (bool);
// bitwise ops have no float loop.
absl::StatusOr<DType> ComputeType(BinaryOp op, DType promoted) {
  if (op == BinaryOp::kSubtract && promoted == DType::kBool) {
    return UndefinedForBool(op);
  }
  if (op == BinaryOp::kDivide && !IsFloat(promoted)) return DType::kFloat64;
  if ((op == BinaryOp::kFloorDivide || op == BinaryOp::kRemainder ||
       op == BinaryOp::kPower) &&
      promoted == DType::kBool) {
    return DType::kInt8;
  }
  if (IsLogical(op)) return DType::kBool;
  if (IsBitwise(op) && IsFloat(promoted)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "ufunc '%s' not supported for the input types: %s (bitwise "
        "operations need integer or bool operands)",
        BinaryOpName(op), DTypeName(promoted)));
  }
  return promoted;
}

// The dtype of the result for compute dtype `compute`.
DType OutputType(BinaryOp op, DType compute) {
  return IsComparison(op) || IsLogical(op) ? DType::kBool : compute;
}

// NumPy refuses integers to negative integer powers; checks every exponent
// (the right operand, already in `dtype`) before anything is written.
absl::Status CheckExponents(BinaryOp op, DType dtype, const Operand& b) {
  if (op != BinaryOp::kPower || !IsSignedInt(dtype)) return absl::OkStatus();
  for (int64_t extent : b.shape) {
    if (extent == 0) return absl::OkStatus();
  }
  int64_t negative = 0;
  bool found = false;
  VisitDType(dtype, [&](auto zero) {
    using T = decltype(zero);
    if constexpr (kIsFloat16<T>) return;  // signed integers only
    else internal::ForEachRow<1>(
        b.shape, {b.strides}, {const_cast<char*>(b.data)},
        [&](std::array<char*, 1> p, std::array<int64_t, 1> s, int64_t n) {
          for (int64_t i = 0; i < n && !found; ++i) {
            T v;
            std::memcpy(&v, p[0] + i * s[0], sizeof(T));
            if (v < T(0)) {
              found = true;
              negative = static_cast<int64_t>(v);
            }
          }
        });
  });
  if (!found) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrFormat(
      "power: integers to negative integer powers are not allowed "
      "(exponent %d of dtype %s)",
      negative, DTypeName(dtype)));
}

// `t` in `dtype`: itself, or a converted copy kept alive in `holder`.
absl::StatusOr<Operand> Prepare(const Tensor& t, DType dtype,
                                Allocator* allocator, Tensor& holder) {
  if (t.dtype() == dtype) return OperandOf(t);
  auto converted = astype(t, dtype, allocator);
  if (!converted.ok()) return converted.status();
  holder = *std::move(converted);
  return OperandOf(holder);
}

// A scalar in `dtype`, stored in `buffer` (8 bytes, aligned for any dtype).
Operand ScalarOperand(const Scalar& s, DType dtype, uint64_t& buffer) {
  VisitDType(dtype, [&](auto zero) {
    using T = decltype(zero);
    const T value = s.As<T>();
    std::memcpy(&buffer, &value, sizeof(T));
  });
  return {reinterpret_cast<const char*>(&buffer), {}, {}};
}

// float16 computes in float32 and rounds the result once, as NumPy's half
// loops do (npy_float_to_half(npy_half_to_float(a) + npy_half_to_float(b))):
// the operands widen exactly (int8, uint8 and bool included), the float32 op
// runs on its usual kernels, and a float32 result is rounded to float16.
absl::StatusOr<Tensor> RoundedToFloat16(absl::StatusOr<Tensor> result,
                                        Allocator* allocator) {
  if (!result.ok() || result->dtype() != DType::kFloat32) return result;
  return astype(*result, DType::kFloat16, allocator);
}

absl::StatusOr<Tensor> WidenedToFloat32(const Tensor& t,
                                        Allocator* allocator) {
  if (t.dtype() == DType::kFloat32) return t;
  return astype(t, DType::kFloat32, allocator);
}

absl::StatusOr<Tensor> Float16Binary(BinaryOp op, const Tensor& a,
                                     const Tensor& b, Allocator* allocator) {
  auto a32 = WidenedToFloat32(a, allocator);
  if (!a32.ok()) return a32.status();
  auto b32 = WidenedToFloat32(b, allocator);
  if (!b32.ok()) return b32.status();
  return RoundedToFloat16(Binary(op, *a32, *b32, allocator), allocator);
}

absl::StatusOr<Tensor> WithScalar(BinaryOp op, const Tensor& t,
                                  const Scalar& s, bool scalar_right,
                                  Allocator* allocator) {
  auto promoted = WeakResultType(t.dtype(), s);
  if (!promoted.ok()) return promoted.status();
  auto dtype = ComputeType(op, *promoted);
  if (!dtype.ok()) return dtype.status();
  if (*dtype == DType::kFloat16) {
    // The scalar is cast to float16 first, as NumPy casts it to the array's
    // dtype; then as two float16 operands.
    auto t32 = WidenedToFloat32(t, allocator);
    if (!t32.ok()) return t32.status();
    const Scalar s32(ToFloat(s.As<Float16>()));
    return RoundedToFloat16(
        scalar_right ? Binary(op, *t32, s32, allocator)
                     : Binary(op, s32, *t32, allocator),
        allocator);
  }
  Tensor holder;
  auto operand = Prepare(t, *dtype, allocator, holder);
  if (!operand.ok()) return operand.status();
  uint64_t buffer = 0;
  const Operand scalar = ScalarOperand(s, *dtype, buffer);
  absl::Status exponents =
      CheckExponents(op, *dtype, scalar_right ? scalar : *operand);
  if (!exponents.ok()) return exponents;
  auto out = empty(t.shape(), OutputType(op, *dtype), allocator);
  if (!out.ok()) return out.status();
  if (scalar_right) {
    Run(op, *dtype, *operand, scalar, *out);
  } else {
    Run(op, *dtype, scalar, *operand, *out);
  }
  return out;
}

// Whether `x` is laid out exactly as `out` (in-place operation is safe).
bool SameElements(const Tensor& x, const Tensor& out) {
  return x.data() == out.data() && x.dtype() == out.dtype() &&
         x.shape() == out.shape() && x.strides() == out.strides();
}

bool CanWriteResultInto(DType result, DType out) {
  return result == out || CanCastSafely(result, out) ||
         (IsFloat(result) && IsFloat(out));
}

// Whether `op` on two operands of non-bool `dtype` computes in and returns
// `dtype` with nothing to check first.
bool KeepsDType(BinaryOp op, DType dtype) {
  switch (op) {
    case BinaryOp::kDivide:
      return IsFloat(dtype);
    case BinaryOp::kPower:
      return !IsSignedInt(dtype);  // signed exponents are checked
    case BinaryOp::kBitwiseAnd:
    case BinaryOp::kBitwiseOr:
    case BinaryOp::kBitwiseXor:
      return !IsFloat(dtype);
    default:
      return !IsComparison(op) && !IsLogical(op);
  }
}

// The common case, checked first to keep per-call overhead low: one dtype
// (that `op` keeps), one shape, all C-contiguous.
bool IsSimpleContiguous(BinaryOp op, const Tensor& a, const Tensor& b) {
  return a.dtype() == b.dtype() && a.c_contiguous() && b.c_contiguous() &&
         a.shape() == b.shape() && a.dtype() != DType::kBool &&
         a.dtype() != DType::kFloat16 && KeepsDType(op, a.dtype());
}

// The same for comparisons into an existing bool `out` (no promotion: one
// input dtype), which must not overlap the inputs: the bool result's bytes
// are narrower than the elements they are computed from.
bool IsSimpleComparison(BinaryOp op, const Tensor& a, const Tensor& b,
                        const Tensor& out) {
  return IsComparison(op) && a.dtype() == b.dtype() &&
         a.dtype() != DType::kFloat16 && out.dtype() == DType::kBool && a.c_contiguous() &&
         b.c_contiguous() && out.c_contiguous() && a.shape() == b.shape() &&
         out.shape() == a.shape() && !MayShareMemory(a, out) &&
         !MayShareMemory(b, out);
}

}  // namespace

absl::StatusOr<DType> BinaryResultType(BinaryOp op, DType a, DType b) {
  auto compute = ComputeType(op, ResultType(a, b));
  if (!compute.ok()) return compute.status();
  return OutputType(op, *compute);
}

absl::StatusOr<Tensor> Binary(BinaryOp op, const Tensor& a, const Tensor& b,
                              Allocator* allocator) {
  if (IsSimpleContiguous(op, a, b)) {
    auto out = empty(a.shape(), a.dtype(), allocator);
    if (!out.ok()) return out.status();
    if (a.size() > 0) {
      internal::ContiguousBinary(op, a.dtype(), a.data(), b.data(),
                                 out->mutable_data(), a.size());
    }
    return out;
  }
  auto shape = BroadcastShapes(a.shape(), b.shape());
  if (!shape.ok()) return shape.status();
  auto dtype = ComputeType(op, ResultType(a.dtype(), b.dtype()));
  if (!dtype.ok()) return dtype.status();
  if (*dtype == DType::kFloat16) return Float16Binary(op, a, b, allocator);
  Tensor holder_a, holder_b;
  auto oa = Prepare(a, *dtype, allocator, holder_a);
  if (!oa.ok()) return oa.status();
  auto ob = Prepare(b, *dtype, allocator, holder_b);
  if (!ob.ok()) return ob.status();
  absl::Status exponents = CheckExponents(op, *dtype, *ob);
  if (!exponents.ok()) return exponents;
  auto out = empty(*shape, OutputType(op, *dtype), allocator);
  if (!out.ok()) return out.status();
  Run(op, *dtype, *oa, *ob, *out);
  return out;
}

absl::StatusOr<Tensor> Binary(BinaryOp op, const Tensor& a, Scalar b,
                              Allocator* allocator) {
  return WithScalar(op, a, b, /*scalar_right=*/true, allocator);
}

absl::StatusOr<Tensor> Binary(BinaryOp op, Scalar a, const Tensor& b,
                              Allocator* allocator) {
  return WithScalar(op, b, a, /*scalar_right=*/false, allocator);
}

absl::Status BinaryInto(BinaryOp op, const Tensor& a, const Tensor& b,
                        const Tensor& out) {
  if (!out.writeable()) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "%s: output %s is read-only", BinaryOpName(op), out.DebugString()));
  }
  if (IsSimpleContiguous(op, a, b) && out.dtype() == a.dtype() &&
      out.c_contiguous() && out.shape() == a.shape() &&
      (a.data() == out.data() || !MayShareMemory(a, out)) &&
      (b.data() == out.data() || !MayShareMemory(b, out))) {
    // Contiguous operands at the same address as `out` are the in-place
    // case; any other overlap takes the general path below.
    if (out.size() > 0) {
      internal::ContiguousBinary(op, a.dtype(), a.data(), b.data(),
                                 out.mutable_data(), out.size());
    }
    return absl::OkStatus();
  }
  if (IsSimpleComparison(op, a, b, out)) {
    if (out.size() > 0) {
      const int64_t size = static_cast<int64_t>(a.itemsize());
      kernels::BinaryRow(op, a.dtype(), a.data(), size, b.data(), size,
                         out.mutable_data(), 1, out.size());
    }
    return absl::OkStatus();
  }
  auto shape = BroadcastShapes(a.shape(), b.shape());
  if (!shape.ok()) return shape.status();
  auto with_out = BroadcastShapes(*shape, out.shape());
  if (!with_out.ok() || *with_out != out.shape()) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: non-broadcastable output operand with shape %s doesn't match "
        "the broadcast shape %s",
        BinaryOpName(op), ShapeString(out.shape()), ShapeString(*shape)));
  }
  auto dtype = ComputeType(op, ResultType(a.dtype(), b.dtype()));
  if (!dtype.ok()) return dtype.status();
  const DType result = OutputType(op, *dtype);
  // float16 is computed in float32 by Binary, then written into `out`.
  if (result != out.dtype() || *dtype == DType::kFloat16) {
    if (!CanWriteResultInto(result, out.dtype())) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s: cannot cast the %s result to output dtype %s",
          BinaryOpName(op), DTypeName(result), DTypeName(out.dtype())));
    }
    // Compute in the result dtype, then convert into `out`.
    auto a_full = broadcast_to(a, out.shape());
    if (!a_full.ok()) return a_full.status();
    auto temp = Binary(op, *a_full, b, &out.allocator());
    if (!temp.ok()) return temp.status();
    return CopyInto(*temp, out);
  }
  Allocator* allocator = &out.allocator();
  Tensor holder_a, holder_b;
  const Tensor* inputs[2] = {&a, &b};
  Tensor* holders[2] = {&holder_a, &holder_b};
  Operand operands[2];
  for (int i = 0; i < 2; ++i) {
    const Tensor& x = *inputs[i];
    if (x.dtype() != *dtype ||
        (MayShareMemory(x, out) && !SameElements(x, out))) {
      // A converted or unaliased copy: `out` may be written before all of
      // `x` is read.
      auto c = astype(x, *dtype, allocator);
      if (!c.ok()) return c.status();
      *holders[i] = *std::move(c);
      operands[i] = OperandOf(*holders[i]);
    } else {
      operands[i] = OperandOf(x);
    }
  }
  absl::Status exponents = CheckExponents(op, *dtype, operands[1]);
  if (!exponents.ok()) return exponents;
  Run(op, *dtype, operands[0], operands[1], out);
  return absl::OkStatus();
}

}  // namespace tessera
