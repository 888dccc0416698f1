// Copyright 2026 The Tessera Authors.
//
// -----------------------------------------------------------------------------
// File: fuzz/tensor/tensor_fuzzer.cc
// -----------------------------------------------------------------------------
//
// Differential fuzzer of the tensor engine: every tensor the program builds
// is paired with a reference array (`RefArray`: a shape, a dtype and its
// values in C order) computed by the simple scalar code in this file, one
// element at a time in double / 64-bit integer arithmetic and then cast as
// NumPy would. After every op the tensor must have the reference's shape,
// dtype and values, and an op must fail exactly when the reference says
// NumPy raises (shapes that do not broadcast, bool subtract, bitwise ops on
// floats, negative or sign of bool, a bad axis, a slice step of 0, min/max
// over a zero-length axis), with the documented InvalidArgument; the message
// must name what the headers say it names, where the reference knows the
// one reason (the op and dtype, the shapes).
//
// Input: ops, each an opcode byte and its operands, over three tensor slots:
//   kNew slot dtype ndim dims... values...   a C-contiguous tensor
//   kSlice slot axis start stop step         view (steps may be negative or 0)
//   kTranspose slot perm...                  view
//   kBroadcastTo slot extra-axes dims...     view (read-only)
//   kExpandDims / kSqueeze slot axis         view
//   kBinary op x y out                       out = op(x, y), broadcasting:
//                                            arithmetic, maximum/minimum,
//                                            fmax/fmin, bitwise, logical,
//                                            comparisons
//   kReduce op slot axis keepdims out        out = op(slot, axis)
//   kUnary op x out                          out = op(x) (tensor/unary.h)
//   kWhere cond x y out                      out = where(cond, x, y)
//   kClip a lo hi out                        out = clip(a, lo, hi)
//   kNpyRoundTrip x out                      out = ParseNpy(SerializeNpy(x))
//                                            (tensor/npy.h: any layout)
//   kSort which x axis out                   out = sort / argsort(x, axis)
//                                            (tensor/sort.h; NaN last)
//   kConcatenate x y axis out                out = concatenate({x, y}, axis)
//                                            (tensor/join.h; promotes)
// Extending: a new binary op is one row of `kBinaryOps` (its reference as a
// function of two doubles / two 64-bit integers / two bools, or of the order
// of its operands); a new unary op one row of `kUnaryOps`; a new reduction
// one row of `kReductions`. Rows are only ever appended, so that the seeds
// and dictionary keep their meaning.
//
// Float comparisons: elementwise arithmetic is exact (an IEEE float32 op
// equals the double op rounded to float32, and both sides convert the same
// way), as are sqrt, floor, ceil, negative, abs, sign and square, which must
// also agree in the sign of a zero; exp, log, sin, cos and tanh are computed
// with the std:: function of the result's precision and compared within the
// 4 ulp (sin/cos below 1: 4 eps absolute) that tensor/kernels/unary_test.cc
// allows; sums and means are compared with a bound on the rounding of any
// summation order, because the engine sums pairwise. NaN matches NaN;
// elsewhere -0 matches +0.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/types/span.h"
#include "fuzz/byte_reader.h"
#include "fuzz/fuzz_check.h"
#include "tensor/binary.h"
#include "tensor/dtype.h"
#include "tensor/join.h"
#include "tensor/npy.h"
#include "tensor/reduce.h"
#include "tensor/sort.h"
#include "tensor/tensor.h"
#include "tensor/ternary.h"
#include "tensor/unary.h"
#include "tensor/view.h"

namespace tessera {
namespace {

using fuzzing::ByteReader;

constexpr int kSlots = 3;
constexpr int kMaxNdim = 4;
constexpr int64_t kMaxExtent = 5;
constexpr size_t kMaxOps = 64;
constexpr int64_t kMaxElements = 4096;

// One element of a reference array: `i` for bool and integer dtypes (signed
// values sign-extended, unsigned zero-extended, as uint64 bits), `f` for
// floats.
struct Num {
  uint64_t i = 0;
  double f = 0;
};

struct RefArray {
  DType dtype = DType::kFloat64;
  std::vector<int64_t> shape;
  std::vector<Num> data;  // C order
};

int64_t Count(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::string ShapeStr(const std::vector<int64_t>& shape) {
  return ShapeString(shape);
}

int Bits(DType d) { return static_cast<int>(DTypeSize(d)) * 8; }

// Truncates integer bits to `d`'s width and extends them back to 64 bits.
uint64_t Normalize(uint64_t bits, DType d) {
  if (IsBool(d)) return bits != 0;
  const int b = Bits(d);
  if (b == 64) return bits;
  const uint64_t mask = (uint64_t{1} << b) - 1;
  bits &= mask;
  if (IsSignedInt(d) && (bits >> (b - 1)) != 0) bits |= ~mask;
  return bits;
}

double ToDouble(const Num& n, DType d) {
  if (IsFloat(d)) return n.f;
  if (IsSignedInt(d)) return static_cast<double>(static_cast<int64_t>(n.i));
  return static_cast<double>(n.i);
}

// NumPy's cast of one value, for the casts promotion can ask for (never
// float to integer).
Num Cast(const Num& n, DType from, DType to) {
  Num out;
  if (IsFloat(to)) {
    out.f = ToDouble(n, from);
    if (to == DType::kFloat32) out.f = static_cast<float>(out.f);
    if (to == DType::kFloat16) out.f = ToFloat(ToFloat16(out.f));
  } else {
    TESSERA_FUZZ_CHECK(!IsFloat(from), "reference cast float -> %s",
                       std::string(DTypeName(to)).c_str());
    out.i = Normalize(n.i, to);
  }
  return out;
}

// ---- Promotion, written from the rules (not from dtype.cc's table). ----

DType SignedOfSize(size_t bytes) {
  switch (bytes) {
    case 1: return DType::kInt8;
    case 2: return DType::kInt16;
    case 4: return DType::kInt32;
    default: return DType::kInt64;
  }
}

DType RefResultType(DType a, DType b) {
  if (a == b) return a;
  if (IsBool(a)) return b;
  if (IsBool(b)) return a;
  const size_t sa = DTypeSize(a), sb = DTypeSize(b);
  if (IsFloat(a) && IsFloat(b)) return sa > sb ? a : b;
  if (IsFloat(a) || IsFloat(b)) {
    const DType f = IsFloat(a) ? a : b;
    const size_t int_size = IsFloat(a) ? sb : sa;
    if (f == DType::kFloat16 && int_size == 1) return DType::kFloat16;
    if (f != DType::kFloat64 && int_size <= 2) return DType::kFloat32;
    return DType::kFloat64;
  }
  if (IsSignedInt(a) == IsSignedInt(b)) return sa > sb ? a : b;
  const DType s = IsSignedInt(a) ? a : b;
  const DType u = IsSignedInt(a) ? b : a;
  if (DTypeSize(u) < DTypeSize(s)) return s;
  if (u == DType::kUInt64) return DType::kFloat64;
  return SignedOfSize(DTypeSize(u) * 2);
}

// ---- Binary ops. ----

// What a binary op computes and what its result is.
enum class BinaryKind {
  kArithmetic,  // in the promoted dtype, result in it (divide: float64)
  kComparison,  // in the promoted dtype, bool result (`on_order`)
  kLogical,     // on the operands' truth values, bool result (`on_bool`)
};

// The order of two values: less, equal, greater, or unordered (a NaN).
enum class Order { kLess, kEqual, kGreater, kUnordered };

struct BinaryOpSpec {
  BinaryOp op;
  const char* name;
  BinaryKind kind;
  bool defined_for_bool;   // false: bool op bool is an error (subtract)
  bool defined_for_float;  // false: float operands are an error (bitwise)
  bool always_float;       // integer inputs give float64 (divide)
  double (*on_float)(double, double);
  // On integers of the result dtype (as 64-bit bits), before truncation.
  uint64_t (*on_int)(uint64_t, uint64_t, bool is_signed);
  bool (*on_bool)(bool, bool);
  bool (*on_order)(Order);  // comparisons only
};

double NanMax(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::nan("");
  return a > b ? a : b;
}
double NanMin(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::nan("");
  return a < b ? a : b;
}
// NaN-ignoring (fmax, fmin): the other operand unless both are NaN.
double NumMax(double a, double b) {
  if (std::isnan(a)) return b;
  if (std::isnan(b)) return a;
  return a > b ? a : b;
}
double NumMin(double a, double b) {
  if (std::isnan(a)) return b;
  if (std::isnan(b)) return a;
  return a < b ? a : b;
}
bool IntLess(uint64_t a, uint64_t b, bool is_signed) {
  return is_signed ? static_cast<int64_t>(a) < static_cast<int64_t>(b)
                   : a < b;
}

uint64_t IntMax(uint64_t a, uint64_t b, bool s) {
  return IntLess(a, b, s) ? b : a;
}
uint64_t IntMin(uint64_t a, uint64_t b, bool s) {
  return IntLess(a, b, s) ? a : b;
}
bool Or(bool a, bool b) { return a || b; }
bool And(bool a, bool b) { return a && b; }
bool Xor(bool a, bool b) { return a != b; }

constexpr BinaryKind kArith = BinaryKind::kArithmetic;
constexpr BinaryKind kCompare = BinaryKind::kComparison;
constexpr BinaryKind kLogic = BinaryKind::kLogical;

const BinaryOpSpec kBinaryOps[] = {
    {BinaryOp::kAdd, "add", kArith, true, true, false,
     [](double a, double b) { return a + b; },
     [](uint64_t a, uint64_t b, bool) { return a + b; }, Or, nullptr},
    {BinaryOp::kSubtract, "subtract", kArith, false, true, false,
     [](double a, double b) { return a - b; },
     [](uint64_t a, uint64_t b, bool) { return a - b; }, nullptr, nullptr},
    {BinaryOp::kMultiply, "multiply", kArith, true, true, false,
     [](double a, double b) { return a * b; },
     [](uint64_t a, uint64_t b, bool) { return a * b; }, And, nullptr},
    {BinaryOp::kDivide, "divide", kArith, true, true, true,
     [](double a, double b) { return a / b; }, nullptr, nullptr, nullptr},
    {BinaryOp::kMaximum, "maximum", kArith, true, true, false, NanMax, IntMax,
     Or, nullptr},
    {BinaryOp::kMinimum, "minimum", kArith, true, true, false, NanMin, IntMin,
     And, nullptr},
    // Appended after the first six (seeds and dictionary name ops by index).
    {BinaryOp::kFmax, "fmax", kArith, true, true, false, NumMax, IntMax, Or,
     nullptr},
    {BinaryOp::kFmin, "fmin", kArith, true, true, false, NumMin, IntMin, And,
     nullptr},
    {BinaryOp::kBitwiseAnd, "bitwise_and", kArith, true, false, false, nullptr,
     [](uint64_t a, uint64_t b, bool) { return a & b; }, And, nullptr},
    {BinaryOp::kBitwiseOr, "bitwise_or", kArith, true, false, false, nullptr,
     [](uint64_t a, uint64_t b, bool) { return a | b; }, Or, nullptr},
    {BinaryOp::kBitwiseXor, "bitwise_xor", kArith, true, false, false, nullptr,
     [](uint64_t a, uint64_t b, bool) { return a ^ b; }, Xor, nullptr},
    {BinaryOp::kLogicalAnd, "logical_and", kLogic, true, true, false, nullptr,
     nullptr, And, nullptr},
    {BinaryOp::kLogicalOr, "logical_or", kLogic, true, true, false, nullptr,
     nullptr, Or, nullptr},
    {BinaryOp::kLogicalXor, "logical_xor", kLogic, true, true, false, nullptr,
     nullptr, Xor, nullptr},
    {BinaryOp::kEqual, "equal", kCompare, true, true, false, nullptr, nullptr,
     nullptr, [](Order o) { return o == Order::kEqual; }},
    {BinaryOp::kNotEqual, "not_equal", kCompare, true, true, false, nullptr,
     nullptr, nullptr, [](Order o) { return o != Order::kEqual; }},
    {BinaryOp::kLess, "less", kCompare, true, true, false, nullptr, nullptr,
     nullptr, [](Order o) { return o == Order::kLess; }},
    {BinaryOp::kLessEqual, "less_equal", kCompare, true, true, false, nullptr,
     nullptr, nullptr,
     [](Order o) { return o == Order::kLess || o == Order::kEqual; }},
    {BinaryOp::kGreater, "greater", kCompare, true, true, false, nullptr,
     nullptr, nullptr, [](Order o) { return o == Order::kGreater; }},
    {BinaryOp::kGreaterEqual, "greater_equal", kCompare, true, true, false,
     nullptr, nullptr, nullptr,
     [](Order o) { return o == Order::kGreater || o == Order::kEqual; }},
};
constexpr int kNumBinaryOps = sizeof(kBinaryOps) / sizeof(kBinaryOps[0]);

// Whether a value is true (nonzero; NaN is true), as NumPy's bool cast.
bool Truth(const Num& n, DType d) {
  return IsFloat(d) ? n.f != 0 : n.i != 0;
}

// The order of two values of dtype `d`.
Order Compare(const Num& x, const Num& y, DType d) {
  if (IsFloat(d)) {
    if (std::isnan(x.f) || std::isnan(y.f)) return Order::kUnordered;
    return x.f < y.f ? Order::kLess : x.f > y.f ? Order::kGreater
                                                : Order::kEqual;
  }
  const bool is_signed = IsSignedInt(d);
  return IntLess(x.i, y.i, is_signed)   ? Order::kLess
         : IntLess(y.i, x.i, is_signed) ? Order::kGreater
                                        : Order::kEqual;
}

// NumPy's broadcast shape, or nullopt if the shapes do not broadcast.
std::optional<std::vector<int64_t>> Broadcast(const std::vector<int64_t>& a,
                                              const std::vector<int64_t>& b) {
  const size_t n = std::max(a.size(), b.size());
  std::vector<int64_t> out(n);
  for (size_t k = 0; k < n; ++k) {
    const int64_t da = k < n - a.size() ? 1 : a[k - (n - a.size())];
    const int64_t db = k < n - b.size() ? 1 : b[k - (n - b.size())];
    if (da != db && da != 1 && db != 1) return std::nullopt;
    out[k] = da == 1 ? db : da;
  }
  return out;
}

// The flat C-order index into `shape` (right-aligned under `out_shape`, with
// extent-1 axes broadcast) of the element at multi-index `index` of the
// output.
int64_t BroadcastSource(const std::vector<int64_t>& shape,
                        const std::vector<int64_t>& index) {
  const size_t lead = index.size() - shape.size();
  int64_t flat = 0;
  for (size_t k = 0; k < shape.size(); ++k) {
    const int64_t i = shape[k] == 1 ? 0 : index[lead + k];
    flat = flat * shape[k] + i;
  }
  return flat;
}

// Advances a C-order multi-index; false after the last one.
bool Next(std::vector<int64_t>& index, const std::vector<int64_t>& shape) {
  for (size_t k = index.size(); k-- > 0;) {
    if (++index[k] < shape[k]) return true;
    index[k] = 0;
  }
  return false;
}

// A reference result, or the error NumPy raises: the words its message must
// contain (empty when the reference cannot tell which of several errors the
// engine reports first). Every error is InvalidArgument.
struct RefResult {
  std::optional<RefArray> array;
  std::vector<std::string> error_names;
};

RefResult Error(std::vector<std::string> names) {
  return RefResult{std::nullopt, std::move(names)};
}

RefResult RefBinary(const BinaryOpSpec& spec, const RefArray& a,
                    const RefArray& b) {
  std::optional<std::vector<int64_t>> shape = Broadcast(a.shape, b.shape);
  const DType common = RefResultType(a.dtype, b.dtype);
  const bool dtype_ok = (!IsBool(common) || spec.defined_for_bool) &&
                        (!IsFloat(common) || spec.defined_for_float);
  if (!shape && !dtype_ok) return Error({});
  if (!shape) return Error({ShapeStr(a.shape), ShapeStr(b.shape)});
  if (!dtype_ok) {
    return Error({spec.name, std::string(DTypeName(common))});
  }
  RefArray out;
  out.shape = *shape;
  out.dtype = spec.kind != BinaryKind::kArithmetic ? DType::kBool
              : spec.always_float && !IsFloat(common) ? DType::kFloat64
                                                      : common;
  const int64_t n = Count(out.shape);
  out.data.resize(static_cast<size_t>(n));
  if (n == 0) return RefResult{std::move(out), {}};
  // The dtype the op computes in: the result's float dtype, else the
  // promoted one.
  const DType compute = IsFloat(out.dtype) ? out.dtype : common;
  std::vector<int64_t> index(out.shape.size(), 0);
  int64_t flat = 0;
  do {
    const Num& va = a.data[BroadcastSource(a.shape, index)];
    const Num& vb = b.data[BroadcastSource(b.shape, index)];
    Num& r = out.data[static_cast<size_t>(flat++)];
    if (spec.kind == BinaryKind::kLogical) {
      r.i = spec.on_bool(Truth(va, a.dtype), Truth(vb, b.dtype));
      continue;
    }
    const Num x = Cast(va, a.dtype, compute);
    const Num y = Cast(vb, b.dtype, compute);
    if (spec.kind == BinaryKind::kComparison) {
      r.i = spec.on_order(Compare(x, y, compute));
    } else if (IsFloat(out.dtype)) {
      r.f = spec.on_float(x.f, y.f);
      if (out.dtype == DType::kFloat32) r.f = static_cast<float>(r.f);
      // float16: computed in float32, rounded once more (NumPy's half loop).
      if (out.dtype == DType::kFloat16) {
        r.f = ToFloat(ToFloat16(static_cast<float>(r.f)));
      }
    } else if (IsBool(out.dtype)) {
      r.i = spec.on_bool(x.i != 0, y.i != 0);
    } else {
      r.i = Normalize(spec.on_int(x.i, y.i, IsSignedInt(out.dtype)),
                      out.dtype);
    }
  } while (Next(index, out.shape));
  return RefResult{std::move(out), {}};
}

// ---- Unary ops (tensor/unary.h). ----

// What a unary op's result dtype is.
enum class UnaryResult {
  kSame,   // the input's (integers wrap); bool: see `on_bool`
  kFloat,  // computed in a float: float32 up to 16-bit integers, else float64
  kBool,   // predicates
};

struct UnaryOpSpec {
  UnaryOp op;
  const char* name;
  UnaryResult result;
  bool math;  // exp, log, sin, cos, tanh: within kMathUlps, not exact
  // kSame and kFloat: on a float of the result precision (float32 values
  // are passed and returned as float, computed with the float overload).
  float (*on_float32)(float);
  double (*on_float64)(double);
  // kSame on integers (64-bit bits of the dtype, before truncation).
  uint64_t (*on_int)(uint64_t, bool is_signed);
  // kSame on bool: -1 an error (NumPy has no loop), else the result dtype
  // is `bool_result` with value on_bool(x).
  int bool_result_dtype;  // -1: error, else a DType
  uint64_t (*on_bool)(uint64_t);
  // kBool: on the input (any dtype).
  bool (*predicate)(const Num&, DType);
};

constexpr double kMathUlps = 4;  // tensor/kernels/unary_test.cc

template <typename T>
T SignOf(T x) {
  return x != x ? x : x > 0 ? T(1) : x < 0 ? T(-1) : T(0);
}

uint64_t IntNegative(uint64_t u, bool) { return 0 - u; }
uint64_t IntAbs(uint64_t u, bool s) {
  return s && static_cast<int64_t>(u) < 0 ? 0 - u : u;
}
uint64_t IntSign(uint64_t u, bool s) {
  if (u == 0) return 0;
  return s && static_cast<int64_t>(u) < 0 ? ~uint64_t{0} : 1;
}
uint64_t IntSquare(uint64_t u, bool) { return u * u; }
uint64_t BoolSame(uint64_t b) { return b; }

constexpr int kNoBoolLoop = -1;
constexpr int kBoolSame = static_cast<int>(DType::kBool);

const UnaryOpSpec kUnaryOps[] = {
    {UnaryOp::kNegative, "negative", UnaryResult::kSame, false,
     [](float x) { return -x; }, [](double x) { return -x; }, IntNegative,
     kNoBoolLoop, nullptr, nullptr},
    {UnaryOp::kAbs, "abs", UnaryResult::kSame, false,
     [](float x) { return std::fabs(x); },
     [](double x) { return std::fabs(x); }, IntAbs, kBoolSame, BoolSame,
     nullptr},
    {UnaryOp::kSign, "sign", UnaryResult::kSame, false, SignOf<float>,
     SignOf<double>, IntSign, kNoBoolLoop, nullptr, nullptr},
    // square of bool is computed in int8: x * x == x.
    {UnaryOp::kSquare, "square", UnaryResult::kSame, false,
     [](float x) { return x * x; }, [](double x) { return x * x; }, IntSquare,
     static_cast<int>(DType::kInt8), BoolSame, nullptr},
    {UnaryOp::kSqrt, "sqrt", UnaryResult::kFloat, false,
     [](float x) { return std::sqrt(x); },
     [](double x) { return std::sqrt(x); }, nullptr, 0, nullptr, nullptr},
    {UnaryOp::kExp, "exp", UnaryResult::kFloat, true,
     [](float x) { return std::exp(x); }, [](double x) { return std::exp(x); },
     nullptr, 0, nullptr, nullptr},
    {UnaryOp::kLog, "log", UnaryResult::kFloat, true,
     [](float x) { return std::log(x); }, [](double x) { return std::log(x); },
     nullptr, 0, nullptr, nullptr},
    {UnaryOp::kSin, "sin", UnaryResult::kFloat, true,
     [](float x) { return std::sin(x); }, [](double x) { return std::sin(x); },
     nullptr, 0, nullptr, nullptr},
    {UnaryOp::kCos, "cos", UnaryResult::kFloat, true,
     [](float x) { return std::cos(x); }, [](double x) { return std::cos(x); },
     nullptr, 0, nullptr, nullptr},
    {UnaryOp::kTanh, "tanh", UnaryResult::kFloat, true,
     [](float x) { return std::tanh(x); },
     [](double x) { return std::tanh(x); }, nullptr, 0, nullptr, nullptr},
    {UnaryOp::kFloor, "floor", UnaryResult::kFloat, false,
     [](float x) { return std::floor(x); },
     [](double x) { return std::floor(x); }, nullptr, 0, nullptr, nullptr},
    {UnaryOp::kCeil, "ceil", UnaryResult::kFloat, false,
     [](float x) { return std::ceil(x); },
     [](double x) { return std::ceil(x); }, nullptr, 0, nullptr, nullptr},
    {UnaryOp::kIsNan, "isnan", UnaryResult::kBool, false, nullptr, nullptr,
     nullptr, 0, nullptr,
     [](const Num& n, DType d) { return IsFloat(d) && std::isnan(n.f); }},
    {UnaryOp::kIsFinite, "isfinite", UnaryResult::kBool, false, nullptr,
     nullptr, nullptr, 0, nullptr,
     [](const Num& n, DType d) { return !IsFloat(d) || std::isfinite(n.f); }},
    {UnaryOp::kLogicalNot, "logical_not", UnaryResult::kBool, false, nullptr,
     nullptr, nullptr, 0, nullptr,
     [](const Num& n, DType d) { return !Truth(n, d); }},
};
constexpr int kNumUnaryOps = sizeof(kUnaryOps) / sizeof(kUnaryOps[0]);

// The float dtype the float functions compute in for input dtype `d`.
DType UnaryFloatType(DType d) {
  switch (d) {
    case DType::kBool:
    case DType::kInt8:
    case DType::kUInt8:
    case DType::kFloat16:
      return DType::kFloat16;
    case DType::kInt16:
    case DType::kUInt16:
    case DType::kFloat32:
      return DType::kFloat32;
    default:
      return DType::kFloat64;
  }
}

// A unary result and how it is compared: per-element tolerance for the math
// functions, and whether the sign of a zero must match (the exact float ops).
struct UnaryRef {
  RefResult result;
  std::vector<double> tolerance;
  bool zero_sign = false;
};

UnaryRef RefUnary(const UnaryOpSpec& spec, const RefArray& x) {
  UnaryRef out;
  RefArray r;
  r.shape = x.shape;
  switch (spec.result) {
    case UnaryResult::kSame:
      if (IsBool(x.dtype)) {
        if (spec.bool_result_dtype == kNoBoolLoop) {
          out.result = Error({spec.name, "bool"});
          return out;
        }
        r.dtype = static_cast<DType>(spec.bool_result_dtype);
      } else {
        r.dtype = x.dtype;
      }
      break;
    case UnaryResult::kFloat:
      r.dtype = UnaryFloatType(x.dtype);
      break;
    case UnaryResult::kBool:
      r.dtype = DType::kBool;
      break;
  }
  out.zero_sign = IsFloat(r.dtype) && !spec.math;
  const double eps = r.dtype == DType::kFloat32   ? 0x1p-23
                     : r.dtype == DType::kFloat16 ? 0x1p-10
                                                  : 0x1p-52;
  const double min_normal = r.dtype == DType::kFloat32   ? 0x1p-126
                            : r.dtype == DType::kFloat16 ? 0x1p-14
                                                         : 0x1p-1022;
  const bool range_reduced =
      spec.op == UnaryOp::kSin || spec.op == UnaryOp::kCos;
  for (const Num& v : x.data) {
    Num n;
    double tol = 0;
    if (spec.result == UnaryResult::kBool) {
      n.i = spec.predicate(v, x.dtype);
    } else if (IsFloat(r.dtype)) {
      const Num in = Cast(v, x.dtype, r.dtype);
      n.f = r.dtype == DType::kFloat32
                ? spec.on_float32(static_cast<float>(in.f))
            : r.dtype == DType::kFloat16
                ? ToFloat(ToFloat16(spec.on_float32(static_cast<float>(in.f))))
                : spec.on_float64(in.f);
      if (spec.math && std::isfinite(n.f)) {
        tol = kMathUlps * eps * std::max(std::fabs(n.f), min_normal);
        if (range_reduced && std::fabs(n.f) < 1) {
          tol = std::max(tol, kMathUlps * eps);
        }
      }
    } else if (IsBool(x.dtype)) {
      n.i = spec.on_bool(v.i);
    } else {
      n.i = Normalize(spec.on_int(v.i, IsSignedInt(x.dtype)), r.dtype);
    }
    r.data.push_back(n);
    out.tolerance.push_back(tol);
  }
  out.result.array = std::move(r);
  return out;
}

// ---- where and clip (tensor/ternary.h). ----

RefResult RefWhere(const RefArray& cond, const RefArray& x,
                   const RefArray& y) {
  std::optional<std::vector<int64_t>> xy = Broadcast(x.shape, y.shape);
  std::optional<std::vector<int64_t>> shape;
  if (xy) shape = Broadcast(cond.shape, *xy);
  if (!shape) {
    return Error({ShapeStr(cond.shape), ShapeStr(x.shape), ShapeStr(y.shape)});
  }
  RefArray out;
  out.shape = *shape;
  out.dtype = RefResultType(x.dtype, y.dtype);
  const int64_t n = Count(out.shape);
  if (n == 0) return RefResult{std::move(out), {}};
  std::vector<int64_t> index(out.shape.size(), 0);
  do {
    const bool take_x =
        Truth(cond.data[BroadcastSource(cond.shape, index)], cond.dtype);
    const RefArray& from = take_x ? x : y;
    out.data.push_back(Cast(from.data[BroadcastSource(from.shape, index)],
                            from.dtype, out.dtype));
  } while (Next(index, out.shape));
  return RefResult{std::move(out), {}};
}

// clip(a, lo, hi) is documented as minimum(maximum(a, lo), hi).
RefResult RefClip(const RefArray& a, const RefArray& lo, const RefArray& hi) {
  std::optional<std::vector<int64_t>> al = Broadcast(a.shape, lo.shape);
  if (!al || !Broadcast(*al, hi.shape)) {
    return Error({ShapeStr(a.shape), ShapeStr(lo.shape), ShapeStr(hi.shape)});
  }
  const BinaryOpSpec& maximum = kBinaryOps[4];
  const BinaryOpSpec& minimum = kBinaryOps[5];
  RefResult low = RefBinary(maximum, a, lo);
  TESSERA_FUZZ_CHECK(low.array.has_value(), "reference maximum failed");
  return RefBinary(minimum, *low.array, hi);
}

// ---- Reductions. ----

enum class RefReduce { kSum, kMin, kMax, kMean };

struct ReductionSpec {
  RefReduce kind;
  const char* name;
};

const ReductionSpec kReductions[] = {
    {RefReduce::kSum, "sum"},
    {RefReduce::kMin, "min"},
    {RefReduce::kMax, "max"},
    {RefReduce::kMean, "mean"},
};
constexpr int kNumReductions = sizeof(kReductions) / sizeof(kReductions[0]);

absl::StatusOr<Tensor> RunReduction(RefReduce kind, const Tensor& t,
                                    std::optional<int> axis, bool keepdims) {
  switch (kind) {
    case RefReduce::kSum:
      return sum(t, axis, keepdims);
    case RefReduce::kMin:
      return min(t, axis, keepdims);
    case RefReduce::kMax:
      return max(t, axis, keepdims);
    case RefReduce::kMean:
      break;
  }
  return mean(t, axis, keepdims);
}

DType ReduceResultType(RefReduce kind, DType d) {
  switch (kind) {
    case RefReduce::kSum:
      if (IsFloat(d)) return d;
      return IsUnsignedInt(d) ? DType::kUInt64 : DType::kInt64;
    case RefReduce::kMean:
      return IsFloat(d) ? d : DType::kFloat64;
    default:
      return d;
  }
}

// A reduced value and the tolerance it is compared with.
struct Reduced {
  RefArray array;
  std::vector<double> tolerance;  // per element, for float results
};

std::optional<Reduced> RefReduction(RefReduce kind, const RefArray& t,
                                    std::optional<int> axis, bool keepdims) {
  const int ndim = static_cast<int>(t.shape.size());
  std::vector<bool> reduced(t.shape.size(), !axis.has_value());
  if (axis) {
    int a = *axis;
    if (a < -ndim || a >= ndim) return std::nullopt;  // includes 0-d
    if (a < 0) a += ndim;
    reduced[static_cast<size_t>(a)] = true;
  }
  int64_t length = 1;
  Reduced out;
  out.array.dtype = ReduceResultType(kind, t.dtype);
  for (size_t k = 0; k < t.shape.size(); ++k) {
    if (reduced[k]) {
      length *= t.shape[k];
      if (keepdims) out.array.shape.push_back(1);
    } else {
      out.array.shape.push_back(t.shape[k]);
    }
  }
  if ((kind == RefReduce::kMin || kind == RefReduce::kMax) && length == 0) {
    return std::nullopt;  // no identity
  }
  const size_t n = static_cast<size_t>(Count(out.array.shape));
  // Accumulators per output element.
  std::vector<uint64_t> isum(n, 0);
  std::vector<double> fsum(n, 0), fabs_sum(n, 0);
  std::vector<Num> best(n);
  std::vector<bool> have(n, false);
  const DType rd = out.array.dtype;
  const bool float_in = IsFloat(t.dtype);
  if (!t.data.empty()) {
    std::vector<int64_t> index(t.shape.size(), 0);
    size_t flat = 0;
    do {
      size_t o = 0;
      for (size_t k = 0; k < t.shape.size(); ++k) {
        if (reduced[k]) continue;
        o = o * static_cast<size_t>(t.shape[k]) + static_cast<size_t>(index[k]);
      }
      const Num& v = t.data[flat++];
      switch (kind) {
        case RefReduce::kSum:
        case RefReduce::kMean:
          if (IsFloat(rd)) {
            const double x = ToDouble(v, t.dtype);
            fsum[o] += x;
            fabs_sum[o] += std::fabs(x);
          } else {
            isum[o] += Cast(v, t.dtype, rd).i;
          }
          break;
        case RefReduce::kMin:
        case RefReduce::kMax: {
          const bool is_max = kind == RefReduce::kMax;
          if (!have[o]) {
            best[o] = v;
            have[o] = true;
          } else if (float_in) {
            best[o].f = is_max ? NanMax(best[o].f, v.f) : NanMin(best[o].f, v.f);
          } else {
            const bool less = IntLess(v.i, best[o].i, IsSignedInt(t.dtype));
            const bool greater = IntLess(best[o].i, v.i, IsSignedInt(t.dtype));
            if (is_max ? greater : less) best[o] = v;
          }
          break;
        }
      }
    } while (Next(index, t.shape));
  }
  out.array.data.resize(n);
  out.tolerance.assign(n, 0);
  // Rounding of any summation order of `length` terms in the result type:
  // length * eps * sum |x| (a float32 sum also rounds every partial sum).
  // float16 sums round to float16 after each row added into the output.
  const double eps = rd == DType::kFloat32   ? 0x1p-23
                     : rd == DType::kFloat16 ? 0x1p-10
                                             : 0x1p-52;
  for (size_t o = 0; o < n; ++o) {
    Num& r = out.array.data[o];
    switch (kind) {
      case RefReduce::kSum:
        if (IsFloat(rd)) {
          r.f = fsum[o];
          out.tolerance[o] = static_cast<double>(length + 1) * eps * fabs_sum[o];
        } else {
          r.i = isum[o];
        }
        break;
      case RefReduce::kMean:
        r.f = fsum[o] / static_cast<double>(length);
        out.tolerance[o] = static_cast<double>(length + 2) * eps *
                           fabs_sum[o] / static_cast<double>(length);
        break;
      default:
        r = best[o];
    }
    if (rd == DType::kFloat32 && kind != RefReduce::kMin &&
        kind != RefReduce::kMax) {
      r.f = static_cast<float>(r.f);
    }
    if (rd == DType::kFloat16 && kind != RefReduce::kMin &&
        kind != RefReduce::kMax) {
      r.f = ToFloat(ToFloat16(r.f));
    }
  }
  return out;
}

// ---- Views. ----

// Python's slice.indices + range: the indices a slice selects.
std::vector<int64_t> SliceIndices(std::optional<int64_t> start,
                                  std::optional<int64_t> stop, int64_t step,
                                  int64_t extent) {
  const int64_t lower = step < 0 ? -1 : 0;
  const int64_t upper = step < 0 ? extent - 1 : extent;
  auto clamp = [&](int64_t v) {
    if (v < 0) {
      v += extent;
      return v < lower ? lower : v;
    }
    return v > upper ? upper : v;
  };
  const int64_t b = start ? clamp(*start) : (step < 0 ? upper : lower);
  const int64_t e = stop ? clamp(*stop) : (step < 0 ? lower : upper);
  std::vector<int64_t> out;
  for (int64_t i = b; step > 0 ? i < e : i > e; i += step) out.push_back(i);
  return out;
}

// Gathers `t` into a new reference of `shape`, element `index` taken from
// t's flat position `source(index)`.
template <typename Source>
RefArray Gather(const RefArray& t, std::vector<int64_t> shape, Source source) {
  RefArray out;
  out.dtype = t.dtype;
  out.shape = std::move(shape);
  const int64_t n = Count(out.shape);
  if (n == 0) return out;
  std::vector<int64_t> index(out.shape.size(), 0);
  do {
    out.data.push_back(t.data[static_cast<size_t>(source(index))]);
  } while (Next(index, out.shape));
  return out;
}

int64_t Flat(const std::vector<int64_t>& shape,
             const std::vector<int64_t>& index) {
  int64_t flat = 0;
  for (size_t k = 0; k < shape.size(); ++k) flat = flat * shape[k] + index[k];
  return flat;
}

// ---- Comparison. ----

bool SameFloat(double got, double want, double tolerance) {
  if (std::isnan(want)) return std::isnan(got);
  if (std::isinf(want)) return got == want;
  return std::fabs(got - want) <= tolerance;
}

// The tensor's elements in C order, read through its own byte strides.
std::vector<Num> ReadElements(const Tensor& t) {
  std::vector<Num> out;
  const std::vector<int64_t> shape(t.shape().begin(), t.shape().end());
  if (Count(shape) == 0) return out;
  const size_t itemsize = t.itemsize();
  std::vector<int64_t> index(shape.size(), 0);
  do {
    const char* p = static_cast<const char*>(t.data());
    for (size_t k = 0; k < shape.size(); ++k) p += index[k] * t.strides()[k];
    Num n;
    if (t.dtype() == DType::kFloat32) {
      float f;
      std::memcpy(&f, p, sizeof(f));
      n.f = f;
    } else if (t.dtype() == DType::kFloat64) {
      std::memcpy(&n.f, p, sizeof(n.f));
    } else if (t.dtype() == DType::kFloat16) {
      Float16 h;
      std::memcpy(&h, p, sizeof(h));
      n.f = ToFloat(h);
    } else {
      uint64_t raw = 0;
      std::memcpy(&raw, p, itemsize);  // little-endian
      n.i = Normalize(raw, t.dtype());
    }
    out.push_back(n);
  } while (Next(index, shape));
  return out;
}

// Checks `t` against `ref`; returns t's elements.
std::vector<Num> CheckMatches(const Tensor& t, const RefArray& ref,
                              const char* what,
                              const std::vector<double>* tolerance = nullptr,
                              bool zero_sign = false) {
  TESSERA_FUZZ_CHECK(t.dtype() == ref.dtype, "%s: dtype %s, reference %s",
                     what, std::string(DTypeName(t.dtype())).c_str(),
                     std::string(DTypeName(ref.dtype)).c_str());
  const std::vector<int64_t> shape(t.shape().begin(), t.shape().end());
  TESSERA_FUZZ_CHECK(shape == ref.shape, "%s: shape %s, reference %s", what,
                     ShapeStr(shape).c_str(), ShapeStr(ref.shape).c_str());
  TESSERA_FUZZ_CHECK(t.size() == Count(ref.shape), "%s: size %lld for %s",
                     what, static_cast<long long>(t.size()),
                     ShapeStr(ref.shape).c_str());
  std::vector<Num> got = ReadElements(t);
  for (size_t k = 0; k < got.size(); ++k) {
    const Num& want = ref.data[k];
    if (IsFloat(ref.dtype)) {
      const double tol = tolerance != nullptr ? (*tolerance)[k] : 0.0;
      TESSERA_FUZZ_CHECK(SameFloat(got[k].f, want.f, tol),
                         "%s: element %zu of %s (%s) is %.17g, reference "
                         "%.17g (tolerance %g)",
                         what, k, ShapeStr(shape).c_str(),
                         std::string(DTypeName(ref.dtype)).c_str(), got[k].f,
                         want.f, tol);
      TESSERA_FUZZ_CHECK(!zero_sign || std::isnan(want.f) ||
                             std::signbit(got[k].f) == std::signbit(want.f),
                         "%s: element %zu of %s (%s) is %g, reference %g "
                         "(sign of zero)",
                         what, k, ShapeStr(shape).c_str(),
                         std::string(DTypeName(ref.dtype)).c_str(), got[k].f,
                         want.f);
    } else {
      TESSERA_FUZZ_CHECK(got[k].i == want.i,
                         "%s: element %zu of %s (%s) is %#llx, reference "
                         "%#llx",
                         what, k, ShapeStr(shape).c_str(),
                         std::string(DTypeName(ref.dtype)).c_str(),
                         static_cast<unsigned long long>(got[k].i),
                         static_cast<unsigned long long>(want.i));
    }
  }
  return got;
}

// ---- The program. ----

enum class Op : uint8_t {
  kNew,
  kSlice,
  kTranspose,
  kBroadcastTo,
  kExpandDims,
  kSqueeze,
  kBinary,
  kReduce,
  kUnary,
  kWhere,
  kClip,
  kNpyRoundTrip,
  kSort,
  kConcatenate,
  kNumOps,
};

struct Slot {
  Tensor tensor;
  RefArray ref;
  bool valid = false;
};

class Harness {
 public:
  explicit Harness(ByteReader& in) : in_(in) {}

  void Run() {
    for (size_t ops = 0; ops < kMaxOps && !in_.empty(); ++ops) {
      switch (static_cast<Op>(in_.ConsumeIntegralInRange<int>(
          0, static_cast<int>(Op::kNumOps) - 1))) {
        case Op::kNew: New(); break;
        case Op::kSlice: SliceOp(); break;
        case Op::kTranspose: Transpose(); break;
        case Op::kBroadcastTo: BroadcastTo(); break;
        case Op::kExpandDims: ExpandDims(); break;
        case Op::kSqueeze: Squeeze(); break;
        case Op::kBinary: BinaryOpStep(); break;
        case Op::kReduce: ReduceStep(); break;
        case Op::kUnary: UnaryStep(); break;
        case Op::kWhere: TernaryStep(/*is_clip=*/false); break;
        case Op::kClip: TernaryStep(/*is_clip=*/true); break;
        case Op::kNpyRoundTrip: NpyRoundTrip(); break;
        case Op::kSort: SortStep(); break;
        case Op::kConcatenate:
        case Op::kNumOps: ConcatenateStep(); break;
      }
    }
    // Views must still read their (shared) storage correctly at the end.
    for (const Slot& s : slots_) {
      if (s.valid) CheckMatches(s.tensor, s.ref, "at the end");
    }
  }

 private:
  Slot& PickSlot() { return slots_[in_.ConsumeIntegralInRange<int>(0, kSlots - 1)]; }

  // A slot holding a tensor; a fresh 0-d float64 one if it was empty.
  Slot& PickFilledSlot() {
    Slot& s = PickSlot();
    if (!s.valid) {
      absl::StatusOr<Tensor> t = zeros({}, DType::kFloat64);
      TESSERA_FUZZ_CHECK(t.ok(), "zeros(()): %s", t.status().ToString().c_str());
      s.tensor = *std::move(t);
      s.ref = RefArray();
      s.ref.data.resize(1);
      s.valid = true;
    }
    return s;
  }

  // Element values: small numbers most of the time, the dtype's extremes
  // (for wrap-around) and non-finite floats otherwise.
  Num DecodeValue(DType d) {
    const uint8_t b = in_.ConsumeByte();
    Num n;
    const int small = static_cast<int>(b % 17) - 8;  // -8..8
    if (IsBool(d)) {
      n.i = b & 1;
    } else if (IsFloat(d)) {
      switch (b >> 5) {
        case 6:
          n.f = (b & 3) == 0 ? std::nan("")
              : (b & 3) == 1 ? HUGE_VAL
              : (b & 3) == 2 ? -HUGE_VAL : -0.0;
          break;
        case 7:
          n.f = small * 0.25;  // exact in float32
          break;
        default:
          n.f = small;
      }
    } else if ((b >> 5) == 7) {
      // Extremes: min, max, min + 1, max - 1.
      const int bits = Bits(d);
      const uint64_t max = IsSignedInt(d) ? (uint64_t{1} << (bits - 1)) - 1
                           : bits == 64   ? ~uint64_t{0}
                                          : (uint64_t{1} << bits) - 1;
      const uint64_t min = IsSignedInt(d) ? ~max : 0;
      switch (b & 3) {
        case 0: n.i = min; break;
        case 1: n.i = max; break;
        case 2: n.i = min + 1; break;
        default: n.i = max - 1;
      }
    } else {
      n.i = Normalize(static_cast<uint64_t>(static_cast<int64_t>(
                          IsUnsignedInt(d) ? std::abs(small) : small)),
                      d);
    }
    return n;
  }

  void New() {
    Slot& s = PickSlot();
    RefArray ref;
    ref.dtype = kAllDTypes[in_.ConsumeIntegralInRange<int>(0, kNumDTypes - 1)];
    const int ndim = in_.ConsumeIntegralInRange<int>(0, kMaxNdim);
    for (int k = 0; k < ndim; ++k) {
      ref.shape.push_back(in_.ConsumeIntegralInRange<int64_t>(0, kMaxExtent));
    }
    const int64_t n = Count(ref.shape);
    absl::StatusOr<Tensor> t = empty(ref.shape, ref.dtype);
    TESSERA_FUZZ_CHECK(t.ok(), "empty(%s): %s", ShapeStr(ref.shape).c_str(),
                       t.status().ToString().c_str());
    char* p = static_cast<char*>(t->mutable_data());
    const size_t itemsize = DTypeSize(ref.dtype);
    for (int64_t i = 0; i < n; ++i) {
      const Num v = DecodeValue(ref.dtype);
      ref.data.push_back(v);
      char* dst = p + static_cast<size_t>(i) * itemsize;
      if (ref.dtype == DType::kFloat32) {
        const float f = static_cast<float>(v.f);
        std::memcpy(dst, &f, sizeof(f));
      } else if (ref.dtype == DType::kFloat64) {
        std::memcpy(dst, &v.f, sizeof(v.f));
      } else if (ref.dtype == DType::kFloat16) {
        const Float16 h = ToFloat16(v.f);  // the decoded values are exact
        std::memcpy(dst, &h, sizeof(h));
      } else {
        std::memcpy(dst, &v.i, itemsize);  // little-endian
      }
    }
    s.tensor = *std::move(t);
    s.ref = std::move(ref);
    s.valid = true;
    CheckMatches(s.tensor, s.ref, "new tensor");
  }

  // Stores an op's result (or checks that both sides rejected it: every
  // documented error of these ops is InvalidArgument, and its message names
  // `error_names`).
  void Store(Slot& s, absl::StatusOr<Tensor> got, std::optional<RefArray> want,
             const char* what, const std::vector<double>* tolerance = nullptr,
             const std::vector<std::string>& error_names = {},
             bool zero_sign = false) {
    TESSERA_FUZZ_CHECK(got.ok() == want.has_value(),
                       "%s: engine says %s, reference says %s", what,
                       got.ok() ? "OK" : got.status().ToString().c_str(),
                       want ? "OK" : "error");
    if (!got.ok()) {
      TESSERA_FUZZ_CHECK(absl::IsInvalidArgument(got.status()) &&
                             !got.status().message().empty(),
                         "%s: error %s is not a documented InvalidArgument",
                         what, got.status().ToString().c_str());
      for (const std::string& name : error_names) {
        TESSERA_FUZZ_CHECK(absl::StrContains(got.status().message(), name),
                           "%s: error '%s' does not name '%s'", what,
                           std::string(got.status().message()).c_str(),
                           name.c_str());
      }
      return;
    }
    std::vector<Num> values =
        CheckMatches(*got, *want, what, tolerance, zero_sign);
    if (Count(want->shape) > kMaxElements) return;
    s.tensor = *std::move(got);
    s.ref = *std::move(want);
    // Within tolerance is not equal: later ops start from the engine's
    // values, so that their references can be exact again.
    if (tolerance != nullptr) s.ref.data = std::move(values);
    s.valid = true;
  }

  std::optional<int64_t> DecodeBound() {
    const int v = in_.ConsumeIntegralInRange<int>(0, 16);
    if (v == 16) return std::nullopt;
    return v - 8;  // -8..7: past both ends of a 5-long axis
  }

  void SliceOp() {
    Slot& s = PickFilledSlot();
    const int ndim = static_cast<int>(s.ref.shape.size());
    // Axis in [-ndim-1, ndim]: out-of-range axes must be rejected.
    const int axis = in_.ConsumeIntegralInRange<int>(-ndim - 1, ndim);
    const std::optional<int64_t> start = DecodeBound();
    const std::optional<int64_t> stop = DecodeBound();
    const int64_t step = in_.ConsumeIntegralInRange<int64_t>(-3, 3);
    std::optional<RefArray> want;
    if (axis >= -ndim && axis < ndim && step != 0) {
      const size_t a = static_cast<size_t>(axis < 0 ? axis + ndim : axis);
      const std::vector<int64_t> picked =
          SliceIndices(start, stop, step, s.ref.shape[a]);
      std::vector<int64_t> shape = s.ref.shape;
      shape[a] = static_cast<int64_t>(picked.size());
      const RefArray& t = s.ref;
      want = Gather(t, shape, [&](const std::vector<int64_t>& index) {
        std::vector<int64_t> src = index;
        src[a] = picked[static_cast<size_t>(index[a])];
        return Flat(t.shape, src);
      });
    }
    Store(s, slice(s.tensor, axis, Slice(start, stop, step)), std::move(want),
          "slice");
  }

  void Transpose() {
    Slot& s = PickFilledSlot();
    const int ndim = static_cast<int>(s.ref.shape.size());
    std::vector<int> perm(static_cast<size_t>(ndim));
    for (int k = 0; k < ndim; ++k) perm[static_cast<size_t>(k)] = k;
    // Fisher-Yates from the input; one more byte may repeat an axis (error).
    for (int k = ndim - 1; k > 0; --k) {
      std::swap(perm[static_cast<size_t>(k)],
                perm[static_cast<size_t>(in_.ConsumeIntegralInRange<int>(0, k))]);
    }
    const bool broken = ndim >= 2 && in_.ConsumeIntegralInRange<int>(0, 7) == 0;
    if (broken) perm[0] = perm[1];
    std::optional<RefArray> want;
    if (!broken) {
      std::vector<int64_t> shape;
      for (int p : perm) shape.push_back(s.ref.shape[static_cast<size_t>(p)]);
      const RefArray& t = s.ref;
      want = Gather(t, shape, [&](const std::vector<int64_t>& index) {
        std::vector<int64_t> src(index.size());
        for (size_t k = 0; k < index.size(); ++k) {
          src[static_cast<size_t>(perm[k])] = index[k];
        }
        return Flat(t.shape, src);
      });
    }
    Store(s, transpose(s.tensor, perm), std::move(want), "transpose");
  }

  void BroadcastTo() {
    Slot& s = PickFilledSlot();
    const int extra = in_.ConsumeIntegralInRange<int>(0, 2);
    std::vector<int64_t> shape;
    for (int k = 0; k < extra; ++k) {
      shape.push_back(in_.ConsumeIntegralInRange<int64_t>(0, 3));
    }
    for (int64_t d : s.ref.shape) {
      // Mostly the same extent; an extent-1 axis may grow; anything else
      // may become wrong (error).
      const int choice = in_.ConsumeIntegralInRange<int>(0, 7);
      shape.push_back(choice < 5 ? d : choice == 7 ? d + 1 : choice - 4);
    }
    std::optional<RefArray> want;
    bool ok = true;
    const size_t lead = shape.size() - s.ref.shape.size();
    for (size_t k = 0; k < s.ref.shape.size(); ++k) {
      if (s.ref.shape[k] != 1 && s.ref.shape[k] != shape[lead + k]) ok = false;
    }
    if (ok) {
      const RefArray& t = s.ref;
      want = Gather(t, shape, [&](const std::vector<int64_t>& index) {
        return BroadcastSource(t.shape, index);
      });
    }
    Store(s, broadcast_to(s.tensor, shape), std::move(want), "broadcast_to");
  }

  void ExpandDims() {
    Slot& s = PickFilledSlot();
    const int ndim = static_cast<int>(s.ref.shape.size());
    // The result has ndim + 1 axes: axis in [-(ndim+1), ndim] is valid.
    const int axis = in_.ConsumeIntegralInRange<int>(-ndim - 2, ndim + 1);
    std::optional<RefArray> want;
    if (axis >= -ndim - 1 && axis <= ndim && ndim < kMaxNdim + 2) {
      const int a = axis < 0 ? axis + ndim + 1 : axis;
      RefArray r = s.ref;
      r.shape.insert(r.shape.begin() + a, 1);
      want = std::move(r);
    } else if (ndim >= kMaxNdim + 2) {
      return;  // keep shapes small
    }
    Store(s, expand_dims(s.tensor, axis), std::move(want), "expand_dims");
  }

  void Squeeze() {
    Slot& s = PickFilledSlot();
    const int ndim = static_cast<int>(s.ref.shape.size());
    const int choice = in_.ConsumeIntegralInRange<int>(-ndim - 1, ndim + 1);
    std::optional<int> axis;
    if (choice != ndim + 1) axis = choice;
    RefArray r = s.ref;
    std::optional<RefArray> want;
    if (!axis) {
      r.shape.erase(std::remove(r.shape.begin(), r.shape.end(), 1),
                    r.shape.end());
      want = std::move(r);
    } else if (*axis >= -ndim && *axis < ndim) {
      const int a = *axis < 0 ? *axis + ndim : *axis;
      if (r.shape[static_cast<size_t>(a)] == 1) {
        r.shape.erase(r.shape.begin() + a);
        want = std::move(r);
      }
    }
    Store(s, squeeze(s.tensor, axis), std::move(want), "squeeze");
  }

  // A view of any layout written as .npy and read back: the values must be
  // the reference's, and writing the loaded tensor must give the same bytes.
  void NpyRoundTrip() {
    const Slot& x = PickFilledSlot();
    Slot& out = PickSlot();
    absl::StatusOr<std::string> bytes = SerializeNpy(x.tensor);
    TESSERA_FUZZ_CHECK(bytes.ok(), "SerializeNpy(%s): %s",
                       x.tensor.DebugString().c_str(),
                       bytes.status().ToString().c_str());
    absl::StatusOr<Tensor> back = ParseNpy(*bytes);
    TESSERA_FUZZ_CHECK(back.ok(), "ParseNpy of SerializeNpy(%s): %s",
                       x.tensor.DebugString().c_str(),
                       back.status().ToString().c_str());
    absl::StatusOr<std::string> again = SerializeNpy(*back);
    TESSERA_FUZZ_CHECK(again.ok() && *again == *bytes,
                       "SerializeNpy of the loaded %s differs",
                       x.tensor.DebugString().c_str());
    Store(out, std::move(back), x.ref, "npy round trip");
  }

  // NumPy's order of two reference values of dtype d: NaN last, -0 == +0.
  static bool RefLess(const Num& a, const Num& b, DType d) {
    if (IsFloat(d)) {
      return a.f < b.f || (!std::isnan(a.f) && std::isnan(b.f));
    }
    return IntLess(a.i, b.i, IsSignedInt(d));
  }

  // sort or argsort along an axis in [-ndim-1, ndim] (the ends are errors,
  // as is any axis of a 0-d tensor). The reference is a stable sort of each
  // lane; the engine's argsort is stable too, and sort's values are equal
  // under -0 == +0.
  void SortStep() {
    const bool arg = in_.ConsumeByte() & 1;
    const Slot& x = PickFilledSlot();
    const int ndim = static_cast<int>(x.ref.shape.size());
    const int axis = in_.ConsumeIntegralInRange<int>(-ndim - 1, ndim);
    Slot& out = PickSlot();
    absl::StatusOr<Tensor> got = arg ? argsort(x.tensor, axis)
                                     : sort(x.tensor, axis);
    std::optional<RefArray> want;
    if (axis >= -ndim && axis < ndim) {
      const int a = axis < 0 ? axis + ndim : axis;
      const std::vector<int64_t>& shape = x.ref.shape;
      int64_t inner = 1;
      for (int k = a + 1; k < ndim; ++k) inner *= shape[k];
      const int64_t n = shape[a];
      // A zero-length axis after `a` makes inner 0: no lanes, not a division.
      const int64_t outer =
          n == 0 || inner == 0 ? 0 : Count(shape) / (n * inner);
      RefArray r = x.ref;
      if (arg) r.dtype = DType::kInt64;
      std::vector<int64_t> lane(static_cast<size_t>(n));
      for (int64_t o = 0; o < outer; ++o) {
        for (int64_t in = 0; in < inner; ++in) {
          const int64_t base = o * n * inner + in;
          for (int64_t k = 0; k < n; ++k) lane[k] = k;
          std::stable_sort(lane.begin(), lane.end(), [&](int64_t p, int64_t q) {
            return RefLess(x.ref.data[base + p * inner],
                           x.ref.data[base + q * inner], x.ref.dtype);
          });
          for (int64_t k = 0; k < n; ++k) {
            Num v;
            if (arg) {
              v.i = static_cast<uint64_t>(lane[k]);
            } else {
              v = x.ref.data[base + lane[k] * inner];
            }
            r.data[base + k * inner] = v;
          }
        }
      }
      want = std::move(r);
    }
    Store(out, std::move(got), std::move(want), arg ? "argsort" : "sort", nullptr,
          {"axis"});
  }

  // concatenate({x, y}, axis): same ndim >= 1, equal extents off the axis;
  // the result has ResultType(x, y) and each input converted.
  void ConcatenateStep() {
    const Slot& x = PickFilledSlot();
    const Slot& y = PickFilledSlot();
    const int ndim = static_cast<int>(x.ref.shape.size());
    const int axis = in_.ConsumeIntegralInRange<int>(-ndim - 1, ndim);
    Slot& out = PickSlot();
    absl::StatusOr<Tensor> got = concatenate({x.tensor, y.tensor}, axis);
    std::optional<RefArray> want;
    bool ok = ndim > 0 && axis >= -ndim && axis < ndim &&
              y.ref.shape.size() == x.ref.shape.size();
    const int a = axis < 0 ? axis + ndim : axis;
    for (int k = 0; ok && k < ndim; ++k) {
      ok = k == a || x.ref.shape[k] == y.ref.shape[k];
    }
    if (ok) {
      RefArray r;
      r.dtype = ResultType(x.ref.dtype, y.ref.dtype);
      r.shape = x.ref.shape;
      r.shape[a] += y.ref.shape[a];
      int64_t inner = 1;
      for (int k = a + 1; k < ndim; ++k) inner *= x.ref.shape[k];
      int64_t outer = 1;
      for (int k = 0; k < a; ++k) outer *= x.ref.shape[k];
      const int64_t cx = x.ref.shape[a] * inner, cy = y.ref.shape[a] * inner;
      for (int64_t o = 0; o < outer; ++o) {
        for (int64_t k = 0; k < cx; ++k) {
          r.data.push_back(Cast(x.ref.data[o * cx + k], x.ref.dtype, r.dtype));
        }
        for (int64_t k = 0; k < cy; ++k) {
          r.data.push_back(Cast(y.ref.data[o * cy + k], y.ref.dtype, r.dtype));
        }
      }
      want = std::move(r);
    }
    Store(out, std::move(got), std::move(want), "concatenate");
  }

  void BinaryOpStep() {
    const BinaryOpSpec& spec =
        kBinaryOps[in_.ConsumeIntegralInRange<int>(0, kNumBinaryOps - 1)];
    const Slot& x = PickFilledSlot();
    const Slot& y = PickFilledSlot();
    Slot& out = PickSlot();
    RefResult want = RefBinary(spec, x.ref, y.ref);
    absl::StatusOr<Tensor> got = Binary(spec.op, x.tensor, y.tensor);
    Store(out, std::move(got), std::move(want.array), spec.name, nullptr,
          want.error_names);
  }

  void UnaryStep() {
    const UnaryOpSpec& spec =
        kUnaryOps[in_.ConsumeIntegralInRange<int>(0, kNumUnaryOps - 1)];
    const Slot& x = PickFilledSlot();
    Slot& out = PickSlot();
    UnaryRef want = RefUnary(spec, x.ref);
    absl::StatusOr<Tensor> got = Unary(spec.op, x.tensor);
    // Math results within tolerance are stored as the engine computed them.
    const bool any_tolerance =
        std::any_of(want.tolerance.begin(), want.tolerance.end(),
                    [](double t) { return t > 0; });
    Store(out, std::move(got), std::move(want.result.array), spec.name,
          any_tolerance ? &want.tolerance : nullptr, want.result.error_names,
          want.zero_sign);
  }

  // where(cond, x, y) or clip(a, lo, hi): three tensors broadcast together.
  void TernaryStep(bool is_clip) {
    const Slot& a = PickFilledSlot();
    const Slot& b = PickFilledSlot();
    const Slot& c = PickFilledSlot();
    Slot& out = PickSlot();
    RefResult want = is_clip ? RefClip(a.ref, b.ref, c.ref)
                             : RefWhere(a.ref, b.ref, c.ref);
    absl::StatusOr<Tensor> got = is_clip ? clip(a.tensor, b.tensor, c.tensor)
                                         : where(a.tensor, b.tensor, c.tensor);
    Store(out, std::move(got), std::move(want.array),
          is_clip ? "clip" : "where", nullptr, want.error_names);
  }

  void ReduceStep() {
    const ReductionSpec& spec =
        kReductions[in_.ConsumeIntegralInRange<int>(0, kNumReductions - 1)];
    const Slot& x = PickFilledSlot();
    const int ndim = static_cast<int>(x.ref.shape.size());
    const int choice = in_.ConsumeIntegralInRange<int>(-ndim - 1, ndim + 1);
    std::optional<int> axis;
    if (choice != ndim + 1) axis = choice;
    const bool keepdims = in_.ConsumeBool();
    Slot& out = PickSlot();
    std::optional<Reduced> want = RefReduction(spec.kind, x.ref, axis, keepdims);
    absl::StatusOr<Tensor> got = RunReduction(spec.kind, x.tensor, axis, keepdims);
    if (!want) {
      Store(out, std::move(got), std::nullopt, spec.name);
      return;
    }
    Store(out, std::move(got), std::move(want->array), spec.name,
          &want->tolerance);
  }

  ByteReader& in_;
  Slot slots_[kSlots];
};

}  // namespace
}  // namespace tessera

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tessera::fuzzing::ByteReader reader(data, size);
  tessera::Harness(reader).Run();
  return 0;
}
