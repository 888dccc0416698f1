// Copyright 2026 The Tessera Authors.
//
// .npy and .npz reading and writing (npy.h). Every read of the input goes
// through `Bytes`, which checks the range first: a corrupt length or offset
// gives a Status, never a read past the end.

#include "tensor/npy.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "tensor/internal/npy_bytes.h"
#include "tensor/internal/npy_files.h"
#include "tensor/internal/npy_header.h"
#include "tensor/internal/thread_pool.h"
#include "tensor/internal/zip.h"
#include "tensor/parallel.h"

namespace tessera {
namespace {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "npy.cc reads and writes little-endian data natively");

// NumPy aligns the data to this (format.ARRAY_ALIGN).
constexpr size_t kArrayAlign = 64;
// NumPy pads the header so that the first extent can grow to this many
// digits in place (format.GROWTH_AXIS_MAX_DIGITS, NumPy >= 1.24).
constexpr size_t kGrowthAxisMaxDigits = 21;

using npy_internal::Crc32;
using npy_internal::ErrnoError;
using npy_internal::HeaderDict;
using npy_internal::HeaderExtent;
using npy_internal::InputFile;
using npy_internal::kMagic;
using npy_internal::kMagicBytes;
using npy_internal::kMaxAxes;
using npy_internal::MemberData;
using npy_internal::ParseHeaderDict;
using npy_internal::PutLE;
using npy_internal::Quoted;
using npy_internal::ReadCentralDirectory;
using npy_internal::ZipError;
using npy_internal::ZipMember;
using npy_internal::kLocalSig;
using npy_internal::kCentralSig;
using npy_internal::kEndSig;
using npy_internal::kZip64EndSig;
using npy_internal::kZip64LocatorSig;
using npy_internal::kZip64EndBytes;
using npy_internal::k32Max;
using npy_internal::kZip64ExtraId;
using npy_internal::kDosDate;

// ---- Data conversion after a raw read. ----

// Byte-swaps big-endian elements in place and maps bool bytes to 0/1.
void FixUpData(const NpyHeader& h, void* data) {
  const int64_t n = h.data_bytes / static_cast<int64_t>(DTypeSize(h.dtype));
  if (h.dtype == DType::kBool) {
    auto* p = static_cast<uint8_t*>(data);
    for (int64_t i = 0; i < n; ++i) p[i] = p[i] != 0;
    return;
  }
  if (!h.big_endian) return;
  switch (DTypeSize(h.dtype)) {
    case 2: {
      auto* p = static_cast<uint16_t*>(data);
      for (int64_t i = 0; i < n; ++i) p[i] = __builtin_bswap16(p[i]);
      break;
    }
    case 4: {
      auto* p = static_cast<uint32_t*>(data);
      for (int64_t i = 0; i < n; ++i) p[i] = __builtin_bswap32(p[i]);
      break;
    }
    case 8: {
      auto* p = static_cast<uint64_t*>(data);
      for (int64_t i = 0; i < n; ++i) p[i] = __builtin_bswap64(p[i]);
      break;
    }
    default:
      break;
  }
}

Strides LayoutStrides(const NpyHeader& h) {
  const int64_t itemsize = static_cast<int64_t>(DTypeSize(h.dtype));
  if (!h.fortran_order) return ContiguousStrides(h.shape, itemsize);
  Strides s(h.shape.size());
  int64_t stride = itemsize;
  for (size_t k = 0; k < h.shape.size(); ++k) {
    s[k] = stride;
    // Modular, as in ContiguousStrides: only a zero-size array (whose strides
    // are never used) can have extents whose product overflows, and
    // CheckedElementCount has accepted it (a fuzzer found the signed
    // overflow: shape (0, 2**55, 2**55)).
    stride = static_cast<int64_t>(
        static_cast<uint64_t>(stride) *
        static_cast<uint64_t>(h.shape[k] > 0 ? h.shape[k] : 1));
  }
  return s;
}

// A new owning tensor with the header's dtype, shape and layout
// (uninitialised).
absl::StatusOr<Tensor> EmptyFor(const NpyHeader& h, Allocator* allocator) {
  auto t = empty(h.shape, h.dtype, allocator);
  if (!t.ok() || !h.fortran_order || h.shape.size() < 2) return t;
  return Tensor::UncheckedView(t->storage(), h.dtype, h.shape,
                               LayoutStrides(h), 0, /*writeable=*/true,
                               /*owns_data=*/true);
}

// ---- Output. ----

// Where serialised bytes go: a string or a file.
class Sink {
 public:
  virtual ~Sink() = default;
  virtual absl::Status Write(const void* data, size_t bytes) = 0;
  absl::Status Write(absl::string_view s) { return Write(s.data(), s.size()); }
};

class StringSink : public Sink {
 public:
  explicit StringSink(std::string* out) : out_(out) {}
  absl::Status Write(const void* data, size_t bytes) override {
    out_->append(static_cast<const char*>(data), bytes);
    return absl::OkStatus();
  }

 private:
  std::string* out_;
};


class FileSink : public Sink {
 public:
  FileSink(int fd, const std::string& path) : fd_(fd), path_(path) {}
  absl::Status Write(const void* data, size_t bytes) override {
    const char* p = static_cast<const char*>(data);
    while (bytes > 0) {
      const size_t chunk = std::min<size_t>(bytes, size_t{1} << 30);
      const ssize_t n = ::write(fd_, p, chunk);
      if (n < 0) {
        if (errno == EINTR) continue;
        return ErrnoError("cannot write", path_, errno);
      }
      p += n;
      bytes -= static_cast<size_t>(n);
    }
    return absl::OkStatus();
  }

 private:
  int fd_;
  const std::string& path_;
};

// The tensor's elements as the file holds them: its own memory when C- or
// Fortran-contiguous, else a C-order copy (kept alive in `*hold`).
absl::StatusOr<absl::string_view> DataForWrite(const Tensor& t, bool* fortran,
                                               Tensor* hold) {
  *fortran = t.f_contiguous() && !t.c_contiguous();
  if (!t.c_contiguous() && !t.f_contiguous()) {
    auto c = copy(t);
    if (!c.ok()) return c.status();
    *hold = *std::move(c);
    *fortran = false;
    return absl::string_view(static_cast<const char*>(hold->data()),
                             static_cast<size_t>(hold->nbytes()));
  }
  if (t.size() == 0) return absl::string_view();
  return absl::string_view(static_cast<const char*>(t.data()),
                           static_cast<size_t>(t.nbytes()));
}

// A tensor .npy can hold: one of at most 64 axes (NumPy's limit; np.load
// and ParseNpyHeader refuse a longer shape, so such a file could never be
// read back).
absl::Status CheckWritable(const Tensor& tensor) {
  if (!tensor.valid()) return absl::InvalidArgumentError("SaveNpy: no tensor");
  if (tensor.ndim() > kMaxAxes) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "SaveNpy: a tensor of %d axes cannot be written as .npy (at most %d, "
        "NumPy's limit)",
        tensor.ndim(), kMaxAxes));
  }
  return absl::OkStatus();
}

absl::Status WriteNpy(const Tensor& tensor, Sink& sink) {
  if (auto s = CheckWritable(tensor); !s.ok()) return s;
  bool fortran = false;
  Tensor hold;
  auto data = DataForWrite(tensor, &fortran, &hold);
  if (!data.ok()) return data.status();
  if (auto s = sink.Write(NpyHeaderFor(tensor, fortran)); !s.ok()) return s;
  return sink.Write(data->data(), data->size());
}


absl::Status WriteNpz(absl::Span<const NpzEntry> entries, Sink& sink) {
  absl::flat_hash_set<std::string> seen;
  for (const NpzEntry& e : entries) {
    if (e.name.empty()) return absl::InvalidArgumentError(".npz: empty key");
    if (e.name.size() + 4 > 0xFFFF) {
      return absl::InvalidArgumentError(absl::StrFormat(
          ".npz: key of %d bytes is too long", e.name.size()));
    }
    if (!seen.insert(e.name).second) {
      return absl::InvalidArgumentError(
          absl::StrFormat(".npz: duplicate key %s", Quoted(e.name)));
    }
    if (!e.tensor.valid()) {
      return absl::InvalidArgumentError(
          absl::StrFormat(".npz: key %s has no tensor", Quoted(e.name)));
    }
    if (auto s = CheckWritable(e.tensor); !s.ok()) {
      return absl::InvalidArgumentError(absl::StrFormat(
          ".npz: key %s: %s", Quoted(e.name), s.message()));
    }
  }
  std::string central;
  uint64_t offset = 0;
  for (const NpzEntry& e : entries) {
    bool fortran = false;
    Tensor hold;
    auto data = DataForWrite(e.tensor, &fortran, &hold);
    if (!data.ok()) return data.status();
    const std::string header = NpyHeaderFor(e.tensor, fortran);
    const std::string name = e.name + ".npy";
    const uint64_t size = header.size() + data->size();
    const uint32_t crc = Crc32(Crc32(0, header), *data);
    const bool big = size >= k32Max;
    const bool far = offset >= k32Max;
    std::string local;
    PutLE(&local, kLocalSig, 4);
    PutLE(&local, big ? 45 : 20, 2);  // version needed
    PutLE(&local, 0, 2);              // flags
    PutLE(&local, 0, 2);              // stored
    PutLE(&local, 0, 2);              // time
    PutLE(&local, kDosDate, 2);
    PutLE(&local, crc, 4);
    PutLE(&local, big ? k32Max : size, 4);
    PutLE(&local, big ? k32Max : size, 4);
    PutLE(&local, name.size(), 2);
    PutLE(&local, big ? 20 : 0, 2);
    local += name;
    if (big) {
      PutLE(&local, kZip64ExtraId, 2);
      PutLE(&local, 16, 2);
      PutLE(&local, size, 8);
      PutLE(&local, size, 8);
    }
    std::string extra;
    if (big || far) {
      PutLE(&extra, kZip64ExtraId, 2);
      PutLE(&extra, (big ? 16 : 0) + (far ? 8 : 0), 2);
      if (big) {
        PutLE(&extra, size, 8);
        PutLE(&extra, size, 8);
      }
      if (far) PutLE(&extra, offset, 8);
    }
    PutLE(&central, kCentralSig, 4);
    PutLE(&central, (3 << 8) | ((big || far) ? 45 : 20), 2);  // made by Unix
    PutLE(&central, (big || far) ? 45 : 20, 2);
    PutLE(&central, 0, 2);
    PutLE(&central, 0, 2);
    PutLE(&central, 0, 2);
    PutLE(&central, kDosDate, 2);
    PutLE(&central, crc, 4);
    PutLE(&central, big ? k32Max : size, 4);
    PutLE(&central, big ? k32Max : size, 4);
    PutLE(&central, name.size(), 2);
    PutLE(&central, extra.size(), 2);
    PutLE(&central, 0, 2);             // comment
    PutLE(&central, 0, 2);             // disk
    PutLE(&central, 0, 2);             // internal attributes
    PutLE(&central, 0600u << 16, 4);   // rw------- as zipfile writes
    PutLE(&central, far ? k32Max : offset, 4);
    central += name;
    central += extra;
    if (auto s = sink.Write(local); !s.ok()) return s;
    if (auto s = sink.Write(header); !s.ok()) return s;
    if (auto s = sink.Write(data->data(), data->size()); !s.ok()) return s;
    offset += local.size() + size;
  }
  std::string tail = central;
  const uint64_t cd_offset = offset;
  const uint64_t count = entries.size();
  const bool zip64 =
      count >= 0xFFFF || central.size() >= k32Max || cd_offset >= k32Max;
  if (zip64) {
    const uint64_t z64 = cd_offset + central.size();
    PutLE(&tail, kZip64EndSig, 4);
    PutLE(&tail, kZip64EndBytes - 12, 8);
    PutLE(&tail, (3 << 8) | 45, 2);
    PutLE(&tail, 45, 2);
    PutLE(&tail, 0, 4);
    PutLE(&tail, 0, 4);
    PutLE(&tail, count, 8);
    PutLE(&tail, count, 8);
    PutLE(&tail, central.size(), 8);
    PutLE(&tail, cd_offset, 8);
    PutLE(&tail, kZip64LocatorSig, 4);
    PutLE(&tail, 0, 4);
    PutLE(&tail, z64, 8);
    PutLE(&tail, 1, 4);
  }
  PutLE(&tail, kEndSig, 4);
  PutLE(&tail, 0, 2);
  PutLE(&tail, 0, 2);
  PutLE(&tail, zip64 ? 0xFFFF : count, 2);
  PutLE(&tail, zip64 ? 0xFFFF : count, 2);
  PutLE(&tail, zip64 ? k32Max : central.size(), 4);
  PutLE(&tail, zip64 ? k32Max : cd_offset, 4);
  PutLE(&tail, 0, 2);
  return sink.Write(tail);
}

// ---- Files. ----


absl::Status WithPath(const absl::Status& s, const std::string& path) {
  return absl::Status(s.code(), absl::StrCat(path, ": ", s.message()));
}

// Creates or truncates `path` and writes it with `body`. `expected_bytes`
// are reserved first with fallocate, as np.save does: writing into
// preallocated blocks is ~3x faster here for 400 MB (ext4). A file system
// without fallocate just skips it.
absl::Status WriteFile(const std::string& path, uint64_t expected_bytes,
                       const std::function<absl::Status(Sink&)>& body) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
                        0644);
  if (fd < 0) return ErrnoError("cannot create", path, errno);
  if (expected_bytes >= (uint64_t{1} << 20)) {
    (void)::fallocate(fd, FALLOC_FL_KEEP_SIZE, 0,
                      static_cast<off_t>(expected_bytes));
  }
  FileSink sink(fd, path);
  absl::Status s = body(sink);
  if (::close(fd) != 0 && s.ok()) s = ErrnoError("cannot close", path, errno);
  return s;
}

}  // namespace

absl::StatusOr<NpyHeader> ParseNpyHeader(absl::string_view bytes,
                                         uint64_t file_bytes) {
  NpyHeader h;
  uint64_t text_begin = 0;
  auto extent = HeaderExtent(bytes, &h.major_version, &h.minor_version,
                             &text_begin);
  if (!extent.ok()) return extent.status();
  if (*extent > bytes.size() || *extent > file_bytes) {
    return absl::InvalidArgumentError(absl::StrFormat(
        ".npy: the header (%d bytes with the magic) runs past the end of the "
        "input (%d bytes)",
        *extent, std::min<uint64_t>(bytes.size(), file_bytes)));
  }
  absl::string_view text = bytes.substr(text_begin, *extent - text_begin);
  if (h.major_version < 3) {
    for (char c : text) {
      if (static_cast<unsigned char>(c) >= 0x80) {
        return absl::InvalidArgumentError(absl::StrFormat(
            ".npy: non-ASCII byte in a version %d.0 (latin-1) header",
            h.major_version));
      }
    }
  }
  HeaderDict dict;
  if (auto s = ParseHeaderDict(text, static_cast<int64_t>(text_begin), &dict);
      !s.ok()) {
    return s;
  }
  h.dtype = dict.dtype;
  h.big_endian = dict.big_endian;
  h.fortran_order = dict.fortran_order;
  h.shape = std::move(dict.shape);
  h.data_bytes = dict.data_bytes;
  h.data_offset = static_cast<int64_t>(*extent);
  if (static_cast<uint64_t>(h.data_bytes) > file_bytes - *extent) {
    return absl::InvalidArgumentError(absl::StrFormat(
        ".npy: the header claims %d bytes of data (%s %s) but only %d follow",
        h.data_bytes, DTypeName(h.dtype), ShapeString(h.shape),
        file_bytes - *extent));
  }
  return h;
}

std::string NpyHeaderFor(const Tensor& tensor, bool fortran_order) {
  const DType d = tensor.dtype();
  std::string descr;
  if (d == DType::kBool) {
    descr = "|b1";
  } else {
    const char kind = IsFloat(d) ? 'f' : IsSignedInt(d) ? 'i' : 'u';
    descr = absl::StrFormat("%c%c%d", DTypeSize(d) == 1 ? '|' : '<', kind,
                            DTypeSize(d));
  }
  std::string shape = "(";
  for (int k = 0; k < tensor.ndim(); ++k) {
    if (k > 0) shape += ", ";
    absl::StrAppend(&shape, tensor.shape(k));
  }
  if (tensor.ndim() == 1) shape += ",";
  shape += ")";
  std::string text =
      absl::StrFormat("{'descr': '%s', 'fortran_order': %s, 'shape': %s, }",
                      descr, fortran_order ? "True" : "False", shape);
  if (tensor.ndim() > 0) {
    const std::string grow =
        absl::StrCat(tensor.shape(fortran_order ? tensor.ndim() - 1 : 0));
    text.append(kGrowthAxisMaxDigits - std::min(grow.size(), kGrowthAxisMaxDigits),
                ' ');
  }
  // Version 1.0 unless the length does not fit its 2-byte field.
  const size_t text_bytes = text.size() + 1;  // with the newline
  int field = 2;
  size_t pad = kArrayAlign - (kMagicBytes + 2 + field + text_bytes) % kArrayAlign;
  if (text_bytes + pad > 0xFFFF) {
    field = 4;
    pad = kArrayAlign - (kMagicBytes + 2 + field + text_bytes) % kArrayAlign;
  }
  std::string out(kMagic, kMagicBytes);
  out.push_back(static_cast<char>(field == 2 ? 1 : 2));
  out.push_back(0);
  PutLE(&out, text_bytes + pad, field);
  out += text;
  out.append(pad, ' ');
  out.push_back('\n');
  return out;
}

absl::StatusOr<Tensor> ParseNpy(absl::string_view bytes,
                                Allocator* allocator) {
  auto h = ParseNpyHeader(bytes, bytes.size());
  if (!h.ok()) return h.status();
  auto t = EmptyFor(*h, allocator);
  if (!t.ok()) return t.status();
  if (h->data_bytes > 0) {
    std::memcpy(t->mutable_data(), bytes.data() + h->data_offset,
                static_cast<size_t>(h->data_bytes));
    FixUpData(*h, t->mutable_data());
  }
  return t;
}

absl::StatusOr<std::string> SerializeNpy(const Tensor& tensor) {
  std::string out;
  StringSink sink(&out);
  if (auto s = WriteNpy(tensor, sink); !s.ok()) return s;
  return out;
}

absl::StatusOr<Tensor> LoadNpy(const std::string& path, Allocator* allocator) {
  InputFile f;
  if (auto s = f.Open(path, O_RDONLY); !s.ok()) return s;
  // The magic and length field, then the whole header.
  char prefix[12];
  const uint64_t prefix_bytes = std::min<uint64_t>(f.size(), sizeof(prefix));
  if (auto s = f.ReadAt(0, prefix, prefix_bytes); !s.ok()) return s;
  int major = 0, minor = 0;
  uint64_t text_begin = 0;
  auto extent = HeaderExtent(absl::string_view(prefix, prefix_bytes), &major,
                             &minor, &text_begin);
  if (!extent.ok()) return WithPath(extent.status(), path);
  std::string header(static_cast<size_t>(std::min(*extent, f.size())), '\0');
  if (auto s = f.ReadAt(0, header.data(), header.size()); !s.ok()) return s;
  auto h = ParseNpyHeader(header, f.size());
  if (!h.ok()) return WithPath(h.status(), path);
  auto t = EmptyFor(*h, allocator);
  if (!t.ok()) return t.status();
  if (h->data_bytes > 0) {
    if (auto s = f.ReadAtParallel(static_cast<uint64_t>(h->data_offset),
                          t->mutable_data(),
                          static_cast<uint64_t>(h->data_bytes));
        !s.ok()) {
      return s;
    }
    FixUpData(*h, t->mutable_data());
  }
  return t;
}

absl::Status SaveNpy(const std::string& path, const Tensor& tensor) {
  // Before the file is created: a refused tensor leaves `path` untouched.
  if (auto s = CheckWritable(tensor); !s.ok()) return s;
  // The header is at most a few hundred bytes: reserving the data is enough.
  const uint64_t bytes =
      tensor.valid() ? static_cast<uint64_t>(tensor.nbytes()) : 0;
  return WriteFile(path, bytes,
                   [&](Sink& sink) { return WriteNpy(tensor, sink); });
}

absl::StatusOr<Tensor> LoadNpyMmap(const std::string& path, NpyMmapMode mode,
                                   Allocator* allocator) {
  InputFile f;
  if (auto s = f.Open(path, mode == NpyMmapMode::kReadWrite ? O_RDWR : O_RDONLY);
      !s.ok()) {
    return s;
  }
  if (f.size() < kMagicBytes + 4) {
    // Too short to map usefully; ParseNpyHeader names the problem.
    char prefix[kMagicBytes + 4];
    if (auto s = f.ReadAt(0, prefix, f.size()); !s.ok()) return s;
    auto h = ParseNpyHeader(absl::string_view(prefix, f.size()), f.size());
    return WithPath(h.status(), path);
  }
  const int prot =
      mode == NpyMmapMode::kReadOnly ? PROT_READ : PROT_READ | PROT_WRITE;
  const int flags = mode == NpyMmapMode::kCopyOnWrite ? MAP_PRIVATE : MAP_SHARED;
  const size_t length = static_cast<size_t>(f.size());
  void* map = ::mmap(nullptr, length, prot, flags, f.fd(), 0);
  if (map == MAP_FAILED) return ErrnoError("cannot map", path, errno);
  auto unmap = [map, length](void*) { ::munmap(map, length); };
  auto fail = [&](absl::Status s) {
    unmap(nullptr);
    return s;
  };
  auto h = ParseNpyHeader(absl::string_view(static_cast<char*>(map), length),
                          f.size());
  if (!h.ok()) return fail(WithPath(h.status(), path));
  if (h->big_endian) {
    return fail(absl::FailedPreconditionError(absl::StrFormat(
        "%s: big-endian %s data cannot be mapped as a native tensor; LoadNpy "
        "reads it",
        path, DTypeName(h->dtype))));
  }
  if (h->data_offset % static_cast<int64_t>(DTypeSize(h->dtype)) != 0) {
    return fail(absl::FailedPreconditionError(absl::StrFormat(
        "%s: data offset %d is not a multiple of the %s itemsize; LoadNpy "
        "reads it",
        path, h->data_offset, DTypeName(h->dtype))));
  }
  auto t = FromBuffer(static_cast<char*>(map) + h->data_offset, h->dtype,
                      h->shape, LayoutStrides(*h), unmap,
                      /*writeable=*/mode != NpyMmapMode::kReadOnly, allocator);
  if (!t.ok()) return fail(t.status());
  return t;
}

absl::StatusOr<std::vector<NpzEntry>> ParseNpz(absl::string_view bytes,
                                               Allocator* allocator) {
  auto members = ReadCentralDirectory(bytes);
  if (!members.ok()) return members.status();
  std::vector<NpzEntry> out;
  out.reserve(members->size());
  for (const ZipMember& m : *members) {
    if (!absl::EndsWith(m.name, ".npy")) {
      return absl::InvalidArgumentError(absl::StrFormat(
          ".npz member %s is not a .npy file", Quoted(m.name)));
    }
    auto data = MemberData(bytes, m);
    if (!data.ok()) return data.status();
    auto t = ParseNpy(*data, allocator);
    if (!t.ok()) {
      return absl::Status(t.status().code(),
                          absl::StrFormat(".npz member %s: %s", Quoted(m.name),
                                          t.status().message()));
    }
    out.push_back({m.name.substr(0, m.name.size() - 4), *std::move(t)});
  }
  return out;
}

absl::StatusOr<std::string> SerializeNpz(absl::Span<const NpzEntry> entries) {
  std::string out;
  StringSink sink(&out);
  if (auto s = WriteNpz(entries, sink); !s.ok()) return s;
  return out;
}

absl::StatusOr<std::vector<NpzEntry>> LoadNpz(const std::string& path,
                                              Allocator* allocator) {
  InputFile f;
  if (auto s = f.Open(path, O_RDONLY); !s.ok()) return s;
  if (f.size() == 0) {
    return absl::InvalidArgumentError(absl::StrFormat("%s: empty file", path));
  }
  const size_t length = static_cast<size_t>(f.size());
  void* map = ::mmap(nullptr, length, PROT_READ, MAP_PRIVATE, f.fd(), 0);
  if (map == MAP_FAILED) return ErrnoError("cannot map", path, errno);
  auto entries =
      ParseNpz(absl::string_view(static_cast<char*>(map), length), allocator);
  ::munmap(map, length);
  if (!entries.ok()) return WithPath(entries.status(), path);
  return entries;
}

absl::Status SaveNpz(const std::string& path,
                     absl::Span<const NpzEntry> entries) {
  uint64_t bytes = 0;
  for (const NpzEntry& e : entries) {
    if (e.tensor.valid()) bytes += static_cast<uint64_t>(e.tensor.nbytes());
  }
  return WriteFile(path, bytes,
                   [&](Sink& sink) { return WriteNpz(entries, sink); });
}

}  // namespace tessera
