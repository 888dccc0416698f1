// Copyright 2026 The Tessera Authors.

#include "alloc/internal/zero_memory.h"

#include <sys/mman.h>

#include <cstdint>
#include <cstring>

namespace tessera {
namespace internal {

size_t ZeroMemory(void* ptr, size_t bytes, ZeroPages pages) noexcept {
  if (bytes == 0) return 0;
  char* const p = static_cast<char*>(ptr);
  if (pages == ZeroPages::kMemsetOnly || bytes < kLazyZeroMinBytes) {
    std::memset(p, 0, bytes);
    return bytes;
  }
  const uintptr_t begin = reinterpret_cast<uintptr_t>(p);
  const uintptr_t end = begin + bytes;
  const uintptr_t mask = kZeroHugePageBytes - 1;
  const uintptr_t inner_begin = (begin + mask) & ~mask;
  const uintptr_t inner_end = end & ~mask;
  // Whole huge pages only: giving back part of one would split it, and its
  // next touch would fault 4 KiB pages at ~13 us each.
  if (inner_end <= inner_begin ||
      madvise(reinterpret_cast<void*>(inner_begin), inner_end - inner_begin,
              MADV_DONTNEED) != 0) {
    std::memset(p, 0, bytes);
    return bytes;
  }
  const size_t head = inner_begin - begin;
  const size_t tail = end - inner_end;
  std::memset(p, 0, head);
  std::memset(reinterpret_cast<char*>(inner_end), 0, tail);
  return head + tail;
}

}  // namespace internal
}  // namespace tessera
