// Copyright 2026 The Tessera Authors.
//
// The crossover of alloc/internal/zero_memory.h: clearing a reused (dirty,
// resident) block with memset against giving its pages back with
// MADV_DONTNEED, with and without one write of every byte afterwards (what a
// zeros() followed by filling costs), on huge pages and on 4 KiB pages. Also
// the plain first touch of fresh pages, the figure the crossover rests on.
//
//   tools/bazel run --config=opt //bench:zero_memory_benchmark

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "alloc/internal/zero_memory.h"
#include "benchmark/benchmark.h"

namespace {

constexpr size_t kHuge = size_t{2} << 20;

// A dirty block of `bytes` at a 4 KiB + 64 offset from a huge-page boundary
// (so the head and tail are unaligned, as a tensor's block is).
struct Block {
  Block(size_t bytes, bool huge) : bytes(bytes) {
    map_bytes = bytes + 2 * kHuge;
    void* m = mmap(nullptr, map_bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    map = static_cast<char*>(m);
    madvise(map, map_bytes, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
    const uintptr_t aligned =
        (reinterpret_cast<uintptr_t>(map) + kHuge - 1) & ~(kHuge - 1);
    ptr = reinterpret_cast<char*>(aligned) + 4096 + 64;
    Dirty();
  }
  ~Block() { munmap(map, map_bytes); }
  void Dirty() { std::memset(ptr, 1, bytes); }
  char* map;
  size_t map_bytes;
  char* ptr;
  size_t bytes;
};

// range(0): MiB; range(1): 0 memset, 1 ZeroMemory (huge pages given back);
// range(2): 1 to write every byte after zeroing; range(3): 1 for huge pages.
void BM_ZeroReused(benchmark::State& state) {
  const size_t bytes = static_cast<size_t>(state.range(0)) << 20;
  const bool lazy = state.range(1) != 0;
  const bool write = state.range(2) != 0;
  const bool huge = state.range(3) != 0;
  Block block(bytes, huge);
  for (auto _ : state) {
    if (!write) {
      state.PauseTiming();
      block.Dirty();
      state.ResumeTiming();
    }
    if (lazy) {
      tessera::internal::ZeroMemory(block.ptr, bytes,
                                    tessera::internal::ZeroPages::kAnonymousHuge);
    } else {
      std::memset(block.ptr, 0, bytes);
    }
    benchmark::DoNotOptimize(block.ptr[bytes / 2]);
    if (write) std::memset(block.ptr, 1, bytes);  // dirty again, in the timing
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_ZeroReused)
    ->ArgNames({"MiB", "lazy", "write", "huge"})
    ->ArgsProduct({{1, 2, 4, 8, 16, 40}, {0, 1}, {0, 1}, {1}})
    ->Args({40, 0, 1, 0})
    ->Args({40, 1, 1, 0})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

// The first write of fresh pages: range(0) MiB, range(1) 1 for huge pages.
void BM_FirstTouch(benchmark::State& state) {
  const size_t bytes = static_cast<size_t>(state.range(0)) << 20;
  const bool huge = state.range(1) != 0;
  for (auto _ : state) {
    void* m = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    madvise(m, bytes, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
    std::memset(m, 1, bytes);
    benchmark::ClobberMemory();
    munmap(m, bytes);
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(bytes));
}
BENCHMARK(BM_FirstTouch)
    ->ArgNames({"MiB", "huge"})
    ->ArgsProduct({{40}, {0, 1}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
