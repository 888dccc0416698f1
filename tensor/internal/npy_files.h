// Copyright 2026 The Tessera Authors.
//
// Files for tensor/npy.cc: errno as an absl::Status naming the path, and a
// read-only input file read with pread (in parallel chunks on the tensor
// thread pool for large reads). Private to tensor/npy.cc.

#ifndef TESSERA_TENSOR_INTERNAL_NPY_FILES_H_
#define TESSERA_TENSOR_INTERNAL_NPY_FILES_H_

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "tensor/internal/thread_pool.h"
#include "tensor/parallel.h"

namespace tessera {
namespace npy_internal {

inline absl::Status ErrnoError(absl::string_view what, const std::string& path,
                        int err) {
  const std::string message =
      absl::StrFormat("%s %s: %s", what, path, std::strerror(err));
  if (err == ENOENT) return absl::NotFoundError(message);
  if (err == EACCES || err == EPERM) return absl::PermissionDeniedError(message);
  return absl::InternalError(message);
}

// A read-only open file and its size; closed on destruction.
class InputFile {
 public:
  ~InputFile() {
    if (fd_ >= 0) ::close(fd_);
  }
  absl::Status Open(const std::string& path, int flags) {
    path_ = path;
    fd_ = ::open(path.c_str(), flags | O_CLOEXEC);
    if (fd_ < 0) return ErrnoError("cannot open", path, errno);
    struct stat st;
    if (::fstat(fd_, &st) != 0) return ErrnoError("cannot stat", path, errno);
    if (!S_ISREG(st.st_mode)) {
      return absl::InvalidArgumentError(
          absl::StrFormat("%s is not a regular file", path));
    }
    size_ = static_cast<uint64_t>(st.st_size);
    return absl::OkStatus();
  }
  // Reads exactly `bytes` at `offset` (the file must hold them).
  absl::Status ReadAt(uint64_t offset, void* out, uint64_t bytes) const {
    char* p = static_cast<char*>(out);
    while (bytes > 0) {
      const size_t chunk = static_cast<size_t>(
          std::min<uint64_t>(bytes, uint64_t{1} << 30));
      const ssize_t n = ::pread(fd_, p, chunk, static_cast<off_t>(offset));
      if (n < 0) {
        if (errno == EINTR) continue;
        return ErrnoError("cannot read", path_, errno);
      }
      if (n == 0) {
        return absl::DataLossError(absl::StrFormat(
            "%s: the file ended while reading (it shrank?)", path_));
      }
      p += n;
      offset += static_cast<uint64_t>(n);
      bytes -= static_cast<uint64_t>(n);
    }
    return absl::OkStatus();
  }
  // ReadAt in chunks on the tensor thread pool from kParallelReadBytes up:
  // the copy out of the page cache and the page faults of the fresh
  // destination are per-thread work (2 threads: 400 MB in ~0.6x the time).
  absl::Status ReadAtParallel(uint64_t offset, void* out,
                              uint64_t bytes) const {
    constexpr uint64_t kParallelReadBytes = uint64_t{16} << 20;
    if (bytes < kParallelReadBytes || NumThreads() < 2) {
      return ReadAt(offset, out, bytes);
    }
    absl::Mutex mu;
    absl::Status first_error;
    internal::ParallelFor(
        static_cast<int64_t>(bytes), int64_t{4} << 20,
        [&](int64_t begin, int64_t end) {
          absl::Status s =
              ReadAt(offset + static_cast<uint64_t>(begin),
                     static_cast<char*>(out) + begin,
                     static_cast<uint64_t>(end - begin));
          if (!s.ok()) {
            absl::MutexLock lock(&mu);
            if (first_error.ok()) first_error = s;
          }
        });
    return first_error;
  }
  int fd() const { return fd_; }
  uint64_t size() const { return size_; }

 private:
  std::string path_;
  int fd_ = -1;
  uint64_t size_ = 0;
};

}  // namespace npy_internal
}  // namespace tessera

#endif  // TESSERA_TENSOR_INTERNAL_NPY_FILES_H_
