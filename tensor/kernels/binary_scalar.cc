// Copyright 2026 The Tessera Authors.
//
// power as a plain C++ row loop (see binary.h), compiled once, not per SIMD
// target: float power is libm's pow (NumPy's loop calls it too, and no
// vector form would round the same), integer power a loop per element.

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
  if (op == BinaryOp::kFloorDivide || op == BinaryOp::kRemainder) {
    // Highway kernels now (binary-inl.h); same results.
    return BinaryRow(op, dtype, a, a_stride, b, b_stride, out, out_stride, n);
  }
  VisitDType(dtype, [&](auto zero) {
    using T = decltype(zero);
    TypedRow<T>(op, static_cast<const char*>(a), a_stride,
                static_cast<const char*>(b), b_stride, static_cast<char*>(out),
                out_stride, n);
  });
}

}  // namespace kernels
}  // namespace tessera
