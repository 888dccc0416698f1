// Copyright 2026 The Tessera Authors.
//
// The `main()` a fuzz target links when no fuzzing engine is configured (any
// build without --config=libfuzzer, including gcc builds). It runs
// `LLVMFuzzerTestOneInput` once on the empty input and once on every file
// named on the command line, and on every file inside every directory named
// there (recursively, in sorted order), so a corpus replays as a regression
// test with the same command line libFuzzer takes:
//
//   system_allocator_fuzzer -runs=0 path/to/corpus
//
// Arguments starting with '-' are libFuzzer flags and are ignored, so the
// regression runner needs no engine-specific branch. A finding aborts inside
// the harness; an unreadable path is an error (exit 1), so a renamed corpus
// directory cannot silently replay nothing.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <system_error>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv)
    __attribute__((weak));

namespace {

bool ReadFile(const std::string& path, std::vector<uint8_t>* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  out->assign(std::istreambuf_iterator<char>(in),
              std::istreambuf_iterator<char>());
  return !in.bad();
}

// Appends the regular files under `path` (or `path` itself) to `files`.
bool CollectInputs(const std::string& path, std::vector<std::string>* files) {
  std::error_code error;
  const std::filesystem::file_status status =
      std::filesystem::status(path, error);
  if (error) return false;
  if (std::filesystem::is_directory(status)) {
    std::vector<std::string> found;
    for (std::filesystem::recursive_directory_iterator
             it(path, std::filesystem::directory_options::follow_directory_symlink,
                error),
         end;
         !error && it != end; it.increment(error)) {
      if (it->is_regular_file(error)) found.push_back(it->path().string());
    }
    if (error) return false;
    std::sort(found.begin(), found.end());
    files->insert(files->end(), found.begin(), found.end());
    return true;
  }
  if (!std::filesystem::is_regular_file(status)) return false;
  files->push_back(path);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (LLVMFuzzerInitialize != nullptr) LLVMFuzzerInitialize(&argc, &argv);

  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (!arg.empty() && arg[0] == '-') continue;  // a libFuzzer flag
    if (!CollectInputs(arg, &files)) {
      std::fprintf(stderr, "replay: cannot read %s\n", arg.c_str());
      return 1;
    }
  }

  // The empty input first: every harness must accept it.
  LLVMFuzzerTestOneInput(nullptr, 0);
  std::vector<uint8_t> data;
  for (const std::string& file : files) {
    if (!ReadFile(file, &data)) {
      std::fprintf(stderr, "replay: cannot read %s\n", file.c_str());
      return 1;
    }
    LLVMFuzzerTestOneInput(data.data(), data.size());
  }
  std::fprintf(stderr, "replay: %zu inputs (plus the empty input) passed\n",
               files.size());
  return 0;
}
