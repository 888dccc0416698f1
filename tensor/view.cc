// Copyright 2026 The Tessera Authors.

#include "tensor/view.h"

#include <algorithm>
#include <limits>
#include <utility>
#include <vector>

#include "absl/strings/str_format.h"

namespace tessera {
namespace {

Tensor MakeView(const Tensor& t, Shape shape, Strides strides, int64_t offset,
                bool writeable) {
  return Tensor::UncheckedView(t.storage(), t.dtype(), std::move(shape),
                               std::move(strides), offset, writeable,
                               /*owns_data=*/false);
}

}  // namespace

absl::StatusOr<int> NormalizeAxis(int axis, int ndim) {
  if (axis < -ndim || axis >= ndim) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "axis %d is out of bounds for tensor of dimension %d", axis, ndim));
  }
  return axis < 0 ? axis + ndim : axis;
}

absl::StatusOr<SliceRange> ResolveSlice(const Slice& s, int64_t extent) {
  if (s.step == 0) {
    return absl::InvalidArgumentError("slice step cannot be zero");
  }
  // Any step of magnitude >= extent selects at most one element, so clamping
  // the most negative step avoids overflow in -step without changing results.
  const int64_t step =
      std::max(s.step, -std::numeric_limits<int64_t>::max());
  const bool backwards = step < 0;
  auto adjust = [&](std::optional<int64_t> bound, int64_t absent) {
    if (!bound.has_value()) return absent;
    int64_t v = *bound;
    if (v < 0) {
      v += extent;
      if (v < 0) v = backwards ? -1 : 0;
    } else if (v >= extent) {
      v = backwards ? extent - 1 : extent;
    }
    return v;
  };
  const int64_t start = adjust(s.start, backwards ? extent - 1 : 0);
  const int64_t stop = adjust(s.stop, backwards ? -1 : extent);
  int64_t length = 0;
  if (backwards) {
    if (stop < start) length = (start - stop - 1) / (-step) + 1;
  } else {
    if (start < stop) length = (stop - start - 1) / step + 1;
  }
  return SliceRange{start, length};
}

absl::StatusOr<Tensor> index(const Tensor& t, absl::Span<const Index> items) {
  int consumed = 0;  // input axes taken by integers and slices
  int ellipses = 0;
  for (const Index& item : items) {
    if (item.kind() == Index::Kind::kInteger ||
        item.kind() == Index::Kind::kSlice) {
      ++consumed;
    } else if (item.kind() == Index::Kind::kEllipsis) {
      ++ellipses;
    }
  }
  if (ellipses > 1) {
    return absl::InvalidArgumentError(
        "an index can only have a single ellipsis");
  }
  if (consumed > t.ndim()) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "too many indices for tensor: tensor is %d-dimensional, but %d were "
        "indexed",
        t.ndim(), consumed));
  }
  Shape shape;
  Strides strides;
  int64_t offset = t.offset();
  int axis = 0;
  auto take_full_axis = [&]() {
    shape.push_back(t.shape(axis));
    strides.push_back(t.strides()[axis]);
    ++axis;
  };
  for (const Index& item : items) {
    switch (item.kind()) {
      case Index::Kind::kInteger: {
        int64_t i = item.integer();
        const int64_t extent = t.shape(axis);
        if (i < -extent || i >= extent) {
          return absl::InvalidArgumentError(absl::StrFormat(
              "index %d is out of bounds for axis %d with size %d", i, axis,
              extent));
        }
        if (i < 0) i += extent;
        offset += i * t.strides()[axis];
        ++axis;
        break;
      }
      case Index::Kind::kSlice: {
        auto range = ResolveSlice(item.slice(), t.shape(axis));
        if (!range.ok()) return range.status();
        const int64_t stride = t.strides()[axis];
        if (range->length > 0) offset += range->start * stride;
        shape.push_back(range->length);
        strides.push_back(range->length > 1 ? stride * item.slice().step
                                            : stride);
        ++axis;
        break;
      }
      case Index::Kind::kNewAxis:
        shape.push_back(1);
        strides.push_back(0);
        break;
      case Index::Kind::kEllipsis:
        for (int n = t.ndim() - consumed; n > 0; --n) take_full_axis();
        break;
    }
  }
  while (axis < t.ndim()) take_full_axis();
  return MakeView(t, std::move(shape), std::move(strides), offset,
                  t.writeable());
}

absl::StatusOr<Tensor> slice(const Tensor& t, int axis, const Slice& s) {
  auto a = NormalizeAxis(axis, t.ndim());
  if (!a.ok()) return a.status();
  std::vector<Index> items(static_cast<size_t>(*a), Index(Slice::All()));
  items.push_back(s);
  return index(t, items);
}

namespace {

// NumPy's _attempt_nocopy_reshape: new strides for `new_shape` over the
// elements of `t` in C order, or nullopt when no strides can express it.
std::optional<Strides> NoCopyStrides(const Tensor& t,
                                     absl::Span<const int64_t> new_shape) {
  // Length-1 axes carry no layout information.
  Shape old_dims;
  Strides old_strides;
  for (int k = 0; k < t.ndim(); ++k) {
    if (t.shape(k) != 1) {
      old_dims.push_back(t.shape(k));
      old_strides.push_back(t.strides()[k]);
    }
  }
  const int old_nd = static_cast<int>(old_dims.size());
  const int new_nd = static_cast<int>(new_shape.size());
  Strides new_strides(new_nd, 0);
  int oi = 0, oj = 1, ni = 0, nj = 1;
  while (ni < new_nd && oi < old_nd) {
    int64_t np = new_shape[ni];
    int64_t op = old_dims[oi];
    while (np != op) {
      if (np < op) {
        np *= new_shape[nj++];
      } else {
        op *= old_dims[oj++];
      }
    }
    // Old axes oi..oj-1 become new axes ni..nj-1: they must be contiguous
    // with each other in C order.
    for (int ok = oi; ok < oj - 1; ++ok) {
      if (old_strides[ok] != old_dims[ok + 1] * old_strides[ok + 1]) {
        return std::nullopt;
      }
    }
    new_strides[nj - 1] = old_strides[oj - 1];
    for (int nk = nj - 1; nk > ni; --nk) {
      new_strides[nk - 1] = new_strides[nk] * new_shape[nk];
    }
    ni = nj++;
    oi = oj++;
  }
  // Trailing length-1 axes.
  const int64_t last = ni >= 1 ? new_strides[ni - 1]
                               : static_cast<int64_t>(t.itemsize());
  for (int nk = ni; nk < new_nd; ++nk) new_strides[nk] = last;
  return new_strides;
}

}  // namespace

absl::StatusOr<Tensor> reshape(const Tensor& t,
                               absl::Span<const int64_t> shape,
                               Allocator* allocator) {
  Shape new_shape(shape.begin(), shape.end());
  int unknown = -1;
  Shape known_extents;
  for (int k = 0; k < static_cast<int>(new_shape.size()); ++k) {
    if (new_shape[k] == -1) {
      if (unknown >= 0) {
        return absl::InvalidArgumentError(
            absl::StrFormat("can only specify one unknown dimension in %s",
                            ShapeString(shape)));
      }
      unknown = k;
    } else if (new_shape[k] < 0) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "negative dimension %d in shape %s", new_shape[k],
          ShapeString(shape)));
    } else {
      known_extents.push_back(new_shape[k]);
    }
  }
  // All at once: a zero extent excuses an overflowing product of the others
  // (as in empty()), in any position.
  auto count = CheckedElementCount(known_extents, t.itemsize());
  if (!count.ok()) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "cannot reshape into shape %s: %s", ShapeString(shape),
        count.status().message()));
  }
  int64_t known = *count;
  if (unknown >= 0) {
    if (known == 0 || t.size() % known != 0) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "cannot reshape tensor of size %d into shape %s", t.size(),
          ShapeString(shape)));
    }
    new_shape[unknown] = t.size() / known;
    known = t.size();
  }
  if (known != t.size()) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "cannot reshape tensor of size %d into shape %s", t.size(),
        ShapeString(shape)));
  }
  if (t.size() == 0) {
    return MakeView(t, new_shape, ContiguousStrides(new_shape, t.itemsize()),
                    t.offset(), t.writeable());
  }
  if (auto strides = NoCopyStrides(t, new_shape)) {
    return MakeView(t, std::move(new_shape), *std::move(strides), t.offset(),
                    t.writeable());
  }
  auto c = copy(t, allocator);
  if (!c.ok()) return c.status();
  Strides strides = ContiguousStrides(new_shape, c->itemsize());
  return Tensor::UncheckedView(c->storage(), c->dtype(), std::move(new_shape),
                               std::move(strides), 0, /*writeable=*/true,
                               /*owns_data=*/true);
}

absl::StatusOr<Tensor> ravel(const Tensor& t, Allocator* allocator) {
  return reshape(t, {-1}, allocator);
}

absl::StatusOr<Tensor> transpose(const Tensor& t, absl::Span<const int> axes) {
  const int nd = t.ndim();
  std::vector<int> perm(nd);
  if (axes.empty()) {
    for (int k = 0; k < nd; ++k) perm[k] = nd - 1 - k;
  } else {
    if (static_cast<int>(axes.size()) != nd) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "axes of length %u don't match tensor of dimension %d", axes.size(),
          nd));
    }
    std::vector<bool> seen(nd, false);
    for (int k = 0; k < nd; ++k) {
      auto a = NormalizeAxis(axes[k], nd);
      if (!a.ok()) return a.status();
      if (seen[*a]) {
        return absl::InvalidArgumentError(
            absl::StrFormat("repeated axis %d in transpose", axes[k]));
      }
      seen[*a] = true;
      perm[k] = *a;
    }
  }
  Shape shape(nd);
  Strides strides(nd);
  for (int k = 0; k < nd; ++k) {
    shape[k] = t.shape(perm[k]);
    strides[k] = t.strides()[perm[k]];
  }
  return MakeView(t, std::move(shape), std::move(strides), t.offset(),
                  t.writeable());
}

absl::StatusOr<Tensor> swapaxes(const Tensor& t, int axis1, int axis2) {
  auto a = NormalizeAxis(axis1, t.ndim());
  if (!a.ok()) return a.status();
  auto b = NormalizeAxis(axis2, t.ndim());
  if (!b.ok()) return b.status();
  std::vector<int> perm(t.ndim());
  for (int k = 0; k < t.ndim(); ++k) perm[k] = k;
  std::swap(perm[*a], perm[*b]);
  return transpose(t, perm);
}

absl::StatusOr<Shape> BroadcastShapes(absl::Span<const int64_t> a,
                                      absl::Span<const int64_t> b) {
  const size_t nd = std::max(a.size(), b.size());
  Shape out(nd);
  for (size_t k = 0; k < nd; ++k) {
    // Right-aligned: missing leading extents act as 1.
    const int64_t ea = k + a.size() >= nd ? a[k + a.size() - nd] : 1;
    const int64_t eb = k + b.size() >= nd ? b[k + b.size() - nd] : 1;
    if (ea == eb || eb == 1) {
      out[k] = ea;
    } else if (ea == 1) {
      out[k] = eb;
    } else {
      return absl::InvalidArgumentError(absl::StrFormat(
          "operands could not be broadcast together with shapes %s %s",
          ShapeString(a), ShapeString(b)));
    }
  }
  return out;
}

absl::StatusOr<Tensor> broadcast_to(const Tensor& t,
                                    absl::Span<const int64_t> shape) {
  const int nd = static_cast<int>(shape.size());
  const int lead = nd - t.ndim();
  auto mismatch = [&]() {
    return absl::InvalidArgumentError(absl::StrFormat(
        "cannot broadcast a tensor of shape %s to shape %s",
        ShapeString(t.shape()), ShapeString(shape)));
  };
  if (lead < 0) return mismatch();
  // A size-1 input can be broadcast to any shape: the count must still fit.
  auto count = CheckedElementCount(shape, t.itemsize());
  if (!count.ok()) return count.status();
  Strides strides(nd, 0);
  for (int k = 0; k < nd; ++k) {
    if (shape[k] < 0) return mismatch();
    if (k < lead) continue;
    const int64_t extent = t.shape(k - lead);
    if (extent == shape[k]) {
      strides[k] = t.strides()[k - lead];
    } else if (extent != 1) {
      return mismatch();
    }
  }
  return MakeView(t, Shape(shape.begin(), shape.end()), std::move(strides),
                  t.offset(), /*writeable=*/false);
}

absl::StatusOr<Tensor> squeeze(const Tensor& t, std::optional<int> axis) {
  int only = -1;
  if (axis.has_value()) {
    auto a = NormalizeAxis(*axis, t.ndim());
    if (!a.ok()) return a.status();
    if (t.shape(*a) != 1) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "cannot squeeze axis %d of shape %s: its size is not one", *axis,
          ShapeString(t.shape())));
    }
    only = *a;
  }
  Shape shape;
  Strides strides;
  for (int k = 0; k < t.ndim(); ++k) {
    const bool drop = only >= 0 ? k == only : t.shape(k) == 1;
    if (drop) continue;
    shape.push_back(t.shape(k));
    strides.push_back(t.strides()[k]);
  }
  return MakeView(t, std::move(shape), std::move(strides), t.offset(),
                  t.writeable());
}

absl::StatusOr<Tensor> squeeze(const Tensor& t, absl::Span<const int> axes) {
  std::vector<bool> drop(t.ndim(), false);
  for (int axis : axes) {
    auto a = NormalizeAxis(axis, t.ndim());
    if (!a.ok()) return a.status();
    if (drop[*a]) {
      return absl::InvalidArgumentError(
          absl::StrFormat("repeated axis %d in squeeze", axis));
    }
    if (t.shape(*a) != 1) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "cannot squeeze axis %d of shape %s: its size is not one", axis,
          ShapeString(t.shape())));
    }
    drop[*a] = true;
  }
  Shape shape;
  Strides strides;
  for (int k = 0; k < t.ndim(); ++k) {
    if (drop[k]) continue;
    shape.push_back(t.shape(k));
    strides.push_back(t.strides()[k]);
  }
  return MakeView(t, std::move(shape), std::move(strides), t.offset(),
                  t.writeable());
}

absl::StatusOr<Tensor> expand_dims(const Tensor& t,
                                   absl::Span<const int> axes) {
  const int out_ndim = t.ndim() + static_cast<int>(axes.size());
  std::vector<bool> inserted(out_ndim, false);
  for (int axis : axes) {
    auto a = NormalizeAxis(axis, out_ndim);
    if (!a.ok()) return a.status();
    if (inserted[*a]) {
      return absl::InvalidArgumentError(
          absl::StrFormat("repeated axis %d in expand_dims", axis));
    }
    inserted[*a] = true;
  }
  Shape shape;
  Strides strides;
  int next = 0;  // the input axis that comes next
  for (int k = 0; k < out_ndim; ++k) {
    if (inserted[k]) {
      shape.push_back(1);
      strides.push_back(0);
    } else {
      shape.push_back(t.shape(next));
      strides.push_back(t.strides()[next]);
      ++next;
    }
  }
  return MakeView(t, std::move(shape), std::move(strides), t.offset(),
                  t.writeable());
}

absl::StatusOr<Tensor> expand_dims(const Tensor& t, int axis) {
  auto a = NormalizeAxis(axis, t.ndim() + 1);
  if (!a.ok()) return a.status();
  Shape shape(t.shape().begin(), t.shape().end());
  Strides strides(t.strides().begin(), t.strides().end());
  shape.insert(shape.begin() + *a, 1);
  strides.insert(strides.begin() + *a, 0);
  return MakeView(t, std::move(shape), std::move(strides), t.offset(),
                  t.writeable());
}

}  // namespace tessera
