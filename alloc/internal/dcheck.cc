// Copyright 2026 The Tessera Authors.

#include "alloc/internal/dcheck.h"

#include <cstdio>
#include <cstdlib>

namespace tessera {
namespace internal {

void DcheckFailed(const char* file, int line, const char* condition,
                  const char* message) {
  // stderr is unbuffered: fprintf formats on the stack and does not allocate,
  // which matters when the heap being checked is the one that is broken.
  std::fprintf(stderr, "%s:%d: TESSERA_DCHECK failed: %s (%s)\n", file, line,
               message, condition);
  std::fflush(stderr);
  std::abort();
}

void DcheckFailedWithDetail(const char* file, int line, const char* message,
                            const char* detail, size_t detail_size) {
  std::fprintf(stderr, "%s:%d: TESSERA_DCHECK failed: %s (%.*s)\n", file, line,
               message, static_cast<int>(detail_size), detail);
  std::fflush(stderr);
  std::abort();
}

}  // namespace internal
}  // namespace tessera
