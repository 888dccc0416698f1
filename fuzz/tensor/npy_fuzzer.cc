// Copyright 2026 The Tessera Authors.
//
// -----------------------------------------------------------------------------
// File: fuzz/tensor/npy_fuzzer.cc
// -----------------------------------------------------------------------------
//
// Fuzzes the .npy and .npz parsers (tensor/npy.h) with whole file images:
// an input starting with "PK" is parsed as .npz, anything else as .npy. The
// input is copied into a heap block of exactly its size, so that ASan
// reports any read past the end. Checks, for every input:
//   * parsing returns a Status or a tensor, never crashes;
//   * an error is one of the documented codes with a message;
//   * a parsed .npy has the header's dtype and shape, its data lies inside
//     the input, and it survives SerializeNpy -> ParseNpy with the same bytes
//     (a fixed point: the second image equals the first);
//   * a parsed .npz re-serialises and parses back to the same members.
// Seeds (corpus/npy_fuzzer/) are files NumPy wrote (tensor/testdata/npy/).

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "fuzz/fuzz_check.h"
#include "tensor/npy.h"

namespace tessera {
namespace {

void CheckError(const absl::Status& s, const char* what) {
  TESSERA_FUZZ_CHECK(
      (absl::IsInvalidArgument(s) || absl::IsUnimplemented(s)) &&
          !s.message().empty(),
      "%s: undocumented error %s", what, s.ToString().c_str());
}

// Writing `t` and reading it back gives the same tensor bytes.
std::string CheckRoundTrip(const Tensor& t, const char* what) {
  absl::StatusOr<std::string> image = SerializeNpy(t);
  TESSERA_FUZZ_CHECK(image.ok(), "%s: SerializeNpy(%s): %s", what,
                     t.DebugString().c_str(), image.status().ToString().c_str());
  absl::StatusOr<Tensor> back = ParseNpy(*image);
  TESSERA_FUZZ_CHECK(back.ok(), "%s: ParseNpy of SerializeNpy(%s): %s", what,
                     t.DebugString().c_str(), back.status().ToString().c_str());
  TESSERA_FUZZ_CHECK(back->dtype() == t.dtype() && back->shape() == t.shape(),
                     "%s: round trip of %s gives %s", what,
                     t.DebugString().c_str(), back->DebugString().c_str());
  absl::StatusOr<std::string> again = SerializeNpy(*back);
  TESSERA_FUZZ_CHECK(again.ok() && *again == *image,
                     "%s: second image of %s differs", what,
                     t.DebugString().c_str());
  return *image;
}

void FuzzNpy(absl::string_view in) {
  absl::StatusOr<NpyHeader> h = ParseNpyHeader(in, in.size());
  absl::StatusOr<Tensor> t = ParseNpy(in);
  TESSERA_FUZZ_CHECK(h.ok() == t.ok(), "header %s but parse %s",
                     h.status().ToString().c_str(),
                     t.status().ToString().c_str());
  if (!t.ok()) {
    CheckError(t.status(), "ParseNpy");
    return;
  }
  TESSERA_FUZZ_CHECK(t->dtype() == h->dtype && t->shape() == h->shape,
                     "tensor %s, header says another dtype or shape",
                     t->DebugString().c_str());
  TESSERA_FUZZ_CHECK(h->data_offset >= 0 && h->data_bytes == t->nbytes() &&
                         static_cast<uint64_t>(h->data_offset) +
                                 static_cast<uint64_t>(h->data_bytes) <=
                             in.size(),
                     "data [%lld, +%lld) outside the %zu-byte input",
                     static_cast<long long>(h->data_offset),
                     static_cast<long long>(h->data_bytes), in.size());
  TESSERA_FUZZ_CHECK(t->c_contiguous() || t->f_contiguous(),
                     "loaded %s is neither C nor Fortran contiguous",
                     t->DebugString().c_str());
  CheckRoundTrip(*t, "npy");
}

void FuzzNpz(absl::string_view in) {
  absl::StatusOr<std::vector<NpzEntry>> entries = ParseNpz(in);
  if (!entries.ok()) {
    CheckError(entries.status(), "ParseNpz");
    return;
  }
  for (const NpzEntry& e : *entries) CheckRoundTrip(e.tensor, "npz member");
  absl::StatusOr<std::string> image = SerializeNpz(*entries);
  if (!image.ok()) {
    // Only duplicate or empty keys of the input archive are refused.
    CheckError(image.status(), "SerializeNpz");
    return;
  }
  absl::StatusOr<std::vector<NpzEntry>> back = ParseNpz(*image);
  TESSERA_FUZZ_CHECK(back.ok() && back->size() == entries->size(),
                     "re-serialised .npz does not parse back: %s",
                     back.status().ToString().c_str());
  for (size_t i = 0; i < back->size(); ++i) {
    TESSERA_FUZZ_CHECK((*back)[i].name == (*entries)[i].name &&
                           *SerializeNpy((*back)[i].tensor) ==
                               *SerializeNpy((*entries)[i].tensor),
                       "member %zu changed in the round trip", i);
  }
}

}  // namespace
}  // namespace tessera

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Large images only slow the fuzzer down; the parsers are size-independent.
  if (size > (size_t{1} << 20)) return 0;
  std::unique_ptr<char[]> exact(new char[size == 0 ? 1 : size]);
  if (size > 0) std::memcpy(exact.get(), data, size);
  const absl::string_view in(exact.get(), size);
  if (size >= 2 && in[0] == 'P' && in[1] == 'K') {
    tessera::FuzzNpz(in);
  } else {
    tessera::FuzzNpy(in);
  }
  return 0;
}
