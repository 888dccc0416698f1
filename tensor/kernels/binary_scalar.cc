// Copyright 2026 The Tessera Authors.
//
// Float power as a plain C++ row loop (see binary.h), compiled once, not per
// SIMD target: libm's pow, which NumPy's loop calls too and no vector form
// would round the same. Integer power is a Highway kernel (PowerOp in
// binary-inl.h).

#include <cmath>
#include <cstdint>
#include <cstring>

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

}  // namespace

void ScalarBinaryRow(BinaryOp op, DType dtype, const void* a, int64_t a_stride,
                     const void* b, int64_t b_stride, void* out,
                     int64_t out_stride, int64_t n) {
  if (op != BinaryOp::kPower) return;
  const char* pa = static_cast<const char*>(a);
  const char* pb = static_cast<const char*>(b);
  char* po = static_cast<char*>(out);
  if (dtype == DType::kFloat32) {
    Row<float>(pa, a_stride, pb, b_stride, po, out_stride, n,
               [](float x, float y) { return std::pow(x, y); });
  } else if (dtype == DType::kFloat64) {
    Row<double>(pa, a_stride, pb, b_stride, po, out_stride, n,
                [](double x, double y) { return std::pow(x, y); });
  }
}

}  // namespace kernels
}  // namespace tessera
