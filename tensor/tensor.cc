// Copyright 2026 The Tessera Authors.

#include "tensor/tensor.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "alloc/default_allocator.h"
#include "tensor/internal/strided_loop.h"
#include "tensor/internal/thread_pool.h"
#include "tensor/kernels/fill.h"
#include "tensor/kernels/float16_convert.h"

namespace tessera {
namespace {

Allocator& Resolve(Allocator* allocator) {
  return allocator != nullptr ? *allocator : DefaultAllocator();
}

// [lowest, highest] byte offsets (relative to element 0) that the elements
// of a layout touch, highest including the last element's bytes. Tensors
// built by this library never overflow; `ok` is false when caller-supplied
// strides (ViewOf, FromBuffer) would.
struct ByteExtent {
  int64_t lo = 0;
  int64_t hi = 0;
  bool ok = true;
};

ByteExtent CheckedExtent(absl::Span<const int64_t> shape,
                         absl::Span<const int64_t> strides, size_t itemsize) {
  ByteExtent e;
  for (size_t k = 0; k < shape.size(); ++k) {
    if (shape[k] == 0) return ByteExtent{};
  }
  for (size_t k = 0; k < shape.size(); ++k) {
    int64_t span;
    if (__builtin_mul_overflow(shape[k] - 1, strides[k], &span) ||
        __builtin_add_overflow(span < 0 ? e.lo : e.hi, span,
                               span < 0 ? &e.lo : &e.hi)) {
      e.ok = false;
      return e;
    }
  }
  if (__builtin_add_overflow(e.hi, static_cast<int64_t>(itemsize), &e.hi)) {
    e.ok = false;
  }
  return e;
}

std::pair<int64_t, int64_t> Extent(absl::Span<const int64_t> shape,
                                   absl::Span<const int64_t> strides,
                                   size_t itemsize) {
  const ByteExtent e = CheckedExtent(shape, strides, itemsize);
  return {e.lo, e.hi};
}

template <typename T>
void FillTyped(void* data, int64_t n, T value) {
  T* p = static_cast<T*>(data);
  std::fill(p, p + n, value);
}

void FillContiguous(const Tensor& t, const Scalar& value) {
  VisitDType(t.dtype(), [&](auto zero) {
    using T = decltype(zero);
    FillTyped<T>(t.mutable_data(), t.size(), value.As<T>());
  });
}

// Copies rows of `n` elements with per-operand byte strides, converting.
template <typename To, typename From>
void ConvertRow(const char* src, int64_t src_stride, char* dst,
                int64_t dst_stride, int64_t n) {
  if (std::is_same<To, From>::value && src_stride == sizeof(From) &&
      dst_stride == sizeof(To)) {
    std::memmove(dst, src, static_cast<size_t>(n) * sizeof(To));
    return;
  }
  if constexpr ((kIsFloat16<To> && std::is_same<From, float>::value) ||
                (kIsFloat16<From> && std::is_same<To, float>::value)) {
    // float32 <-> float16 rows, which every float16 op takes twice or three
    // times: the SIMD kernels (same values as ConvertValue, bit for bit).
    const bool aligned = reinterpret_cast<uintptr_t>(src) % alignof(From) == 0 &&
                         reinterpret_cast<uintptr_t>(dst) % alignof(To) == 0;
    if (aligned && src_stride == sizeof(From) && dst_stride == sizeof(To)) {
      if constexpr (kIsFloat16<To>) {
        kernels::Float32ToFloat16(reinterpret_cast<const float*>(src),
                                  reinterpret_cast<uint16_t*>(dst),
                                  static_cast<size_t>(n));
      } else {
        kernels::Float16ToFloat32(reinterpret_cast<const uint16_t*>(src),
                                  reinterpret_cast<float*>(dst),
                                  static_cast<size_t>(n));
      }
      return;
    }
  }
  for (int64_t i = 0; i < n; ++i) {
    From value;
    std::memcpy(&value, src + i * src_stride, sizeof(From));
    const To converted = ConvertValue<To>(value);
    std::memcpy(dst + i * dst_stride, &converted, sizeof(To));
  }
}

using ConvertRowFn = void (*)(const char*, int64_t, char*, int64_t, int64_t);

// One row converter per (from, to) pair, picked once per copy: a table of
// function pointers keeps the 144 pairs from each instantiating the N-d loop.
ConvertRowFn ConvertRowFor(DType from, DType to) {
  return VisitDType(from, [to](auto src_zero) {
    using From = decltype(src_zero);
    return VisitDType(to, [](auto dst_zero) -> ConvertRowFn {
      using To = decltype(dst_zero);
      return &ConvertRow<To, From>;
    });
  });
}

void CopyConvertUnchecked(const Tensor& source, const Tensor& destination) {
  std::array<char*, 2> base = {const_cast<char*>(
                                   static_cast<const char*>(source.data())),
                               static_cast<char*>(destination.mutable_data())};
  const ConvertRowFn convert =
      ConvertRowFor(source.dtype(), destination.dtype());
  internal::ForEachRow<2>(
      source.shape(), {source.strides(), destination.strides()}, base,
      [convert](std::array<char*, 2> p, std::array<int64_t, 2> s, int64_t n) {
        convert(p[0], s[0], p[1], s[1], n);
      });
}

bool SameLayout(const Tensor& a, const Tensor& b) {
  return a.data() == b.data() && a.shape() == b.shape() &&
         a.strides() == b.strides() && a.dtype() == b.dtype();
}

// out[i] = first + i * delta for i in [begin, end), in T's arithmetic
// (NumPy's fill).
template <typename T>
void ArangeFloatRange(T* out, int64_t begin, int64_t end, T first, T delta) {
  if (end <= std::numeric_limits<int32_t>::max()) {
    // An int32 index converts to float with one SIMD instruction on every
    // x86 target (int64 needs AVX-512), so this loop vectorizes; the values
    // are the same.
    const int32_t stop = static_cast<int32_t>(end);
    for (int32_t i = static_cast<int32_t>(begin); i < stop; ++i) {
      out[i] = first + static_cast<T>(i) * delta;
    }
  } else {
    for (int64_t i = begin; i < end; ++i) {
      out[i] = first + static_cast<T>(i) * delta;
    }
  }
}

}  // namespace

bool MayShareMemory(const Tensor& a, const Tensor& b) {
  if (a.size() == 0 || b.size() == 0) return false;
  if (a.storage().get() != b.storage().get()) return false;
  const auto [alo, ahi] = Extent(a.shape(), a.strides(), a.itemsize());
  const auto [blo, bhi] = Extent(b.shape(), b.strides(), b.itemsize());
  const int64_t abase = a.offset(), bbase = b.offset();
  return abase + alo < bbase + bhi && bbase + blo < abase + ahi;
}

std::string ShapeString(absl::Span<const int64_t> shape) {
  if (shape.size() == 1) return absl::StrCat("(", shape[0], ",)");
  return absl::StrCat("(", absl::StrJoin(shape, ", "), ")");
}

absl::StatusOr<int64_t> CheckedElementCount(absl::Span<const int64_t> shape,
                                            size_t itemsize) {
  int64_t count = 1;
  bool overflow = false;
  for (int64_t extent : shape) {
    if (extent < 0) {
      return absl::InvalidArgumentError(
          absl::StrFormat("negative dimension %d in shape %s", extent,
                          ShapeString(shape)));
    }
    if (extent != 0 && count > std::numeric_limits<int64_t>::max() / extent) {
      overflow = true;  // keep scanning: a zero extent makes the count 0
    } else {
      count *= extent;
    }
  }
  if (count == 0) return int64_t{0};
  if (overflow || count > std::numeric_limits<int64_t>::max() /
                              static_cast<int64_t>(itemsize)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "shape %s with %u-byte elements overflows int64 bytes",
        ShapeString(shape), itemsize));
  }
  return count;
}

Strides ContiguousStrides(absl::Span<const int64_t> shape, size_t itemsize) {
  Strides strides(shape.size());
  int64_t stride = static_cast<int64_t>(itemsize);
  for (int k = static_cast<int>(shape.size()) - 1; k >= 0; --k) {
    strides[k] = stride;
    // Modular: only a zero-size tensor (whose strides are never used) can
    // have a product of the other extents that overflows.
    stride = static_cast<int64_t>(static_cast<uint64_t>(stride) *
                                  static_cast<uint64_t>(
                                      std::max<int64_t>(shape[k], 1)));
  }
  return strides;
}

Tensor Tensor::UncheckedView(StorageRef storage, DType dtype, Shape shape,
                             Strides strides, int64_t offset, bool writeable,
                             bool owns_data) {
  Tensor t;
  t.storage_ = std::move(storage);
  t.dtype_ = dtype;
  t.shape_ = std::move(shape);
  t.strides_ = std::move(strides);
  t.offset_ = offset;
  t.writeable_ = writeable;
  t.owns_data_ = owns_data;
  t.ComputeFlags();
  return t;
}

Tensor Tensor::UncheckedContiguous(StorageRef storage, DType dtype,
                                   absl::Span<const int64_t> shape,
                                   int64_t size) {
  Tensor t;
  t.storage_ = std::move(storage);
  t.dtype_ = dtype;
  const int ndim = static_cast<int>(shape.size());
  t.shape_.assign(shape.begin(), shape.end());
  t.strides_.resize(shape.size());
  // As ContiguousStrides; F-contiguous too when at most one extent is not 1
  // (or the tensor is empty), as ComputeFlags finds.
  int64_t stride = static_cast<int64_t>(DTypeSize(dtype));
  int non_unit = 0;
  for (int k = ndim - 1; k >= 0; --k) {
    t.strides_[k] = stride;
    non_unit += shape[k] != 1;
    stride = static_cast<int64_t>(static_cast<uint64_t>(stride) *
                                  static_cast<uint64_t>(
                                      std::max<int64_t>(shape[k], 1)));
  }
  t.size_ = size;
  t.c_contiguous_ = true;
  t.f_contiguous_ = size == 0 || non_unit <= 1;
  t.writeable_ = true;
  t.owns_data_ = true;
  return t;
}

absl::StatusOr<Tensor> Tensor::ViewOf(StorageRef storage, DType dtype,
                                      Shape shape, Strides strides,
                                      int64_t offset, bool writeable) {
  if (!storage) return absl::InvalidArgumentError("view of null storage");
  if (shape.size() != strides.size()) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "shape %s and strides %s differ in length", ShapeString(shape),
        ShapeString(strides)));
  }
  auto count = CheckedElementCount(shape, DTypeSize(dtype));
  if (!count.ok()) return count.status();
  if (*count > 0) {
    const ByteExtent e = CheckedExtent(shape, strides, DTypeSize(dtype));
    const int64_t lo = e.lo, hi = e.hi;
    int64_t first, last;
    if (!e.ok || __builtin_add_overflow(offset, lo, &first) ||
        __builtin_add_overflow(offset, hi, &last) || first < 0 ||
        last > static_cast<int64_t>(storage->size_bytes())) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "view with shape %s, strides %s and offset %d reaches bytes "
          "[%d, %d) outside storage of %u bytes",
          ShapeString(shape), ShapeString(strides), offset, offset + lo,
          offset + hi, storage->size_bytes()));
    }
  }
  return UncheckedView(std::move(storage), dtype, std::move(shape),
                       std::move(strides), offset, writeable, false);
}

void Tensor::ComputeFlags() {
  // A zero extent first: the other extents of an empty tensor may multiply
  // past int64 (CheckedElementCount allows that, as NumPy does).
  size_ = 1;
  for (int64_t extent : shape_) {
    if (extent == 0) size_ = 0;
  }
  if (size_ != 0) {
    for (int64_t extent : shape_) size_ *= extent;
  }
  const int64_t itemsize = static_cast<int64_t>(DTypeSize(dtype_));
  c_contiguous_ = true;
  f_contiguous_ = true;
  if (size_ == 0) return;
  int64_t expected = itemsize;
  for (int k = ndim() - 1; k >= 0; --k) {
    if (shape_[k] == 1) continue;
    if (strides_[k] != expected) c_contiguous_ = false;
    expected *= shape_[k];
  }
  expected = itemsize;
  for (int k = 0; k < ndim(); ++k) {
    if (shape_[k] == 1) continue;
    if (strides_[k] != expected) f_contiguous_ = false;
    expected *= shape_[k];
  }
}

const char* Tensor::ElementAddress(std::initializer_list<int64_t> index) const {
  const char* p = static_cast<const char*>(data());
  int k = 0;
  for (int64_t i : index) p += i * strides_[k++];
  return p;
}

template <typename T>
absl::StatusOr<T> Tensor::item(absl::Span<const int64_t> index) const {
  if (static_cast<int>(index.size()) != ndim()) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "index of length %u for tensor %s", index.size(), DebugString()));
  }
  const char* p = static_cast<const char*>(data());
  for (int k = 0; k < ndim(); ++k) {
    int64_t i = index[k];
    if (i < 0) i += shape_[k];
    if (i < 0 || i >= shape_[k]) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "index %d is out of bounds for axis %d with size %d", index[k], k,
          shape_[k]));
    }
    p += i * strides_[k];
  }
  return VisitDType(dtype_, [&](auto zero) {
    using S = decltype(zero);
    S value;
    std::memcpy(&value, p, sizeof(S));
    return ConvertValue<T>(value);
  });
}

#define TESSERA_INSTANTIATE_ITEM(T) \
  template absl::StatusOr<T> Tensor::item<T>(absl::Span<const int64_t>) const;
TESSERA_INSTANTIATE_ITEM(bool)
TESSERA_INSTANTIATE_ITEM(int8_t)
TESSERA_INSTANTIATE_ITEM(int16_t)
TESSERA_INSTANTIATE_ITEM(int32_t)
TESSERA_INSTANTIATE_ITEM(int64_t)
TESSERA_INSTANTIATE_ITEM(uint8_t)
TESSERA_INSTANTIATE_ITEM(uint16_t)
TESSERA_INSTANTIATE_ITEM(uint32_t)
TESSERA_INSTANTIATE_ITEM(uint64_t)
TESSERA_INSTANTIATE_ITEM(float)
TESSERA_INSTANTIATE_ITEM(double)
#undef TESSERA_INSTANTIATE_ITEM

std::string Tensor::DebugString() const {
  if (!valid()) return "<invalid tensor>";
  return absl::StrCat(DTypeName(dtype_), " ", ShapeString(shape_));
}

namespace {

absl::StatusOr<Tensor> NewTensor(absl::Span<const int64_t> shape, DType dtype,
                                 Allocator* allocator, bool zeroed) {
  const size_t itemsize = DTypeSize(dtype);
  // The common case in one pass: no negative extent, no overflow of the
  // element or byte count. Anything else takes CheckedElementCount, which
  // also knows that a zero extent excuses an overflow of the others.
  int64_t count = 1;
  bool simple = true;
  for (int64_t extent : shape) {
    simple &= extent >= 0 && !__builtin_mul_overflow(count, extent, &count);
  }
  int64_t byte_count;
  simple &= !__builtin_mul_overflow(count, static_cast<int64_t>(itemsize),
                                    &byte_count);
  if (!simple) {
    auto checked = CheckedElementCount(shape, itemsize);
    if (!checked.ok()) return checked.status();
    count = *checked;
  }
  const size_t bytes = static_cast<size_t>(count) * itemsize;
  auto storage = Storage::Allocate(
      bytes, StorageAllocatorFor(allocator, bytes, zeroed), zeroed);
  if (!storage.ok()) {
    return absl::Status(
        storage.status().code(),
        absl::StrCat(storage.status().message(), " (shape ",
                     ShapeString(shape), ", ", DTypeName(dtype), ")"));
  }
  return Tensor::UncheckedContiguous(*std::move(storage), dtype, shape, count);
}

}  // namespace

absl::StatusOr<Tensor> empty(absl::Span<const int64_t> shape, DType dtype,
                             Allocator* allocator) {
  return NewTensor(shape, dtype, allocator, /*zeroed=*/false);
}

absl::StatusOr<Tensor> zeros(absl::Span<const int64_t> shape, DType dtype,
                             Allocator* allocator) {
  return NewTensor(shape, dtype, allocator, /*zeroed=*/true);
}

absl::StatusOr<Tensor> full(absl::Span<const int64_t> shape, Scalar value,
                            DType dtype, Allocator* allocator) {
  auto t = NewTensor(shape, dtype, allocator, /*zeroed=*/false);
  if (t.ok()) FillContiguous(*t, value);
  return t;
}

absl::StatusOr<Tensor> ones(absl::Span<const int64_t> shape, DType dtype,
                            Allocator* allocator) {
  return full(shape, 1, dtype, allocator);
}

absl::StatusOr<Tensor> empty_like(const Tensor& like, Allocator* allocator) {
  return empty(like.shape(), like.dtype(), allocator);
}

absl::StatusOr<Tensor> zeros_like(const Tensor& like, Allocator* allocator) {
  return zeros(like.shape(), like.dtype(), allocator);
}

absl::StatusOr<Tensor> arange(Scalar start, Scalar stop, Scalar step,
                              std::optional<DType> dtype,
                              Allocator* allocator) {
  const bool all_int =
      !start.is_float() && !stop.is_float() && !step.is_float();
  const DType out_dtype =
      dtype.value_or(all_int ? DType::kInt64 : DType::kFloat64);
  int64_t length = 0;
  if (all_int) {
    // Exact integer form of ceil((stop - start) / step), in 128 bits so that
    // extreme bounds cannot overflow.
    const __int128 a = start.As<int64_t>(), b = stop.As<int64_t>(),
                   s = step.As<int64_t>();
    if (s == 0) {
      return absl::InvalidArgumentError("arange: step must not be 0");
    }
    const __int128 span = b - a;
    __int128 n = span / s;
    if (n * s != span && ((span > 0) == (s > 0))) ++n;  // ceil
    if (n < 0) n = 0;
    if (n > std::numeric_limits<int64_t>::max()) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "arange(%d, %d, %d) has more than 2^63 elements", start.As<int64_t>(),
          stop.As<int64_t>(), step.As<int64_t>()));
    }
    length = static_cast<int64_t>(n);
  } else {
    const double s = step.ToDouble();
    if (s == 0) {
      return absl::InvalidArgumentError("arange: step must not be 0");
    }
    const double n = std::ceil((stop.ToDouble() - start.ToDouble()) / s);
    if (std::isnan(n) || n >= 9.2e18) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "arange(%g, %g, %g): length %g is not a valid size",
          start.ToDouble(), stop.ToDouble(), s, n));
    }
    length = n > 0 ? static_cast<int64_t>(n) : 0;
  }
  if (out_dtype == DType::kBool && length > 2) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "arange of %d elements has no bool form (NumPy has no bool fill)",
        length));
  }
  auto t = empty({length}, out_dtype, allocator);
  if (!t.ok()) return t.status();
  if (length == 0) return t;
  VisitDType(out_dtype, [&](auto zero) {
    using T = decltype(zero);
    T* out = static_cast<T*>(t->mutable_data());
    // NumPy's arange: the first two values are computed exactly and cast to
    // the dtype, then the rest are first + i * (second - first) in the
    // dtype's own arithmetic (its `fill`), which is why
    // arange(0, 5, 1.5, dtype=int32) is [0, 1, 2, 3].
    T first, second;
    if (all_int) {
      const int64_t a = start.As<int64_t>();
      first = ConvertValue<T>(a);
      second = ConvertValue<T>(static_cast<int64_t>(
          static_cast<uint64_t>(a) + step.As<uint64_t>()));
    } else {
      first = ConvertValue<T>(start.ToDouble());
      second = ConvertValue<T>(start.ToDouble() + step.ToDouble());
    }
    out[0] = first;
    if (length > 1) out[1] = second;
    if constexpr (kIsFloat16<T>) {
      // NumPy's HALF_fill: in float32, each value rounded to float16.
      const float start = ToFloat(first);
      const float delta = ToFloat(second) - start;
      for (int64_t i = 2; i < length; ++i) {
        out[i] = ToFloat16(start + static_cast<float>(i) * delta);
      }
    } else if constexpr (std::is_floating_point<T>::value) {
      const T delta = second - first;
      internal::ParallelFill(length, sizeof(T), [&](int64_t begin,
                                                    int64_t end) {
        begin = std::max<int64_t>(begin, 2);
        if constexpr (std::is_same<T, float>::value) {
          if (end <= std::numeric_limits<int32_t>::max()) {
            // Highway: the widest vectors the CPU has (the loop below only
            // vectorizes for the baseline SSE2).
            kernels::ArangeFloat32(out, static_cast<int32_t>(begin),
                                   static_cast<int32_t>(end), first, delta);
            return;
          }
        }
        ArangeFloatRange<T>(out, begin, end, first, delta);
      });
    } else if constexpr (!std::is_same<T, bool>::value) {
      // Modular, as NumPy's integer fill wraps (in uint64, so that no
      // narrow type is promoted to a signed int that could overflow).
      using U = std::make_unsigned_t<T>;
      const uint64_t base = static_cast<U>(first);
      const uint64_t delta = static_cast<uint64_t>(static_cast<U>(second)) -
                             base;
      internal::ParallelFill(length, sizeof(T), [&](int64_t begin,
                                                    int64_t end) {
        for (int64_t i = std::max<int64_t>(begin, 2); i < end; ++i) {
          out[i] = static_cast<T>(
              static_cast<U>(base + static_cast<uint64_t>(i) * delta));
        }
      });
    }
  });
  return t;
}

absl::StatusOr<Tensor> arange(Scalar stop, std::optional<DType> dtype,
                              Allocator* allocator) {
  if (stop.is_float()) return arange(0.0, stop, 1.0, dtype, allocator);
  return arange(0, stop, 1, dtype, allocator);
}

absl::StatusOr<Tensor> linspace(double start, double stop, int64_t num,
                                bool endpoint, DType dtype,
                                Allocator* allocator) {
  if (num < 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "linspace: number of samples %d must be non-negative", num));
  }
  auto t = empty({num}, dtype, allocator);
  if (!t.ok()) return t.status();
  const int64_t div = endpoint ? num - 1 : num;
  const double delta = stop - start;
  const double step = div > 0 ? delta / static_cast<double>(div) : 0.0;
  VisitDType(dtype, [&](auto zero) {
    using T = decltype(zero);
    T* out = static_cast<T*>(t->mutable_data());
    for (int64_t i = 0; i < num; ++i) {
      double y;
      if (div > 0 && step == 0) {
        // NumPy's form when the step underflows to zero.
        y = static_cast<double>(i) / static_cast<double>(div) * delta + start;
      } else {
        y = static_cast<double>(i) * step + start;
      }
      if (endpoint && num > 1 && i == num - 1) y = stop;
      if (IsInteger(dtype)) y = std::floor(y);
      out[i] = ConvertValue<T>(y);
    }
  });
  return t;
}

absl::StatusOr<Tensor> eye(int64_t n, std::optional<int64_t> m, int64_t k,
                           DType dtype, Allocator* allocator) {
  const int64_t cols = m.value_or(n);
  auto t = zeros({n, cols}, dtype, allocator);
  if (!t.ok()) return t.status();
  VisitDType(dtype, [&](auto zero) {
    using T = decltype(zero);
    T* out = static_cast<T*>(t->mutable_data());
    for (int64_t i = 0; i < n; ++i) {
      const int64_t j = i + k;
      if (j >= 0 && j < cols) out[i * cols + j] = ConvertValue<T>(1);
    }
  });
  return t;
}

absl::StatusOr<Tensor> FromVectorImpl(const void* values, size_t count,
                                      DType dtype, std::optional<Shape> shape,
                                      Allocator* allocator) {
  Shape s = shape.value_or(Shape{static_cast<int64_t>(count)});
  auto expected = CheckedElementCount(s, DTypeSize(dtype));
  if (!expected.ok()) return expected.status();
  if (static_cast<uint64_t>(*expected) != count) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "cannot shape %u values as %s (%d elements)", count, ShapeString(s),
        *expected));
  }
  auto t = empty(s, dtype, allocator);
  if (!t.ok()) return t.status();
  if (count != 0) std::memcpy(t->mutable_data(), values, count * DTypeSize(dtype));
  return t;
}

absl::StatusOr<Tensor> FromBuffer(void* data, DType dtype,
                                  absl::Span<const int64_t> shape,
                                  std::optional<Strides> strides,
                                  std::function<void(void*)> release,
                                  bool writeable, Allocator* allocator) {
  if (data == nullptr) {
    return absl::InvalidArgumentError("FromBuffer: data is null");
  }
  auto count = CheckedElementCount(shape, DTypeSize(dtype));
  if (!count.ok()) return count.status();
  Strides s = strides.value_or(ContiguousStrides(shape, DTypeSize(dtype)));
  if (s.size() != shape.size()) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "FromBuffer: shape %s and strides %s differ in length",
        ShapeString(shape), ShapeString(s)));
  }
  const ByteExtent e = CheckedExtent(shape, s, DTypeSize(dtype));
  if (!e.ok) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "FromBuffer: shape %s with strides %s overflows the address range",
        ShapeString(shape), ShapeString(s)));
  }
  const int64_t lo = e.lo, hi = e.hi;
  char* first = static_cast<char*>(data) + lo;
  auto storage = Storage::Wrap(first, static_cast<size_t>(hi - lo),
                               std::move(release), Resolve(allocator));
  if (!storage.ok()) return storage.status();
  return Tensor::UncheckedView(*std::move(storage), dtype,
                               Shape(shape.begin(), shape.end()), std::move(s),
                               -lo, writeable, /*owns_data=*/false);
}

absl::StatusOr<Tensor> astype(const Tensor& source, DType dtype,
                              Allocator* allocator) {
  auto t = empty(source.shape(), dtype, allocator);
  if (!t.ok()) return t.status();
  CopyConvertUnchecked(source, *t);
  return t;
}

absl::StatusOr<Tensor> copy(const Tensor& source, Allocator* allocator) {
  return astype(source, source.dtype(), allocator);
}

absl::Status CopyInto(const Tensor& source, const Tensor& destination) {
  if (!destination.writeable()) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "cannot copy into read-only tensor %s", destination.DebugString()));
  }
  if (source.shape() != destination.shape()) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "cannot copy shape %s into shape %s", ShapeString(source.shape()),
        ShapeString(destination.shape())));
  }
  if (SameLayout(source, destination)) return absl::OkStatus();
  if (MayShareMemory(source, destination)) {
    // Element order matters when the two overlap: go through a temporary.
    auto temp = astype(source, destination.dtype(), &destination.allocator());
    if (!temp.ok()) return temp.status();
    CopyConvertUnchecked(*temp, destination);
    return absl::OkStatus();
  }
  CopyConvertUnchecked(source, destination);
  return absl::OkStatus();
}

}  // namespace tessera
