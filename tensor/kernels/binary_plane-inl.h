// Copyright 2026 The Tessera Authors.
//
// Per-target code of the 2-D binary kernel (binary.h, BinaryPlane): one call
// per plane of rows x cols elements, each operand with a byte stride per row
// and per column. Included once per SIMD target through hwy/foreach_target.h,
// hence the toggling include guard.
//
// The plane is walked in the output's memory order: when the output's rows
// rather than its columns are contiguous (a transposed output), rows and
// columns trade places first. Then:
//   * when an input is transposed against the output (its rows contiguous,
//     its columns strided), the plane goes in N x N blocks, N the lanes of a
//     vector of at most 16 elements. The transposed input's block is N vector
//     loads along its contiguous axis, transposed in registers
//     (TransposeSquare); the other input's block is N row loads (or N
//     broadcast values, for a stride-0 column); N vector stores write the
//     output. A block uses every cache line it touches whole, where a row at a
//     time touches a new line (and, at large strides, a new page) for every
//     element of the transposed input;
//   * otherwise row by row with the row kernel (BinaryRowImpl), which picks
//     the contiguous, broadcast or strided path per row.
// The blocked walk exists for 4- and 8-byte lanes (float32/64, int32/64,
// uint32/64): compiling it for every op on narrower lanes too would double
// the build time of this file for the dtypes least often transposed.
// Results are the row kernel's bit for bit: both apply the same Op::Vector or
// Op::Scalar to each element; only the order of the elements differs.
//
// Edges: rows and columns that do not fill a block are covered by one more
// block aligned to the plane's end, which computes some elements twice (the
// same value both times), when the output is none of the inputs; in place
// they go through the row kernel, which reads each element before writing
// it. Nothing outside the plane is read or written.

#if defined(TESSERA_TENSOR_KERNELS_BINARY_PLANE_INL_H_) == \
    defined(HWY_TARGET_TOGGLE)
#ifdef TESSERA_TENSOR_KERNELS_BINARY_PLANE_INL_H_
#undef TESSERA_TENSOR_KERNELS_BINARY_PLANE_INL_H_
#else
#define TESSERA_TENSOR_KERNELS_BINARY_PLANE_INL_H_
#endif

#include <cstdint>

#include "hwy/highway.h"
#include "tensor/dtype.h"
#include "tensor/kernels/binary-inl.h"
#include "tensor/kernels/binary.h"

HWY_BEFORE_NAMESPACE();
namespace tessera {
namespace kernels {
namespace HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

// This target's plane kernel for every op and dtype (defined in
// binary_plane.cc; bool and logical ops already mapped as binary.h's
// BinaryPlane does). Tests call it per target.
void BinaryPlaneImpl(BinaryOp op, DType dtype, const void* a, int64_t a_row,
                     int64_t a_col, const void* b, int64_t b_row,
                     int64_t b_col, void* out, int64_t out_row, int64_t out_col,
                     int64_t rows, int64_t cols);

// One operand of a plane: element (0, 0) and the byte strides between rows
// and between columns.
struct PlaneOperand {
  const char* p;
  int64_t row;
  int64_t col;
};

// The block side is the lane count of this tag: 16 float32 lanes on AVX-512,
// 8 on AVX2, 4 on SSE4. More than 16 vectors per block would not stay in
// registers during the transpose (64 bytes of uint8 lanes would be 64).
template <typename T>
using BlockTag = hn::CappedTag<T, 16>;

#if HWY_TARGET != HWY_SCALAR

// Transposes the N x N block in v[0..N) in place (lane c of v[r] is element
// (r, c); N = lanes of `d`, a power of two). Each of the log2(N) rounds
// un-zips pairs of vectors with ConcatEven/ConcatOdd, which moves the lowest
// bit of the column index to the top of the row index and the lowest bit of
// the row index to the top of the column index: after log2(N) rounds, row
// and column have traded all their bits.
template <class D, class V>
HWY_INLINE void TransposeSquare(D d, V* v) {
  constexpr size_t N = hn::MaxLanes(D());
  if constexpr (N > 1) {
    for (size_t round = 1; round < N; round *= 2) {
      V t[N];
      for (size_t i = 0; i < N / 2; ++i) {
        t[i] = hn::ConcatEven(d, v[2 * i + 1], v[2 * i]);
        t[N / 2 + i] = hn::ConcatOdd(d, v[2 * i + 1], v[2 * i]);
      }
      for (size_t i = 0; i < N; ++i) v[i] = t[i];
    }
  }
}

// Row r of the N x N block at `p` of an operand whose columns are
// contiguous (col == sizeof(T)) or a stride-0 broadcast (col == 0).
template <class D>
HWY_INLINE auto LoadBlockRow(D d, const char* p, int64_t col)
    -> decltype(hn::Zero(d)) {
  using T = hn::TFromD<D>;
  if (col == 0) return hn::Set(d, row::Load<T>(p));
  return hn::LoadU(d, reinterpret_cast<const T*>(p));
}

// The N x N block at `p` of an operand whose rows are contiguous: N loads
// down its columns, transposed so that v[r] holds row r.
template <class D, class V>
HWY_INLINE void LoadBlockTransposed(D d, const char* p, int64_t col, V* v) {
  using T = hn::TFromD<D>;
  constexpr size_t N = hn::MaxLanes(D());
  for (size_t c = 0; c < N; ++c) {
    v[c] = hn::LoadU(d, reinterpret_cast<const T*>(p + static_cast<int64_t>(c) * col));
  }
  TransposeSquare(d, v);
}

// Whether `x`'s block loads transposed (rows contiguous, columns strided).
template <typename T>
HWY_INLINE bool IsAcross(const PlaneOperand& x) {
  return x.row == static_cast<int64_t>(sizeof(T)) &&
         x.col != static_cast<int64_t>(sizeof(T)) && x.col != 0;
}

// out block (r0, c0) = a op b; `out`'s columns are contiguous.
template <class Op, typename T>
HWY_INLINE void BinaryBlock(const PlaneOperand& a, bool a_across,
                            const PlaneOperand& b, bool b_across, char* out,
                            int64_t out_row, int64_t r0, int64_t c0) {
  const BlockTag<T> d;
  using V = decltype(hn::Zero(d));
  constexpr int64_t N = static_cast<int64_t>(hn::MaxLanes(BlockTag<T>()));
  const char* pa = a.p + r0 * a.row + c0 * a.col;
  const char* pb = b.p + r0 * b.row + c0 * b.col;
  char* po = out + r0 * out_row + c0 * static_cast<int64_t>(sizeof(T));
  V va[N];
  V vb[N];
  if (a_across) LoadBlockTransposed(d, pa, a.col, va);
  if (b_across) LoadBlockTransposed(d, pb, b.col, vb);
  for (int64_t r = 0; r < N; ++r) {
    const V x = a_across ? va[r] : LoadBlockRow(d, pa + r * a.row, a.col);
    const V y = b_across ? vb[r] : LoadBlockRow(d, pb + r * b.row, b.col);
    hn::StoreU(Op::Vector(d, x, y), d, reinterpret_cast<T*>(po + r * out_row));
  }
}

// Rows [r0, r1), columns [c0, cols) one element at a time (the edges of an
// in-place plane).
template <class Op, typename T>
HWY_INLINE void PlaneEdge(const PlaneOperand& a, const PlaneOperand& b,
                          char* out, int64_t out_row, int64_t r0, int64_t r1,
                          int64_t c0, int64_t cols) {
  constexpr int64_t kSize = sizeof(T);
  for (int64_t r = r0; r < r1; ++r) {
    for (int64_t c = c0; c < cols; ++c) {
      row::Store<T>(Op::template Scalar<T>(
                        row::Load<T>(a.p + r * a.row + c * a.col),
                        row::Load<T>(b.p + r * b.row + c * b.col)),
                    out + r * out_row + c * kSize);
    }
  }
}

// One strip of N rows from r0: full blocks, then the column edge.
template <class Op, typename T>
HWY_INLINE void BinaryBlockStrip(const PlaneOperand& a, bool a_across,
                                 const PlaneOperand& b, bool b_across,
                                 char* out, int64_t out_row, int64_t r0,
                                 int64_t cols, bool redo_edges) {
  constexpr int64_t N = static_cast<int64_t>(hn::MaxLanes(BlockTag<T>()));
  const int64_t full_cols = cols - cols % N;
  for (int64_t c0 = 0; c0 < full_cols; c0 += N) {
    BinaryBlock<Op, T>(a, a_across, b, b_across, out, out_row, r0, c0);
  }
  if (full_cols == cols) return;
  if (redo_edges) {
    BinaryBlock<Op, T>(a, a_across, b, b_across, out, out_row, r0, cols - N);
  } else {
    PlaneEdge<Op, T>(a, b, out, out_row, r0, r0 + N, full_cols, cols);
  }
}

// The blocked walk (see the top of this file). Requires: `out`'s columns
// contiguous, rows >= N and cols >= N, every pointer and stride aligned for
// T, at least one input IsAcross and each input IsAcross or with columns
// contiguous or stride 0.
template <class Op, typename T>
HWY_NOINLINE void BinaryTransposedBlocks(const PlaneOperand& a,
                                         const PlaneOperand& b, char* out,
                                         int64_t out_row, int64_t rows,
                                         int64_t cols) {
  constexpr int64_t kSize = sizeof(T);
  constexpr int64_t N = static_cast<int64_t>(hn::MaxLanes(BlockTag<T>()));
  const bool a_across = IsAcross<T>(a);
  const bool b_across = IsAcross<T>(b);
  // In place, an element computed twice would read its own new value.
  auto is_out = [&](const PlaneOperand& x) {
    return x.p == out && x.row == out_row && x.col == kSize;
  };
  const bool redo_edges = !is_out(a) && !is_out(b);
  const int64_t full_rows = rows - rows % N;
  for (int64_t r0 = 0; r0 < full_rows; r0 += N) {
    BinaryBlockStrip<Op, T>(a, a_across, b, b_across, out, out_row, r0, cols,
                            redo_edges);
  }
  if (full_rows == rows) return;
  if (redo_edges) {
    BinaryBlockStrip<Op, T>(a, a_across, b, b_across, out, out_row, rows - N,
                            cols, redo_edges);
  } else {
    PlaneEdge<Op, T>(a, b, out, out_row, full_rows, rows, 0, cols);
  }
}

#endif  // HWY_TARGET != HWY_SCALAR

// Whether the plane suits the blocked walk; if so, runs it. The plane is
// already oriented so that the output's columns are the contiguous ones when
// either is. False (nothing written) for a plane without a transposed input,
// smaller than a block, or misaligned, for ops without a vector form on T,
// and on the scalar target.
template <class Op, typename T>
bool TryTransposedBlocks(const PlaneOperand& a, const PlaneOperand& b,
                         char* out, int64_t out_row, int64_t out_col,
                         int64_t rows, int64_t cols) {
#if HWY_TARGET != HWY_SCALAR
  if constexpr (Op::template kVector<T>) {
    constexpr int64_t kSize = sizeof(T);
    constexpr int64_t N = static_cast<int64_t>(hn::MaxLanes(BlockTag<T>()));
    const bool a_across = IsAcross<T>(a);
    const bool b_across = IsAcross<T>(b);
    auto loads_rows = [](const PlaneOperand& x) {
      return x.col == kSize || x.col == 0;
    };
    const uint64_t bits =
        reinterpret_cast<uintptr_t>(a.p) | reinterpret_cast<uintptr_t>(b.p) |
        reinterpret_cast<uintptr_t>(out) |
        static_cast<uint64_t>(a.row | a.col | b.row | b.col | out_row);
    if (out_col == kSize && rows >= N && cols >= N && (a_across || b_across) &&
        (a_across || loads_rows(a)) && (b_across || loads_rows(b)) &&
        bits % alignof(T) == 0) {
      BinaryTransposedBlocks<Op, T>(a, b, out, out_row, rows, cols);
      return true;
    }
  }
#endif
  return false;
}

}  // namespace HWY_NAMESPACE
}  // namespace kernels
}  // namespace tessera
HWY_AFTER_NAMESPACE();

#endif  // TESSERA_TENSOR_KERNELS_BINARY_PLANE_INL_H_
