// Copyright 2026 The Tessera Authors.
//
// Runs the 2-D plane kernel of every compiled Highway target against the
// same target's row kernel applied one element at a time (its scalar form,
// which binary_test.cc checks against an independent reference): every
// vector op on every lane type, over plane shapes around each target's block
// size (1 x 1, 17 x 33, ...), and every operand layout the plane kernel tells
// apart: a transposed input on either side or both, with the other input
// contiguous, broadcast along rows or along columns; a transposed output;
// columns read backwards; in place; each operand starting on or off a vector
// boundary (0, 1, half or one short of a vector past it, rotated over the
// shapes, after Highway's ForeachMisalign). Each operand's buffer holds
// exactly the plane's elements, so a block that read or wrote past the plane
// would be caught by ASan.

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "tensor/kernels/binary_plane_test.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/highway.h"
#include "hwy/tests/hwy_gtest.h"
#include "tensor/kernels/binary-inl.h"
#include "tensor/kernels/binary.h"
#include "tensor/kernels/binary_plane-inl.h"
#include "tensor/testing/kernel_values.h"
#include "tensor/testing/misaligned_buffer.h"

HWY_BEFORE_NAMESPACE();
namespace tessera {
namespace kernels {
namespace HWY_NAMESPACE {
namespace {

using kernel_testing::RandomValue;
using kernel_testing::SameValue;

// How an operand's elements are laid out in its buffer.
enum class Layout {
  kRows,         // C order: columns contiguous
  kTransposed,   // F order: rows contiguous (a transposed view)
  kReversed,     // F order with the columns read backwards
  kRowValue,     // one value per row (column stride 0)
  kColumnValue,  // one row repeated (row stride 0)
};

const char* LayoutName(Layout l) {
  switch (l) {
    case Layout::kRows: return "rows";
    case Layout::kTransposed: return "transposed";
    case Layout::kReversed: return "reversed";
    case Layout::kRowValue: return "row value";
    case Layout::kColumnValue: return "column value";
  }
  return "?";
}

// Element offsets from vector alignment to try on this target: 0, 1, half
// a vector and one short of a vector of T.
template <typename T>
std::vector<size_t> Misalignments() {
  return kernel_testing::MisalignmentsFor(
      hwy::HWY_NAMESPACE::Lanes(hwy::HWY_NAMESPACE::ScalableTag<T>()));
}

// A plane operand over a buffer of exactly the elements it needs, starting
// `shift` elements past vector alignment.
template <typename T>
struct Operand {
  int64_t count = 0;  // elements in the buffer
  std::unique_ptr<kernel_testing::MisalignedBuffer<T>> buffer;
  int64_t start = 0;  // in elements
  int64_t row = 0;    // strides in elements
  int64_t col = 0;

  Operand(Layout layout, int64_t rows, int64_t cols, size_t shift = 0) {
    Shape(layout, rows, cols);
    buffer = std::make_unique<kernel_testing::MisalignedBuffer<T>>(
        static_cast<size_t>(count), shift);
  }
  void Shape(Layout layout, int64_t rows, int64_t cols) {
    switch (layout) {
      case Layout::kRows:
        count = rows * cols;
        row = cols;
        col = 1;
        break;
      case Layout::kTransposed:
        count = rows * cols;
        row = 1;
        col = rows;
        break;
      case Layout::kReversed:
        count = rows * cols;
        row = 1;
        col = -rows;
        start = (cols - 1) * rows;
        break;
      case Layout::kRowValue:
        count = rows;
        row = 1;
        col = 0;
        break;
      case Layout::kColumnValue:
        count = cols;
        row = 0;
        col = 1;
        break;
    }
  }
  T* base() { return buffer->data(); }
  void Randomize(std::mt19937_64& rng) {
    for (int64_t i = 0; i < count; ++i) base()[i] = RandomValue<T>(rng);
  }
  T* at(int64_t r, int64_t c) { return base() + start + r * row + c * col; }
  char* p() { return reinterpret_cast<char*>(base() + start); }
  int64_t row_bytes() const { return row * static_cast<int64_t>(sizeof(T)); }
  int64_t col_bytes() const { return col * static_cast<int64_t>(sizeof(T)); }
};

const int64_t kExtents[] = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 33, 40};

// Pairs of input layouts; at least one transposed in most, so that the
// blocked walk runs, and the others check the row-by-row fallback.
const Layout kPairs[][2] = {
    {Layout::kTransposed, Layout::kRows},
    {Layout::kRows, Layout::kTransposed},
    {Layout::kTransposed, Layout::kTransposed},
    {Layout::kTransposed, Layout::kRowValue},
    {Layout::kColumnValue, Layout::kTransposed},
    {Layout::kReversed, Layout::kRows},
    {Layout::kRows, Layout::kRows},
    {Layout::kRowValue, Layout::kColumnValue},
};

template <typename T>
void CheckPlane(BinaryOp op, std::mt19937_64& rng, int64_t rows,
                int64_t cols, Layout la, Layout lb, Layout lo,
                size_t misalign = 0) {
  const DType dtype = kDTypeOf<T>;
  // Operand k starts shifts[(misalign + k) % shifts.size()] elements past
  // vector alignment.
  const std::vector<size_t> shifts = Misalignments<T>();
  const size_t sa = shifts[misalign % shifts.size()];
  const size_t sb = shifts[(misalign + 1) % shifts.size()];
  const size_t so = shifts[(misalign + 2) % shifts.size()];
  Operand<T> a(la, rows, cols, sa), b(lb, rows, cols, sb),
      out(lo, rows, cols, so);
  a.Randomize(rng);
  b.Randomize(rng);
  BinaryPlaneImpl(op, dtype, a.p(), a.row_bytes(), a.col_bytes(), b.p(),
                  b.row_bytes(), b.col_bytes(), out.p(), out.row_bytes(),
                  out.col_bytes(), rows, cols);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) {
      T expected;
      BinaryRowImpl(op, dtype, a.at(r, c), 0, b.at(r, c), 0, &expected, 0, 1);
      ASSERT_TRUE(SameValue(expected, *out.at(r, c)))
          << BinaryOpName(op) << " " << rows << "x" << cols << " a "
          << LayoutName(la) << " b " << LayoutName(lb) << " out "
          << LayoutName(lo) << " shifts " << sa << "/" << sb << "/" << so
          << " at (" << r << ", " << c << ")";
    }
  }
}

// In place: the output is the contiguous input (same start and strides).
template <typename T>
void CheckInPlace(BinaryOp op, std::mt19937_64& rng, int64_t rows,
                  int64_t cols, bool out_is_a) {
  const DType dtype = kDTypeOf<T>;
  Operand<T> t(Layout::kTransposed, rows, cols), x(Layout::kRows, rows, cols);
  t.Randomize(rng);
  x.Randomize(rng);
  std::vector<T> expected(rows * cols);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) {
      const T* pa = out_is_a ? x.at(r, c) : t.at(r, c);
      const T* pb = out_is_a ? t.at(r, c) : x.at(r, c);
      BinaryRowImpl(op, dtype, pa, 0, pb, 0, &expected[r * cols + c], 0, 1);
    }
  }
  Operand<T>& a = out_is_a ? x : t;
  Operand<T>& b = out_is_a ? t : x;
  BinaryPlaneImpl(op, dtype, a.p(), a.row_bytes(), a.col_bytes(), b.p(),
                  b.row_bytes(), b.col_bytes(), x.p(), x.row_bytes(),
                  x.col_bytes(), rows, cols);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) {
      ASSERT_TRUE(SameValue(expected[r * cols + c], *x.at(r, c)))
          << BinaryOpName(op) << " in place (out is "
          << (out_is_a ? "a" : "b") << ") " << rows << "x" << cols << " at ("
          << r << ", " << c << ")";
    }
  }
}

template <typename T>
void CheckOp(BinaryOp op, std::mt19937_64& rng) {
  // Each call rotates the operands' misalignments, so that every layout
  // pair meets every misalignment over the shapes.
  size_t misalign = 0;
  for (int64_t rows : kExtents) {
    for (int64_t cols : kExtents) {
      for (const auto& pair : kPairs) {
        CheckPlane<T>(op, rng, rows, cols, pair[0], pair[1], Layout::kRows,
                      misalign++);
      }
      // A transposed output of contiguous inputs, and of a transposed one.
      CheckPlane<T>(op, rng, rows, cols, Layout::kRows, Layout::kRows,
                    Layout::kTransposed, misalign++);
      CheckPlane<T>(op, rng, rows, cols, Layout::kTransposed, Layout::kRows,
                    Layout::kTransposed, misalign++);
      CheckInPlace<T>(op, rng, rows, cols, /*out_is_a=*/true);
      CheckInPlace<T>(op, rng, rows, cols, /*out_is_a=*/false);
    }
  }
}

template <typename T>
void CheckAllOps(std::mt19937_64& rng) {
  CheckOp<T>(BinaryOp::kSubtract, rng);  // not commutative: catches a swap
  CheckOp<T>(BinaryOp::kMaximum, rng);
  if constexpr (std::is_floating_point<T>::value) {
    CheckOp<T>(BinaryOp::kDivide, rng);
  } else {
    CheckOp<T>(BinaryOp::kBitwiseXor, rng);
  }
}

}  // namespace

void TestPlaneMatchesRowKernel() {
  std::mt19937_64 rng(4242);
  CheckAllOps<int8_t>(rng);
  CheckAllOps<uint16_t>(rng);
  CheckAllOps<int32_t>(rng);
  CheckAllOps<uint64_t>(rng);
  CheckAllOps<float>(rng);
  CheckAllOps<double>(rng);
}

// The other ops through the blocked walk once each, on float32 and int16.
void TestEveryOpThroughTransposedBlocks() {
  std::mt19937_64 rng(77);
  for (BinaryOp op : {BinaryOp::kAdd, BinaryOp::kMultiply, BinaryOp::kMinimum,
                      BinaryOp::kFmax, BinaryOp::kFmin}) {
    CheckPlane<float>(op, rng, 33, 17, Layout::kTransposed, Layout::kRows,
                      Layout::kRows);
    CheckPlane<int16_t>(op, rng, 17, 40, Layout::kRows, Layout::kTransposed,
                        Layout::kRows);
  }
  for (BinaryOp op : {BinaryOp::kBitwiseAnd, BinaryOp::kBitwiseOr}) {
    CheckPlane<uint32_t>(op, rng, 20, 20, Layout::kTransposed, Layout::kRows,
                         Layout::kRows);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace kernels
}  // namespace tessera
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tessera {
namespace kernels {

HWY_BEFORE_TEST(BinaryPlaneTest);
HWY_EXPORT_AND_TEST_P(BinaryPlaneTest, TestPlaneMatchesRowKernel);
HWY_EXPORT_AND_TEST_P(BinaryPlaneTest, TestEveryOpThroughTransposedBlocks);

}  // namespace kernels
}  // namespace tessera
#endif  // HWY_ONCE
