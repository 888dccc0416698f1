// Copyright 2026 The Tessera Authors.
//
// -----------------------------------------------------------------------------
// File: dtype.h
// -----------------------------------------------------------------------------
//
// `DType` names the element types of a tensor, with NumPy's names, sizes and
// type promotion (`np.result_type` of two dtypes). The promotion table is
// NumPy's own: tensor/testdata/promotion_table.txt is generated from NumPy
// by tensor/testdata/gen_promotion.py and dtype_test.cc checks every entry.
//
// The rules behind the table, for a reader:
//   1. bool promotes to anything.
//   2. Two kinds of the same family (signed, unsigned, float) give the wider.
//   3. signed with unsigned gives the smallest signed type that holds both
//      (int8 + uint8 -> int16); uint64 with any signed type has none, so
//      NumPy gives float64.
//   4. an integer with a float gives a float wide enough for the integer
//      (int8/uint8 + float16 -> float16; int16/uint16 + float16 or float32
//      -> float32; wider ints -> float64).
//
// `CType<D>` / `kDTypeOf<T>` map between dtypes and C++ types; bool is stored
// as one byte holding 0 or 1, as in NumPy, and float16 as `Float16`
// (float16.h), a bit pattern without arithmetic: ops compute float16 in
// float32 and round once, as NumPy does.
//
// kFloat16 comes last in the enum (not beside float32) so that the indices
// of the other dtypes, which tables and fuzz seeds use, did not move.

#ifndef TESSERA_TENSOR_DTYPE_H_
#define TESSERA_TENSOR_DTYPE_H_

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "tensor/float16.h"

namespace tessera {

enum class DType : uint8_t {
  kBool,
  kInt8,
  kInt16,
  kInt32,
  kInt64,
  kUInt8,
  kUInt16,
  kUInt32,
  kUInt64,
  kFloat32,
  kFloat64,
  kFloat16,
};

inline constexpr int kNumDTypes = 12;

// All dtypes in enum order, for loops in tests and tables.
inline constexpr DType kAllDTypes[kNumDTypes] = {
    DType::kBool,   DType::kInt8,   DType::kInt16,   DType::kInt32,
    DType::kInt64,  DType::kUInt8,  DType::kUInt16,  DType::kUInt32,
    DType::kUInt64, DType::kFloat32, DType::kFloat64, DType::kFloat16,
};

// Bytes per element (NumPy's itemsize). Inline: every tensor operation asks.
inline size_t DTypeSize(DType dtype) {
  constexpr uint8_t kSizes[kNumDTypes] = {1, 1, 2, 4, 8, 1, 2, 4, 8, 4, 8, 2};
  return kSizes[static_cast<int>(dtype)];
}

// NumPy's name: "bool", "int8", ..., "uint64", "float32", "float64",
// "float16".
absl::string_view DTypeName(DType dtype);

// The dtype with NumPy name `name`; InvalidArgument naming it otherwise.
absl::StatusOr<DType> DTypeFromName(absl::string_view name);

inline bool IsBool(DType d) { return d == DType::kBool; }
inline bool IsSignedInt(DType d) {
  return d >= DType::kInt8 && d <= DType::kInt64;
}
inline bool IsUnsignedInt(DType d) {
  return d >= DType::kUInt8 && d <= DType::kUInt64;
}
inline bool IsInteger(DType d) { return IsSignedInt(d) || IsUnsignedInt(d); }
inline bool IsFloat(DType d) {
  return d == DType::kFloat32 || d == DType::kFloat64 || d == DType::kFloat16;
}

// NumPy's `np.result_type(a, b)` for two dtypes (no value-based casting).
DType ResultType(DType a, DType b);

// Whether every value of `from` is exactly representable in `to`
// (NumPy's `np.can_cast(from, to, casting="safe")`).
bool CanCastSafely(DType from, DType to);

// ---- C++ type mapping ----

template <DType D>
struct CTypeOf;
template <> struct CTypeOf<DType::kBool> { using type = bool; };
template <> struct CTypeOf<DType::kInt8> { using type = int8_t; };
template <> struct CTypeOf<DType::kInt16> { using type = int16_t; };
template <> struct CTypeOf<DType::kInt32> { using type = int32_t; };
template <> struct CTypeOf<DType::kInt64> { using type = int64_t; };
template <> struct CTypeOf<DType::kUInt8> { using type = uint8_t; };
template <> struct CTypeOf<DType::kUInt16> { using type = uint16_t; };
template <> struct CTypeOf<DType::kUInt32> { using type = uint32_t; };
template <> struct CTypeOf<DType::kUInt64> { using type = uint64_t; };
template <> struct CTypeOf<DType::kFloat32> { using type = float; };
template <> struct CTypeOf<DType::kFloat64> { using type = double; };
template <> struct CTypeOf<DType::kFloat16> { using type = Float16; };

template <DType D>
using CType = typename CTypeOf<D>::type;

template <typename T>
struct DTypeOfImpl;
template <> struct DTypeOfImpl<bool> { static constexpr DType value = DType::kBool; };
template <> struct DTypeOfImpl<int8_t> { static constexpr DType value = DType::kInt8; };
template <> struct DTypeOfImpl<int16_t> { static constexpr DType value = DType::kInt16; };
template <> struct DTypeOfImpl<int32_t> { static constexpr DType value = DType::kInt32; };
template <> struct DTypeOfImpl<int64_t> { static constexpr DType value = DType::kInt64; };
template <> struct DTypeOfImpl<uint8_t> { static constexpr DType value = DType::kUInt8; };
template <> struct DTypeOfImpl<uint16_t> { static constexpr DType value = DType::kUInt16; };
template <> struct DTypeOfImpl<uint32_t> { static constexpr DType value = DType::kUInt32; };
template <> struct DTypeOfImpl<uint64_t> { static constexpr DType value = DType::kUInt64; };
template <> struct DTypeOfImpl<float> { static constexpr DType value = DType::kFloat32; };
template <> struct DTypeOfImpl<double> { static constexpr DType value = DType::kFloat64; };
template <> struct DTypeOfImpl<Float16> { static constexpr DType value = DType::kFloat16; };

template <typename T>
inline constexpr DType kDTypeOf = DTypeOfImpl<T>::value;

// Whether T is float16's storage type (for `if constexpr` in visitors).
template <typename T>
inline constexpr bool kIsFloat16 = std::is_same<T, Float16>::value;

// Calls `fn(T{})` with the C++ type of `dtype`: the one switch every
// type-generic loop goes through. For float16 T is `Float16`, which has no
// arithmetic, so a loop that computes must route float16 through float32
// first (it does not compile otherwise).
template <typename Fn>
decltype(auto) VisitDType(DType dtype, Fn&& fn) {
  switch (dtype) {
    case DType::kBool: return fn(bool{});
    case DType::kInt8: return fn(int8_t{});
    case DType::kInt16: return fn(int16_t{});
    case DType::kInt32: return fn(int32_t{});
    case DType::kInt64: return fn(int64_t{});
    case DType::kUInt8: return fn(uint8_t{});
    case DType::kUInt16: return fn(uint16_t{});
    case DType::kUInt32: return fn(uint32_t{});
    case DType::kUInt64: return fn(uint64_t{});
    case DType::kFloat32: return fn(float{});
    case DType::kFloat16: return fn(Float16{});
    case DType::kFloat64: break;
  }
  return fn(double{});
}

}  // namespace tessera

#endif  // TESSERA_TENSOR_DTYPE_H_
