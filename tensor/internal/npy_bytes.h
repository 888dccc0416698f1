// Copyright 2026 The Tessera Authors.
//
// Checked little-endian reads of untrusted bytes, shared by the .npy parser
// and the zip reader: every read goes through InRange first.

#ifndef TESSERA_TENSOR_INTERNAL_NPY_BYTES_H_
#define TESSERA_TENSOR_INTERNAL_NPY_BYTES_H_

#include <cstdint>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"

namespace tessera {
namespace npy_internal {

inline bool InRange(absl::string_view bytes, uint64_t offset, uint64_t length) {
  return offset <= bytes.size() && length <= bytes.size() - offset;
}

inline uint64_t LoadLE(const char* p, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; --i) {
    v = (v << 8) | static_cast<unsigned char>(p[i]);
  }
  return v;
}

inline std::string Quoted(absl::string_view s) {
  std::string out = "'";
  for (char c : s) {
    if (absl::ascii_isprint(static_cast<unsigned char>(c))) {
      out += c;
    } else {
      absl::StrAppendFormat(&out, "\\x%02x", static_cast<unsigned char>(c));
    }
  }
  return out + "'";
}

}  // namespace npy_internal
}  // namespace tessera

#endif  // TESSERA_TENSOR_INTERNAL_NPY_BYTES_H_
