// Copyright 2026 The Tessera Authors.
//
// take, put, masked_select, masked_assign, compress, nonzero, argwhere and
// one-argument where (indexing.h).

#include "tensor/indexing.h"

#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
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

// `t` itself when C-contiguous, else a C-contiguous copy: the gathers below
// address elements as base + flat index * itemsize.
absl::StatusOr<Tensor> Contiguous(const Tensor& t) {
  if (t.c_contiguous()) return t;
  return copy(t);
}

absl::Status OutOfBounds(const char* value, int axis, int64_t extent) {
  return absl::InvalidArgumentError(absl::StrFormat(
      "index %s is out of bounds for axis %d with size %d", value, axis,
      extent));
}

// One entry of an index array made non-negative and checked against
// `extent` under `mode`: true with *out set, false (kRaise only) when it is
// out of bounds.
template <typename T>
inline bool NormalizeIndex(T raw, int64_t extent, IndexMode mode,
                           int64_t* out) {
  if constexpr (std::is_unsigned<T>::value && sizeof(T) == 8) {
    if (raw > static_cast<T>(std::numeric_limits<int64_t>::max())) {
      // Past every extent; wrap and clip still need its value.
      if (mode == IndexMode::kRaise) return false;
      *out = mode == IndexMode::kClip
                 ? extent - 1
                 : static_cast<int64_t>(raw % static_cast<uint64_t>(extent));
      return true;
    }
  }
  int64_t v = static_cast<int64_t>(raw);
  if (mode == IndexMode::kClip) {
    // NumPy: clip disables negative indices (they clip to 0).
    *out = v < 0 ? 0 : (v >= extent ? extent - 1 : v);
    return true;
  }
  if (v < -extent || v >= extent) {
    if (mode == IndexMode::kRaise) return false;
    v %= extent;  // kWrap
  }
  if (v < 0) v += extent;
  *out = v;
  return true;
}

// "index N is out of bounds ..." for the raw entry `raw`.
template <typename T>
absl::Status IndexOutOfBounds(T raw, int axis, int64_t extent) {
  return OutOfBounds(absl::StrFormat("%d", raw).c_str(), axis, extent);
}

// The first entry of idx[0, n) out of bounds under `mode`, or n.
template <typename T>
int64_t FirstBadIndex(const T* idx, int64_t n, int64_t extent,
                      IndexMode mode) {
  int64_t v;
  for (int64_t i = 0; i < n; ++i) {
    if (!NormalizeIndex(idx[i], extent, mode, &v)) return i;
  }
  return n;
}

// The checks of an index array shared by every use: an integer (or bool)
// dtype, and no index into an empty axis where NumPy refuses the whole take
// (any mode when the result would not be empty, wrap and clip always: they
// have no element to land on). Returns it C-contiguous.
absl::StatusOr<Tensor> CheckIndices(const Tensor& indices, int64_t extent,
                                    IndexMode mode, bool result_nonempty) {
  if (!indices.valid()) {
    return absl::InvalidArgumentError("index array is an empty handle");
  }
  if (!IsInteger(indices.dtype()) && !IsBool(indices.dtype())) {
    return absl::InvalidArgumentError(
        absl::StrFormat("index array of dtype %s is not an integer dtype",
                        DTypeName(indices.dtype())));
  }
  auto flat = Contiguous(indices);
  if (!flat.ok()) return flat.status();
  if (flat->size() > 0 && extent == 0 &&
      (mode != IndexMode::kRaise || result_nonempty)) {
    return absl::InvalidArgumentError(
        "cannot do a non-empty take from an empty axes.");
  }
  return flat;
}

// Calls fn(p) with `flat`'s entries as a typed pointer (integer or bool
// dtypes; CheckIndices has refused the others).
template <typename Fn>
void VisitIndexEntries(const Tensor& flat, Fn&& fn) {
  VisitDType(flat.dtype(), [&](auto zero) {
    using T = decltype(zero);
    if constexpr (std::is_integral<T>::value) {
      fn(static_cast<const T*>(flat.data()));
    }
  });
}

// The entries of `indices` in C order, made non-negative and checked against
// `extent` under `mode` (`axis` only names the axis in errors).
absl::StatusOr<std::vector<int64_t>> ResolveIndices(
    const Tensor& indices, int64_t extent, int axis, IndexMode mode,
    bool result_nonempty = false) {
  auto flat = CheckIndices(indices, extent, mode, result_nonempty);
  if (!flat.ok()) return flat.status();
  const int64_t n = flat->size();
  std::vector<int64_t> out(static_cast<size_t>(n));
  absl::Status status;
  VisitIndexEntries(*flat, [&](const auto* p) {
    for (int64_t i = 0; i < n; ++i) {
      if (!NormalizeIndex(p[i], extent, mode, &out[i])) {
        status = IndexOutOfBounds(p[i], axis, extent);
        return;
      }
    }
  });
  if (!status.ok()) return status;
  return out;
}

// Calls fn(W{}) with the unsigned type W of `width` bytes (1, 2, 4 or 8) and
// returns true, or returns false for any other width: a row of one of those
// widths moves as one typed load and store instead of a memcpy.
template <typename Fn>
bool VisitElementWidth(size_t width, Fn&& fn) {
  switch (width) {
    case 1: fn(uint8_t{}); return true;
    case 2: fn(uint16_t{}); return true;
    case 4: fn(uint32_t{}); return true;
    case 8: fn(uint64_t{}); return true;
    default: return false;
  }
}

// Copies rows: for each outer block o and each index j, `row` bytes from
// src + (o * extent + idx[j]) * row to the next row of dst.
// (memcpy of sizeof(W) bytes: one load and one store, at any alignment: a
// row of two int8 in a view at an odd offset is a misaligned uint16.)
template <typename W>
void GatherElements(const char* src, char* dst, int64_t outer, int64_t extent,
                    const std::vector<int64_t>& idx) {
  for (int64_t o = 0; o < outer; ++o) {
    const char* block = src + static_cast<size_t>(o * extent) * sizeof(W);
    for (int64_t j : idx) {
      std::memcpy(dst, block + static_cast<size_t>(j) * sizeof(W), sizeof(W));
      dst += sizeof(W);
    }
  }
}

void GatherRows(const char* src, char* dst, int64_t outer, int64_t extent,
                const std::vector<int64_t>& idx, size_t row) {
  // Rows of one element are the common case (a 1-D take): typed loads and
  // stores instead of a variable-size memcpy per element (1e6 random
  // float32 indices: 6.7 -> 4.0 ms CPU, NumPy 4.2 ms, load ~5).
  const bool typed = VisitElementWidth(row, [&](auto w) {
    GatherElements<decltype(w)>(src, dst, outer, extent, idx);
  });
  if (typed) return;
  for (int64_t o = 0; o < outer; ++o) {
    const char* block = src + static_cast<size_t>(o * extent) * row;
    for (int64_t j : idx) {
      std::memcpy(dst, block + static_cast<size_t>(j) * row, row);
      dst += row;
    }
  }
}

// A take whose gathered axis is the outermost (1-D, or rows of a matrix):
// each index is checked as it is used, with no resolved copy of the index
// array. (Resolving 1e6 int64 indices into a vector first cost a zeroed
// 8 MB buffer and a second pass: take of 1e6 float32 2.10 ms against
// NumPy's 1.03 ms.) Returns the index of the first bad entry, or n.
template <typename T>
int64_t GatherResolving(const T* idx, int64_t n, const char* src,
                        int64_t extent, IndexMode mode, size_t row,
                        char* dst) {
  int64_t i = 0;
  const bool typed = VisitElementWidth(row, [&](auto w) {
    constexpr size_t kWidth = sizeof(w);  // a fixed-size memcpy: one move
    for (; i < n; ++i) {
      int64_t v;
      if (!NormalizeIndex(idx[i], extent, mode, &v)) return;
      std::memcpy(dst + static_cast<size_t>(i) * kWidth,
                  src + static_cast<size_t>(v) * kWidth, kWidth);
    }
  });
  if (typed) return i;
  for (; i < n; ++i) {
    int64_t v;
    if (!NormalizeIndex(idx[i], extent, mode, &v)) return i;
    std::memcpy(dst + static_cast<size_t>(i) * row,
                src + static_cast<size_t>(v) * row, row);
  }
  return n;
}

// Branch-free compaction of `n` elements of width W under a 0/1 byte mask:
// every element is stored, the output advances by the mask byte.
template <typename W>
int64_t CompactElements(const W* src, const uint8_t* mask, int64_t n,
                        W* dst) {
  int64_t k = 0;
  for (int64_t i = 0; i < n; ++i) {
    dst[k] = src[i];
    k += mask[i];
  }
  return k;
}

int64_t CountTrue(const uint8_t* mask, int64_t n) {
  int64_t count = 0;
  for (int64_t i = 0; i < n; ++i) count += mask[i];
  return count;
}

// The mask's checks shared by select and assign: bool, at most t.ndim()
// axes, each matching t's leading extents. Returns the contiguous mask.
absl::StatusOr<Tensor> CheckMask(const Tensor& t, const Tensor& mask) {
  if (!t.valid() || !mask.valid()) {
    return absl::InvalidArgumentError("mask indexing of an empty handle");
  }
  if (mask.dtype() != DType::kBool) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "mask of dtype %s is not bool", DTypeName(mask.dtype())));
  }
  if (mask.ndim() > t.ndim()) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "too many indices for array: array is %d-dimensional, but %d were "
        "indexed",
        t.ndim(), mask.ndim()));
  }
  for (int k = 0; k < mask.ndim(); ++k) {
    if (mask.shape(k) != t.shape(k)) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "boolean index did not match indexed array along dimension %d; "
          "dimension is %d but corresponding boolean dimension is %d",
          k, t.shape(k), mask.shape(k)));
    }
  }
  return Contiguous(mask);
}

// Positions of the non-zero elements of contiguous `t`, flat.
std::vector<int64_t> FlatNonzero(const Tensor& t) {
  std::vector<int64_t> out;
  const int64_t n = t.size();
  VisitDType(t.dtype(), [&](auto zero) {
    using T = decltype(zero);
    const T* p = static_cast<const T*>(t.data());
    for (int64_t i = 0; i < n; ++i) {
      if constexpr (std::is_same<T, Float16>::value) {
        if ((p[i].bits & 0x7FFF) != 0) out.push_back(i);  // +-0 is zero
      } else if (p[i] != T{}) {
        out.push_back(i);
      }
    }
  });
  return out;
}

}  // namespace

absl::StatusOr<Tensor> take(const Tensor& t, const Tensor& indices,
                            std::optional<int> axis, IndexMode mode,
                            Allocator* allocator) {
  if (!t.valid()) return absl::InvalidArgumentError("take from an empty handle");
  auto src = Contiguous(t);
  if (!src.ok()) return src.status();
  // A 0-d tensor is taken from as one of shape (1,), also with an axis (0
  // or -1): NumPy's PyArray_CheckAxis ravels it first. `src` is contiguous,
  // so the flattened operand is a view of it.
  auto operand = internal::FlattenOrNormalizeAxisRavelingZeroD(*src, axis);
  if (!operand.ok()) return operand.status();
  const Shape& in_shape = operand->tensor.shape();
  const int a = operand->axis;
  const int64_t extent = in_shape[a];
  const internal::AxisSplit split = internal::SplitAtAxis(in_shape, a);
  const size_t row = t.itemsize() * static_cast<size_t>(split.inner);
  Shape out_shape(in_shape.begin(), in_shape.begin() + a);
  out_shape.insert(out_shape.end(), indices.shape().begin(),
                   indices.shape().end());
  out_shape.insert(out_shape.end(), in_shape.begin() + a + 1, in_shape.end());
  bool result_nonempty = true;
  for (int64_t d : out_shape) result_nonempty &= d != 0;
  if (split.outer == 1) {
    auto flat = CheckIndices(indices, extent, mode, result_nonempty);
    if (!flat.ok()) return flat.status();
    auto out = empty(out_shape, t.dtype(), allocator);
    if (!out.ok()) return out.status();
    const int64_t n = flat->size();
    absl::Status status;
    VisitIndexEntries(*flat, [&](const auto* p) {
      // With empty rows nothing is copied, but NumPy still checks the
      // indices.
      const int64_t bad =
          out->size() == 0
              ? FirstBadIndex(p, n, extent, mode)
              : GatherResolving(p, n, static_cast<const char*>(src->data()),
                                extent, mode, row,
                                static_cast<char*>(out->mutable_data()));
      if (bad < n) status = IndexOutOfBounds(p[bad], a, extent);
    });
    if (!status.ok()) return status;
    return out;
  }
  auto idx = ResolveIndices(indices, extent, a, mode, result_nonempty);
  if (!idx.ok()) return idx.status();
  auto out = empty(out_shape, t.dtype(), allocator);
  if (!out.ok()) return out.status();
  if (out->size() > 0) {
    GatherRows(static_cast<const char*>(src->data()),
               static_cast<char*>(out->mutable_data()), split.outer, extent,
               *idx, row);
  }
  return out;
}

absl::Status put(const Tensor& t, const Tensor& indices, const Tensor& values,
                 IndexMode mode) {
  if (!t.valid() || !values.valid()) {
    return absl::InvalidArgumentError("put into or from an empty handle");
  }
  if (!t.writeable()) {
    return absl::InvalidArgumentError("put into a read-only tensor");
  }
  auto idx = ResolveIndices(indices, t.size(), 0, mode);
  if (!idx.ok()) return idx.status();
  if (idx->empty()) return absl::OkStatus();
  if (values.size() == 0) {
    return absl::InvalidArgumentError(
        "put of an empty values tensor into non-empty indices");
  }
  auto v = astype(values, t.dtype());
  if (!v.ok()) return v.status();
  auto work = Contiguous(t);
  if (!work.ok()) return work.status();
  const size_t w = t.itemsize();
  const char* vp = static_cast<const char*>(v->data());
  char* dst = static_cast<char*>(work->mutable_data());
  const size_t nv = static_cast<size_t>(v->size());
  for (size_t i = 0; i < idx->size(); ++i) {
    std::memcpy(dst + static_cast<size_t>((*idx)[i]) * w, vp + (i % nv) * w,
                w);
  }
  if (!t.c_contiguous()) return CopyInto(*work, t);
  return absl::OkStatus();
}

absl::StatusOr<Tensor> masked_select(const Tensor& t, const Tensor& mask,
                                     Allocator* allocator) {
  auto m = CheckMask(t, mask);
  if (!m.ok()) return m.status();
  auto src = Contiguous(t);
  if (!src.ok()) return src.status();
  const uint8_t* mp = static_cast<const uint8_t*>(m->data());
  const int64_t n = m->size();
  const int64_t count = CountTrue(mp, n);
  Shape out_shape{count};
  size_t row = t.itemsize();
  for (int k = mask.ndim(); k < t.ndim(); ++k) {
    out_shape.push_back(t.shape(k));
    row *= static_cast<size_t>(t.shape(k));
  }
  auto out = empty(out_shape, t.dtype(), allocator);
  if (!out.ok() || out->size() == 0) return out;
  const char* sp = static_cast<const char*>(src->data());
  char* dp = static_cast<char*>(out->mutable_data());
  // One element per mask entry, branch-free: every element before the last
  // selected one (at `last`) is stored at the output's next slot, and the
  // slot advances by the mask byte. Before `last` at most count - 1 elements
  // are counted, so every store is inside the output; `last` itself goes
  // to slot count - 1.
  if (row == t.itemsize()) {
    int64_t last = n - 1;
    while (!mp[last]) --last;  // count > 0: some entry is true
    const bool done = VisitElementWidth(row, [&](auto w) {
      using W = decltype(w);
      CompactElements(reinterpret_cast<const W*>(sp), mp, last,
                      reinterpret_cast<W*>(dp));
    });
    if (done) {
      std::memcpy(dp + (count - 1) * row, sp + last * row, row);
      return out;
    }
  }
  for (int64_t i = 0; i < n; ++i) {
    if (mp[i]) {
      std::memcpy(dp, sp + static_cast<size_t>(i) * row, row);
      dp += row;
    }
  }
  return out;
}

absl::Status masked_assign(const Tensor& t, const Tensor& mask,
                           const Tensor& values) {
  auto m = CheckMask(t, mask);
  if (!m.ok()) return m.status();
  if (!values.valid()) {
    return absl::InvalidArgumentError("masked assignment of an empty handle");
  }
  if (!t.writeable()) {
    return absl::InvalidArgumentError("masked assignment to a read-only tensor");
  }
  const uint8_t* mp = static_cast<const uint8_t*>(m->data());
  const int64_t n = m->size();
  const int64_t count = CountTrue(mp, n);
  int64_t row_elems = 1;
  for (int k = mask.ndim(); k < t.ndim(); ++k) row_elems *= t.shape(k);
  const int64_t total = count * row_elems;
  // NumPy's rule: `values` broadcasts to the selection's shape (count,) +
  // t.shape[mask.ndim:] (one value, a row, rows of one value, the
  // selection). Equal element counts are not enough: (3, 2) values do not
  // fill a (2, 3) selection, nor (2, 0) ones a (1, 0) selection. A mask of
  // t's ndim takes NumPy's boolean fast path, whose words are kept.
  Shape selection{count};
  selection.insert(selection.end(), t.shape().begin() + mask.ndim(),
                   t.shape().end());
  auto fits = BroadcastShapes(values.shape(), selection);
  if (!fits.ok() || *fits != selection) {
    if (mask.ndim() == t.ndim() && values.ndim() > 1) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "NumPy boolean array indexing assignment requires a 0 or "
          "1-dimensional input, input has %d dimensions",
          values.ndim()));
    }
    if (mask.ndim() == t.ndim()) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "NumPy boolean array indexing assignment cannot assign %d input "
          "values to the %d output values where the mask is true",
          values.size(), total));
    }
    return absl::InvalidArgumentError(absl::StrFormat(
        "shape mismatch: value array of shape %s could not be broadcast to "
        "indexing result of shape %s",
        ShapeString(values.shape()), ShapeString(selection)));
  }
  if (total == 0) return absl::OkStatus();
  // One value is repeated; anything else is broadcast to the selection
  // once, so that the copy below reads it in order.
  const int64_t period = values.size() == 1 ? 1 : total;
  absl::StatusOr<Tensor> v;
  if (period == 1) {
    v = astype(values, t.dtype());
  } else {
    auto b = broadcast_to(values, selection);
    if (!b.ok()) return b.status();
    v = astype(*b, t.dtype());
  }
  if (!v.ok()) return v.status();
  auto work = Contiguous(t);
  if (!work.ok()) return work.status();
  const size_t w = t.itemsize();
  const char* vp = static_cast<const char*>(v->data());
  char* dp = static_cast<char*>(work->mutable_data());
  int64_t next = 0;  // the selected element's number, modulo period
  for (int64_t i = 0; i < n; ++i) {
    if (!mp[i]) continue;
    char* rowp = dp + static_cast<size_t>(i * row_elems) * w;
    for (int64_t e = 0; e < row_elems; ++e) {
      std::memcpy(rowp + e * w, vp + (next % period) * w, w);
      ++next;
    }
  }
  if (!t.c_contiguous()) return CopyInto(*work, t);
  return absl::OkStatus();
}

absl::Status masked_assign(const Tensor& t, const Tensor& mask, Scalar value) {
  if (!t.valid()) {
    return absl::InvalidArgumentError("masked assignment to an empty handle");
  }
  auto v = full({1}, value, t.dtype());
  if (!v.ok()) return v.status();
  return masked_assign(t, mask, *v);
}

absl::StatusOr<Tensor> compress(const Tensor& condition, const Tensor& t,
                                std::optional<int> axis,
                                Allocator* allocator) {
  if (!t.valid() || !condition.valid()) {
    return absl::InvalidArgumentError("compress of an empty handle");
  }
  if (condition.ndim() != 1) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "condition must be a 1-d array, not of shape %s",
        ShapeString(condition.shape())));
  }
  auto c = Contiguous(condition);
  if (!c.ok()) return c.status();
  std::vector<int64_t> positions = FlatNonzero(*c);
  // As in take: a 0-d tensor is one of shape (1,), also with an axis.
  auto operand = internal::FlattenOrNormalizeAxisRavelingZeroD(t, axis);
  if (!operand.ok()) return operand.status();
  const Tensor& src = operand->tensor;
  const int a = operand->axis;
  const int64_t extent = src.shape(a);
  for (int64_t p : positions) {
    if (p >= extent) {
      return OutOfBounds(absl::StrFormat("%d", p).c_str(), a, extent);
    }
  }
  auto idx = FromVector(positions);
  if (!idx.ok()) return idx.status();
  return take(src, *idx, a, IndexMode::kRaise, allocator);
}

absl::StatusOr<std::vector<Tensor>> nonzero(const Tensor& t,
                                            Allocator* allocator) {
  if (!t.valid()) return absl::InvalidArgumentError("nonzero of an empty handle");
  auto src = Contiguous(t);
  if (!src.ok()) return src.status();
  const std::vector<int64_t> flat = FlatNonzero(*src);
  const int nd = t.ndim() == 0 ? 1 : t.ndim();
  const int64_t count = static_cast<int64_t>(flat.size());
  std::vector<Tensor> out;
  std::vector<int64_t*> columns;
  for (int k = 0; k < nd; ++k) {
    auto c = empty({count}, DType::kInt64, allocator);
    if (!c.ok()) return c.status();
    columns.push_back(static_cast<int64_t*>(c->mutable_data()));
    out.push_back(*std::move(c));
  }
  if (t.ndim() == 0) {
    for (int64_t i = 0; i < count; ++i) columns[0][i] = 0;
    return out;
  }
  for (int64_t i = 0; i < count; ++i) {
    int64_t rest = flat[i];
    for (int k = nd - 1; k >= 0; --k) {
      columns[k][i] = rest % t.shape(k);
      rest /= t.shape(k);
    }
  }
  return out;
}

absl::StatusOr<Tensor> argwhere(const Tensor& t, Allocator* allocator) {
  if (!t.valid()) {
    return absl::InvalidArgumentError("argwhere of an empty handle");
  }
  auto src = Contiguous(t);
  if (!src.ok()) return src.status();
  const std::vector<int64_t> flat = FlatNonzero(*src);
  const int nd = t.ndim();
  const int64_t count = static_cast<int64_t>(flat.size());
  // NumPy: a 0-d input gives shape (count, 0).
  auto out = empty({count, static_cast<int64_t>(nd)}, DType::kInt64,
                   allocator);
  if (!out.ok()) return out.status();
  int64_t* p = static_cast<int64_t*>(out->mutable_data());
  for (int64_t i = 0; i < count; ++i) {
    int64_t rest = flat[i];
    for (int k = nd - 1; k >= 0; --k) {
      p[i * nd + k] = rest % t.shape(k);
      rest /= t.shape(k);
    }
  }
  return out;
}

absl::StatusOr<std::vector<Tensor>> where(const Tensor& condition,
                                          Allocator* allocator) {
  return nonzero(condition, allocator);
}

}  // namespace tessera
