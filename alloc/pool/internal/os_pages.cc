// Copyright 2026 The Tessera Authors.

#include "alloc/pool/internal/os_pages.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>

namespace tessera {
namespace pool_internal {

size_t PageSize() {
  static const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return page;
}

void* MapAligned(size_t bytes, size_t alignment) noexcept {
  const size_t page = PageSize();
  if (alignment < page) alignment = page;
  if (bytes == 0 || bytes % page != 0) return nullptr;
  // mmap already gives page alignment; only larger alignments need slack.
  const size_t slack = alignment - page;
  if (bytes > SIZE_MAX - slack) return nullptr;
  void* raw = mmap(nullptr, bytes + slack, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (raw == MAP_FAILED) return nullptr;
  const uintptr_t begin = reinterpret_cast<uintptr_t>(raw);
  const uintptr_t aligned = (begin + alignment - 1) & ~(alignment - 1);
  const uintptr_t end = begin + bytes + slack;
  // Give back the slack on both sides so the mapping is exactly `bytes`.
  if (aligned > begin) munmap(raw, aligned - begin);
  if (end > aligned + bytes) {
    munmap(reinterpret_cast<void*>(aligned + bytes), end - (aligned + bytes));
  }
  return reinterpret_cast<void*>(aligned);
}

void Unmap(void* ptr, size_t bytes) noexcept {
  if (ptr != nullptr) munmap(ptr, bytes);
}

void AdviseHugePages(void* ptr, size_t bytes) noexcept {
  const uintptr_t page = PageSize();
  const uintptr_t begin =
      (reinterpret_cast<uintptr_t>(ptr) + page - 1) & ~(page - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(ptr) + bytes) & ~(page - 1);
  if (end > begin) {
    madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
  }
}

}  // namespace pool_internal
}  // namespace tessera
