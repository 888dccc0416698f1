// Copyright 2026 The Tessera Authors.
//
// TlsfArena's zeroed requests (AllocateZeroed): a block reused after being
// written reads all zero, at sizes around the crossover where clearing turns
// into giving huge pages back (alloc/internal/zero_memory.h) and at offsets
// that leave the head and tail unaligned; bytes never handed out are not
// written (invariant 10); caller memory is always cleared.

#include "alloc/tlsf/tlsf_arena.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>

#include "alloc/internal/zero_memory.h"
#include "alloc/tlsf/tlsf_arena_test_support.h"
#include "gtest/gtest.h"

namespace tessera {
namespace tlsf_test {
namespace {

bool AllZero(const void* p, size_t bytes) {
  const unsigned char* b = static_cast<const unsigned char*>(p);
  for (size_t i = 0; i < bytes; ++i) {
    if (b[i] != 0) return false;
  }
  return true;
}

TEST(TlsfZeroedTest, ZeroedRequestAfterDirtyReuseReadsAllZero) {
  TlsfArenaOptions options = Uncached();
  options.max_block_size = 32 * kMiB;
  auto arena = MakeArena(128 * kMiB, options);
  ASSERT_NE(arena, nullptr);
  const size_t crossover = internal::kLazyZeroMinBytes;
  const size_t sizes[] = {64,           4096,         crossover - 4096,
                          crossover,    crossover + 1, crossover + 12345,
                          3 * crossover + 64};
  // Leading blocks of these sizes shift the block's start off any page.
  const size_t shifts[] = {0, 64, 4096 + 192, 2 * kMiB - 64};
  for (size_t bytes : sizes) {
    for (size_t shift : shifts) {
      void* lead = shift == 0 ? nullptr : arena->Allocate(shift);
      void* dirty = arena->Allocate(bytes);
      ASSERT_NE(dirty, nullptr);
      std::memset(dirty, 0xA5, bytes);
      arena->Deallocate(dirty, bytes);
      void* zeroed = arena->AllocateZeroed(bytes);
      ASSERT_NE(zeroed, nullptr);
      if (bytes < crossover) {
        EXPECT_EQ(zeroed, dirty) << "the dirty block should be reused";
      } else {
        // Large: on a huge-page boundary, in the dirty block's memory.
        EXPECT_EQ(reinterpret_cast<uintptr_t>(zeroed) %
                      internal::kZeroHugePageBytes,
                  0u);
        EXPECT_LT(static_cast<char*>(zeroed),
                  static_cast<char*>(dirty) + bytes);
      }
      EXPECT_TRUE(AllZero(zeroed, bytes))
          << bytes << " bytes after a " << shift << "-byte lead";
      std::memset(zeroed, 0x5A, bytes);  // and it is ordinary memory again
      arena->Deallocate(zeroed, bytes);
      if (lead != nullptr) arena->Deallocate(lead, shift);
      ASSERT_TRUE(arena->CheckIntegrity().ok()) << arena->CheckIntegrity();
    }
  }
}

TEST(TlsfZeroedTest, PartlyReusedBlockIsClearedBelowTheHighWaterMark) {
  auto arena = MakeArena(64 * kMiB, Uncached());
  ASSERT_NE(arena, nullptr);
  const size_t dirty_bytes = 3 * kMiB;
  char* dirty = static_cast<char*>(arena->Allocate(dirty_bytes));
  std::memset(dirty, 0xFF, dirty_bytes);
  arena->Deallocate(dirty, dirty_bytes);
  // Starts in the dirty block (at its first huge-page boundary: a large
  // zeroed block spans whole huge pages) and runs past the high water mark.
  char* big = static_cast<char*>(arena->AllocateZeroed(6 * kMiB));
  ASSERT_GE(big, dirty);
  ASSERT_LT(big, dirty + dirty_bytes);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(big) % internal::kZeroHugePageBytes,
            0u);
  EXPECT_TRUE(AllZero(big, 6 * kMiB));
  EXPECT_GE(arena->Stats().high_water_offset, 6 * kMiB);
  arena->Deallocate(big, 6 * kMiB);
  EXPECT_TRUE(arena->CheckIntegrity().ok()) << arena->CheckIntegrity();
}

TEST(TlsfZeroedTest, CallerMemoryIsAlwaysCleared) {
  Buffer buffer(16 * kMiB);
  std::memset(buffer.data, 0xC3, buffer.size);
  TlsfArenaOptions options = Uncached();
  options.max_block_size = 8 * kMiB;
  absl::StatusOr<std::unique_ptr<TlsfArena>> arena =
      TlsfArena::CreateOver(buffer.data, buffer.size, nullptr, options);
  ASSERT_TRUE(arena.ok()) << arena.status();
  for (size_t bytes : {size_t{100}, 5 * kMiB}) {
    void* p = (*arena)->AllocateZeroed(bytes);
    ASSERT_NE(p, nullptr);
    EXPECT_TRUE(AllZero(p, bytes)) << bytes;
    (*arena)->Deallocate(p, bytes);
  }
}

TEST(TlsfZeroedTest, GrowthRegionsGiveZeroedBlocksToo) {
  TlsfArenaOptions options = Uncached();
  options.arena_bytes = 1 * kMiB;
  options.max_block_size = 16 * kMiB;
  options.grow = true;
  options.growth_region_bytes = 32 * kMiB;
  absl::StatusOr<std::unique_ptr<TlsfArena>> arena = TlsfArena::Create(options);
  ASSERT_TRUE(arena.ok()) << arena.status();
  const size_t bytes = 10 * kMiB + 100;
  void* p = (*arena)->Allocate(bytes);
  ASSERT_NE(p, nullptr);
  std::memset(p, 0x77, bytes);
  (*arena)->Deallocate(p, bytes);
  char* q = static_cast<char*>((*arena)->AllocateZeroed(bytes));
  // In the dirty block's memory, on its first huge-page boundary.
  ASSERT_GE(q, static_cast<char*>(p));
  ASSERT_LT(q, static_cast<char*>(p) + bytes);
  EXPECT_TRUE(AllZero(q, bytes));
  (*arena)->Deallocate(q, bytes);
  EXPECT_GE((*arena)->Stats().regions, 2u);
}

}  // namespace
}  // namespace tlsf_test
}  // namespace tessera
