// Copyright 2026 The Tessera Authors.

#include "tensor/scalar.h"

#include <cmath>
#include <limits>

#include "absl/strings/str_format.h"
#include "tensor/convert.h"

namespace tessera {

double Scalar::ToDouble() const {
  switch (kind_) {
    case Kind::kBool:
    case Kind::kInt:
      return static_cast<double>(i_);
    case Kind::kUInt:
      return static_cast<double>(u_);
    case Kind::kFloat:
      break;
  }
  return f_;
}

template <typename T>
T Scalar::As() const {
  switch (kind_) {
    case Kind::kBool:
      return ConvertValue<T>(i_ != 0);
    case Kind::kInt:
      return ConvertValue<T>(i_);
    case Kind::kUInt:
      return ConvertValue<T>(u_);
    case Kind::kFloat:
      break;
  }
  return ConvertValue<T>(f_);
}

template bool Scalar::As<bool>() const;
template int8_t Scalar::As<int8_t>() const;
template int16_t Scalar::As<int16_t>() const;
template int32_t Scalar::As<int32_t>() const;
template int64_t Scalar::As<int64_t>() const;
template uint8_t Scalar::As<uint8_t>() const;
template uint16_t Scalar::As<uint16_t>() const;
template uint32_t Scalar::As<uint32_t>() const;
template uint64_t Scalar::As<uint64_t>() const;
template float Scalar::As<float>() const;
template double Scalar::As<double>() const;
template Float16 Scalar::As<Float16>() const;

DType Scalar::DefaultDType() const {
  switch (kind_) {
    case Kind::kBool:
      return DType::kBool;
    case Kind::kInt:
      return DType::kInt64;
    case Kind::kUInt:
      return DType::kUInt64;
    case Kind::kFloat:
      break;
  }
  return DType::kFloat64;
}

bool Scalar::FitsIn(DType dtype) const {
  if (dtype == DType::kFloat16) return true;  // as for every float dtype
  return VisitDType(dtype, [&](auto zero) {
    using T = std::conditional_t<kIsFloat16<decltype(zero)>, float,
                                 decltype(zero)>;
    switch (kind_) {
      case Kind::kBool:
        return true;
      case Kind::kInt:
        if constexpr (std::is_floating_point<T>::value) return true;
        if constexpr (std::is_same<T, bool>::value) return i_ == 0 || i_ == 1;
        if (i_ < 0) return std::is_signed<T>::value &&
                           i_ >= static_cast<int64_t>(
                                     std::numeric_limits<T>::min());
        return static_cast<uint64_t>(i_) <=
               static_cast<uint64_t>(std::numeric_limits<T>::max());
      case Kind::kUInt:
        if constexpr (std::is_floating_point<T>::value) return true;
        if constexpr (std::is_same<T, bool>::value) return u_ <= 1;
        return u_ <= static_cast<uint64_t>(std::numeric_limits<T>::max());
      case Kind::kFloat:
        break;
    }
    if constexpr (std::is_floating_point<T>::value) return true;
    return false;
  });
}

absl::StatusOr<DType> WeakResultType(DType tensor_dtype, const Scalar& scalar) {
  DType result = tensor_dtype;
  switch (scalar.kind()) {
    case Scalar::Kind::kBool:
      break;
    case Scalar::Kind::kInt:
    case Scalar::Kind::kUInt:
      if (IsBool(tensor_dtype)) result = scalar.DefaultDType();
      break;
    case Scalar::Kind::kFloat:
      if (!IsFloat(tensor_dtype)) result = DType::kFloat64;
      break;
  }
  if (scalar.is_integer() && IsInteger(result) && !scalar.FitsIn(result)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "integer scalar %s is out of bounds for %s",
        scalar.kind() == Scalar::Kind::kUInt
            ? absl::StrFormat("%u", scalar.As<uint64_t>())
            : absl::StrFormat("%d", scalar.As<int64_t>()),
        DTypeName(result)));
  }
  return result;
}

}  // namespace tessera
