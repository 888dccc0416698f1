// Copyright 2026 The Tessera Authors.
//
// The zip container of .npz files (APPNOTE.TXT 4.3): CRC-32, the record
// layouts, and a checked reader of the central directory and of stored
// members. Every offset and length read from the archive is range-checked:
// a corrupt archive gives a Status naming what is wrong, never a read past
// its end. Private to tensor/npy.cc.

#ifndef TESSERA_TENSOR_INTERNAL_ZIP_H_
#define TESSERA_TENSOR_INTERNAL_ZIP_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace tessera {
namespace npy_internal {

// CRC-32 (zip's: reflected polynomial 0xEDB88320), slicing by 8. Continues
// `crc` (0 to start) over `bytes`.
uint32_t Crc32(uint32_t crc, absl::string_view bytes);

// Record signatures and sizes (APPNOTE.TXT 4.3).

inline constexpr uint32_t kLocalSig = 0x04034b50;
inline constexpr uint32_t kCentralSig = 0x02014b50;
inline constexpr uint32_t kEndSig = 0x06054b50;
inline constexpr uint32_t kZip64EndSig = 0x06064b50;
inline constexpr uint32_t kZip64LocatorSig = 0x07064b50;
inline constexpr size_t kLocalBytes = 30;
inline constexpr size_t kCentralBytes = 46;
inline constexpr size_t kEndBytes = 22;
inline constexpr size_t kZip64EndBytes = 56;
inline constexpr size_t kZip64LocatorBytes = 20;
inline constexpr uint32_t k32Max = 0xFFFFFFFFu;
inline constexpr uint16_t kZip64ExtraId = 0x0001;
// np.savez's timestamp: ZipInfo's default, 1980-01-01 00:00.
inline constexpr uint16_t kDosDate = 0x0021;
inline void PutLE(std::string* out, uint64_t v, int n) {
  for (int i = 0; i < n; ++i) out->push_back(static_cast<char>(v >> (8 * i)));
}
struct ZipMember {
  std::string name;
  uint16_t method = 0;
  uint16_t flags = 0;
  uint32_t crc = 0;
  uint64_t compressed = 0;
  uint64_t uncompressed = 0;
  uint64_t local_offset = 0;
};

// An InvalidArgument status starting ".npz: ".
absl::Status ZipError(absl::string_view what);

// The members listed in the archive's central directory (zip64 included).
absl::StatusOr<std::vector<ZipMember>> ReadCentralDirectory(
    absl::string_view zip);

// The stored bytes of `m`, checked: stored, unencrypted, in range, CRC.
absl::StatusOr<absl::string_view> MemberData(absl::string_view zip,
                                             const ZipMember& m);

}  // namespace npy_internal
}  // namespace tessera

#endif  // TESSERA_TENSOR_INTERNAL_ZIP_H_
