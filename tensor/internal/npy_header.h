// Copyright 2026 The Tessera Authors.
//
// The .npy header, read side: the magic, the version and length field
// (`HeaderExtent`) and the Python dict literal after them
// (`ParseHeaderDict`). npy.cc assembles these into the public `NpyHeader`
// (npy.h); the constants here are shared with its writer.

#ifndef TESSERA_TENSOR_INTERNAL_NPY_HEADER_H_
#define TESSERA_TENSOR_INTERNAL_NPY_HEADER_H_

#include <cstddef>
#include <cstdint>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "tensor/dtype.h"
#include "tensor/tensor.h"

namespace tessera {
namespace npy_internal {

inline constexpr char kMagic[] = "\x93NUMPY";
inline constexpr size_t kMagicBytes = 6;
// NumPy's NPY_MAXDIMS (64 in NumPy 1.x; np.load refuses more): the reader
// rejects a longer shape and the writer refuses such a tensor, so that
// every file Tessera writes can be read back by both.
inline constexpr int kMaxAxes = 64;

// What the header dict says.
struct HeaderDict {
  DType dtype = DType::kFloat64;
  // Big-endian data with itemsize > 1 (to be byte-swapped on this host).
  bool big_endian = false;
  bool fortran_order = false;
  Shape shape;
  // prod(shape) * itemsize, checked not to overflow.
  int64_t data_bytes = 0;
};

// Bytes from the start of the file to the end of the header, from the magic
// and length field at the start of `bytes` (which may hold only those 8 + 2
// or 8 + 4 bytes). Sets the version and where the header text begins.
// InvalidArgument for a short input, a bad magic or version, or a header
// length above 1 MiB.
absl::StatusOr<uint64_t> HeaderExtent(absl::string_view bytes, int* major,
                                      int* minor, uint64_t* length_field_end);

// Parses the header text `text` (the dict and its padding), which starts at
// byte `base` of the file (for messages). InvalidArgument naming the offset
// and what was expected, the missing or unknown key, an object dtype or a
// shape of more than kMaxAxes axes; Unimplemented for a dtype Tessera has no
// type for (structured, complex, strings, datetimes).
absl::Status ParseHeaderDict(absl::string_view text, int64_t base,
                             HeaderDict* header);

}  // namespace npy_internal
}  // namespace tessera

#endif  // TESSERA_TENSOR_INTERNAL_NPY_HEADER_H_
