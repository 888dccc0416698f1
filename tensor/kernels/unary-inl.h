// Copyright 2026 The Tessera Authors.
//
// Per-target code of the elementwise unary kernels (see unary.h). Included
// once per SIMD target through hwy/foreach_target.h, hence the toggling
// include guard.
//
// Each operation is a struct with a scalar form and, for the lane types it
// vectorises (`kVector<T>`), a vector form:
//   * exact operations give bit-identical results in both forms (the tests
//     check it on every target);
//   * the contrib/math functions declare `InRange`: a vector with any lane
//     outside it (inf, NaN, overflow, log of zero or a negative) takes the
//     scalar std:: form for all of its lanes, so special values are C's.
//
// Tails never touch memory past `n` elements: the last n % Lanes elements go
// through the scalar form (Highway 1.0.3 has no LoadN, and its MaskedLoad
// may read a whole vector).

#if defined(TESSERA_TENSOR_KERNELS_UNARY_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TESSERA_TENSOR_KERNELS_UNARY_INL_H_
#undef TESSERA_TENSOR_KERNELS_UNARY_INL_H_
#else
#define TESSERA_TENSOR_KERNELS_UNARY_INL_H_
#endif

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "hwy/contrib/math/math-inl.h"
#include "hwy/highway.h"
#include "tensor/dtype.h"
#include "tensor/kernels/internal/bits_to_bytes.h"
#include "tensor/kernels/internal/row_drivers-inl.h"
#include "tensor/kernels/unary.h"

HWY_BEFORE_NAMESPACE();
namespace tessera {
namespace kernels {
namespace HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

// This target's row kernel for every non-predicate op and dtype (defined in
// unary.cc). Tests call it per target.
void UnaryRowImpl(UnaryOp op, DType dtype, const void* in, int64_t si,
                  void* out, int64_t so, int64_t n);

template <typename T>
constexpr bool kUnaryIsFloat = std::is_floating_point<T>::value;

// Wider unsigned type for wrapping integer arithmetic.
template <typename T>
using UnaryWrapType = std::conditional_t<(sizeof(T) < 4), uint32_t,
                                         std::make_unsigned_t<T>>;

// Ops without a range restriction.
struct NoRange {
  static constexpr bool kChecksRange = false;
};

// Ops whose vector form serves every lane type they are instantiated for.
struct UnaryAllLanes {
  template <typename T>
  static constexpr bool kVector = true;
};

struct NegativeOp : NoRange, UnaryAllLanes {
  template <typename T>
  static T Scalar(T x) {
    if constexpr (kUnaryIsFloat<T>) {
      return -x;
    } else {
      using W = UnaryWrapType<T>;
      return static_cast<T>(static_cast<W>(W(0) - static_cast<W>(x)));
    }
  }
  template <class D, class V>
  static V Vector(D d, V x) {
    if constexpr (kUnaryIsFloat<hn::TFromD<D>>) {
      return hn::Neg(x);  // flips the sign bit: -0.0 for 0.0, as NumPy
    } else {
      return hn::Sub(hn::Zero(d), x);
    }
  }
};

struct AbsOp : NoRange {
  // Signed lanes up to 32 bits take max(x, 0 - x), which wraps -min to min
  // as NumPy does; 64-bit signed lanes use the scalar form.
  template <typename T>
  static constexpr bool kVector =
      kUnaryIsFloat<T> || std::is_unsigned<T>::value || sizeof(T) <= 4;
  template <typename T>
  static T Scalar(T x) {
    if constexpr (kUnaryIsFloat<T>) {
      return std::fabs(x);
    } else if constexpr (std::is_unsigned<T>::value) {
      return x;
    } else {
      return x < 0 ? NegativeOp::Scalar<T>(x) : x;
    }
  }
  template <class D, class V>
  static V Vector(D d, V x) {
    using T = hn::TFromD<D>;
    if constexpr (kUnaryIsFloat<T>) {
      return hn::Abs(x);
    } else if constexpr (std::is_unsigned<T>::value) {
      return x;
    } else {
      return hn::Max(x, hn::Sub(hn::Zero(d), x));
    }
  }
};

struct SignOp : NoRange {
  // Highway 1.0.3 compares unsigned lanes on few targets: those, and 64-bit
  // integers, use the scalar form.
  template <typename T>
  static constexpr bool kVector =
      kUnaryIsFloat<T> || (std::is_signed<T>::value && sizeof(T) <= 4);
  template <typename T>
  static T Scalar(T x) {
    if constexpr (kUnaryIsFloat<T>) {
      if (std::isnan(x)) return x;
    }
    if (x > T(0)) return T(1);
    if constexpr (std::is_signed<T>::value) {
      if (x < T(0)) return T(-1);
    }
    return T(0);  // +0 for -0.0 too, as NumPy
  }
  template <class D, class V>
  static V Vector(D d, V x) {
    using T = hn::TFromD<D>;
    const V zero = hn::Zero(d);
    V r = hn::IfThenElse(hn::Lt(x, zero), hn::Set(d, T(-1)), zero);
    r = hn::IfThenElse(hn::Gt(x, zero), hn::Set(d, T(1)), r);
    if constexpr (kUnaryIsFloat<T>) r = hn::IfThenElse(hn::IsNaN(x), x, r);
    return r;
  }
};

struct SquareOp : NoRange {
  // Highway 1.0.3 multiplies 16- and 32-bit integer lanes and floats on
  // every target.
  template <typename T>
  static constexpr bool kVector =
      kUnaryIsFloat<T> || sizeof(T) == 2 || sizeof(T) == 4;
  template <typename T>
  static T Scalar(T x) {
    if constexpr (kUnaryIsFloat<T>) {
      return x * x;
    } else {
      using W = UnaryWrapType<T>;
      return static_cast<T>(static_cast<W>(static_cast<W>(x) *
                                           static_cast<W>(x)));
    }
  }
  template <class D, class V>
  static V Vector(D, V x) {
    return hn::Mul(x, x);
  }
};

// Float-only exact functions.
struct SqrtOp : NoRange, UnaryAllLanes {
  template <typename T>
  static T Scalar(T x) {
    return std::sqrt(x);
  }
  template <class D, class V>
  static V Vector(D, V x) {
    return hn::Sqrt(x);
  }
};

// np.floor (kFloor) and np.ceil.
template <bool kFloor>
struct RoundOp : NoRange, UnaryAllLanes {
  template <typename T>
  static T Scalar(T x) {
    return kFloor ? std::floor(x) : std::ceil(x);
  }
  template <class D, class V>
  static V Vector(D, V x) {
    // The result has x's sign (floor(-0.0) and ceil(-0.5) are -0.0); the
    // emulated rounding of targets without roundps loses it.
    if constexpr (kFloor) {
      return hn::CopySign(hn::Floor(x), x);
    } else {
      return hn::CopySign(hn::Ceil(x), x);
    }
  }
};
using FloorOp = RoundOp</*kFloor=*/true>;
using CeilOp = RoundOp</*kFloor=*/false>;

// contrib/math functions: `InRange` is the domain Highway documents for
// them, written so that NaN fails it; a vector with a lane outside it takes
// the scalar form for all its lanes (UnaryContiguous).
struct ChecksRange : UnaryAllLanes {
  static constexpr bool kChecksRange = true;
};
struct ExpOp : ChecksRange {
  template <typename T>
  static T Scalar(T x) {
    return std::exp(x);
  }
  template <class D, class V>
  static auto InRange(D d, V x) {
    using T = hn::TFromD<D>;
    const T top = sizeof(T) == 4 ? T(104) : T(706);
    return hn::And(hn::Le(x, hn::Set(d, top)),
                   hn::Ge(x, hn::Set(d, std::numeric_limits<T>::lowest())));
  }
  template <class D, class V>
  static V Vector(D d, V x) {
    return hn::Exp(d, x);
  }
};

struct LogOp : ChecksRange {
  template <typename T>
  static T Scalar(T x) {
    return std::log(x);
  }
  template <class D, class V>
  static auto InRange(D d, V x) {
    using T = hn::TFromD<D>;
    return hn::And(hn::Ge(x, hn::Set(d, std::numeric_limits<T>::min())),
                   hn::Le(x, hn::Set(d, std::numeric_limits<T>::max())));
  }
  template <class D, class V>
  static V Vector(D d, V x) {
    return hn::Log(d, x);
  }
};

// sin and cos share their domain: |x| <= 39000.
template <bool kSin>
struct SinCosOp : ChecksRange {
  template <typename T>
  static T Scalar(T x) {
    return kSin ? std::sin(x) : std::cos(x);
  }
  template <class D, class V>
  static auto InRange(D d, V x) {
    return hn::Le(hn::Abs(x), hn::Set(d, hn::TFromD<D>(39000)));
  }
  template <class D, class V>
  static V Vector(D d, V x) {
    if constexpr (kSin) {
      return hn::Sin(d, x);
    } else {
      return hn::Cos(d, x);
    }
  }
};
using SinOp = SinCosOp</*kSin=*/true>;
using CosOp = SinCosOp</*kSin=*/false>;

// tanh of float32 lanes as x * P(x^2) / Q(x^2), P of degree 6 and Q of
// degree 3 in x^2, fitted here to tanh on [0, 9.1] for relative error (a
// reweighted least-squares fit, 7.5e-9 at worst); above 9.1 tanh rounds to 1
// in float32. Evaluated by Horner's rule with single-rounding FMAs: over every
// float32 in [0, 9.2] within 5.9 ulp of the correctly rounded tanh (Highway's
// Tanh: 2.9 ulp), at most 0.75 of the tests' 4 * eps * |tanh x| bound, and
// 2.4x faster than Tanh's expm1 and division. Targets without FMA keep Tanh.
constexpr bool kTanhRational = HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2;

template <class D, class V>
HWY_INLINE V TanhRational(D d, V x) {
  const V a = hn::Abs(x);
  const V s = hn::Mul(a, a);
  V p = hn::Set(d, -8.228196650680618e-14f);
  p = hn::MulAdd(p, s, hn::Set(d, 5.177584126523997e-11f));
  p = hn::MulAdd(p, s, hn::Set(d, -2.0018928907500736e-08f));
  p = hn::MulAdd(p, s, hn::Set(d, 1.1103876496917498e-05f));
  p = hn::MulAdd(p, s, hn::Set(d, 0.003099157429778926f));
  p = hn::MulAdd(p, s, hn::Set(d, 0.13079720050098534f));
  p = hn::MulAdd(p, s, hn::Set(d, 0.9999999925661591f));
  V q = hn::Set(d, 0.00025391439794893996f);
  q = hn::MulAdd(q, s, hn::Set(d, 0.024476087628915472f));
  q = hn::MulAdd(q, s, hn::Set(d, 0.4641304642811005f));
  q = hn::MulAdd(q, s, hn::Set(d, 1.0f));
  V r = hn::Div(hn::Mul(a, p), q);
  r = hn::IfThenElse(hn::Gt(a, hn::Set(d, 9.1f)), hn::Set(d, 1.0f), r);
  return hn::CopySign(r, x);  // -0.0 stays -0.0
}

struct TanhOp : ChecksRange {
  template <typename T>
  static T Scalar(T x) {
    return std::tanh(x);
  }
  template <class D, class V>
  static auto InRange(D d, V x) {
    using T = hn::TFromD<D>;
    return hn::Le(hn::Abs(x), hn::Set(d, std::numeric_limits<T>::max()));
  }
  template <class D, class V>
  static V Vector(D d, V x) {
    if constexpr (kTanhRational && sizeof(hn::TFromD<D>) == 4) {
      return TanhRational(d, x);
    } else {
      return hn::Tanh(d, x);
    }
  }
};

// out[i] = op(in[i]) for contiguous arrays; `out` may equal `in`.
template <class Op, typename T>
HWY_NOINLINE void UnaryContiguous(const T* in, T* out, size_t n) {
  size_t i = 0;
  if constexpr (Op::template kVector<T>) {
    const hn::ScalableTag<T> d;
    const size_t N = hn::Lanes(d);
    if (n >= N) {
      for (; i <= n - N; i += N) {
        const auto v = hn::LoadU(d, in + i);
        if constexpr (Op::kChecksRange) {
          if (HWY_UNLIKELY(!hn::AllTrue(d, Op::InRange(d, v)))) {
            for (size_t j = i; j < i + N; ++j) {
              out[j] = Op::template Scalar<T>(in[j]);
            }
            continue;
          }
        }
        hn::StoreU(Op::Vector(d, v), d, out + i);
      }
    }
  }
  for (; i < n; ++i) out[i] = Op::template Scalar<T>(in[i]);
}

// The row kernel: contiguous and aligned rows take the vector path.
template <class Op, typename T>
void UnaryRowT(const char* in, int64_t si, char* out, int64_t so, int64_t n) {
  constexpr int64_t kSize = sizeof(T);
  const bool aligned = ((reinterpret_cast<uintptr_t>(in) |
                         reinterpret_cast<uintptr_t>(out)) %
                        alignof(T)) == 0;
  if (aligned && si == kSize && so == kSize) {
    UnaryContiguous<Op, T>(reinterpret_cast<const T*>(in),
                           reinterpret_cast<T*>(out), static_cast<size_t>(n));
    return;
  }
  row::StridedRow<T, T>(in, si, out, so, n,
                        [](T x) { return Op::template Scalar<T>(x); });
}

// isnan / isfinite / logical_not of floats: a scalar form and a mask form,
// run over contiguous floats into bool bytes by row::MaskRowToBool.
struct IsNanPred {
  template <typename T>
  static bool Scalar(T x) { return std::isnan(x); }
  template <class D, class V>
  static auto Mask(D, V x) { return hn::IsNaN(x); }
};
struct IsFinitePred {
  template <typename T>
  static bool Scalar(T x) { return std::isfinite(x); }
  template <class D, class V>
  static auto Mask(D, V x) { return hn::IsFinite(x); }
};
struct LogicalNotPred {
  template <typename T>
  static bool Scalar(T x) { return x == T(0); }
  template <class D, class V>
  static auto Mask(D d, V x) { return hn::Eq(x, hn::Zero(d)); }
};

template <class Pred, typename T>
HWY_NOINLINE void FloatPredicateContiguous(const T* in, uint8_t* out,
                                           size_t n) {
  row::MaskRowToBool<T>(
      n, out, [&](auto d, size_t i) { return Pred::Mask(d, hn::LoadU(d, in + i)); },
      [&](size_t i) { return Pred::template Scalar<T>(in[i]); });
}

// FloatPredicateContiguous for a predicate `op` and a float `dtype`.
template <typename T>
void FloatPredicateTyped(UnaryOp op, const T* in, uint8_t* out, size_t n) {
  switch (op) {
    case UnaryOp::kIsNan:
      return FloatPredicateContiguous<IsNanPred, T>(in, out, n);
    case UnaryOp::kIsFinite:
      return FloatPredicateContiguous<IsFinitePred, T>(in, out, n);
    default:
      return FloatPredicateContiguous<LogicalNotPred, T>(in, out, n);
  }
}

inline void FloatPredicateForOp(UnaryOp op, DType dtype, const void* in,
                                void* out, size_t n) {
  uint8_t* o = static_cast<uint8_t*>(out);
  if (dtype == DType::kFloat32) {
    return FloatPredicateTyped(op, static_cast<const float*>(in), o, n);
  }
  return FloatPredicateTyped(op, static_cast<const double*>(in), o, n);
}

}  // namespace HWY_NAMESPACE
}  // namespace kernels
}  // namespace tessera
HWY_AFTER_NAMESPACE();

#endif  // TESSERA_TENSOR_KERNELS_UNARY_INL_H_
