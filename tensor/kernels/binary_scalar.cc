// Copyright 2026 The Tessera Authors.
//
// floor_divide, remainder and power as plain C++ row loops (see binary.h).
// They are compiled once, not per SIMD target: integer division has no SIMD
// instruction, power is a loop per element, and the float forms follow
// NumPy's npy_divmod (fmod and floor) step by step.
//
// The float formulas are NumPy's own (npy_divmod in npymath), so results
// agree bit for bit, including the signs of zeros and the inf/NaN cases
// (tensor/testdata/elementwise_values.txt pins them).

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "tensor/dtype.h"
#include "tensor/kernels/binary.h"

namespace tessera {
namespace kernels {
namespace {

template <typename T>
T Load(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}
template <typename T>
void Store(T v, char* p) {
  std::memcpy(p, &v, sizeof(T));
}

// NumPy's npy_divmod: floor quotient and a remainder with the divisor's sign.
template <typename T>
T FloatDivmod(T a, T b, T* modulus) {
  T mod = std::fmod(a, b);
  if (b == 0) {
    *modulus = mod;
    return a / b;
  }
  T div = (a - mod) / b;
  if (mod != 0) {
    if ((b < 0) != (mod < 0)) {
      mod += b;
      div -= T(1);
    }
  } else {
    mod = std::copysign(T(0), b);
  }
  T floordiv;
  if (div != 0) {
    floordiv = std::floor(div);
    if (div - floordiv > T(0.5)) floordiv += T(1);
  } else {
    floordiv = std::copysign(T(0), a / b);
  }
  *modulus = mod;
  return floordiv;
}

template <typename T>
T FloorDivide(T a, T b) {
  if constexpr (std::is_floating_point<T>::value) {
    if (b == 0) return a / b;
    T mod;
    return FloatDivmod(a, b, &mod);
  } else {
    if (b == 0) return T(0);  // NumPy: 0 (with a divide-by-zero warning)
    if constexpr (std::is_signed<T>::value) {
      // min / -1 overflows: wrap like NumPy (the negation wraps to min).
      if (b == T(-1)) {
        using U = std::make_unsigned_t<T>;
        return static_cast<T>(U(0) - static_cast<U>(a));
      }
      T q = static_cast<T>(a / b);
      if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
      return q;
    } else {
      return static_cast<T>(a / b);
    }
  }
}

template <typename T>
T Remainder(T a, T b) {
  if constexpr (std::is_floating_point<T>::value) {
    if (b == 0) return std::fmod(a, b);
    T mod;
    FloatDivmod(a, b, &mod);
    return mod;
  } else {
    if (b == 0) return T(0);
    if constexpr (std::is_signed<T>::value) {
      if (b == T(-1)) return T(0);  // min % -1 would trap
      T r = static_cast<T>(a % b);
      if (r != 0 && ((r < 0) != (b < 0))) r = static_cast<T>(r + b);
      return r;
    } else {
      return static_cast<T>(a % b);
    }
  }
}

// Integer power by squaring, wrapping modulo 2^bits as NumPy's loop does.
// The caller has rejected negative exponents.
template <typename T>
T Power(T a, T b) {
  if constexpr (std::is_floating_point<T>::value) {
    return std::pow(a, b);
  } else {
    using W = std::conditional_t<(sizeof(T) < 4), uint32_t,
                                 std::make_unsigned_t<T>>;
    W base = static_cast<W>(a);
    W result = 1;
    auto exponent = static_cast<std::make_unsigned_t<T>>(b);
    while (exponent != 0) {
      if (exponent & 1) result = static_cast<W>(result * base);
      base = static_cast<W>(base * base);
      exponent >>= 1;
    }
    return static_cast<T>(result);
  }
}

template <typename T, typename Fn>
void Row(const char* a, int64_t sa, const char* b, int64_t sb, char* out,
         int64_t so, int64_t n, Fn fn) {
  constexpr int64_t kIn = sizeof(T);
  constexpr int64_t kOut = sizeof(decltype(fn(T(), T())));
  if (sa == kIn && sb == kIn && so == kOut) {
    // Contiguous: the same loop, but with constant strides the compiler
    // can vectorise it.
    for (int64_t i = 0; i < n; ++i) {
      Store(fn(Load<T>(a + i * kIn), Load<T>(b + i * kIn)), out + i * kOut);
    }
    return;
  }
  for (int64_t i = 0; i < n; ++i) {
    Store(fn(Load<T>(a + i * sa), Load<T>(b + i * sb)), out + i * so);
  }
}

template <typename T>
void TypedRow(BinaryOp op, const char* a, int64_t sa, const char* b,
              int64_t sb, char* out, int64_t so, int64_t n) {
  if constexpr (!std::is_same<T, bool>::value) {
    switch (op) {
      case BinaryOp::kFloorDivide:
        return Row<T>(a, sa, b, sb, out, so, n, FloorDivide<T>);
      case BinaryOp::kRemainder:
        return Row<T>(a, sa, b, sb, out, so, n, Remainder<T>);
      case BinaryOp::kPower:
        return Row<T>(a, sa, b, sb, out, so, n, Power<T>);
      default:
        break;
    }
  }
}

}  // namespace

void ScalarBinaryRow(BinaryOp op, DType dtype, const void* a, int64_t a_stride,
                     const void* b, int64_t b_stride, void* out,
                     int64_t out_stride, int64_t n) {
  VisitDType(dtype, [&](auto zero) {
    using T = decltype(zero);
    TypedRow<T>(op, static_cast<const char*>(a), a_stride,
                static_cast<const char*>(b), b_stride, static_cast<char*>(out),
                out_stride, n);
  });
}

}  // namespace kernels
}  // namespace tessera
