// Copyright 2026 The Tessera Authors.
//
// Thin wrappers over mmap/munmap/madvise for the pool package: page-aligned
// mappings at any power-of-two alignment (over-map, then unmap the slack, so
// nothing is wasted), and huge-page advice.

#ifndef TESSERA_ALLOC_POOL_INTERNAL_OS_PAGES_H_
#define TESSERA_ALLOC_POOL_INTERNAL_OS_PAGES_H_

#include <cstddef>

namespace tessera {
namespace pool_internal {

// The kernel's page size (4096 on x86-64).
size_t PageSize();

// The transparent huge page size assumed for alignment (2 MiB on x86-64).
inline constexpr size_t kHugePageSize = size_t{2} << 20;

// Maps `bytes` (a multiple of PageSize()) of zeroed read/write memory at an
// address aligned to `alignment` (a power of two; page alignment at least).
// Returns nullptr when the kernel refuses or `bytes + alignment` overflows.
void* MapAligned(size_t bytes, size_t alignment) noexcept;

// Unmaps a region returned by MapAligned with the same `bytes`.
void Unmap(void* ptr, size_t bytes) noexcept;

// Advises transparent huge pages on the whole pages of [ptr, ptr + bytes).
// Advice only: a kernel without THP refuses, and that is fine.
void AdviseHugePages(void* ptr, size_t bytes) noexcept;

}  // namespace pool_internal
}  // namespace tessera

#endif  // TESSERA_ALLOC_POOL_INTERNAL_OS_PAGES_H_
