// Copyright 2026 The Tessera Authors.

#include "tensor/internal/zip.h"

#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tensor/internal/npy_bytes.h"

namespace tessera {
namespace npy_internal {

// ---- CRC-32 (zip's: reflected polynomial 0xEDB88320), slicing by 8. ----

namespace {

struct Crc32Tables {
  uint32_t t[8][256];
  Crc32Tables() {
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1)));
      t[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; ++i) {
      for (int s = 1; s < 8; ++s) {
        t[s][i] = (t[s - 1][i] >> 8) ^ t[0][t[s - 1][i] & 0xFF];
      }
    }
  }
};

const Crc32Tables& Tables() {
  static const Crc32Tables* tables = new Crc32Tables();
  return *tables;
}

}  // namespace

uint32_t Crc32(uint32_t crc, absl::string_view bytes) {
  const Crc32Tables& tb = Tables();
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  size_t n = bytes.size();
  crc = ~crc;
  while (n >= 8) {
    uint32_t lo, hi;
    std::memcpy(&lo, p, 4);
    std::memcpy(&hi, p + 4, 4);
    lo ^= crc;
    crc = tb.t[7][lo & 0xFF] ^ tb.t[6][(lo >> 8) & 0xFF] ^
          tb.t[5][(lo >> 16) & 0xFF] ^ tb.t[4][lo >> 24] ^
          tb.t[3][hi & 0xFF] ^ tb.t[2][(hi >> 8) & 0xFF] ^
          tb.t[1][(hi >> 16) & 0xFF] ^ tb.t[0][hi >> 24];
    p += 8;
    n -= 8;
  }
  while (n-- > 0) crc = (crc >> 8) ^ tb.t[0][(crc ^ *p++) & 0xFF];
  return ~crc;
}

absl::Status ZipError(absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(".npz: ", what));
}

// Reads the zip64 extended-information extra field of a central record: the
// 64-bit values of the fields whose 32-bit value is 0xFFFFFFFF, in order.
namespace {

absl::Status ReadZip64Extra(absl::string_view extra, ZipMember* m,
                            bool need_u, bool need_c, bool need_off) {
  uint64_t pos = 0;
  while (InRange(extra, pos, 4)) {
    const uint64_t id = LoadLE(extra.data() + pos, 2);
    const uint64_t size = LoadLE(extra.data() + pos + 2, 2);
    if (!InRange(extra, pos + 4, size)) break;
    if (id == kZip64ExtraId) {
      absl::string_view f = extra.substr(pos + 4, size);
      uint64_t at = 0;
      for (auto [need, field] :
           {std::pair<bool, uint64_t*>{need_u, &m->uncompressed},
            {need_c, &m->compressed},
            {need_off, &m->local_offset}}) {
        if (!need) continue;
        if (!InRange(f, at, 8)) {
          return ZipError(absl::StrFormat(
              "member %s: zip64 extra field too short", Quoted(m->name)));
        }
        *field = LoadLE(f.data() + at, 8);
        at += 8;
      }
      return absl::OkStatus();
    }
    pos += 4 + size;
  }
  return ZipError(absl::StrFormat(
      "member %s: sizes say zip64 but there is no zip64 extra field",
      Quoted(m->name)));
}

}  // namespace

absl::StatusOr<std::vector<ZipMember>> ReadCentralDirectory(
    absl::string_view zip) {
  if (zip.size() < kEndBytes) {
    return ZipError(absl::StrFormat(
        "%d bytes is too short for a zip archive", zip.size()));
  }
  // The end record is the last 22 bytes plus a comment of up to 64 KiB.
  uint64_t end = 0;
  bool found = false;
  const uint64_t lowest =
      zip.size() > kEndBytes + 0xFFFF ? zip.size() - kEndBytes - 0xFFFF : 0;
  for (uint64_t at = zip.size() - kEndBytes + 1; at-- > lowest;) {
    if (LoadLE(zip.data() + at, 4) == kEndSig &&
        at + kEndBytes + LoadLE(zip.data() + at + 20, 2) == zip.size()) {
      end = at;
      found = true;
      break;
    }
  }
  if (!found) return ZipError("no end of central directory record");
  const char* e = zip.data() + end;
  uint64_t count = LoadLE(e + 10, 2);
  uint64_t cd_size = LoadLE(e + 12, 4);
  uint64_t cd_offset = LoadLE(e + 16, 4);
  if (LoadLE(e + 4, 2) != 0 || LoadLE(e + 6, 2) != 0) {
    return ZipError("multi-disk archives are not supported");
  }
  if (count == 0xFFFF || cd_size == k32Max || cd_offset == k32Max) {
    if (end < kZip64LocatorBytes ||
        LoadLE(zip.data() + end - kZip64LocatorBytes, 4) != kZip64LocatorSig) {
      return ZipError("end record says zip64 but there is no zip64 locator");
    }
    const uint64_t z64 = LoadLE(zip.data() + end - kZip64LocatorBytes + 8, 8);
    if (!InRange(zip, z64, kZip64EndBytes) ||
        LoadLE(zip.data() + z64, 4) != kZip64EndSig) {
      return ZipError(absl::StrFormat(
          "zip64 end record offset %d is not a zip64 end record", z64));
    }
    count = LoadLE(zip.data() + z64 + 32, 8);
    cd_size = LoadLE(zip.data() + z64 + 40, 8);
    cd_offset = LoadLE(zip.data() + z64 + 48, 8);
  }
  if (!InRange(zip, cd_offset, cd_size)) {
    return ZipError(absl::StrFormat(
        "central directory (%d bytes at offset %d) runs past the end of the "
        "archive (%d bytes)",
        cd_size, cd_offset, zip.size()));
  }
  absl::string_view cd = zip.substr(cd_offset, cd_size);
  if (count > cd.size() / kCentralBytes) {
    return ZipError(absl::StrFormat(
        "%d members do not fit in a %d-byte central directory", count,
        cd.size()));
  }
  std::vector<ZipMember> members;
  members.reserve(count);
  uint64_t pos = 0;
  for (uint64_t i = 0; i < count; ++i) {
    if (!InRange(cd, pos, kCentralBytes) ||
        LoadLE(cd.data() + pos, 4) != kCentralSig) {
      return ZipError(absl::StrFormat(
          "central directory record %d at offset %d is corrupt", i,
          cd_offset + pos));
    }
    const char* r = cd.data() + pos;
    ZipMember m;
    m.flags = static_cast<uint16_t>(LoadLE(r + 8, 2));
    m.method = static_cast<uint16_t>(LoadLE(r + 10, 2));
    m.crc = static_cast<uint32_t>(LoadLE(r + 16, 4));
    m.compressed = LoadLE(r + 20, 4);
    m.uncompressed = LoadLE(r + 24, 4);
    const uint64_t name_len = LoadLE(r + 28, 2);
    const uint64_t extra_len = LoadLE(r + 30, 2);
    const uint64_t comment_len = LoadLE(r + 32, 2);
    m.local_offset = LoadLE(r + 42, 4);
    if (!InRange(cd, pos + kCentralBytes, name_len + extra_len + comment_len)) {
      return ZipError(absl::StrFormat(
          "central directory record %d runs past the directory", i));
    }
    m.name = std::string(cd.substr(pos + kCentralBytes, name_len));
    const bool need_u = m.uncompressed == k32Max;
    const bool need_c = m.compressed == k32Max;
    const bool need_off = m.local_offset == k32Max;
    if (need_u || need_c || need_off) {
      auto s = ReadZip64Extra(cd.substr(pos + kCentralBytes + name_len,
                                        extra_len),
                              &m, need_u, need_c, need_off);
      if (!s.ok()) return s;
    }
    members.push_back(std::move(m));
    pos += kCentralBytes + name_len + extra_len + comment_len;
  }
  return members;
}

absl::StatusOr<absl::string_view> MemberData(absl::string_view zip,
                                             const ZipMember& m) {
  if (m.flags & 1) {
    return absl::UnimplementedError(absl::StrFormat(
        ".npz member %s is encrypted", Quoted(m.name)));
  }
  if (m.method != 0) {
    return absl::UnimplementedError(absl::StrFormat(
        ".npz member %s is compressed (method %d, as np.savez_compressed "
        "writes): only stored members are supported",
        Quoted(m.name), m.method));
  }
  if (m.compressed != m.uncompressed) {
    return ZipError(absl::StrFormat(
        "stored member %s has compressed size %d != size %d", Quoted(m.name),
        m.compressed, m.uncompressed));
  }
  if (!InRange(zip, m.local_offset, kLocalBytes) ||
      LoadLE(zip.data() + m.local_offset, 4) != kLocalSig) {
    return ZipError(absl::StrFormat(
        "member %s: no local header at offset %d", Quoted(m.name),
        m.local_offset));
  }
  const char* l = zip.data() + m.local_offset;
  const uint64_t start = m.local_offset + kLocalBytes + LoadLE(l + 26, 2) +
                         LoadLE(l + 28, 2);
  if (!InRange(zip, start, m.compressed)) {
    return ZipError(absl::StrFormat(
        "member %s: %d bytes at offset %d run past the end of the archive "
        "(%d bytes)",
        Quoted(m.name), m.compressed, start, zip.size()));
  }
  absl::string_view data = zip.substr(start, m.compressed);
  const uint32_t crc = Crc32(0, data);
  if (crc != m.crc) {
    return ZipError(absl::StrFormat(
        "member %s: CRC-32 %08x, the directory says %08x", Quoted(m.name),
        crc, m.crc));
  }
  return data;
}

}  // namespace npy_internal
}  // namespace tessera
