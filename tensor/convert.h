// Copyright 2026 The Tessera Authors.
//
// Element conversion with NumPy's casting results, defined for every input
// (no C++ undefined behaviour, so sanitizers stay quiet):
//   * to bool: value != 0;
//   * integer to integer: two's-complement wrap, as NumPy's C casts;
//   * float to integer: truncation toward zero. NumPy leaves NaN and
//     out-of-range values platform-defined (x86 gives the minimum); here NaN
//     gives 0 and out-of-range values saturate to the target's range.
//   * anything to float: the nearest representable value; to float16
//     (float16.h) rounded once, to nearest with ties to even;
//   * from float16: through its exact float32 value.

#ifndef TESSERA_TENSOR_CONVERT_H_
#define TESSERA_TENSOR_CONVERT_H_

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "tensor/float16.h"

namespace tessera {

template <typename To, typename From>
inline To ConvertValue(From value) {
  if constexpr (std::is_same<To, From>::value) {
    return value;
  } else if constexpr (std::is_same<From, Float16>::value) {
    return ConvertValue<To>(ToFloat(value));
  } else if constexpr (std::is_same<To, Float16>::value) {
    if constexpr (std::is_same<From, float>::value) return ToFloat16(value);
    // Integers through double: exact below 2^53, and anything above rounds
    // to infinity in float16 either way.
    return ToFloat16(static_cast<double>(value));
  } else if constexpr (std::is_same<To, bool>::value) {
    return value != From(0);
  } else if constexpr (std::is_floating_point<To>::value) {
    return static_cast<To>(value);
  } else if constexpr (std::is_floating_point<From>::value) {
    if (std::isnan(value)) return To(0);
    const From truncated = std::trunc(value);
    // 2^bits as a float: exact for every integer width.
    constexpr From kTop =
        static_cast<From>(std::numeric_limits<To>::max() / 2 + 1) * From(2);
    constexpr From kBottom = static_cast<From>(std::numeric_limits<To>::min());
    if (truncated >= kTop) return std::numeric_limits<To>::max();
    if (truncated < kBottom) return std::numeric_limits<To>::min();
    return static_cast<To>(truncated);
  } else {
    // Integer (or bool) to integer: modular, via the unsigned type.
    using U = std::make_unsigned_t<To>;
    return static_cast<To>(static_cast<U>(value));
  }
}

}  // namespace tessera

#endif  // TESSERA_TENSOR_CONVERT_H_
