// Copyright 2026 The Tessera Authors.
//
// The .npy header (npy_header.h): the magic, version and length field, and
// the Python dict literal after them. Every read of the input checks its
// range first (InRange), so a corrupt header gives a Status, never a read
// past the end.

#include "tensor/internal/npy_header.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "tensor/dtype.h"
#include "tensor/internal/npy_bytes.h"
#include "tensor/tensor.h"

namespace tessera {
namespace npy_internal {
namespace {

// A header longer than this is refused before it is parsed (NumPy's default
// max_header_size is 10000 characters; structured dtypes need the most).
constexpr uint64_t kMaxHeaderBytes = uint64_t{1} << 20;

// A cursor over the header text with the few Python literal forms a .npy
// header holds.
class HeaderParser {
 public:
  HeaderParser(absl::string_view text, int64_t base)
      : text_(text), base_(base) {}

  void SkipSpace() {
    while (pos_ < text_.size() &&
           (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' ||
            text_[pos_] == '\r')) {
      ++pos_;
    }
  }
  bool AtEnd() const { return pos_ >= text_.size(); }
  char Peek() const { return AtEnd() ? '\0' : text_[pos_]; }

  absl::Status Expect(char c, absl::string_view what) {
    SkipSpace();
    if (Peek() != c) return Error(absl::StrCat("expected ", what));
    ++pos_;
    return absl::OkStatus();
  }

  absl::Status Error(absl::string_view what) const {
    return absl::InvalidArgumentError(absl::StrFormat(
        ".npy header: %s at byte %d, found %s", what, base_ + pos_,
        AtEnd() ? std::string("the end of the header")
                : Quoted(text_.substr(pos_, 12))));
  }

  // 'text' or "text" (no escapes: no descr or key needs them).
  absl::StatusOr<std::string> String() {
    SkipSpace();
    const char quote = Peek();
    if (quote != '\'' && quote != '"') return Error("expected a quoted string");
    const size_t end = text_.find(quote, pos_ + 1);
    if (end == absl::string_view::npos) return Error("unterminated string");
    std::string s(text_.substr(pos_ + 1, end - pos_ - 1));
    if (s.find('\\') != std::string::npos) {
      return Error("escape sequence in a string");
    }
    pos_ = end + 1;
    return s;
  }

  absl::StatusOr<bool> Bool() {
    SkipSpace();
    if (absl::StartsWith(text_.substr(pos_), "True")) {
      pos_ += 4;
      return true;
    }
    if (absl::StartsWith(text_.substr(pos_), "False")) {
      pos_ += 5;
      return false;
    }
    return Error("expected True or False for 'fortran_order'");
  }

  // A tuple of non-negative ints: (), (n,), (a, b), (a, b,); Python 2's
  // trailing L is accepted. A one-element tuple needs its comma, as in
  // Python ("(3)" is an int, which NumPy refuses).
  absl::StatusOr<Shape> Tuple() {
    Shape shape;
    if (auto s = Expect('(', "'(' opening the shape tuple"); !s.ok()) return s;
    bool comma_after_last = false;
    for (;;) {
      SkipSpace();
      if (Peek() == ')') {
        ++pos_;
        break;
      }
      if (!shape.empty() && !comma_after_last) {
        return Error("expected ',' or ')' in the shape tuple");
      }
      if (Peek() == '-') return Error("negative extent in the shape");
      if (!absl::ascii_isdigit(static_cast<unsigned char>(Peek()))) {
        return Error("expected an extent in the shape tuple");
      }
      uint64_t v = 0;
      while (!AtEnd() && absl::ascii_isdigit(static_cast<unsigned char>(Peek()))) {
        const uint64_t digit = static_cast<uint64_t>(Peek() - '0');
        if (v > (static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) -
                 digit) / 10) {
          return Error("extent overflows int64");
        }
        v = v * 10 + digit;
        ++pos_;
      }
      if (Peek() == 'L') ++pos_;
      shape.push_back(static_cast<int64_t>(v));
      if (shape.size() > static_cast<size_t>(kMaxAxes)) {
        return Error("more than 64 axes");
      }
      SkipSpace();
      comma_after_last = Peek() == ',';
      if (comma_after_last) ++pos_;
    }
    if (shape.size() == 1 && !comma_after_last) {
      return Error("a one-element shape needs its comma, as in (n,)");
    }
    return shape;
  }

  size_t pos() const { return pos_; }

 private:
  absl::string_view text_;
  int64_t base_;  // offset of text_ in the file, for messages
  size_t pos_ = 0;
};

struct Descr {
  DType dtype;
  bool big_endian;
};

// '<f4' -> float32 little-endian. Everything NumPy can write that Tessera has
// no dtype for is named.
absl::StatusOr<Descr> ParseDescr(absl::string_view descr) {
  absl::string_view s = descr;
  char order = '=';
  if (!s.empty() && (s[0] == '<' || s[0] == '>' || s[0] == '|' || s[0] == '=')) {
    order = s[0];
    s.remove_prefix(1);
  }
  auto unsupported = [&](absl::string_view what) {
    return absl::UnimplementedError(absl::StrFormat(
        ".npy dtype %s (%s) is not supported by Tessera", Quoted(descr), what));
  };
  if (s.empty()) {
    return absl::InvalidArgumentError(
        absl::StrFormat(".npy: empty dtype descr %s", Quoted(descr)));
  }
  const char kind = s[0];
  if (kind == 'O') {
    return absl::InvalidArgumentError(absl::StrFormat(
        ".npy dtype %s is object: the data is pickled Python objects, which "
        "Tessera never loads",
        Quoted(descr)));
  }
  int size = 0;
  absl::string_view digits = s.substr(1);
  if (kind == '?' && digits.empty()) {
    size = 1;
  } else {
    if (digits.empty() || digits.size() > 2) {
      if (kind == 'M' || kind == 'm') return unsupported("datetime");
      return absl::InvalidArgumentError(
          absl::StrFormat(".npy: unknown dtype descr %s", Quoted(descr)));
    }
    for (char c : digits) {
      if (!absl::ascii_isdigit(static_cast<unsigned char>(c))) {
        if (kind == 'M' || kind == 'm') return unsupported("datetime");
        return absl::InvalidArgumentError(
            absl::StrFormat(".npy: unknown dtype descr %s", Quoted(descr)));
      }
      size = size * 10 + (c - '0');
    }
  }
  std::optional<DType> dtype;
  switch (kind) {
    case '?':
    case 'b':
      if (kind == 'b' && size == 1) dtype = DType::kBool;
      if (kind == '?' && size == 1) dtype = DType::kBool;
      break;
    case 'i':
      if (size == 1) dtype = DType::kInt8;
      if (size == 2) dtype = DType::kInt16;
      if (size == 4) dtype = DType::kInt32;
      if (size == 8) dtype = DType::kInt64;
      break;
    case 'u':
      if (size == 1) dtype = DType::kUInt8;
      if (size == 2) dtype = DType::kUInt16;
      if (size == 4) dtype = DType::kUInt32;
      if (size == 8) dtype = DType::kUInt64;
      break;
    case 'f':
      if (size == 2) dtype = DType::kFloat16;
      if (size == 4) dtype = DType::kFloat32;
      if (size == 8) dtype = DType::kFloat64;
      if (size == 12 || size == 16) return unsupported("long double");
      break;
    case 'c':
      return unsupported("complex");
    case 'S':
    case 'a':
    case 'U':
      return unsupported("string");
    case 'V':
      return unsupported("void/structured");
    case 'M':
    case 'm':
      return unsupported("datetime");
    default:
      break;
  }
  if (!dtype.has_value()) {
    return absl::InvalidArgumentError(
        absl::StrFormat(".npy: unknown dtype descr %s", Quoted(descr)));
  }
  return Descr{*dtype, order == '>' && size > 1};
}

}  // namespace

// Bytes from the start of the file to the end of the header, from the
// magic and length field at the start of `bytes`.
absl::StatusOr<uint64_t> HeaderExtent(absl::string_view bytes, int* major,
                                      int* minor, uint64_t* length_field_end) {
  if (bytes.size() < kMagicBytes + 2) {
    return absl::InvalidArgumentError(absl::StrFormat(
        ".npy: %d bytes is too short for the magic and version",
        bytes.size()));
  }
  if (bytes.substr(0, kMagicBytes) != absl::string_view(kMagic, kMagicBytes)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        ".npy: bad magic %s (expected '\\x93NUMPY')",
        Quoted(bytes.substr(0, kMagicBytes))));
  }
  *major = static_cast<unsigned char>(bytes[6]);
  *minor = static_cast<unsigned char>(bytes[7]);
  if (*major < 1 || *major > 3 || *minor != 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        ".npy: unsupported format version %d.%d (1.0, 2.0 and 3.0 are)",
        *major, *minor));
  }
  const int field = *major == 1 ? 2 : 4;
  if (!InRange(bytes, 8, field)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        ".npy: %d bytes is too short for the header length field",
        bytes.size()));
  }
  const uint64_t header_length = LoadLE(bytes.data() + 8, field);
  if (header_length > kMaxHeaderBytes) {
    return absl::InvalidArgumentError(absl::StrFormat(
        ".npy: header length %d is above the %d-byte limit", header_length,
        kMaxHeaderBytes));
  }
  *length_field_end = 8 + field;
  return 8 + field + header_length;
}

absl::Status ParseHeaderDict(absl::string_view text, int64_t base,
                             HeaderDict* header) {
  HeaderParser p(text, base);
  if (auto s = p.Expect('{', "'{' opening the header dict"); !s.ok()) return s;
  bool have_descr = false, have_order = false, have_shape = false;
  std::string descr;
  for (;;) {
    p.SkipSpace();
    if (p.Peek() == '}') break;
    auto key = p.String();
    if (!key.ok()) return key.status();
    if (auto s = p.Expect(':', "':' after a key"); !s.ok()) return s;
    p.SkipSpace();
    if (*key == "descr") {
      if (p.Peek() == '[') {
        return absl::UnimplementedError(
            ".npy dtype is structured (a list descr): not supported by "
            "Tessera");
      }
      auto d = p.String();
      if (!d.ok()) return d.status();
      descr = *d;
      have_descr = true;
    } else if (*key == "fortran_order") {
      auto b = p.Bool();
      if (!b.ok()) return b.status();
      header->fortran_order = *b;
      have_order = true;
    } else if (*key == "shape") {
      auto t = p.Tuple();
      if (!t.ok()) return t.status();
      header->shape = *std::move(t);
      have_shape = true;
    } else {
      return absl::InvalidArgumentError(absl::StrFormat(
          ".npy header: unexpected key %s (expected 'descr', "
          "'fortran_order' and 'shape')",
          Quoted(*key)));
    }
    p.SkipSpace();
    if (p.Peek() == ',') {
      if (auto s = p.Expect(',', "','"); !s.ok()) return s;
      continue;
    }
    if (p.Peek() != '}') return p.Error("expected ',' or '}' after a value");
  }
  if (auto s = p.Expect('}', "'}'"); !s.ok()) return s;
  p.SkipSpace();
  if (!p.AtEnd()) return p.Error("unexpected text after the header dict");
  for (auto [have, name] : {std::pair<bool, const char*>{have_descr, "descr"},
                            {have_order, "fortran_order"},
                            {have_shape, "shape"}}) {
    if (!have) {
      return absl::InvalidArgumentError(
          absl::StrFormat(".npy header: missing key '%s'", name));
    }
  }
  auto d = ParseDescr(descr);
  if (!d.ok()) return d.status();
  header->dtype = d->dtype;
  header->big_endian = d->big_endian;
  auto count = CheckedElementCount(header->shape, DTypeSize(header->dtype));
  if (!count.ok()) {
    return absl::InvalidArgumentError(absl::StrFormat(
        ".npy header: shape %s of %s: %s", ShapeString(header->shape),
        DTypeName(header->dtype), count.status().message()));
  }
  header->data_bytes = *count * static_cast<int64_t>(DTypeSize(header->dtype));
  return absl::OkStatus();
}

}  // namespace npy_internal
}  // namespace tessera
