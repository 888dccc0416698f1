// Copyright 2026 The Tessera Authors.
//
// Per-target code of the reduction kernels (see reduce.h). Included once per
// SIMD target through hwy/foreach_target.h, hence the toggling include guard.
// Tails are scalar: nothing past `n` elements is read.

#if defined(TESSERA_TENSOR_KERNELS_REDUCE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TESSERA_TENSOR_KERNELS_REDUCE_INL_H_
#undef TESSERA_TENSOR_KERNELS_REDUCE_INL_H_
#else
#define TESSERA_TENSOR_KERNELS_REDUCE_INL_H_
#endif

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "hwy/highway.h"
#include "tensor/dtype.h"
#include "tensor/kernels/reduce.h"

HWY_BEFORE_NAMESPACE();
namespace tessera {
namespace kernels {
namespace HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

// This target's line kernels for every op and dtype (defined in reduce.cc).
void ReduceLineImpl(ReduceOp op, DType dtype, const void* data, int64_t stride,
                    int64_t n, void* out);
int64_t ArgReduceLineImpl(bool is_max, DType dtype, const void* data,
                          int64_t stride, int64_t n);

template <typename T>
HWY_INLINE T LoadElement(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

// Sum of one block (n <= kSumBlock in practice) of a contiguous float array:
// four vector accumulators, combined at the end, then the scalar tail.
template <typename T>
HWY_NOINLINE T SumFloatBlock(const T* p, size_t n) {
  const hn::ScalableTag<T> d;
  const size_t N = hn::Lanes(d);
  auto s0 = hn::Zero(d), s1 = hn::Zero(d), s2 = hn::Zero(d), s3 = hn::Zero(d);
  size_t i = 0;
  if (n >= 4 * N) {
    for (; i <= n - 4 * N; i += 4 * N) {
      s0 = hn::Add(s0, hn::LoadU(d, p + i));
      s1 = hn::Add(s1, hn::LoadU(d, p + i + N));
      s2 = hn::Add(s2, hn::LoadU(d, p + i + 2 * N));
      s3 = hn::Add(s3, hn::LoadU(d, p + i + 3 * N));
    }
  }
  if (n >= N) {
    for (; i <= n - N; i += N) s0 = hn::Add(s0, hn::LoadU(d, p + i));
  }
  const auto total = hn::Add(hn::Add(s0, s1), hn::Add(s2, s3));
  T sum = hn::GetLane(hn::SumOfLanes(d, total));
  for (; i < n; ++i) sum += p[i];
  return sum;
}

// Pairwise: halves (at a multiple of the block size) until one block is left.
template <typename T>
T SumFloatPairwise(const T* p, size_t n, size_t block) {
  if (n <= block) return SumFloatBlock(p, n);
  const size_t half = ((n / block + 1) / 2) * block;
  return SumFloatPairwise(p, half, block) +
         SumFloatPairwise(p + half, n - half, block);
}

template <typename T>
HWY_NOINLINE T MinMaxContiguous(const T* p, size_t n, bool is_max) {
  const hn::ScalableTag<T> d;
  const size_t N = hn::Lanes(d);
  T result = p[0];
  size_t i = 0;
  bool any_nan = false;
  if (n >= N) {
    auto acc = hn::LoadU(d, p);
    auto nan = hn::Zero(d);  // nonzero lanes: NaN seen (floats only)
    i = N;
    for (; i <= n - N; i += N) {
      const auto v = hn::LoadU(d, p + i);
      acc = is_max ? hn::Max(acc, v) : hn::Min(acc, v);
      if constexpr (std::is_floating_point<T>::value) {
        nan = hn::Or(nan, hn::VecFromMask(d, hn::IsNaN(v)));
      }
    }
    if constexpr (std::is_floating_point<T>::value) {
      nan = hn::Or(nan, hn::VecFromMask(d, hn::IsNaN(hn::LoadU(d, p))));
      any_nan = !hn::AllFalse(d, hn::MaskFromVec(nan));
    }
    // Lanes to scalar; 256 bytes is more than the widest x86 vector.
    T lanes[256 / sizeof(T)];
    hn::StoreU(acc, d, lanes);
    result = lanes[0];
    for (size_t k = 1; k < N; ++k) {
      result = is_max ? (lanes[k] > result ? lanes[k] : result)
                      : (lanes[k] < result ? lanes[k] : result);
    }
  }
  for (; i < n; ++i) {
    const T v = p[i];
    if constexpr (std::is_floating_point<T>::value) {
      if (std::isnan(v)) any_nan = true;
    }
    result = is_max ? (v > result ? v : result) : (v < result ? v : result);
  }
  if constexpr (std::is_floating_point<T>::value) {
    if (any_nan || std::isnan(result)) {
      return std::numeric_limits<T>::quiet_NaN();
    }
  }
  return result;
}

template <typename T>
T MinMaxStrided(const char* p, int64_t stride, int64_t n, bool is_max) {
  T result = LoadElement<T>(p);
  for (int64_t i = 0; i < n; ++i) {
    const T v = LoadElement<T>(p + i * stride);
    if constexpr (std::is_floating_point<T>::value) {
      if (std::isnan(v)) return v;
    }
    result = is_max ? (v > result ? v : result) : (v < result ? v : result);
  }
  return result;
}

// Integer (and bool) sums in the 64-bit accumulator, wrapping.
template <typename T, typename Acc>
Acc SumIntegers(const char* p, int64_t stride, int64_t n) {
  uint64_t sum = 0;
  if (stride == static_cast<int64_t>(sizeof(T)) &&
      reinterpret_cast<uintptr_t>(p) % alignof(T) == 0) {
    const T* q = reinterpret_cast<const T*>(p);
    for (int64_t i = 0; i < n; ++i) sum += static_cast<uint64_t>(q[i]);
  } else {
    for (int64_t i = 0; i < n; ++i) {
      sum += static_cast<uint64_t>(LoadElement<T>(p + i * stride));
    }
  }
  return static_cast<Acc>(sum);
}

template <typename T>
T SumFloats(const char* p, int64_t stride, int64_t n, int64_t block) {
  if (stride == static_cast<int64_t>(sizeof(T)) &&
      reinterpret_cast<uintptr_t>(p) % alignof(T) == 0) {
    return SumFloatPairwise(reinterpret_cast<const T*>(p),
                            static_cast<size_t>(n),
                            static_cast<size_t>(block));
  }
  // Strided: pairwise over blocks too, one element at a time within each.
  if (n <= block) {
    T sum = 0;
    for (int64_t i = 0; i < n; ++i) sum += LoadElement<T>(p + i * stride);
    return sum;
  }
  const int64_t half = ((n / block + 1) / 2) * block;
  return SumFloats<T>(p, stride, half, block) +
         SumFloats<T>(p + half * stride, stride, n - half, block);
}

template <typename T>
T MinMaxLine(const char* p, int64_t stride, int64_t n, bool is_max) {
  if (stride == static_cast<int64_t>(sizeof(T)) &&
      reinterpret_cast<uintptr_t>(p) % alignof(T) == 0) {
    return MinMaxContiguous(reinterpret_cast<const T*>(p),
                            static_cast<size_t>(n), is_max);
  }
  return MinMaxStrided<T>(p, stride, n, is_max);
}

// Product of a contiguous float line: one vector of partial products, then
// the lanes and the scalar tail. Products do not lose accuracy with length
// the way sums do, so no pairwise split.
template <typename T>
HWY_NOINLINE T ProdFloatContiguous(const T* p, size_t n) {
  const hn::ScalableTag<T> d;
  const size_t N = hn::Lanes(d);
  T result = T(1);
  size_t i = 0;
  if (n >= N) {
    auto acc = hn::Set(d, T(1));
    for (; i <= n - N; i += N) acc = hn::Mul(acc, hn::LoadU(d, p + i));
    T lanes[256 / sizeof(T)];
    hn::StoreU(acc, d, lanes);
    for (size_t k = 0; k < N; ++k) result *= lanes[k];
  }
  for (; i < n; ++i) result *= p[i];
  return result;
}

// Product in the accumulator `Acc` (SumDType): floats as themselves,
// integers wrapping through uint64 (modular, so signed results wrap too).
template <typename T, typename Acc>
Acc ProdLine(const char* p, int64_t stride, int64_t n) {
  if constexpr (std::is_floating_point<T>::value) {
    if (stride == static_cast<int64_t>(sizeof(T)) &&
        reinterpret_cast<uintptr_t>(p) % alignof(T) == 0) {
      return ProdFloatContiguous(reinterpret_cast<const T*>(p),
                                 static_cast<size_t>(n));
    }
    T result = T(1);
    for (int64_t i = 0; i < n; ++i) result *= LoadElement<T>(p + i * stride);
    return result;
  } else {
    uint64_t result = 1;
    for (int64_t i = 0; i < n; ++i) {
      result *= static_cast<uint64_t>(
          static_cast<Acc>(LoadElement<T>(p + i * stride)));
    }
    return static_cast<Acc>(result);
  }
}

// What FindFirst looks for.
enum class Find { kEqual, kNaN, kZero, kNonZero };

// Index of the first element of the contiguous p[0, n) that is equal to
// `value` / NaN / zero / nonzero, or n: whole vectors with FindFirstTrue,
// then a scalar tail (nothing past p[n - 1] is read). kNaN is for floats.
template <Find kFind, typename T>
HWY_INLINE int64_t FindFirst(const T* HWY_RESTRICT p, size_t n, T value) {
  const hn::ScalableTag<T> d;
  const size_t N = hn::Lanes(d);
  const auto target = hn::Set(d, value);
  size_t i = 0;
  if (n >= N) {
    for (; i <= n - N; i += N) {
      const auto v = hn::LoadU(d, p + i);
      intptr_t k = -1;
      if constexpr (kFind == Find::kEqual) {
        k = hn::FindFirstTrue(d, hn::Eq(v, target));
      } else if constexpr (kFind == Find::kZero) {
        k = hn::FindFirstTrue(d, hn::Eq(v, hn::Zero(d)));
      } else if constexpr (kFind == Find::kNonZero) {
        k = hn::FindFirstTrue(d, hn::Ne(v, hn::Zero(d)));
      } else if constexpr (std::is_floating_point<T>::value) {
        k = hn::FindFirstTrue(d, hn::IsNaN(v));
      }
      if (k >= 0) return static_cast<int64_t>(i) + k;
    }
  }
  for (; i < n; ++i) {
    bool found = false;
    if constexpr (kFind == Find::kEqual) {
      found = p[i] == value;
    } else if constexpr (kFind == Find::kZero) {
      found = p[i] == T(0);
    } else if constexpr (kFind == Find::kNonZero) {
      found = p[i] != T(0);
    } else if constexpr (std::is_floating_point<T>::value) {
      found = std::isnan(p[i]);
    }
    if (found) return static_cast<int64_t>(i);
  }
  return static_cast<int64_t>(n);
}

// all (`want_all`) or any: stops at the first element that decides.
template <typename T>
bool AllAnyLine(const char* p, int64_t stride, int64_t n, bool want_all) {
  if (stride == static_cast<int64_t>(sizeof(T)) &&
      reinterpret_cast<uintptr_t>(p) % alignof(T) == 0) {
    const T* q = reinterpret_cast<const T*>(p);
    return want_all
               ? FindFirst<Find::kZero>(q, static_cast<size_t>(n), T(0)) == n
               : FindFirst<Find::kNonZero>(q, static_cast<size_t>(n), T(0)) <
                     n;
  }
  for (int64_t i = 0; i < n; ++i) {
    const bool nonzero = LoadElement<T>(p + i * stride) != T(0);
    if (nonzero != want_all) return !want_all;
  }
  return want_all;
}

// argmin/argmax. Contiguous lines find the extreme value with the SIMD
// min/max (NaN-propagating), then the first index holding it: NumPy's first
// occurrence, because it only moves on a strictly better element, and the
// first NaN when the extreme is NaN.
template <typename T>
int64_t ArgLine(const char* p, int64_t stride, int64_t n, bool is_max) {
  if (stride == static_cast<int64_t>(sizeof(T)) &&
      reinterpret_cast<uintptr_t>(p) % alignof(T) == 0) {
    const T* q = reinterpret_cast<const T*>(p);
    const T extreme = MinMaxContiguous(q, static_cast<size_t>(n), is_max);
    if constexpr (std::is_floating_point<T>::value) {
      if (std::isnan(extreme)) {
        return FindFirst<Find::kNaN>(q, static_cast<size_t>(n), T(0));
      }
    }
    // The extreme is one of the elements, so this finds it.
    return FindFirst<Find::kEqual>(q, static_cast<size_t>(n), extreme);
  }
  T best = LoadElement<T>(p);
  int64_t best_index = 0;
  if constexpr (std::is_floating_point<T>::value) {
    if (std::isnan(best)) return 0;
  }
  for (int64_t i = 1; i < n; ++i) {
    const T v = LoadElement<T>(p + i * stride);
    if constexpr (std::is_floating_point<T>::value) {
      if (std::isnan(v)) return i;
    }
    if (is_max ? v > best : v < best) {
      best = v;
      best_index = i;
    }
  }
  return best_index;
}

}  // namespace HWY_NAMESPACE
}  // namespace kernels
}  // namespace tessera
HWY_AFTER_NAMESPACE();

#endif  // TESSERA_TENSOR_KERNELS_REDUCE_INL_H_
