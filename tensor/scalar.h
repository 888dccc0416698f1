// Copyright 2026 The Tessera Authors.
//
// -----------------------------------------------------------------------------
// File: scalar.h
// -----------------------------------------------------------------------------
//
// `Scalar` is a C++ number passed where NumPy takes a Python scalar: the fill
// value of `full`, the bounds of `arange`, a scalar operand of `add`. It keeps
// its kind (bool, integer, float) and value, not a dtype: as in NumPy 2's
// NEP 50, a Python scalar is "weak" and takes the tensor's dtype when the
// kinds allow (`float32 tensor + 1.5` stays float32, `int8 tensor + 1` stays
// int8) and only raises the kind otherwise (`int8 tensor + 1.5` is float64,
// `bool tensor + 1` is int64). See `WeakResultType`.
//
// Conversions to a C++ type follow NumPy's casts: integers wrap, floats
// truncate toward zero (`ConvertValue` in tensor.h).

#ifndef TESSERA_TENSOR_SCALAR_H_
#define TESSERA_TENSOR_SCALAR_H_

#include <cstdint>
#include <type_traits>

#include "absl/status/statusor.h"
#include "tensor/dtype.h"

namespace tessera {

class Scalar {
 public:
  enum class Kind : uint8_t { kBool, kInt, kUInt, kFloat };

  template <typename T,
            typename = std::enable_if_t<std::is_arithmetic<T>::value>>
  Scalar(T value) {  // NOLINT: implicit, like a Python number
    if constexpr (std::is_same<T, bool>::value) {
      kind_ = Kind::kBool;
      i_ = value ? 1 : 0;
    } else if constexpr (std::is_floating_point<T>::value) {
      kind_ = Kind::kFloat;
      f_ = static_cast<double>(value);
    } else if constexpr (std::is_signed<T>::value) {
      kind_ = Kind::kInt;
      i_ = static_cast<int64_t>(value);
    } else {
      kind_ = Kind::kUInt;
      u_ = static_cast<uint64_t>(value);
    }
  }

  Kind kind() const { return kind_; }
  bool is_float() const { return kind_ == Kind::kFloat; }
  bool is_integer() const {
    return kind_ == Kind::kInt || kind_ == Kind::kUInt;
  }

  // The value as a double (exact for bools, floats and integers below 2^53).
  double ToDouble() const;

  // The value converted to T with NumPy's cast rules.
  template <typename T>
  T As() const;

  // The dtype NumPy would give this value as an array on its own
  // (`np.asarray(v).dtype` on Linux): bool, int64, uint64 (for a C++
  // unsigned value) or float64.
  DType DefaultDType() const;

  // Whether the value is exactly representable in `dtype` (used to reject
  // `uint8 tensor + 300` as NumPy 2 does).
  bool FitsIn(DType dtype) const;

 private:
  Kind kind_;
  union {
    int64_t i_;
    uint64_t u_;
    double f_;
  };
};

// NEP 50: the dtype of `tensor_dtype op scalar` with the scalar weak. Returns
// InvalidArgument naming the value if an integer scalar does not fit the
// integer result dtype.
absl::StatusOr<DType> WeakResultType(DType tensor_dtype, const Scalar& scalar);

}  // namespace tessera

#endif  // TESSERA_TENSOR_SCALAR_H_
