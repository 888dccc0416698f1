// Copyright 2026 The Tessera Authors.
//
// `TESSERA_FUZZ_CHECK(cond, fmt, ...)`: the one way a harness reports a
// finding. When `cond` is false it prints the file, line, condition and a
// printf-style message to stderr and aborts, which libFuzzer records as a
// crash (and saves the input) and the replay main turns into a failed test.
// It is on in every build mode: a harness that stops checking under NDEBUG
// proves nothing.

#ifndef TESSERA_FUZZ_FUZZ_CHECK_H_
#define TESSERA_FUZZ_FUZZ_CHECK_H_

#include <cstdarg>
#include <cstdio>
#include <cstdlib>

namespace tessera {
namespace fuzzing {

[[noreturn]] inline void FuzzCheckFailed(const char* file, int line,
                                         const char* condition,
                                         const char* format, ...)
    __attribute__((format(printf, 4, 5)));

[[noreturn]] inline void FuzzCheckFailed(const char* file, int line,
                                         const char* condition,
                                         const char* format, ...) {
  std::fprintf(stderr, "FUZZ CHECK FAILED at %s:%d: %s: ", file, line,
               condition);
  va_list args;
  va_start(args, format);
  std::vfprintf(stderr, format, args);
  va_end(args);
  std::fputc('\n', stderr);
  std::fflush(stderr);
  std::abort();
}

}  // namespace fuzzing
}  // namespace tessera

#define TESSERA_FUZZ_CHECK(cond, ...)                                      \
  do {                                                                     \
    if (!(cond)) {                                                         \
      ::tessera::fuzzing::FuzzCheckFailed(__FILE__, __LINE__, #cond,       \
                                          __VA_ARGS__);                    \
    }                                                                      \
  } while (false)

#endif  // TESSERA_FUZZ_FUZZ_CHECK_H_
