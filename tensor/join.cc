// Copyright 2026 The Tessera Authors.
//
// Joining and splitting (join.h).

#include "tensor/join.h"

#include <cstdint>
#include <cstring>
#include <optional>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_format.h"
#include "absl/types/span.h"
#include "tensor/internal/along_axis.h"
#include "tensor/internal/thread_pool.h"
#include "tensor/view.h"

namespace tessera {
namespace {

int64_t Product(absl::Span<const int64_t> extents) {
  int64_t n = 1;
  for (int64_t e : extents) n *= e;
  return n;
}

// memcpy of `bytes`, split over the thread pool from kParallelMinBytes up:
// one core does not saturate the memory bandwidth of a large copy.
void CopyBytes(char* dst, const char* src, int64_t bytes) {
  if (bytes <= 0) return;
  internal::ParallelFill(bytes, 1, [&](int64_t begin, int64_t end) {
    std::memcpy(dst + begin, src + begin, static_cast<size_t>(end - begin));
  });
}

// Copies `outer` blocks of `chunk` bytes, src contiguous, dst every
// `row_bytes`. Blocks of a fixed small size (stack along the last axis:
// one element per block) are copied with a constant-size memcpy, which the
// compiler turns into one load and one store; the library call per element
// would cost ~4x.
template <size_t kChunk>
void CopyFixedBlocks(char* dst, int64_t row_bytes, const char* src,
                     int64_t outer) {
  for (int64_t o = 0; o < outer; ++o) {
    std::memcpy(dst + o * row_bytes, src + o * static_cast<int64_t>(kChunk),
                kChunk);
  }
}

void CopyBlocks(char* dst, int64_t row_bytes, const char* src, int64_t chunk,
                int64_t outer) {
  switch (chunk) {
    case 1: return CopyFixedBlocks<1>(dst, row_bytes, src, outer);
    case 2: return CopyFixedBlocks<2>(dst, row_bytes, src, outer);
    case 4: return CopyFixedBlocks<4>(dst, row_bytes, src, outer);
    case 8: return CopyFixedBlocks<8>(dst, row_bytes, src, outer);
    case 16: return CopyFixedBlocks<16>(dst, row_bytes, src, outer);
    case 32: return CopyFixedBlocks<32>(dst, row_bytes, src, outer);
    default:
      for (int64_t o = 0; o < outer; ++o) {
        std::memcpy(dst + o * row_bytes, src + o * chunk,
                    static_cast<size_t>(chunk));
      }
  }
}

// Interleaves `srcs.size()` contiguous inputs of `kChunk`-byte blocks into
// rows of dst (stack along the last axis, hstack of columns): one pass over
// the output. Copying each input on its own wrote every output line once per
// input (stack of two 1e6 float32 along axis 1: 0.77 ms, NumPy 0.64 ms).
template <size_t kChunk>
void InterleaveFixedBlocks(char* dst, absl::Span<const char* const> srcs,
                           int64_t outer) {
  const size_t k = srcs.size();
  // Two inputs (stack of a pair, the common case) get a loop of their own:
  // through the general one, with its inner loop over inputs, stack(axis=1)
  // of two 1e6 float32 took 0.90 ms against 0.41.
  if (k == 2) {
    const char* a = srcs[0];
    const char* b = srcs[1];
    for (int64_t o = 0; o < outer; ++o) {
      std::memcpy(dst, a + o * static_cast<int64_t>(kChunk), kChunk);
      std::memcpy(dst + kChunk, b + o * static_cast<int64_t>(kChunk), kChunk);
      dst += 2 * kChunk;
    }
    return;
  }
  for (int64_t o = 0; o < outer; ++o) {
    for (size_t i = 0; i < k; ++i) {
      std::memcpy(dst, srcs[i] + o * static_cast<int64_t>(kChunk), kChunk);
      dst += kChunk;
    }
  }
}

// InterleaveFixedBlocks for a block size known only at run time; false when
// `chunk` is not one it has a fixed-size copy for.
bool InterleaveBlocks(char* dst, absl::Span<const char* const> srcs,
                      int64_t chunk, int64_t outer) {
  switch (chunk) {
    case 1: InterleaveFixedBlocks<1>(dst, srcs, outer); return true;
    case 2: InterleaveFixedBlocks<2>(dst, srcs, outer); return true;
    case 4: InterleaveFixedBlocks<4>(dst, srcs, outer); return true;
    case 8: InterleaveFixedBlocks<8>(dst, srcs, outer); return true;
    case 16: InterleaveFixedBlocks<16>(dst, srcs, outer); return true;
    default: return false;
  }
}

// A view of `out` covering [start, start + length) along `axis`.
absl::StatusOr<Tensor> AxisRange(const Tensor& out, int axis, int64_t start,
                                 int64_t length) {
  return slice(out, axis, Slice(start, start + length, 1));
}

// A flat view of `t` when it is C-contiguous, else a flat copy.
absl::StatusOr<Tensor> Flat(const Tensor& t) { return ravel(t); }

}  // namespace

absl::StatusOr<Tensor> concatenate(absl::Span<const Tensor> tensors,
                                   std::optional<int> axis,
                                   Allocator* allocator) {
  if (tensors.empty()) {
    return absl::InvalidArgumentError("need at least one array to concatenate");
  }
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (!tensors[i].valid()) {
      return absl::InvalidArgumentError(
          absl::StrFormat("concatenate: input %d is an empty handle", i));
    }
  }
  if (!axis.has_value()) {
    std::vector<Tensor> flat;
    flat.reserve(tensors.size());
    for (const Tensor& t : tensors) {
      auto f = Flat(t);
      if (!f.ok()) return f.status();
      flat.push_back(*std::move(f));
    }
    return concatenate(flat, 0, allocator);
  }
  const int nd = tensors[0].ndim();
  if (nd == 0) {
    return absl::InvalidArgumentError(
        "zero-dimensional arrays cannot be concatenated");
  }
  auto a = NormalizeAxis(*axis, nd);
  if (!a.ok()) return a.status();
  DType dtype = tensors[0].dtype();
  Shape shape = tensors[0].shape();
  shape[*a] = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    if (t.ndim() != nd) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "all the input arrays must have the same number of dimensions, but "
          "the array at index 0 has %d dimension(s) and the array at index %d "
          "has %d dimension(s)",
          nd, i, t.ndim()));
    }
    for (int k = 0; k < nd; ++k) {
      if (k != *a && t.shape(k) != tensors[0].shape(k)) {
        return absl::InvalidArgumentError(absl::StrFormat(
            "all the input array dimensions except for the concatenation axis "
            "must match exactly, but along dimension %d, the array at index 0 "
            "has size %d and the array at index %d has size %d",
            k, tensors[0].shape(k), i, t.shape(k)));
      }
    }
    if (__builtin_add_overflow(shape[*a], t.shape(*a), &shape[*a])) {
      return absl::InvalidArgumentError(
          "concatenate: the joined extent overflows int64");
    }
    dtype = ResultType(dtype, t.dtype());
  }
  auto out = empty(shape, dtype, allocator);
  if (!out.ok() || out->size() == 0) return out;
  const int64_t itemsize = static_cast<int64_t>(DTypeSize(dtype));
  const int64_t outer = Product(absl::MakeConstSpan(shape).subspan(0, *a));
  const int64_t inner = Product(absl::MakeConstSpan(shape).subspan(*a + 1));
  const int64_t row_bytes = shape[*a] * inner * itemsize;
  char* base = static_cast<char*>(out->mutable_data());
  if (outer > 1 && tensors.size() > 1) {
    // Inputs of one block size, contiguous and of the output's dtype, are
    // interleaved row by row (one pass over the output).
    std::vector<const char*> srcs;
    const int64_t chunk = tensors[0].shape(*a) * inner * itemsize;
    for (const Tensor& t : tensors) {
      if (t.dtype() != dtype || !t.c_contiguous() ||
          t.shape(*a) * inner * itemsize != chunk) {
        srcs.clear();
        break;
      }
      srcs.push_back(static_cast<const char*>(t.data()));
    }
    if (!srcs.empty() && InterleaveBlocks(base, srcs, chunk, outer)) {
      return out;
    }
  }
  int64_t start = 0;
  for (const Tensor& t : tensors) {
    const int64_t length = t.shape(*a);
    if (length == 0) continue;
    const int64_t chunk = length * inner * itemsize;
    if (t.dtype() == dtype && t.c_contiguous()) {
      const char* src = static_cast<const char*>(t.data());
      char* dst = base + start * inner * itemsize;
      if (outer == 1) {
        CopyBytes(dst, src, chunk);
      } else {
        CopyBlocks(dst, row_bytes, src, chunk, outer);
      }
    } else {
      auto part = AxisRange(*out, *a, start, length);
      if (!part.ok()) return part.status();
      if (auto s = CopyInto(t, *part); !s.ok()) return s;
    }
    start += length;
  }
  return out;
}

absl::StatusOr<Tensor> stack(absl::Span<const Tensor> tensors, int axis,
                             Allocator* allocator) {
  if (tensors.empty()) {
    return absl::InvalidArgumentError("need at least one array to stack");
  }
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (!tensors[i].valid() || tensors[i].shape() != tensors[0].shape()) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "all input arrays must have the same shape, but the array at index "
          "0 has shape %s and the array at index %d has shape %s",
          ShapeString(tensors[0].shape()), i,
          tensors[i].valid() ? ShapeString(tensors[i].shape()) : "(none)"));
    }
  }
  auto a = NormalizeAxis(axis, tensors[0].ndim() + 1);
  if (!a.ok()) return a.status();
  std::vector<Tensor> expanded;
  expanded.reserve(tensors.size());
  for (const Tensor& t : tensors) {
    auto e = expand_dims(t, *a);
    if (!e.ok()) return e.status();
    expanded.push_back(*std::move(e));
  }
  return concatenate(expanded, *a, allocator);
}

absl::StatusOr<Tensor> hstack(absl::Span<const Tensor> tensors,
                              Allocator* allocator) {
  if (tensors.empty()) {
    return absl::InvalidArgumentError("need at least one array to concatenate");
  }
  std::vector<Tensor> arrays;
  for (const Tensor& t : tensors) {
    if (!t.valid()) return absl::InvalidArgumentError("hstack: empty handle");
    if (t.ndim() == 0) {
      auto r = reshape(t, {1});
      if (!r.ok()) return r.status();
      arrays.push_back(*std::move(r));
    } else {
      arrays.push_back(t);
    }
  }
  return concatenate(arrays, arrays[0].ndim() == 1 ? 0 : 1, allocator);
}

absl::StatusOr<Tensor> vstack(absl::Span<const Tensor> tensors,
                              Allocator* allocator) {
  std::vector<Tensor> arrays;
  for (const Tensor& t : tensors) {
    if (!t.valid()) return absl::InvalidArgumentError("vstack: empty handle");
    if (t.ndim() < 2) {
      auto r = reshape(t, {1, t.ndim() == 0 ? 1 : t.shape(0)});
      if (!r.ok()) return r.status();
      arrays.push_back(*std::move(r));
    } else {
      arrays.push_back(t);
    }
  }
  return concatenate(arrays, 0, allocator);
}

absl::StatusOr<std::vector<Tensor>> array_split(const Tensor& t,
                                                int64_t sections, int axis) {
  if (sections <= 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "number sections must be larger than 0, not %d", sections));
  }
  auto a = NormalizeAxis(axis, t.ndim());
  if (!a.ok()) return a.status();
  const int64_t n = t.shape(*a);
  const int64_t each = n / sections, extras = n % sections;
  std::vector<Tensor> parts;
  parts.reserve(static_cast<size_t>(sections));
  int64_t start = 0;
  for (int64_t i = 0; i < sections; ++i) {
    const int64_t length = each + (i < extras ? 1 : 0);
    auto v = AxisRange(t, *a, start, length);
    if (!v.ok()) return v.status();
    parts.push_back(*std::move(v));
    start += length;
  }
  return parts;
}

absl::StatusOr<std::vector<Tensor>> split(const Tensor& t, int64_t sections,
                                          int axis) {
  if (sections <= 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "number sections must be larger than 0, not %d", sections));
  }
  auto a = NormalizeAxis(axis, t.ndim());
  if (!a.ok()) return a.status();
  if (t.shape(*a) % sections != 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "array split does not result in an equal division: extent %d of axis "
        "%d into %d sections",
        t.shape(*a), *a, sections));
  }
  return array_split(t, sections, *a);
}

absl::StatusOr<std::vector<Tensor>> split(const Tensor& t,
                                          absl::Span<const int64_t> indices,
                                          int axis) {
  auto a = NormalizeAxis(axis, t.ndim());
  if (!a.ok()) return a.status();
  std::vector<Tensor> parts;
  parts.reserve(indices.size() + 1);
  std::optional<int64_t> start = 0;
  for (size_t i = 0; i <= indices.size(); ++i) {
    std::optional<int64_t> stop;
    if (i < indices.size()) stop = indices[i];
    auto v = slice(t, *a, Slice(start, stop, 1));
    if (!v.ok()) return v.status();
    parts.push_back(*std::move(v));
    start = stop;
  }
  return parts;
}

absl::StatusOr<Tensor> tile(const Tensor& t, absl::Span<const int64_t> reps,
                            Allocator* allocator) {
  if (!t.valid()) return absl::InvalidArgumentError("tile: empty handle");
  for (size_t k = 0; k < reps.size(); ++k) {
    if (reps[k] < 0) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "tile: negative repetition %d for axis %d", reps[k], k));
    }
  }
  const int nd = std::max<int>(t.ndim(), static_cast<int>(reps.size()));
  Shape shape(nd, 1), in_strides(nd, 0), r(nd, 1);
  for (int k = 0; k < t.ndim(); ++k) {
    shape[nd - t.ndim() + k] = t.shape(k);
    in_strides[nd - t.ndim() + k] = t.strides()[k];
  }
  for (size_t k = 0; k < reps.size(); ++k) r[nd - reps.size() + k] = reps[k];
  // View (r0, s0, r1, s1, ...) with stride 0 on the repetition axes, copied
  // out in C order, is the tiled tensor with its axes pairwise merged.
  Shape view_shape, view_strides, out_shape;
  for (int k = 0; k < nd; ++k) {
    view_shape.push_back(r[k]);
    view_strides.push_back(0);
    view_shape.push_back(shape[k]);
    view_strides.push_back(in_strides[k]);
    int64_t e;
    if (__builtin_mul_overflow(r[k], shape[k], &e)) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "tile: %d repetitions of extent %d overflow", r[k], shape[k]));
    }
    out_shape.push_back(e);
  }
  if (auto c = CheckedElementCount(out_shape, t.itemsize()); !c.ok()) {
    return c.status();
  }
  const Tensor view = Tensor::UncheckedView(
      t.storage(), t.dtype(), view_shape, view_strides, t.offset(),
      /*writeable=*/false, /*owns_data=*/false);
  auto c = copy(view, allocator);
  if (!c.ok()) return c.status();
  return Tensor::UncheckedContiguous(c->storage(), t.dtype(), out_shape,
                                     c->size());
}

absl::StatusOr<Tensor> repeat(const Tensor& t,
                              absl::Span<const int64_t> repeats,
                              std::optional<int> axis, Allocator* allocator) {
  if (!t.valid()) return absl::InvalidArgumentError("repeat: empty handle");
  // NumPy's PyArray_CheckAxis: no axis repeats the flattened tensor, and a
  // 0-d tensor is one of shape (1,), also with axis 0 or -1.
  auto operand = internal::FlattenOrNormalizeAxisRavelingZeroD(t, axis);
  if (!operand.ok()) return operand.status();
  const int a = operand->axis;
  Tensor src = operand->tensor;
  if (!src.c_contiguous()) {
    auto c = copy(src);
    if (!c.ok()) return c.status();
    src = *std::move(c);
  }
  const int64_t n = src.shape(a);
  if (repeats.size() != 1 && static_cast<int64_t>(repeats.size()) != n) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "repeat: %d repeats for axis %d of extent %d (need 1 or %d)",
        repeats.size(), a, n, n));
  }
  int64_t total = 0;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t r = repeats.size() == 1 ? repeats[0] : repeats[i];
    if (r < 0) {
      return absl::InvalidArgumentError(
          absl::StrFormat("repeats may not contain negative values (%d)", r));
    }
    if (__builtin_add_overflow(total, r, &total)) {
      return absl::InvalidArgumentError("repeat: the result extent overflows");
    }
  }
  if (repeats.size() == 1 && repeats[0] < 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "repeats may not contain negative values (%d)", repeats[0]));
  }
  Shape shape = src.shape();
  shape[a] = total;
  auto out = empty(shape, src.dtype(), allocator);
  if (!out.ok() || out->size() == 0) return out;
  const int64_t outer =
      Product(absl::MakeConstSpan(src.shape()).subspan(0, a));
  const size_t inner = static_cast<size_t>(
      Product(absl::MakeConstSpan(src.shape()).subspan(a + 1)) *
      static_cast<int64_t>(src.itemsize()));
  const char* in = static_cast<const char*>(src.data());
  char* dst = static_cast<char*>(out->mutable_data());
  auto copies = [&](auto zero) {
    using U = decltype(zero);
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i = 0; i < n; ++i, in += sizeof(U)) {
        U v;
        std::memcpy(&v, in, sizeof(U));
        const int64_t r = repeats.size() == 1 ? repeats[0] : repeats[i];
        U* d = reinterpret_cast<U*>(dst);
        for (int64_t k = 0; k < r; ++k) d[k] = v;
        dst += r * static_cast<int64_t>(sizeof(U));
      }
    }
  };
  if (inner == 1) {
    copies(uint8_t{});
  } else if (inner == 2) {
    copies(uint16_t{});
  } else if (inner == 4) {
    copies(uint32_t{});
  } else if (inner == 8) {
    copies(uint64_t{});
  } else {
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i = 0; i < n; ++i, in += inner) {
        const int64_t r = repeats.size() == 1 ? repeats[0] : repeats[i];
        for (int64_t k = 0; k < r; ++k, dst += inner) {
          std::memcpy(dst, in, inner);
        }
      }
    }
  }
  return out;
}

absl::StatusOr<Tensor> pad(
    const Tensor& t, absl::Span<const std::pair<int64_t, int64_t>> pad_width,
    Scalar value, Allocator* allocator) {
  if (!t.valid()) return absl::InvalidArgumentError("pad: empty handle");
  const int nd = t.ndim();
  if (pad_width.size() != 1 && static_cast<int>(pad_width.size()) != nd) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "pad: pad_width has %d pairs for a tensor of %d axes (need 1 or %d)",
        pad_width.size(), nd, nd));
  }
  // Every pair is checked, also the one pair given for a 0-d tensor (which
  // pads no axis): np.pad rejects a negative width whatever the ndim.
  for (size_t k = 0; k < pad_width.size(); ++k) {
    const auto [before, after] = pad_width[k];
    if (before < 0 || after < 0) {
      return absl::InvalidArgumentError(
          nd == 0 ? absl::StrFormat("pad: negative pad width (%d, %d) for "
                                    "a 0-d tensor",
                                    before, after)
                  : absl::StrFormat("pad: negative pad width (%d, %d) for axis %d",
                                before, after, k));
    }
  }
  Shape shape = t.shape();
  for (int k = 0; k < nd; ++k) {
    const auto [before, after] = pad_width.size() == 1 ? pad_width[0]
                                                       : pad_width[k];
    if (__builtin_add_overflow(shape[k], before, &shape[k]) ||
        __builtin_add_overflow(shape[k], after, &shape[k])) {
      return absl::InvalidArgumentError(
          absl::StrFormat("pad: axis %d overflows", k));
    }
  }
  auto out = full(shape, value, t.dtype(), allocator);
  if (!out.ok() || t.size() == 0) return out;
  Tensor region = *out;
  for (int k = 0; k < nd; ++k) {
    const int64_t before =
        pad_width.size() == 1 ? pad_width[0].first : pad_width[k].first;
    auto v = AxisRange(region, k, before, t.shape(k));
    if (!v.ok()) return v.status();
    region = *std::move(v);
  }
  if (auto s = CopyInto(t, region); !s.ok()) return s;
  return out;
}

}  // namespace tessera
