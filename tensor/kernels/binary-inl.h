// Copyright 2026 The Tessera Authors.
//
// Per-target code of the elementwise binary kernels (see binary.h). Included
// once per SIMD target through hwy/foreach_target.h, hence the toggling
// include guard.
//
// Each operation is a struct with a scalar form and, for the lane types
// Highway 1.0.3 supports on every target, a vector form; both give
// bit-identical results (the tests check it on every target):
//   * integer add/subtract/multiply wrap (scalar form computes in unsigned);
//   * maximum/minimum propagate NaN: x86 max/min return their second operand
//     when either is NaN, so the vector form selects NaN lanes explicitly;
//     fmax/fmin select the other operand of a NaN lane the same way;
//   * bitwise and/or/xor exist for integer lanes only (IntegerOnlyOp);
//   * bool is stored as uint8 0/1, and the caller maps add/multiply to
//     maximum/minimum, which are logical or/and on 0/1.
//
// Tails never touch memory past `n` elements: Highway 1.0.3 has no LoadN and
// its MaskedLoad may read a whole vector (it is only fault-free on AVX3), so
// the last n % Lanes elements go through the scalar form.

#if defined(TESSERA_TENSOR_KERNELS_BINARY_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TESSERA_TENSOR_KERNELS_BINARY_INL_H_
#undef TESSERA_TENSOR_KERNELS_BINARY_INL_H_
#else
#define TESSERA_TENSOR_KERNELS_BINARY_INL_H_
#endif

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "hwy/cache_control.h"
#include "hwy/highway.h"
#include "tensor/dtype.h"
#include "tensor/kernels/binary.h"
#include "tensor/kernels/internal/bits_to_bytes.h"
#include "tensor/kernels/internal/row_drivers-inl.h"

HWY_BEFORE_NAMESPACE();
namespace tessera {
namespace kernels {
namespace HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

// This target's row kernel for every op and dtype (defined in binary.cc;
// bool must already be mapped as binary.h's BinaryRow does). Tests call it
// per target instead of instantiating the templates below again.
void BinaryRowImpl(BinaryOp op, DType dtype, const void* a, int64_t sa,
                   const void* b, int64_t sb, void* out, int64_t so,
                   int64_t n);
// Rows of a plane, for one dispatch on op and dtype per plane rather than
// per row (a (40, 25) broadcast add is 40 rows of 25). Row r of each operand
// starts r * *_row bytes after its first; within a row, elements are sa, sb
// and so bytes apart.
struct RowSet {
  const char* a;
  int64_t a_row;
  int64_t sa;
  const char* b;
  int64_t b_row;
  int64_t sb;
  char* out;
  int64_t out_row;
  int64_t so;
  int64_t rows;
  int64_t n;
};
// BinaryRowImpl for each row of `rows` (defined in binary.cc).
void BinaryRowsImpl(BinaryOp op, DType dtype, const RowSet& rows);
// This target's BinaryContiguousStreaming (binary.h), defined in binary.cc.
bool BinaryStreamImpl(BinaryOp op, DType dtype, const void* a, const void* b,
                      void* out, int64_t n);

// Wider unsigned type for wrapping integer arithmetic without signed
// overflow or promotion to int.
template <typename T>
using WrapType = std::conditional_t<(sizeof(T) < 4), uint32_t,
                                    std::make_unsigned_t<T>>;

template <typename T>
constexpr bool kIsFloat = std::is_floating_point<T>::value;

// An op whose vector form serves every lane type (most of them); an op that
// has no vector form for some lanes defines its own kVector.
struct AllLanesVector {
  template <typename T>
  static constexpr bool kVector = true;
};

// a f b in T: floats directly, integers in WrapType so that overflow wraps
// (NumPy's) instead of being undefined or promoted to int.
template <typename T, class F>
HWY_INLINE T Wrapping(T a, T b, F f) {
  if constexpr (kIsFloat<T>) {
    return f(a, b);
  } else {
    using W = WrapType<T>;
    return static_cast<T>(static_cast<W>(f(static_cast<W>(a),
                                           static_cast<W>(b))));
  }
}

struct AddOp : AllLanesVector {
  template <typename T>
  static T Scalar(T a, T b) {
    return Wrapping(a, b, [](auto x, auto y) { return x + y; });
  }
  template <class D, class V>
  static V Vector(D, V a, V b) {
    return hn::Add(a, b);
  }
};

struct SubtractOp : AllLanesVector {
  template <typename T>
  static T Scalar(T a, T b) {
    return Wrapping(a, b, [](auto x, auto y) { return x - y; });
  }
  template <class D, class V>
  static V Vector(D, V a, V b) {
    return hn::Sub(a, b);
  }
};

struct MultiplyOp {
  // Highway 1.0.3 multiplies 16- and 32-bit integer lanes and floats on all
  // targets; 8- and 64-bit integers use the scalar form.
  template <typename T>
  static constexpr bool kVector =
      kIsFloat<T> || sizeof(T) == 2 || sizeof(T) == 4;
  template <typename T>
  static T Scalar(T a, T b) {
    return Wrapping(a, b, [](auto x, auto y) { return x * y; });
  }
  template <class D, class V>
  static V Vector(D, V a, V b) {
    return hn::Mul(a, b);
  }
};

struct DivideOp {
  template <typename T>
  static constexpr bool kVector = kIsFloat<T>;
  template <typename T>
  static T Scalar(T a, T b) {
    return a / b;  // only instantiated for floats by the dispatcher
  }
  template <class D, class V>
  static V Vector(D, V a, V b) {
    return hn::Div(a, b);
  }
};

// np.maximum/np.minimum (kNaNWins: a NaN operand is the result) and
// np.fmax/np.fmin (a NaN operand gives the other one; NaN only when both
// are, as C's fmax/fmin). x86 max/min return their second operand when
// either is NaN, so the vector form selects NaN lanes explicitly.
template <bool kMax, bool kNaNWins>
struct ExtremumOp : AllLanesVector {
  template <typename T>
  static T Scalar(T a, T b) {
    if constexpr (kIsFloat<T>) {
      if (std::isnan(a)) return kNaNWins ? a : b;
      if (std::isnan(b)) return kNaNWins ? b : a;
    }
    if constexpr (kMax) {
      return a > b ? a : b;
    } else {
      return a < b ? a : b;
    }
  }
  template <class D, class V>
  static V Vector(D d, V a, V b) {
    V m = MaxOrMin(a, b);
    if constexpr (kIsFloat<hn::TFromD<D>>) {
      if constexpr (kNaNWins) {
        m = hn::IfThenElse(hn::IsNaN(b), b, m);
        m = hn::IfThenElse(hn::IsNaN(a), a, m);
      } else {
        m = hn::IfThenElse(hn::IsNaN(a), b, m);
        m = hn::IfThenElse(hn::IsNaN(b), a, m);
      }
    }
    return m;
  }

 private:
  template <class V>
  static V MaxOrMin(V a, V b) {
    if constexpr (kMax) {
      return hn::Max(a, b);
    } else {
      return hn::Min(a, b);
    }
  }
};
using MaximumOp = ExtremumOp</*kMax=*/true, /*kNaNWins=*/true>;
using MinimumOp = ExtremumOp</*kMax=*/false, /*kNaNWins=*/true>;
using FmaxOp = ExtremumOp</*kMax=*/true, /*kNaNWins=*/false>;
using FminOp = ExtremumOp</*kMax=*/false, /*kNaNWins=*/false>;

// ---- floor_divide and remainder ----
//
// The scalar forms are NumPy's own: npy_divmod (npymath) for floats, so
// results agree bit for bit including the signs of zeros and the inf/NaN
// cases (tensor/testdata pins them); for integers, division rounding toward
// minus infinity, 0 for a zero divisor (NumPy warns and gives 0) and
// min // -1 wrapping to min.
//
// The vector forms give the same bits, by two exact shortcuts, each checked
// per vector; a vector that fails its check takes the scalar form for all
// of its lanes (ScalarLanes), as unary-inl.h does for contrib/math:
//   * floats: npy_divmod starts from fmod(a, b), which Highway lacks. With q
//     = trunc(a / b) rounded, a - q * b in one fused multiply-add is exact
//     whenever it is representable, and it is fmod(a, b) exactly when it
//     lies in [0, |b|) with a's sign (uniqueness of the truncated division;
//     rounding is monotonic and a wrong q gives a nonzero result outside that
//     range, which cannot round into it). Then npy_divmod's remaining steps
//     are IEEE operations the vector repeats one for one. Lanes with a zero
//     or non-finite operand, or a quotient too large for q to be exact (1e30
//     / 3), fail the check. Only targets with a true FMA (AVX2 and up) have
//     this form; SSE4's MulAdd rounds twice.
//   * int32: floor(a / b) in float32 is the exact floor quotient when |a|
//     and |b| are below 2^24 (the rounding error, below 2^-24 |a / b|, is
//     less than the 1/|b| distance from a non-integer quotient to the next
//     integer), and in float64 for any int32 (2^-53 * 2^31 / |b| < 1/|b|).
//     The remainder is a - q * b, wrapping.
// Other integer lanes use the scalar form (no SIMD integer division).

// NumPy's npy_divmod: floor quotient and a remainder with the divisor's sign.
template <typename T>
HWY_INLINE T NumPyDivmod(T a, T b, T* modulus) {
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

// Whether this target's MulAdd/NegMulAdd round once (x86: AVX2 and up).
constexpr bool kExactFma = HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2;

// int32 needs half vectors (HWY_SCALAR has one lane).
template <typename T>
constexpr bool kDivmodVector =
    (kIsFloat<T> && kExactFma) ||
    (std::is_same<T, int32_t>::value && HWY_TARGET != HWY_SCALAR);

// Op's scalar form on every lane: the fallback of the vector forms above.
template <class Op, class D, class V>
HWY_NOINLINE V ScalarLanes(D d, V a, V b) {
  using T = hn::TFromD<D>;
  HWY_ALIGN T la[HWY_MAX_BYTES / sizeof(T)];
  HWY_ALIGN T lb[HWY_MAX_BYTES / sizeof(T)];
  hn::Store(a, d, la);
  hn::Store(b, d, lb);
  for (size_t i = 0; i < hn::Lanes(d); ++i) {
    la[i] = Op::template Scalar<T>(la[i], lb[i]);
  }
  return hn::Load(d, la);
}

// npy_divmod on float lanes (see above). Returns false, with the outputs
// unset, unless the fmod shortcut is exact in every lane.
template <class D, class V>
HWY_INLINE bool FloatDivmodVector(D d, V a, V b, V& floordiv, V& mod) {
  using T = hn::TFromD<D>;
  const V zero = hn::Zero(d);
  const V sign_bit = hn::SignBit(d);
  const V quotient = hn::Div(a, b);
  const V r = hn::NegMulAdd(hn::Trunc(quotient), b, a);
  // r with a's sign taken off: in [0, |b|) when r is fmod(a, b) (-0.0 too).
  // NaN (zero or infinite operands) fails both compares.
  const V r_from_a = hn::Xor(r, hn::And(a, sign_bit));
  const auto exact =
      hn::And(hn::Ge(r_from_a, zero), hn::Lt(r_from_a, hn::Abs(b)));
  if (HWY_UNLIKELY(!hn::AllTrue(d, exact))) return false;
  // npy_divmod from `mod = fmod(a, b)` on. r may be +0.0 where fmod gives
  // -0.0; a zero mod is replaced below and a - (+-0) is a for nonzero a,
  // so no result depends on that sign.
  const V one = hn::Set(d, T(1));
  V div = hn::Div(hn::Sub(a, r), b);
  const auto mod_nonzero = hn::Ne(r, zero);
  const auto adjust = hn::And(
      mod_nonzero, hn::Xor(hn::Lt(b, zero), hn::Lt(r, zero)));
  mod = hn::IfThenElse(adjust, hn::Add(r, b), r);
  div = hn::IfThenElse(adjust, hn::Sub(div, one), div);
  mod = hn::IfThenElse(mod_nonzero, mod, hn::And(b, sign_bit));
  V snapped = hn::Floor(div);
  snapped = hn::IfThenElse(hn::Gt(hn::Sub(div, snapped), hn::Set(d, T(0.5))),
                           hn::Add(snapped, one), snapped);
  floordiv = hn::IfThenElse(hn::Eq(div, zero), hn::And(quotient, sign_bit),
                            snapped);
  return true;
}

// floor(a / b) on int32 lanes, 0 where b is 0, min // -1 wrapped to min.
template <class D, class V>
HWY_INLINE V FloorQuotientInt32(D d, V a, V b) {
  const hn::RebindToFloat<D> df;
  const V zero = hn::Zero(d);
  const auto b_zero = hn::Eq(b, zero);
  // A divisor of 1 in place of 0 keeps every quotient finite (the lane is
  // zeroed at the end).
  const V divisor = hn::IfThenElse(b_zero, hn::Set(d, 1), b);
  const auto fa = hn::ConvertTo(df, a);
  const auto fb = hn::ConvertTo(df, divisor);
  V q;
  // Conversions round monotonically, so |x| >= 2^24 stays >= 2^24.
  const auto small = hn::Lt(hn::Max(hn::Abs(fa), hn::Abs(fb)),
                            hn::Set(df, 16777216.0f));
  if (HWY_LIKELY(hn::AllTrue(df, small))) {
    q = hn::ConvertTo(d, hn::Floor(hn::Div(fa, fb)));
  } else {
#if HWY_TARGET == HWY_SCALAR
    HWY_ABORT("int32 floor quotient has no vector form on HWY_SCALAR");
#else
    const hn::Half<D> dh;
    const hn::Repartition<double, D> dd;
    const auto floor_half = [&](auto x, auto y) {
      return hn::DemoteTo(dh, hn::Floor(hn::Div(hn::PromoteTo(dd, x),
                                                hn::PromoteTo(dd, y))));
    };
    // min / -1 = 2^31 saturates here; the -1 lanes are redone below.
    q = hn::Combine(
        d, floor_half(hn::UpperHalf(dh, a), hn::UpperHalf(dh, divisor)),
        floor_half(hn::LowerHalf(dh, a), hn::LowerHalf(dh, divisor)));
#endif
  }
  q = hn::IfThenElse(hn::Eq(b, hn::Set(d, -1)), hn::Sub(zero, a), q);
  return hn::IfThenZeroElse(b_zero, q);
}

struct FloorDivideOp {
  template <typename T>
  static constexpr bool kVector = kDivmodVector<T>;
  template <typename T>
  static T Scalar(T a, T b) {
    if constexpr (kIsFloat<T>) {
      if (b == 0) return a / b;
      T mod;
      return NumPyDivmod(a, b, &mod);
    } else {
      if (b == 0) return T(0);
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
  template <class D, class V>
  static V Vector(D d, V a, V b) {
    if constexpr (kIsFloat<hn::TFromD<D>>) {
      V floordiv, mod;
      if (HWY_UNLIKELY(!FloatDivmodVector(d, a, b, floordiv, mod))) {
        return ScalarLanes<FloorDivideOp>(d, a, b);
      }
      return floordiv;
    } else {
      return FloorQuotientInt32(d, a, b);
    }
  }
};

struct RemainderOp {
  template <typename T>
  static constexpr bool kVector = kDivmodVector<T>;
  template <typename T>
  static T Scalar(T a, T b) {
    if constexpr (kIsFloat<T>) {
      if (b == 0) return std::fmod(a, b);
      T mod;
      NumPyDivmod(a, b, &mod);
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
  template <class D, class V>
  static V Vector(D d, V a, V b) {
    if constexpr (kIsFloat<hn::TFromD<D>>) {
      V floordiv, mod;
      if (HWY_UNLIKELY(!FloatDivmodVector(d, a, b, floordiv, mod))) {
        return ScalarLanes<RemainderOp>(d, a, b);
      }
      return mod;
    } else {
      // a - q * b wraps to 0 for min % -1; a zero divisor gives 0.
      const V r = hn::Sub(a, hn::Mul(FloorQuotientInt32(d, a, b), b));
      return hn::IfThenZeroElse(hn::Eq(b, hn::Zero(d)), r);
    }
  }
};

// Marks an op defined for integer (and bool) lanes only: the dispatcher
// instantiates nothing else for it.
struct IntegerOnlyOp {};
template <class Op>
constexpr bool kIntegerOnly = std::is_base_of<IntegerOnlyOp, Op>::value;

// Integer power by squaring, wrapping modulo 2^bits as NumPy's loop does;
// the exponent is read as unsigned (the caller has rejected negative ones).
// 16- and 32-bit lanes multiply in vectors, one exponent bit per step while
// any lane has bits left; float power is libm's pow (binary_scalar.cc), which
// no vector form would round the same.
struct PowerOp : IntegerOnlyOp {
  template <typename T>
  static constexpr bool kVector = sizeof(T) == 2 || sizeof(T) == 4;
  template <typename T>
  static T Scalar(T a, T b) {
    using W = WrapType<T>;
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
  template <class D, class V>
  static V Vector(D d, V a, V b) {
    const hn::RebindToUnsigned<D> du;
    const auto one = hn::Set(du, 1);
    const auto zero = hn::Zero(du);
    auto exponent = hn::BitCast(du, b);
    V result = hn::Set(d, 1);
    V base = a;
    while (!hn::AllTrue(du, hn::Eq(exponent, zero))) {
      const auto odd = hn::RebindMask(d, hn::Eq(hn::And(exponent, one), one));
      result = hn::IfThenElse(odd, hn::Mul(result, base), result);
      base = hn::Mul(base, base);
      exponent = hn::ShiftRight<1>(exponent);
    }
    return result;
  }
};

enum class Bitwise { kAnd, kOr, kXor };

template <Bitwise kWhich>
struct BitwiseOp : IntegerOnlyOp, AllLanesVector {
  template <typename T>
  static T Scalar(T a, T b) {
    if constexpr (kWhich == Bitwise::kAnd) {
      return static_cast<T>(a & b);
    } else if constexpr (kWhich == Bitwise::kOr) {
      return static_cast<T>(a | b);
    } else {
      return static_cast<T>(a ^ b);
    }
  }
  template <class D, class V>
  static V Vector(D, V a, V b) {
    if constexpr (kWhich == Bitwise::kAnd) {
      return hn::And(a, b);
    } else if constexpr (kWhich == Bitwise::kOr) {
      return hn::Or(a, b);
    } else {
      return hn::Xor(a, b);
    }
  }
};
using BitwiseAndOp = BitwiseOp<Bitwise::kAnd>;
using BitwiseOrOp = BitwiseOp<Bitwise::kOr>;
using BitwiseXorOp = BitwiseOp<Bitwise::kXor>;

// out[i] = a[i] op b[i] for contiguous arrays; `out` may equal `a` or `b`.
//
// kStream: the output is larger than the caches and will not be read back
// soon, so whole vectors go out with non-temporal stores (hn::Stream). A
// normal store first reads the line it writes ("read for ownership"): for
// a + b that is 16 bytes of memory traffic per float instead of 12, which is
// the whole difference on a memory-bound kernel. Stream needs vector-aligned
// addresses, so a scalar head runs up to the first aligned output element;
// the stores are fenced (FlushStream) before returning, so that whatever
// publishes the result (the thread pool's completion) orders after them.
template <class Op, typename T, bool kStream = false>
HWY_NOINLINE void BinaryContiguous(const T* a,
                                   const T* b, T* out, size_t n) {
  size_t i = 0;
  if constexpr (Op::template kVector<T>) {
    const hn::ScalableTag<T> d;
    const size_t N = hn::Lanes(d);
    if constexpr (kStream) {
      const size_t vector_bytes = N * sizeof(T);
      const size_t misaligned =
          reinterpret_cast<uintptr_t>(out) & (vector_bytes - 1);
      const size_t head = HWY_MIN(
          n, misaligned == 0 ? 0 : (vector_bytes - misaligned) / sizeof(T));
      for (; i < head; ++i) out[i] = Op::template Scalar<T>(a[i], b[i]);
    }
    if (n - i >= 2 * N) {
      for (; i <= n - 2 * N; i += 2 * N) {
        const auto r0 = Op::Vector(d, hn::LoadU(d, a + i), hn::LoadU(d, b + i));
        const auto r1 =
            Op::Vector(d, hn::LoadU(d, a + i + N), hn::LoadU(d, b + i + N));
        if constexpr (kStream) {
          hn::Stream(r0, d, out + i);
          hn::Stream(r1, d, out + i + N);
        } else {
          hn::StoreU(r0, d, out + i);
          hn::StoreU(r1, d, out + i + N);
        }
      }
    }
    if (n - i >= N) {
      for (; i <= n - N; i += N) {
        hn::StoreU(Op::Vector(d, hn::LoadU(d, a + i), hn::LoadU(d, b + i)), d,
                   out + i);
      }
    }
    if constexpr (kStream) hwy::FlushStream();
  }
  for (; i < n; ++i) out[i] = Op::template Scalar<T>(a[i], b[i]);
}

// out[i] = a[i] op s (kScalarRight) or s op a[i] (otherwise).
template <class Op, typename T, bool kScalarRight>
HWY_NOINLINE void BinaryWithScalar(const T* a, T s, T* out, size_t n) {
  size_t i = 0;
  if constexpr (Op::template kVector<T>) {
    const hn::ScalableTag<T> d;
    const size_t N = hn::Lanes(d);
    const auto vs = hn::Set(d, s);
    if (n >= N) {
      for (; i <= n - N; i += N) {
        const auto va = hn::LoadU(d, a + i);
        hn::StoreU(kScalarRight ? Op::Vector(d, va, vs) : Op::Vector(d, vs, va),
                   d, out + i);
      }
    }
  }
  for (; i < n; ++i) {
    out[i] = kScalarRight ? Op::template Scalar<T>(a[i], s)
                          : Op::template Scalar<T>(s, a[i]);
  }
}

// The row kernel: picks the path from the strides (see binary.h). Inlined
// into binary.cc's row dispatch and its plane loop, one call per row less:
// as a call of its own (gcc stopped inlining it when the row drivers were
// shared) a (40, 25) broadcast add cost 10-12% more.
template <class Op, typename T>
HWY_INLINE void BinaryRowT(const char* a, int64_t sa, const char* b, int64_t sb,
                char* out, int64_t so, int64_t n) {
  const size_t count = static_cast<size_t>(n);
  const T* ta = reinterpret_cast<const T*>(a);
  const T* tb = reinterpret_cast<const T*>(b);
  T* o = reinterpret_cast<T*>(out);
  switch (row::ChoosePath<T>(a, sa, b, sb, row::UnitOutput<T>(out, so))) {
    case row::Path::kContiguous:
      return BinaryContiguous<Op, T>(ta, tb, o, count);
    case row::Path::kScalarRight:
      return BinaryWithScalar<Op, T, true>(ta, row::Load<T>(b), o, count);
    case row::Path::kScalarLeft:
      return BinaryWithScalar<Op, T, false>(tb, row::Load<T>(a), o, count);
    case row::Path::kStrided:
      break;
  }
  row::StridedRow<T, T>(a, sa, b, sb, out, so, n, [](T x, T y) {
    return Op::template Scalar<T>(x, y);
  });
}

// ---- Comparisons: T inputs, bool (one byte 0/1) output ----
//
// A vector compare gives a mask; StoreMaskBits packs it to bits and
// internal/bits_to_bytes.h spreads them to bytes of 0/1: the same code for
// every lane type and target. Integer lanes have no >=/<= in Highway 1.0.3:
// Not(b > a) serves, exact for integers (floats use the IEEE forms, false
// for NaN).

// Base of the comparison functors (bool results), for the dispatch in
// binary.cc.
struct Comparison {};
template <class F>
constexpr bool kIsComparison = std::is_base_of<Comparison, F>::value;

struct EqualCmp : Comparison {
  template <typename T>
  static bool Scalar(T a, T b) { return a == b; }
  template <class V>
  static auto Mask(V a, V b) { return hn::Eq(a, b); }
};
struct NotEqualCmp : Comparison {
  template <typename T>
  static bool Scalar(T a, T b) { return a != b; }
  // Not Ne: Highway 1.0.3's AVX3 float Ne is the ordered compare (false
  // for NaN), where C and NumPy say NaN != x.
  template <class V>
  static auto Mask(V a, V b) { return hn::Not(hn::Eq(a, b)); }
};
struct LessCmp : Comparison {
  template <typename T>
  static bool Scalar(T a, T b) { return a < b; }
  template <class V>
  static auto Mask(V a, V b) { return hn::Lt(a, b); }
};
struct GreaterCmp : Comparison {
  template <typename T>
  static bool Scalar(T a, T b) { return a > b; }
  template <class V>
  static auto Mask(V a, V b) { return hn::Gt(a, b); }
};
struct LessEqualCmp : Comparison {
  template <typename T>
  static bool Scalar(T a, T b) { return a <= b; }
  template <class V>
  static auto Mask(V a, V b) {
    if constexpr (kIsFloat<decltype(hn::GetLane(a))>) {
      return hn::Le(a, b);
    } else {
      return hn::Not(hn::Gt(a, b));
    }
  }
};
struct GreaterEqualCmp : Comparison {
  template <typename T>
  static bool Scalar(T a, T b) { return a >= b; }
  template <class V>
  static auto Mask(V a, V b) {
    if constexpr (kIsFloat<decltype(hn::GetLane(a))>) {
      return hn::Ge(a, b);
    } else {
      return hn::Not(hn::Lt(a, b));
    }
  }
};

// out[i] = a[i] cmp b[i] for contiguous a and out; b contiguous too, or a
// single value when kScalarB (and then a/b swapped back when kSwapped, for
// a scalar on the left).
template <class Cmp, typename T, bool kScalarB, bool kSwapped>
HWY_NOINLINE void CompareContiguous(const T* a, const T* b, uint8_t* out,
                                    size_t n) {
  const hn::ScalableTag<T> d;
  // b[0] only when there is an element to read (n may be 0).
  const auto vs = hn::Set(d, n >= hn::Lanes(d) ? b[0] : T());
  row::MaskRowToBool<T>(
      n, out,
      [&](auto dv, size_t i) {
        const auto va = hn::LoadU(dv, a + i);
        const auto vb = kScalarB ? vs : hn::LoadU(dv, b + i);
        return kSwapped ? Cmp::Mask(vb, va) : Cmp::Mask(va, vb);
      },
      [&](size_t i) {
        const T y = kScalarB ? b[0] : b[i];
        return kSwapped ? Cmp::template Scalar<T>(y, a[i])
                        : Cmp::template Scalar<T>(a[i], y);
      });
}

template <class Cmp, typename T>
void CompareRowT(const char* a, int64_t sa, const char* b, int64_t sb,
                 char* out, int64_t so, int64_t n) {
  const size_t count = static_cast<size_t>(n);
  const T* ta = reinterpret_cast<const T*>(a);
  const T* tb = reinterpret_cast<const T*>(b);
  uint8_t* o = reinterpret_cast<uint8_t*>(out);
  switch (row::ChoosePath<T>(a, sa, b, sb, so == 1)) {
    case row::Path::kContiguous:
      return CompareContiguous<Cmp, T, false, false>(ta, tb, o, count);
    case row::Path::kScalarRight:
      return CompareContiguous<Cmp, T, true, false>(ta, tb, o, count);
    case row::Path::kScalarLeft:
      return CompareContiguous<Cmp, T, true, true>(tb, ta, o, count);
    case row::Path::kStrided:
      break;
  }
  row::StridedRow<T, uint8_t>(a, sa, b, sb, out, so, n, [](T x, T y) {
    return static_cast<uint8_t>(Cmp::template Scalar<T>(x, y) ? 1 : 0);
  });
}

}  // namespace HWY_NAMESPACE
}  // namespace kernels
}  // namespace tessera
HWY_AFTER_NAMESPACE();

#endif  // TESSERA_TENSOR_KERNELS_BINARY_INL_H_
