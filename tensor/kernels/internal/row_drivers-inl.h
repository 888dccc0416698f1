// Copyright 2026 The Tessera Authors.
//
// Per-target loop drivers shared by the elementwise kernel families
// (binary-inl.h, unary-inl.h). An op is a functor with a scalar form and a
// vector form (or a mask form, for bool results); these templates hold the
// loops, so a new op is one functor:
//   * ChoosePath: which loop a row of two operands takes, from its
//     strides and alignment;
//   * StridedRow: the element-by-element loop of any strides and addresses,
//     with unaligned scalar loads and stores;
//   * MaskRowToBool: whole vectors of a mask spread to 0/1 bytes, then the
//     scalar tail (comparisons, isnan/isfinite/logical_not).
// Contiguous loops of vector ops (and their tails) live with their family,
// since what a vector op needs differs (two operands, a broadcast scalar,
// range checks, streaming stores).
//
// Included once per SIMD target through hwy/foreach_target.h, hence the
// toggling include guard.

#if defined(TESSERA_TENSOR_KERNELS_INTERNAL_ROW_DRIVERS_INL_H_) == \
    defined(HWY_TARGET_TOGGLE)
#ifdef TESSERA_TENSOR_KERNELS_INTERNAL_ROW_DRIVERS_INL_H_
#undef TESSERA_TENSOR_KERNELS_INTERNAL_ROW_DRIVERS_INL_H_
#else
#define TESSERA_TENSOR_KERNELS_INTERNAL_ROW_DRIVERS_INL_H_
#endif

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "hwy/highway.h"
#include "tensor/kernels/internal/bits_to_bytes.h"

HWY_BEFORE_NAMESPACE();
namespace tessera {
namespace kernels {
namespace HWY_NAMESPACE {
namespace row {

namespace hn = hwy::HWY_NAMESPACE;

// Unaligned, aliasing-safe scalar access (FromBuffer may hand out any
// address).
template <typename T>
HWY_INLINE T Load(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}
template <typename T>
HWY_INLINE void Store(T v, char* p) {
  std::memcpy(p, &v, sizeof(T));
}

// The loop a row takes. Typed pointers only when the addresses are aligned
// for T (FromBuffer may wrap odd addresses, which take kStrided).
enum class Path {
  kStrided,      // any strides: StridedRow
  kContiguous,   // every operand contiguous
  kScalarRight,  // a contiguous, b one value (stride 0)
  kScalarLeft,   // a one value (stride 0), b contiguous
};

// For two operands of T with strides `sa`, `sb` (bytes); `out_ok`: the
// output is aligned and contiguous for the family's output type.
template <typename T>
HWY_INLINE Path ChoosePath(const char* a, int64_t sa, const char* b, int64_t sb,
                           bool out_ok) {
  constexpr int64_t kSize = sizeof(T);
  const bool aligned =
      ((reinterpret_cast<uintptr_t>(a) | reinterpret_cast<uintptr_t>(b)) %
       alignof(T)) == 0;
  if (!aligned || !out_ok) return Path::kStrided;
  if (sa == kSize && sb == kSize) return Path::kContiguous;
  if (sa == kSize && sb == 0) return Path::kScalarRight;
  if (sa == 0 && sb == kSize) return Path::kScalarLeft;
  return Path::kStrided;
}

// Whether `out` is aligned for R and `so` is R's size.
template <typename R>
HWY_INLINE bool UnitOutput(const char* out, int64_t so) {
  return reinterpret_cast<uintptr_t>(out) % alignof(R) == 0 &&
         so == static_cast<int64_t>(sizeof(R));
}

// out[i * so] = f(a[i * sa], b[i * sb]) for i < n, T in, R out.
template <typename T, typename R, class F>
HWY_INLINE void StridedRow(const char* a, int64_t sa, const char* b, int64_t sb,
                           char* out, int64_t so, int64_t n, F f) {
  for (int64_t i = 0; i < n; ++i) {
    Store<R>(f(Load<T>(a + i * sa), Load<T>(b + i * sb)), out + i * so);
  }
}

// out[i * so] = f(in[i * si]) for i < n, T in, R out.
template <typename T, typename R, class F>
HWY_INLINE void StridedRow(const char* in, int64_t si, char* out, int64_t so,
                           int64_t n, F f) {
  for (int64_t i = 0; i < n; ++i) {
    Store<R>(f(Load<T>(in + i * si)), out + i * so);
  }
}

// out[i] = 0/1 for i < n contiguous elements of lane type T: `mask_at(d, i)`
// is the mask of the vector of elements [i, i + Lanes), `scalar_at(i)` the
// bool of one tail element. Masks go out through StoreMaskBits and the bit
// table (internal/bits_to_bytes.h): the same code for every lane type and
// target. Tails never read past element n.
template <typename T, class MaskAt, class ScalarAt>
HWY_INLINE void MaskRowToBool(size_t n, uint8_t* out, MaskAt mask_at,
                              ScalarAt scalar_at) {
  const hn::ScalableTag<T> d;
  const size_t N = hn::Lanes(d);
  uint8_t bits[HWY_MAX_BYTES / 8 + 8] = {};
  size_t i = 0;
  if (n >= N) {
    for (; i <= n - N; i += N) {
      hn::StoreMaskBits(d, mask_at(d, i), bits);
      internal::SpreadMaskBits(bits, N, out + i);
    }
  }
  for (; i < n; ++i) out[i] = scalar_at(i) ? 1 : 0;
}

}  // namespace row
}  // namespace HWY_NAMESPACE
}  // namespace kernels
}  // namespace tessera
HWY_AFTER_NAMESPACE();

#endif  // TESSERA_TENSOR_KERNELS_INTERNAL_ROW_DRIVERS_INL_H_
