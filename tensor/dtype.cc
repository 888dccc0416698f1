// Copyright 2026 The Tessera Authors.

#include "tensor/dtype.h"

#include "absl/strings/str_format.h"

namespace tessera {
namespace {

constexpr absl::string_view kNames[kNumDTypes] = {
    "bool",   "int8",   "int16",   "int32",   "int64",  "uint8",
    "uint16", "uint32", "uint64", "float32", "float64", "float16",
};

int Index(DType d) { return static_cast<int>(d); }

DType SignedOfSize(size_t size) {
  switch (size) {
    case 1: return DType::kInt8;
    case 2: return DType::kInt16;
    case 4: return DType::kInt32;
    default: return DType::kInt64;
  }
}

}  // namespace

absl::string_view DTypeName(DType dtype) { return kNames[Index(dtype)]; }

absl::StatusOr<DType> DTypeFromName(absl::string_view name) {
  for (DType d : kAllDTypes) {
    if (DTypeName(d) == name) return d;
  }
  return absl::InvalidArgumentError(
      absl::StrFormat("unknown dtype name \"%s\"", name));
}

DType ResultType(DType a, DType b) {
  if (a == b) return a;
  // Rule 1: bool promotes to anything.
  if (IsBool(a)) return b;
  if (IsBool(b)) return a;
  const size_t sa = DTypeSize(a), sb = DTypeSize(b);
  // Rule 2: same family gives the wider.
  if ((IsSignedInt(a) && IsSignedInt(b)) ||
      (IsUnsignedInt(a) && IsUnsignedInt(b)) || (IsFloat(a) && IsFloat(b))) {
    return sa >= sb ? a : b;
  }
  // Rule 4: integer with float.
  if (IsFloat(a) || IsFloat(b)) {
    const DType f = IsFloat(a) ? a : b;
    const size_t int_size = IsFloat(a) ? sb : sa;
    if (f == DType::kFloat64 || int_size >= 4) return DType::kFloat64;
    if (f == DType::kFloat16 && int_size == 1) return DType::kFloat16;
    return DType::kFloat32;
  }
  // Rule 3: signed with unsigned.
  const size_t signed_size = IsSignedInt(a) ? sa : sb;
  const size_t unsigned_size = IsUnsignedInt(a) ? sa : sb;
  if (signed_size > unsigned_size) return SignedOfSize(signed_size);
  if (unsigned_size == 8) return DType::kFloat64;
  return SignedOfSize(unsigned_size * 2);
}

bool CanCastSafely(DType from, DType to) { return ResultType(from, to) == to; }

}  // namespace tessera
