// Copyright 2026 The Tessera Authors.
//
// -----------------------------------------------------------------------------
// File: npy.h
// -----------------------------------------------------------------------------
//
// NumPy's file formats: `.npy` (one array) and `.npz` (a zip of `.npy`
// members, as `np.savez` writes it), read and written as NumPy does, plus a
// memory-mapped `.npy` read (`np.load(mmap_mode=...)`) that copies nothing.
//
//   auto t = tessera::LoadNpy("weights.npy");              // StatusOr<Tensor>
//   auto m = tessera::LoadNpyMmap("big.npy");              // O(1), read-only
//   absl::Status s = tessera::SaveNpy("out.npy", *t);
//   auto z = tessera::LoadNpz("arrays.npz");               // name -> tensor
//
// The .npy format (numpy/lib/format.py, NEP 1): the magic "\x93NUMPY", a
// major and minor version byte, the header length (2 bytes little-endian in
// 1.0, 4 bytes in 2.0 and 3.0), and the header: a Python dict literal
// {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), } padded with
// spaces and a newline so that the data starts on a 64-byte boundary. The
// data follows, `prod(shape) * itemsize` bytes in C order, or in Fortran
// order when `fortran_order` is True.
//
// Reading accepts versions 1.0, 2.0 and 3.0, the keys in any order, single or
// double quotes, Python 2's `3L` extents, any padding, and every dtype of
// dtype.h in either byte order ('<', '>', '|', '=' or none): big-endian data
// is byte-swapped into a native tensor, Fortran-order data gives a
// Fortran-contiguous tensor (as np.load does), and bool bytes other than 0
// are read as 1. Trailing bytes after the data are ignored (np.load ignores
// them too).
//
// Writing gives NumPy's bytes exactly (np.save of the same array, checked by
// npy_test.cc against files NumPy wrote): version 1.0 unless the header needs
// 2.0, little-endian descr ('|' for one-byte types), fortran_order True for a
// tensor that is Fortran- but not C-contiguous, the 21-digit growth padding
// of NumPy 1.24. Other layouts are written in C order (through one copy).
//
// .npz: members stored uncompressed (ZIP_STORED, what np.savez writes), with
// or without zip64 records; each member's CRC-32 is checked on read. Member
// names are the keys with ".npy" appended, as in NumPy. Compressed members
// (np.savez_compressed) are Unimplemented.
//
// Errors (absl::Status, never a read past the end of the input): a bad magic
// or version, a header length or a data size that runs past the end
// (naming both sizes), a header that is not the dict above (naming the
// offset and what was expected), a missing or unknown key, a negative or
// overflowing extent, and dtypes that Tessera has no type for: object ('O',
// pickled Python objects, never loaded), structured (a list descr),
// complex, strings, datetimes (each named). File errors name the path and
// errno's text.
//
// Complexity: LoadNpy is one read of the file into fresh storage (plus one
// pass to swap or normalise bools when needed); LoadNpyMmap is O(1) in the
// data size (the header is parsed, the data is mapped, nothing is touched).

#ifndef TESSERA_TENSOR_NPY_H_
#define TESSERA_TENSOR_NPY_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "alloc/allocator.h"
#include "tensor/dtype.h"
#include "tensor/tensor.h"

namespace tessera {

// What a .npy header says.
struct NpyHeader {
  int major_version = 1;  // 1, 2 or 3
  int minor_version = 0;  // 0
  DType dtype = DType::kFloat64;
  // The data is big-endian and itemsize > 1: it must be byte-swapped on this
  // (little-endian) host.
  bool big_endian = false;
  bool fortran_order = false;
  Shape shape;
  // Bytes before the data (magic, length field and header).
  int64_t data_offset = 0;
  // prod(shape) * itemsize.
  int64_t data_bytes = 0;
};

// Parses the header at the start of `bytes`, which must hold the whole header
// (the data need not follow: `file_bytes` is the size of the whole file, and
// InvalidArgument is returned when the data would run past it).
absl::StatusOr<NpyHeader> ParseNpyHeader(absl::string_view bytes,
                                         uint64_t file_bytes);

// The header NumPy's np.save writes for `tensor` (magic to newline), and
// whether the data goes in Fortran order.
std::string NpyHeaderFor(const Tensor& tensor, bool fortran_order);

// A tensor holding a copy of the .npy image `bytes`.
absl::StatusOr<Tensor> ParseNpy(absl::string_view bytes,
                                Allocator* allocator = nullptr);

// The .npy image of `tensor` (what np.save writes).
absl::StatusOr<std::string> SerializeNpy(const Tensor& tensor);

// Reads the .npy file at `path` into a new owning tensor.
absl::StatusOr<Tensor> LoadNpy(const std::string& path,
                               Allocator* allocator = nullptr);

// Writes `tensor` to `path` as .npy (replacing the file).
absl::Status SaveNpy(const std::string& path, const Tensor& tensor);

// np.load's mmap_mode: 'r', 'r+' and 'c'.
enum class NpyMmapMode {
  kReadOnly,     // 'r': the tensor is not writeable()
  kReadWrite,    // 'r+': writes go to the file (MAP_SHARED)
  kCopyOnWrite,  // 'c': writes stay in this process (MAP_PRIVATE)
};

// Maps the .npy file at `path` and returns a non-owning tensor over its data
// (owns_data() false); the mapping is released with the last view. O(1) in
// the data size. Big-endian data cannot be viewed natively and data whose
// offset is not a multiple of the itemsize cannot be viewed aligned: both are
// FailedPrecondition (LoadNpy reads them). The header allocator is
// `allocator` (or the default).
absl::StatusOr<Tensor> LoadNpyMmap(const std::string& path,
                                   NpyMmapMode mode = NpyMmapMode::kReadOnly,
                                   Allocator* allocator = nullptr);

// One member of an .npz archive: its key (the member name without ".npy")
// and its array.
struct NpzEntry {
  std::string name;
  Tensor tensor;
};

// The members of the .npz image `bytes`, in archive order, each copied into
// its own tensor.
absl::StatusOr<std::vector<NpzEntry>> ParseNpz(absl::string_view bytes,
                                               Allocator* allocator = nullptr);

// The .npz image of `entries` (np.savez's layout: stored members named
// key + ".npy", zip64 records when a size or offset needs them). Keys must
// be non-empty and distinct (InvalidArgument naming the key).
absl::StatusOr<std::string> SerializeNpz(absl::Span<const NpzEntry> entries);

absl::StatusOr<std::vector<NpzEntry>> LoadNpz(const std::string& path,
                                              Allocator* allocator = nullptr);
absl::Status SaveNpz(const std::string& path,
                     absl::Span<const NpzEntry> entries);

}  // namespace tessera

#endif  // TESSERA_TENSOR_NPY_H_
