// Copyright 2026 The Tessera Authors.
//
// The setup checks of the tensor benchmarks: a benchmark has no error path,
// so a call that fails prints its status, prefixed with the program's name
// (e.g. "elementwise_benchmark: ..."), and aborts. Not for timed code's
// results that can fail by design.

#ifndef TESSERA_TENSOR_TESTING_BENCHMARK_CHECKS_H_
#define TESSERA_TENSOR_TESTING_BENCHMARK_CHECKS_H_

#include <errno.h>  // program_invocation_short_name (glibc)

#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace tessera {
namespace benchmark_checks {

// Aborts naming `s` unless it is OK.
inline void Check(const absl::Status& s) {
  if (!s.ok()) {
    std::fprintf(stderr, "%s: %s\n", program_invocation_short_name,
                 std::string(s.message()).c_str());
    std::abort();
  }
}

// The value of `v`, or an abort naming its status.
template <typename T>
T Ok(absl::StatusOr<T> v) {
  Check(v.status());
  return *std::move(v);
}

}  // namespace benchmark_checks
}  // namespace tessera

#endif  // TESSERA_TENSOR_TESTING_BENCHMARK_CHECKS_H_
