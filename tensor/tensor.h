// Copyright 2026 The Tessera Authors.
//
// -----------------------------------------------------------------------------
// File: tensor.h
// -----------------------------------------------------------------------------
//
// `Tensor` is NumPy's ndarray: a typed, strided view of a reference-counted
// `Storage` (storage.h). This header also has the creation functions
// (`empty`, `zeros`, `ones`, `full`, `arange`, `linspace`, `eye`,
// `FromVector`, `FromBuffer`, `copy`, `astype`), named and behaving as in
// NumPy. Views are in view.h, elementwise operations in binary.h, reductions
// in reduce.h.
//
//   auto a = tessera::arange(0, 6, 1, DType::kFloat32);      // StatusOr
//   auto b = tessera::zeros({2, 3}, DType::kFloat32, &arena); // from `arena`
//
// Every creating function takes an optional `Allocator*`; null means the
// calling thread's `DefaultAllocator()` (alloc/default_allocator.h). The
// storage remembers its allocator and is freed through it (NEP 49).
//
// Data model (invariants every Tensor keeps):
//   1. `shape()` has `ndim()` non-negative extents; `size()` is their product
//      and fits in int64 with `size() * itemsize()` too.
//   2. `strides()` are in bytes, one per axis, any sign (0 for broadcast
//      axes). Element (i0, i1, ...) is at `data() + sum(i_k * strides[k])`,
//      and every element lies inside `storage()`.
//   3. A view's storage is the ultimate owner, never another view: views of
//      views share the same `Storage`.
//   4. Flags, as NumPy computes them: `c_contiguous()`/`f_contiguous()`
//      ignore the strides of length-1 axes, and are both true for size 0 and
//      0-d tensors; `owns_data()` is true only for the tensor a creating
//      function returned, not its views; `writeable()` is false for
//      broadcast views and for views of read-only tensors.
//
// Errors (absl::Status, message naming the values): negative extents or an
// element count / byte size that overflows (InvalidArgument), allocation
// failure (ResourceExhausted: nothing is leaked and no tensor is returned).
//
// Thread safety: const methods of distinct Tensor objects sharing storage may
// run concurrently (the reference count is atomic); writing elements while
// others read them is the caller's race, as in NumPy.

#ifndef TESSERA_TENSOR_TENSOR_H_
#define TESSERA_TENSOR_TENSOR_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "alloc/allocator.h"
#include "tensor/convert.h"
#include "tensor/dtype.h"
#include "tensor/scalar.h"
#include "tensor/storage.h"

namespace tessera {

// Extents and byte strides. Four axes inline covers nearly every tensor.
using Shape = absl::InlinedVector<int64_t, 4>;
using Strides = absl::InlinedVector<int64_t, 4>;

// "(2, 3)" / "(5,)" / "()": NumPy's tuple spelling, for messages.
std::string ShapeString(absl::Span<const int64_t> shape);

// The element count of `shape`, or InvalidArgument naming the shape if an
// extent is negative or the count (or count * itemsize bytes) overflows int64.
absl::StatusOr<int64_t> CheckedElementCount(absl::Span<const int64_t> shape,
                                            size_t itemsize);

// C-order (row-major) byte strides for `shape`.
Strides ContiguousStrides(absl::Span<const int64_t> shape, size_t itemsize);

class Tensor {
 public:
  // An empty handle (no storage); `valid()` is false. Only assignment,
  // destruction and `valid()` may be used on it.
  Tensor() = default;

  bool valid() const { return static_cast<bool>(storage_); }

  DType dtype() const { return dtype_; }
  int ndim() const { return static_cast<int>(shape_.size()); }
  const Shape& shape() const { return shape_; }
  int64_t shape(int axis) const { return shape_[axis]; }
  const Strides& strides() const { return strides_; }
  int64_t size() const { return size_; }
  size_t itemsize() const { return DTypeSize(dtype_); }
  int64_t nbytes() const { return size_ * static_cast<int64_t>(itemsize()); }
  // Byte offset of element 0 from `storage().data()`.
  int64_t offset() const { return offset_; }

  bool c_contiguous() const { return c_contiguous_; }
  bool f_contiguous() const { return f_contiguous_; }
  bool owns_data() const { return owns_data_; }
  bool writeable() const { return writeable_; }

  // Address of element 0 (may be inside the buffer when strides are negative).
  const void* data() const {
    return static_cast<const char*>(storage_->data()) + offset_;
  }
  // Same address for writing; check `writeable()` first (the checked
  // operations in this library do, and return FailedPrecondition).
  void* mutable_data() const {
    return static_cast<char*>(storage_->data()) + offset_;
  }
  const StorageRef& storage() const { return storage_; }
  // The allocator the storage is freed through.
  Allocator& allocator() const { return storage_->allocator(); }

  // Typed address of the element at `index` (one per axis, in range).
  // No checks beyond debug asserts: for tests and inner loops.
  template <typename T>
  const T* ptr(std::initializer_list<int64_t> index) const {
    return reinterpret_cast<const T*>(ElementAddress(index));
  }
  template <typename T>
  T* mutable_ptr(std::initializer_list<int64_t> index) const {
    return reinterpret_cast<T*>(const_cast<char*>(ElementAddress(index)));
  }

  // The element at `index` converted to T; InvalidArgument when the index has
  // the wrong length or is out of range (negative indices count from the end).
  template <typename T>
  absl::StatusOr<T> item(absl::Span<const int64_t> index = {}) const;

  // All elements in C order, converted to T (see convert.h).
  template <typename T>
  std::vector<T> ToVector() const;

  // "float32 (2, 3)": dtype and shape, for messages.
  std::string DebugString() const;

  // A new owning, writeable, C-contiguous tensor over the whole of `storage`
  // from byte 0, without checks: the caller guarantees every extent is
  // >= 0, that `size` is their product and that the storage holds
  // size * itemsize bytes. The creation functions' fast path (no flag or
  // stride recomputation).
  static Tensor UncheckedContiguous(StorageRef storage, DType dtype,
                                    absl::Span<const int64_t> shape,
                                    int64_t size);

  // Assembles a view without checks. For this library's view functions;
  // `ViewOf` is the checked form.
  static Tensor UncheckedView(StorageRef storage, DType dtype, Shape shape,
                              Strides strides, int64_t offset, bool writeable,
                              bool owns_data);

  // A view of `storage` with the given layout, checked against invariants 1
  // and 2 (InvalidArgument naming the element that falls outside).
  static absl::StatusOr<Tensor> ViewOf(StorageRef storage, DType dtype,
                                       Shape shape, Strides strides,
                                       int64_t offset, bool writeable = true);

 private:
  const char* ElementAddress(std::initializer_list<int64_t> index) const;
  void ComputeFlags();

  StorageRef storage_;
  DType dtype_ = DType::kFloat64;
  Shape shape_;
  Strides strides_;
  int64_t offset_ = 0;
  int64_t size_ = 0;
  bool c_contiguous_ = true;
  bool f_contiguous_ = true;
  bool owns_data_ = false;
  bool writeable_ = false;
};

// Whether the elements of `a` and `b` may overlap in memory (NumPy's
// `may_share_memory`: same storage and overlapping byte ranges).
bool MayShareMemory(const Tensor& a, const Tensor& b);

// ---- Creation. `allocator == nullptr` means DefaultAllocator(). ----

// Uninitialised C-contiguous tensor.
absl::StatusOr<Tensor> empty(absl::Span<const int64_t> shape,
                             DType dtype = DType::kFloat64,
                             Allocator* allocator = nullptr);
// Zero-filled through the allocator's zeroed path (`AllocateZeroed`).
absl::StatusOr<Tensor> zeros(absl::Span<const int64_t> shape,
                             DType dtype = DType::kFloat64,
                             Allocator* allocator = nullptr);
absl::StatusOr<Tensor> ones(absl::Span<const int64_t> shape,
                            DType dtype = DType::kFloat64,
                            Allocator* allocator = nullptr);
// Every element `value` converted to `dtype` (convert.h).
absl::StatusOr<Tensor> full(absl::Span<const int64_t> shape, Scalar value,
                            DType dtype = DType::kFloat64,
                            Allocator* allocator = nullptr);
// Same shape and dtype as `like` (C order), from `allocator` or the default.
absl::StatusOr<Tensor> empty_like(const Tensor& like,
                                  Allocator* allocator = nullptr);
absl::StatusOr<Tensor> zeros_like(const Tensor& like,
                                  Allocator* allocator = nullptr);

// Values start, start + step, ... below `stop` (above it for a negative
// step). Length is NumPy's ceil((stop - start) / step), or 0 if negative;
// element i is start + i * step computed in double (int64 when all three
// are integers) and converted to `dtype`. Without `dtype`, int64 when all
// three are integers and float64 otherwise. step == 0 is InvalidArgument.
absl::StatusOr<Tensor> arange(Scalar start, Scalar stop, Scalar step = 1,
                              std::optional<DType> dtype = std::nullopt,
                              Allocator* allocator = nullptr);
// arange(0, stop).
absl::StatusOr<Tensor> arange(Scalar stop,
                              std::optional<DType> dtype = std::nullopt,
                              Allocator* allocator = nullptr);

// `num` evenly spaced values from start to stop (included when `endpoint`),
// as NumPy: step = (stop - start) / (num - endpoint), y[i] = start + i * step,
// y[num - 1] = stop exactly when `endpoint`; integer dtypes take the floor.
// num < 0 is InvalidArgument.
absl::StatusOr<Tensor> linspace(double start, double stop, int64_t num = 50,
                                bool endpoint = true,
                                DType dtype = DType::kFloat64,
                                Allocator* allocator = nullptr);

// An n x m matrix (m = n when absent) with ones on diagonal k (k > 0 above
// the main diagonal, k < 0 below).
absl::StatusOr<Tensor> eye(int64_t n, std::optional<int64_t> m = std::nullopt,
                           int64_t k = 0, DType dtype = DType::kFloat64,
                           Allocator* allocator = nullptr);

// A tensor holding `values` in C order with `shape` (1-D of values.size()
// when absent); InvalidArgument when the counts differ.
template <typename T>
absl::StatusOr<Tensor> FromVector(const std::vector<T>& values,
                                  std::optional<Shape> shape = std::nullopt,
                                  Allocator* allocator = nullptr);

// A tensor over caller memory: element 0 at `data`, with `strides` (C order
// when absent). Tessera never frees `data`; `release(data)` runs when the
// last view goes. The storage header comes from `allocator` (or the
// default). On error `release` is not called.
absl::StatusOr<Tensor> FromBuffer(void* data, DType dtype,
                                  absl::Span<const int64_t> shape,
                                  std::optional<Strides> strides = std::nullopt,
                                  std::function<void(void*)> release = nullptr,
                                  bool writeable = true,
                                  Allocator* allocator = nullptr);

// A C-contiguous copy that owns its data.
absl::StatusOr<Tensor> copy(const Tensor& source,
                            Allocator* allocator = nullptr);

// A C-contiguous copy converted to `dtype` (convert.h); always copies.
absl::StatusOr<Tensor> astype(const Tensor& source, DType dtype,
                              Allocator* allocator = nullptr);

// Writes `source` into `destination` elementwise, converting dtypes. Shapes
// must be equal (broadcasting is binary.h's business); FailedPrecondition if
// `destination` is read-only. Correct when the two overlap.
absl::Status CopyInto(const Tensor& source, const Tensor& destination);

// ---- Implementation details. ----

template <typename T>
std::vector<T> Tensor::ToVector() const {
  std::vector<T> out;
  out.reserve(static_cast<size_t>(size_));
  if (size_ == 0) return out;
  VisitDType(dtype_, [&](auto zero) {
    using S = decltype(zero);
    Shape index(shape_.size(), 0);
    for (int64_t n = 0; n < size_; ++n) {
      const char* p = static_cast<const char*>(data());
      for (size_t k = 0; k < shape_.size(); ++k) p += index[k] * strides_[k];
      S value;
      std::memcpy(&value, p, sizeof(S));
      out.push_back(ConvertValue<T>(value));
      for (int k = static_cast<int>(shape_.size()) - 1; k >= 0; --k) {
        if (++index[k] < shape_[k]) break;
        index[k] = 0;
      }
    }
  });
  return out;
}

absl::StatusOr<Tensor> FromVectorImpl(const void* values, size_t count,
                                      DType dtype,
                                      std::optional<Shape> shape,
                                      Allocator* allocator);

template <typename T>
absl::StatusOr<Tensor> FromVector(const std::vector<T>& values,
                                  std::optional<Shape> shape,
                                  Allocator* allocator) {
  if constexpr (std::is_same<T, bool>::value) {
    // std::vector<bool> is packed: unpack to one byte per element.
    std::vector<uint8_t> bytes(values.begin(), values.end());
    return FromVectorImpl(bytes.data(), bytes.size(), DType::kBool,
                          std::move(shape), allocator);
  } else {
    return FromVectorImpl(values.data(), values.size(), kDTypeOf<T>,
                          std::move(shape), allocator);
  }
}

}  // namespace tessera

#endif  // TESSERA_TENSOR_TENSOR_H_
