// Copyright 2026 The Tessera Authors.
//
// ZeroMemory: makes a reused block read as zero the cheapest way, for the
// allocators' zeroed paths (AllocateZeroed).
//
// Why: NumPy's zeros of 40 MB is calloc, i.e. a fresh mapping the kernel
// zeroes lazily, page by page, when it is first touched; an allocator that
// hands out a reused block and memsets it writes all 40 MB up front (~61x
// NumPy's time here). For a large block in private anonymous memory whose
// pages are advised transparent huge pages, ZeroMemory instead gives the
// block's whole 2 MiB pages back with MADV_DONTNEED (the next touch maps
// zero pages) and memsets only the unaligned head and tail. Below
// `kLazyZeroMinBytes`, or where the pages are 4 KiB ones, it memsets.
//
// The crossover is measured (bench/zero_memory_benchmark.cc, opt build,
// 2026-12-03, loaded 2-core VM), for a dirty resident block:
//   * clearing alone: memset 2 MiB 45 us vs 53 us given back; 4 MiB 141 vs
//     79 us; 40 MiB 1.44 ms vs 0.12 ms. Hence kLazyZeroMinBytes = 4 MiB;
//   * cleared then written once: 40 MiB 3.10 ms memset vs 2.80 ms given back
//     on huge pages (their first touch is a kernel clear of about a memset's
//     cost: fresh 40 MiB written in 2.7 ms), but 20.1 ms on 4 KiB pages (a
//     4 KiB first touch costs ~2.0 us here, 20.4 ms per 40 MiB, against
//     ~0.14 us for a memset of it), so 4 KiB pages are never given back.
//
// Only for memory where MADV_DONTNEED means "reads as zero next time":
// private anonymous mappings (mmap MAP_PRIVATE | MAP_ANONYMOUS, glibc's heap
// and its mmapped chunks). On a file or shared mapping it would not zero.

#ifndef TESSERA_ALLOC_INTERNAL_ZERO_MEMORY_H_
#define TESSERA_ALLOC_INTERNAL_ZERO_MEMORY_H_

#include <cstddef>

namespace tessera {
namespace internal {

// The transparent huge page size on x86-64 Linux.
inline constexpr size_t kZeroHugePageBytes = size_t{2} << 20;

// Blocks below this are always cleared with memset (see above).
inline constexpr size_t kLazyZeroMinBytes = size_t{4} << 20;

// What ZeroMemory may assume of the memory it is given.
enum class ZeroPages {
  // Unknown memory (caller's, file-backed, shared): memset only.
  kMemsetOnly,
  // Private anonymous memory advised MADV_HUGEPAGE: whole 2 MiB pages of a
  // block of at least kLazyZeroMinBytes are given back instead of written.
  kAnonymousHuge,
};

// Makes [ptr, ptr + bytes) read as zero. Returns the bytes it wrote with
// memset (the rest was given back to the kernel), for tests and statistics.
size_t ZeroMemory(void* ptr, size_t bytes, ZeroPages pages) noexcept;

}  // namespace internal
}  // namespace tessera

#endif  // TESSERA_ALLOC_INTERNAL_ZERO_MEMORY_H_
