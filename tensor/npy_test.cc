// Copyright 2026 The Tessera Authors.
//
// .npy / .npz against files NumPy wrote (tensor/testdata/npy/, made by
// tensor/testdata/gen_npy_files.py; manifest.txt holds NumPy's view of each
// array): every dtype, both orders, both byte orders, format versions 1-3,
// 0-d and empty shapes; what Tessera writes must be NumPy's bytes; and bad
// input (every truncation, corrupt headers, unsupported dtypes) must give a
// Status naming the problem. Inputs are copied into exact-size heap blocks
// so that ASan catches any read past the end.

#include "tensor/npy.h"

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tensor/testing/golden.h"
#include "tensor/view.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;

std::string DataPath(const std::string& name) {
  return golden::TestDataPath("tensor/testdata/npy/" + name);
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in),
                     std::istreambuf_iterator<char>());
}

std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir != nullptr ? dir : "/tmp") + "/" + name;
}

// `bytes` in a heap block of exactly their size.
class ExactBuffer {
 public:
  explicit ExactBuffer(absl::string_view bytes)
      : data_(new char[bytes.size() == 0 ? 1 : bytes.size()]),
        size_(bytes.size()) {
    std::memcpy(data_.get(), bytes.data(), bytes.size());
  }
  absl::string_view view() const { return {data_.get(), size_}; }

 private:
  std::unique_ptr<char[]> data_;
  size_t size_;
};

struct Case {
  std::map<std::string, std::string> f;
  std::string line;
};

std::vector<Case> Manifest() {
  std::vector<Case> cases;
  for (const std::string& line :
       golden::ReadGoldenLines("tensor/testdata/npy/manifest.txt")) {
    cases.push_back({golden::Fields(line), line});
  }
  return cases;
}

std::string Compare(const Tensor& t, const Case& c) {
  return golden::CompareWithGolden(t, c.f.at("dtype"), c.f.at("shape"),
                                   c.f.at("values"), 0.0);
}

TEST(NpyTest, EveryFileNumPyWroteLoadsWithItsDtypeShapeValuesAndLayout) {
  const auto cases = Manifest();
  ASSERT_GT(cases.size(), 40u) << "manifest missing or truncated";
  int fortran = 0, big = 0;
  for (const Case& c : cases) {
    if (c.f.count("member")) continue;
    auto t = LoadNpy(DataPath(c.f.at("file")));
    ASSERT_TRUE(t.ok()) << t.status() << "\n" << c.line;
    EXPECT_EQ(Compare(*t, c), "") << c.line;
    EXPECT_TRUE(t->owns_data());
    EXPECT_TRUE(t->writeable());
    if (c.f.at("fortran") == "1") {
      ++fortran;
      EXPECT_TRUE(t->f_contiguous()) << c.line;
      EXPECT_FALSE(t->c_contiguous()) << c.line;
    } else {
      EXPECT_TRUE(t->c_contiguous()) << c.line;
    }
    big += c.f.at("big_endian") == "1";
    // The in-memory parser gives the same tensor.
    const ExactBuffer bytes(ReadFile(DataPath(c.f.at("file"))));
    auto p = ParseNpy(bytes.view());
    ASSERT_TRUE(p.ok()) << p.status() << "\n" << c.line;
    EXPECT_EQ(Compare(*p, c), "") << c.line;
    EXPECT_EQ(p->strides(), t->strides()) << c.line;
  }
  EXPECT_GT(fortran, 10);
  EXPECT_GT(big, 10);
}

TEST(NpyTest, WritingGivesTheBytesNumPyWrote) {
  int compared = 0;
  for (const Case& c : Manifest()) {
    if (c.f.count("member") || c.f.at("big_endian") == "1" ||
        c.f.at("version") != "1") {
      continue;
    }
    const std::string numpy = ReadFile(DataPath(c.f.at("file")));
    auto t = ParseNpy(numpy);
    ASSERT_TRUE(t.ok()) << t.status();
    auto mine = SerializeNpy(*t);
    ASSERT_TRUE(mine.ok()) << mine.status();
    EXPECT_EQ(*mine, numpy) << c.line;
    ++compared;
  }
  EXPECT_GT(compared, 25);
}

TEST(NpyTest, BigEndianFilesGiveTheSameTensorsAsTheirLittleEndianTwins) {
  for (const char* dt : {"int16", "int32", "int64", "uint16", "uint32",
                         "uint64", "float32", "float64"}) {
    for (const char* layout : {"", "_f"}) {
      auto le = LoadNpy(DataPath(absl::StrCat(dt, layout[0] ? "_f" : "_c",
                                              ".npy")));
      auto be = LoadNpy(DataPath(absl::StrCat(dt, "_be", layout, ".npy")));
      ASSERT_TRUE(le.ok() && be.ok()) << dt << layout;
      EXPECT_EQ(*SerializeNpy(*le), *SerializeNpy(*be)) << dt << layout;
    }
  }
}

TEST(NpyTest, SaveThenLoadKeepsEveryDtypeAndLayout) {
  for (DType d : kAllDTypes) {
    auto a = astype(*arange(0, 24, 1), d);
    ASSERT_TRUE(a.ok());
    auto r = reshape(*a, {2, 3, 4});
    ASSERT_TRUE(r.ok());
    // C order, Fortran order (a transpose), and neither (a strided slice).
    auto f = transpose(*r);
    auto s = slice(*r, 2, Slice(3, std::nullopt, -2));
    for (const Tensor& t : {*r, *f, *s}) {
      const std::string path = TempPath("roundtrip.npy");
      ASSERT_TRUE(SaveNpy(path, t).ok());
      auto back = LoadNpy(path);
      ASSERT_TRUE(back.ok()) << back.status();
      EXPECT_EQ(back->shape(), t.shape());
      EXPECT_EQ(back->dtype(), d);
      EXPECT_EQ(back->ToVector<double>(), t.ToVector<double>());
      EXPECT_EQ(back->f_contiguous() && !back->c_contiguous(),
                t.f_contiguous() && !t.c_contiguous());
    }
  }
}

TEST(NpyTest, LargeHeadersSwitchToVersionTwo) {
  // 64 axes of extent 1 fit easily; the 2-byte length is exceeded only by a
  // header over 64 KiB, which no dtype of Tessera's produces, so check the
  // version-2 reader on NumPy's file and that short headers stay 1.0.
  auto t = LoadNpy(DataPath("v2_f32.npy"));
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ((*SerializeNpy(*t))[6], 1);
  auto h = ParseNpyHeader(ReadFile(DataPath("v3_i16.npy")), 1 << 20);
  ASSERT_TRUE(h.ok()) << h.status();
  EXPECT_EQ(h->major_version, 3);
  EXPECT_EQ(h->dtype, DType::kInt16);
}

// NumPy reads at most 64 axes (and so does ParseNpyHeader): a 65-axis
// tensor is refused with a status naming the count, before SaveNpy creates
// the file, while 64 axes still round-trip.
TEST(NpyTest, MoreThan64AxesAreRefusedOnWrite) {
  const Tensor t65 = *zeros(Shape(65, 1), DType::kUInt8);
  auto bytes = SerializeNpy(t65);
  ASSERT_FALSE(bytes.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(bytes.status()));
  EXPECT_THAT(bytes.status().message(),
              HasSubstr("a tensor of 65 axes cannot be written as .npy (at "
                        "most 64"));
  const std::string path = TempPath("axes65.npy");
  absl::Status saved = SaveNpy(path, t65);
  EXPECT_TRUE(absl::IsInvalidArgument(saved)) << saved;
  EXPECT_THAT(saved.message(), HasSubstr("65 axes"));
  EXPECT_FALSE(LoadNpy(path).ok());  // never created
  EXPECT_THAT(SerializeNpz({{"deep", t65}}).status().message(),
              HasSubstr("key 'deep': SaveNpy: a tensor of 65 axes"));

  const Tensor t64 = *zeros(Shape(64, 1), DType::kUInt8);
  auto ok = SerializeNpy(t64);
  ASSERT_TRUE(ok.ok()) << ok.status();
  auto back = ParseNpy(*ok);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->ndim(), 64);
}

TEST(NpyTest, MmapGivesANonOwningReadOnlyViewOfTheFile) {
  for (const Case& c : Manifest()) {
    if (c.f.count("member")) continue;
    auto t = LoadNpyMmap(DataPath(c.f.at("file")));
    if (c.f.at("big_endian") == "1") {
      ASSERT_FALSE(t.ok()) << c.line;
      EXPECT_EQ(t.status().code(), absl::StatusCode::kFailedPrecondition);
      EXPECT_THAT(t.status().message(), HasSubstr("big-endian"));
      continue;
    }
    ASSERT_TRUE(t.ok()) << t.status() << "\n" << c.line;
    EXPECT_EQ(Compare(*t, c), "") << c.line;
    EXPECT_FALSE(t->owns_data());
    EXPECT_FALSE(t->writeable());
    EXPECT_FALSE(t->storage()->owns_data());
  }
}

TEST(NpyTest, MmapReadWriteWritesThroughAndCopyOnWriteDoesNot) {
  const std::string path = TempPath("mapped.npy");
  ASSERT_TRUE(SaveNpy(path, *arange(0, 10, 1, DType::kFloat32)).ok());
  {
    auto c = LoadNpyMmap(path, NpyMmapMode::kCopyOnWrite);
    ASSERT_TRUE(c.ok()) << c.status();
    ASSERT_TRUE(c->writeable());
    *c->mutable_ptr<float>({3}) = 42.0f;
    EXPECT_EQ(*c->item<float>({3}), 42.0f);
  }
  EXPECT_EQ(*LoadNpy(path)->item<float>({3}), 3.0f);
  {
    auto w = LoadNpyMmap(path, NpyMmapMode::kReadWrite);
    ASSERT_TRUE(w.ok()) << w.status();
    *w->mutable_ptr<float>({3}) = 42.0f;
  }
  EXPECT_EQ(*LoadNpy(path)->item<float>({3}), 42.0f);
}

TEST(NpyTest, MmapKeepsTheMappingAliveWhileAViewRemains) {
  const std::string path = TempPath("alive.npy");
  ASSERT_TRUE(SaveNpy(path, *arange(0, 100, 1, DType::kInt64)).ok());
  Tensor view;
  {
    auto t = LoadNpyMmap(path);
    ASSERT_TRUE(t.ok());
    view = *slice(*t, 0, Slice(90, std::nullopt, 1));
  }
  EXPECT_EQ(*view.item<int64_t>({9}), 99);
}

TEST(NpyTest, UnsupportedDtypesAreNamed) {
  struct Bad {
    const char* file;
    absl::StatusCode code;
    const char* says;
  };
  for (const Bad& b :
       {Bad{"object.npy", absl::StatusCode::kInvalidArgument, "object"},
        Bad{"complex.npy", absl::StatusCode::kUnimplemented, "complex"}}) {
    for (int mmap = 0; mmap < 2; ++mmap) {
      auto t = mmap ? LoadNpyMmap(DataPath(b.file)) : LoadNpy(DataPath(b.file));
      ASSERT_FALSE(t.ok()) << b.file;
      EXPECT_EQ(t.status().code(), b.code) << t.status();
      EXPECT_THAT(t.status().message(), HasSubstr(b.says));
      EXPECT_THAT(t.status().message(), HasSubstr(b.file));
    }
  }
}

TEST(NpyTest, EveryTruncationIsAnErrorAndNeverReadsPastTheEnd) {
  for (const char* file : {"float64_f.npy", "v3_i16.npy", "scalar_bool.npy"}) {
    const std::string full = ReadFile(DataPath(file));
    auto h = ParseNpyHeader(full, full.size());
    ASSERT_TRUE(h.ok());
    for (size_t n = 0; n < full.size(); ++n) {
      const ExactBuffer prefix(absl::string_view(full).substr(0, n));
      auto t = ParseNpy(prefix.view());
      ASSERT_FALSE(t.ok()) << file << " cut at " << n;
      EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
      if (n >= static_cast<size_t>(h->data_offset)) {
        EXPECT_THAT(t.status().message(),
                    HasSubstr(absl::StrCat("claims ", h->data_bytes)));
      }
      // The file reader and the mapper say the same.
      const std::string path = TempPath("cut.npy");
      std::ofstream(path, std::ios::binary) << prefix.view();
      EXPECT_FALSE(LoadNpy(path).ok());
      EXPECT_FALSE(LoadNpyMmap(path).ok());
    }
  }
}

std::string WithHeader(absl::string_view dict, int major = 1) {
  std::string text(dict);
  text += '\n';
  std::string out("\x93NUMPY", 6);
  out.push_back(static_cast<char>(major));
  out.push_back(0);
  const size_t n = text.size();
  out.push_back(static_cast<char>(n & 0xFF));
  out.push_back(static_cast<char>(n >> 8));
  if (major > 1) out.append(2, '\0');
  return out + text + std::string(64, '\0');
}

TEST(NpyTest, CorruptHeadersAreRejectedWithTheReason) {
  struct Bad {
    std::string bytes;
    const char* says;
  };
  const std::vector<Bad> bad = {
      {std::string("\x93NUMPZ\x01\x00\x10\x00", 10), "bad magic"},
      {std::string("\x93NUMPY\x04\x00\x10\x00", 10), "version 4.0"},
      {std::string("\x93NUMPY\x01\x00\xff\xff", 10), "runs past the end"},
      {WithHeader("{'descr': '<x4', 'fortran_order': False, 'shape': (2,), }"),
       "unknown dtype descr '<x4'"},
      {WithHeader("{'descr': '<f4', 'shape': (2,), }"),
       "missing key 'fortran_order'"},
      {WithHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), "
                  "'extra': 1}"),
       "unexpected key 'extra'"},
      {WithHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (-2,)}"),
       "negative extent"},
      {WithHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (2)}"),
       "needs its comma"},
      {WithHeader("{'descr': '<f4', 'fortran_order': Maybe, 'shape': (2,)}"),
       "True or False"},
      {WithHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (2,)} x"),
       "after the header dict"},
      {WithHeader("{'descr': '<f4', 'fortran_order': False, "
                  "'shape': (99999999999999999999,)}"),
       "overflows int64"},
      {WithHeader("{'descr': '<f8', 'fortran_order': False, "
                  "'shape': (4294967296, 4294967296)}"),
       "shape (4294967296, 4294967296)"},
      {WithHeader("{'descr': [('a', '<f4')], 'fortran_order': False, "
                  "'shape': (2,)}"),
       "structured"},
      {WithHeader("{'descr': '<M8[ns]', 'fortran_order': False, "
                  "'shape': (2,)}"),
       "datetime"},
      {WithHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (100,)}"),
       "claims 400 bytes"},
      {WithHeader("{'descr': '<f4' 'fortran_order': False, 'shape': (2,)}"),
       "expected ',' or '}'"},
      {WithHeader("{'descr: '<f4', 'fortran_order': False, 'shape': (2,)}"),
       "expected ':'"},
  };
  for (const Bad& b : bad) {
    const ExactBuffer in(b.bytes);
    auto t = ParseNpy(in.view());
    ASSERT_FALSE(t.ok()) << b.says;
    EXPECT_THAT(t.status().message(), HasSubstr(b.says));
  }
  // The same headers in a well-formed spelling load: double quotes, keys in
  // another order, Python 2 longs, version 2.0.
  for (const std::string& good :
       {WithHeader("{\"shape\": (2L, 3L), \"fortran_order\": False, "
                   "\"descr\": \"<i2\"}"),
        WithHeader("{'descr': 'i2', 'fortran_order': False, 'shape': (2, 3,),}",
                   2)}) {
    const ExactBuffer in(good);
    auto t = ParseNpy(in.view());
    ASSERT_TRUE(t.ok()) << t.status();
    EXPECT_EQ(t->shape(), Shape({2, 3}));
    EXPECT_EQ(t->dtype(), DType::kInt16);
  }
}

// A zero extent makes the array empty whatever the others are, so NumPy's
// header grammar admits extents whose product overflows int64 (a fuzzer found
// the Fortran strides overflowing on one). Such a header loads as an empty
// tensor with the shape written, in either order.
TEST(NpyTest, ZeroSizeArraysWithHugeExtentsLoadEmpty) {
  for (const char* order : {"True", "False"}) {
    const ExactBuffer in(WithHeader(absl::StrCat(
        "{'descr': '<f4', 'fortran_order': ", order,
        ", 'shape': (3, 0, 36028797018963968, 36028797018963968), }")));
    auto t = ParseNpy(in.view());
    ASSERT_TRUE(t.ok()) << order << ": " << t.status();
    EXPECT_EQ(t->shape(), Shape({3, 0, int64_t{1} << 55, int64_t{1} << 55}));
    EXPECT_EQ(t->size(), 0);
  }
}

TEST(NpyTest, MissingFilesNameThePath) {
  const std::string path = TempPath("does_not_exist.npy");
  for (auto status : {LoadNpy(path).status(), LoadNpyMmap(path).status(),
                      LoadNpz(path).status()}) {
    EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
    EXPECT_THAT(status.message(), HasSubstr(path));
  }
  EXPECT_FALSE(SaveNpy("/nonexistent-dir/x.npy", *zeros({2})).ok());
}

TEST(NpzTest, TheArchiveNumPyWroteLoadsInOrderWithItsValues) {
  auto entries = LoadNpz(DataPath("arrays.npz"));
  ASSERT_TRUE(entries.ok()) << entries.status();
  std::vector<Case> members;
  for (const Case& c : Manifest()) {
    if (c.f.count("member")) members.push_back(c);
  }
  ASSERT_EQ(entries->size(), members.size());
  for (size_t i = 0; i < members.size(); ++i) {
    EXPECT_EQ((*entries)[i].name, members[i].f.at("member"));
    EXPECT_EQ(Compare((*entries)[i].tensor, members[i]), "") << members[i].line;
  }
}

TEST(NpzTest, SerializeThenParseRoundTrips) {
  auto entries = LoadNpz(DataPath("arrays.npz"));
  ASSERT_TRUE(entries.ok());
  const std::string path = TempPath("out.npz");
  ASSERT_TRUE(SaveNpz(path, *entries).ok());
  auto back = LoadNpz(path);
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_EQ(back->size(), entries->size());
  for (size_t i = 0; i < back->size(); ++i) {
    EXPECT_EQ((*back)[i].name, (*entries)[i].name);
    EXPECT_EQ(*SerializeNpy((*back)[i].tensor),
              *SerializeNpy((*entries)[i].tensor));
  }
  // SaveNpz writes exactly SerializeNpz's image.
  EXPECT_EQ(*SerializeNpz(*entries), ReadFile(path));
}

TEST(NpzTest, CompressedMembersAreUnimplementedAndNamed) {
  auto t = LoadNpz(DataPath("compressed.npz"));
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(t.status().message(), HasSubstr("'x.npy' is compressed"));
}

TEST(NpzTest, BadKeysAreRejected) {
  auto a = *zeros({2});
  EXPECT_THAT(SerializeNpz({{"a", a}, {"a", a}}).status().message(),
              HasSubstr("duplicate key 'a'"));
  EXPECT_THAT(SerializeNpz({{"", a}}).status().message(),
              HasSubstr("empty key"));
}

TEST(NpzTest, EveryTruncationAndACorruptCrcAreErrors) {
  const std::string full = ReadFile(DataPath("arrays.npz"));
  for (size_t n = 0; n < full.size(); ++n) {
    const ExactBuffer prefix(absl::string_view(full).substr(0, n));
    EXPECT_FALSE(ParseNpz(prefix.view()).ok()) << "cut at " << n;
  }
  // Flip one data byte of the first member: its local header (30 bytes,
  // the 5-byte name, a 20-byte zip64 extra) and 128-byte .npy header end
  // at 0xb7, then come its 24 data bytes.
  std::string corrupt = full;
  corrupt[0xc0] ^= 1;
  const ExactBuffer in(corrupt);
  auto t = ParseNpz(in.view());
  ASSERT_FALSE(t.ok());
  EXPECT_THAT(t.status().message(), HasSubstr("CRC-32"));
}

}  // namespace
}  // namespace tessera
