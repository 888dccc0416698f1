// Copyright 2026 The Tessera Authors.
//
// The C++ examples of README.md, verbatim between the BEGIN/END markers, so
// that a change to an API that breaks them breaks this test, and a test that
// README.md still shows them as they are here (indented two spaces less).
// Edit here, then copy into README.md.

#include <cstdlib>
#include <fstream>
#include <memory>
#include <memory_resource>
#include <sstream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "alloc/memory_resource.h"
#include "alloc/tlsf/tlsf_arena.h"
#include "gtest/gtest.h"
#include "tensor/binary.h"
#include "tensor/print.h"
#include "tensor/reduce.h"
#include "tensor/tensor.h"

namespace {

absl::Status AllocatorExample(double* last, uint64_t* live) {
  // BEGIN allocator example
  absl::StatusOr<std::unique_ptr<tessera::TlsfArena>> arena =
      tessera::TlsfArena::Create();             // 64 MiB, O(1) alloc/free
  if (!arena.ok()) return arena.status();
  tessera::Allocator& allocator = **arena;      // any Tessera allocator
  void* block = allocator.Allocate(1000, 64);   // hot path: nullptr on failure
  if (block == nullptr) return absl::ResourceExhaustedError("1000 bytes");
  allocator.Deallocate(block, 1000, 64);        // size and alignment as given
  tessera::MemoryResource resource(allocator);  // a std::pmr::memory_resource
  std::pmr::vector<double> values(1000, 2.0, &resource);
  // END allocator example
  *last = values.back();
  *live = allocator.stats().live_allocations();
  return allocator.CheckIntegrity();
}

absl::Status TensorExample(std::string* printed, double* total) {
  // BEGIN tensor example
  auto arena = tessera::TlsfArena::Create();
  if (!arena.ok()) return arena.status();
  tessera::Allocator* on = arena->get();  // every tensor below lives there
  absl::StatusOr<tessera::Tensor> x =
      tessera::arange(0, 6, 1, tessera::DType::kFloat32, on);
  absl::StatusOr<tessera::Tensor> y =
      tessera::ones({6}, tessera::DType::kFloat32, on);
  if (!x.ok() || !y.ok()) return x.ok() ? y.status() : x.status();
  absl::StatusOr<tessera::Tensor> z = tessera::add(*x, *y, on);  // broadcasts
  if (!z.ok()) return z.status();
  std::string text = tessera::repr(*z);  // array([1., 2., ..., 6.], dtype=float32)
  absl::StatusOr<tessera::Tensor> s = tessera::sum(*z, {}, false, on);  // 0-d
  if (!s.ok()) return s.status();
  absl::StatusOr<double> sum = s->item<double>();  // 21
  // END tensor example
  *printed = text;
  if (!sum.ok()) return sum.status();
  *total = *sum;
  return (*arena)->CheckIntegrity();
}

TEST(ReadmeExamplesTest, AllocatorExampleServesAPmrVectorFromTheArena) {
  double last = 0;
  uint64_t live = 0;
  ASSERT_TRUE(AllocatorExample(&last, &live).ok());
  EXPECT_EQ(last, 2.0);
  EXPECT_EQ(live, 1u);  // the vector's buffer
}

TEST(ReadmeExamplesTest, TensorExamplePrintsAndSumsAsNumPyDoes) {
  std::string printed;
  double total = 0;
  ASSERT_TRUE(TensorExample(&printed, &total).ok());
  EXPECT_EQ(printed, "array([1., 2., 3., 4., 5., 6.], dtype=float32)");
  EXPECT_EQ(total, 21.0);
}

std::string ReadRunfile(absl::string_view path) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* workspace = std::getenv("TEST_WORKSPACE");
  std::ifstream in(absl::StrCat(srcdir != nullptr ? srcdir : ".", "/",
                                workspace != nullptr ? workspace : "tessera",
                                "/", path));
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The lines strictly between "// BEGIN <tag> example" and "// END <tag>
// example" in `source`, two leading spaces removed, joined by newlines.
std::string Snippet(const std::string& source, absl::string_view tag) {
  const std::string begin = absl::StrCat("// BEGIN ", tag, " example");
  const std::string end = absl::StrCat("// END ", tag, " example");
  std::string out;
  bool inside = false;
  for (absl::string_view line : absl::StrSplit(source, '\n')) {
    if (absl::StrContains(line, end)) break;
    if (inside) {
      if (absl::StartsWith(line, "  ")) line.remove_prefix(2);
      absl::StrAppend(&out, line, "\n");
    }
    if (absl::StrContains(line, begin)) inside = true;
  }
  return out;
}

TEST(ReadmeExamplesTest, ReadmeShowsTheExamplesAsCompiledHere) {
  const std::string source =
      ReadRunfile("examples/readme_examples_test.cc");
  const std::string readme = ReadRunfile("README.md");
  ASSERT_FALSE(readme.empty());
  for (absl::string_view tag : {"allocator", "tensor"}) {
    const std::string snippet = Snippet(source, tag);
    ASSERT_FALSE(snippet.empty()) << tag;
    EXPECT_TRUE(absl::StrContains(readme, absl::StrCat("```cpp\n", snippet,
                                                       "```")))
        << "README.md no longer shows the " << tag << " example as\n"
        << snippet;
  }
}

}  // namespace
