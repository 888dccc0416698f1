// Copyright 2026 The Tessera Authors.

#include "alloc/internal/zero_memory.h"

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "gtest/gtest.h"

namespace tessera {
namespace internal {
namespace {

constexpr size_t kMiB = size_t{1} << 20;

// A dirty mapping advised huge pages, with a block at `offset` into it.
class DirtyMapping {
 public:
  explicit DirtyMapping(size_t bytes) : bytes_(bytes) {
    void* m = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    EXPECT_NE(m, MAP_FAILED);
    base_ = static_cast<unsigned char*>(m);
    madvise(base_, bytes, MADV_HUGEPAGE);
    std::memset(base_, 0xA5, bytes);
  }
  ~DirtyMapping() { munmap(base_, bytes_); }
  unsigned char* base() const { return base_; }

 private:
  unsigned char* base_;
  size_t bytes_;
};

// The first offset in [begin, end) that is not zero, or end.
size_t FirstNonZero(const unsigned char* p, size_t begin, size_t end) {
  for (size_t i = begin; i < end; ++i) {
    if (p[i] != 0) return i;
  }
  return end;
}

TEST(ZeroMemoryTest, SmallBlocksAreClearedWithMemsetOnly) {
  DirtyMapping m(8 * kMiB);
  const size_t bytes = kLazyZeroMinBytes - 1;
  EXPECT_EQ(ZeroMemory(m.base() + 1, bytes, ZeroPages::kAnonymousHuge), bytes);
  EXPECT_EQ(FirstNonZero(m.base(), 1, 1 + bytes), 1 + bytes);
  EXPECT_EQ(m.base()[0], 0xA5);
  EXPECT_EQ(m.base()[1 + bytes], 0xA5);
}

TEST(ZeroMemoryTest, UnknownMemoryIsNeverGivenBack) {
  DirtyMapping m(16 * kMiB);
  const size_t bytes = 12 * kMiB;
  EXPECT_EQ(ZeroMemory(m.base(), bytes, ZeroPages::kMemsetOnly), bytes);
  EXPECT_EQ(FirstNonZero(m.base(), 0, bytes), bytes);
}

// Around the crossover and at every head offset class (aligned, one byte in,
// one 4 KiB page in, just below a huge page boundary): every byte of the
// block reads zero, the neighbours keep their bytes, and only the unaligned
// head and tail are written.
TEST(ZeroMemoryTest, DirtyBlocksAroundTheCrossoverReadAllZero) {
  const size_t sizes[] = {kLazyZeroMinBytes - 4096, kLazyZeroMinBytes,
                          kLazyZeroMinBytes + 1, kLazyZeroMinBytes + 4095,
                          6 * kMiB + 12345, 10 * kMiB};
  const size_t offsets[] = {0, 1, 64, 4096, kZeroHugePageBytes - 1};
  for (size_t bytes : sizes) {
    for (size_t offset : offsets) {
      DirtyMapping m(bytes + 3 * kZeroHugePageBytes);
      // Start `offset` past the first huge page boundary after the mapping's
      // first byte (so that block[-1] is always mapped).
      const uintptr_t aligned =
          (reinterpret_cast<uintptr_t>(m.base()) + kZeroHugePageBytes) &
          ~(kZeroHugePageBytes - 1);
      unsigned char* block = reinterpret_cast<unsigned char*>(aligned) + offset;
      const size_t written =
          ZeroMemory(block, bytes, ZeroPages::kAnonymousHuge);
      EXPECT_EQ(FirstNonZero(block, 0, bytes), bytes)
          << bytes << " bytes at offset " << offset;
      EXPECT_EQ(block[-1], 0xA5) << bytes << " at " << offset;
      EXPECT_EQ(block[bytes], 0xA5) << bytes << " at " << offset;
      // What memset wrote is the head and tail around the whole huge pages.
      const uintptr_t b = reinterpret_cast<uintptr_t>(block);
      const uintptr_t lo = (b + kZeroHugePageBytes - 1) &
                           ~(kZeroHugePageBytes - 1);
      const uintptr_t hi = (b + bytes) & ~(kZeroHugePageBytes - 1);
      const size_t expected =
          bytes < kLazyZeroMinBytes || hi <= lo ? bytes : bytes - (hi - lo);
      EXPECT_EQ(written, expected) << bytes << " at " << offset;
      // And it can be written again like any memory.
      std::memset(block, 0x5A, bytes);
      EXPECT_EQ(block[bytes / 2], 0x5A);
    }
  }
}

TEST(ZeroMemoryTest, ZeroBytesWritesNothing) {
  EXPECT_EQ(ZeroMemory(nullptr, 0, ZeroPages::kAnonymousHuge), 0u);
}

}  // namespace
}  // namespace internal
}  // namespace tessera
