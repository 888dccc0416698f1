// Copyright 2026 The Tessera Authors.

#include "alloc/internal/mapped_blocks.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "gtest/gtest.h"

namespace tessera {
namespace internal {
namespace {

constexpr size_t kMiB = size_t{1} << 20;

bool AllBytesAre(const void* p, size_t bytes, unsigned char value) {
  const unsigned char* c = static_cast<const unsigned char*>(p);
  for (size_t i = 0; i < bytes; ++i) {
    if (c[i] != value) return false;
  }
  return true;
}

// Pages of [p, p + bytes) the kernel has resident (mincore).
size_t ResidentPages(const void* p, size_t bytes) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  std::vector<unsigned char> vec((bytes + page - 1) / page);
  if (mincore(const_cast<void*>(p), bytes, vec.data()) != 0) return SIZE_MAX;
  size_t resident = 0;
  for (unsigned char v : vec) resident += v & 1;
  return resident;
}

TEST(MappedBlocksTest, BlocksAreHugePageAlignedAndWritableToTheEnd) {
  MappedBlocks blocks(/*huge_pages=*/true, /*cache=*/true);
  for (size_t bytes : {4 * kMiB, 5 * kMiB + 3, 40 * kMiB}) {
    char* p = static_cast<char*>(blocks.Allocate(bytes, /*zeroed=*/false));
    ASSERT_NE(p, nullptr) << bytes;
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % MappedBlocks::kAlignment, 0u);
    size_t capacity = 0;
    EXPECT_EQ(blocks.Find(p, &capacity), MappedBlocks::State::kLive);
    EXPECT_GE(capacity, bytes);
    EXPECT_EQ(capacity % MappedBlocks::kAlignment, 0u);
    // The page below reads (as zero: no valid header), the block is fresh
    // zero pages end to end.
    EXPECT_TRUE(AllBytesAre(p - 16, 16, 0));
    EXPECT_TRUE(AllBytesAre(p, bytes, 0));
    std::memset(p, 0x5A, capacity);
    EXPECT_TRUE(blocks.CheckIntegrity(1).ok());
    EXPECT_EQ(blocks.Free(p), MappedBlocks::State::kLive);
  }
  EXPECT_TRUE(blocks.CheckIntegrity(0).ok());
}

TEST(MappedBlocksTest, ZeroedReuseReadsZeroAndGivesThePagesBack) {
  MappedBlocks blocks(true, true);
  const size_t bytes = 10 * kMiB + 100;
  char* p = static_cast<char*>(blocks.Allocate(bytes, false));
  ASSERT_NE(p, nullptr);
  std::memset(p, 0xA5, bytes);
  ASSERT_EQ(blocks.Free(p), MappedBlocks::State::kLive);
  EXPECT_EQ(blocks.Find(p), MappedBlocks::State::kCached);
  EXPECT_EQ(blocks.cached_blocks(), 1u);

  char* q = static_cast<char*>(blocks.Allocate(bytes, /*zeroed=*/true));
  ASSERT_EQ(q, p) << "the cached mapping should be reused";
  EXPECT_EQ(ResidentPages(q, bytes), 0u)
      << "a zeroed reuse gives the pages back rather than writing them";
  EXPECT_TRUE(AllBytesAre(q, bytes, 0));
  ASSERT_EQ(blocks.Free(q), MappedBlocks::State::kLive);

  // An unzeroed reuse keeps what was there: no system call, no clearing.
  char* r = static_cast<char*>(blocks.Allocate(bytes, true));
  ASSERT_EQ(r, p);
  std::memset(r, 0x3C, 4096);
  ASSERT_EQ(blocks.Free(r), MappedBlocks::State::kLive);
  char* s = static_cast<char*>(blocks.Allocate(bytes, false));
  ASSERT_EQ(s, p);
  EXPECT_TRUE(AllBytesAre(s, 4096, 0x3C));
  ASSERT_EQ(blocks.Free(s), MappedBlocks::State::kLive);
  EXPECT_TRUE(blocks.CheckIntegrity(0).ok());
}

TEST(MappedBlocksTest, ACachedBlockServesOnlyRequestsOfAtLeastHalfItsSize) {
  MappedBlocks blocks(true, true);
  void* big = blocks.Allocate(64 * kMiB, false);
  ASSERT_NE(big, nullptr);
  ASSERT_EQ(blocks.Free(big), MappedBlocks::State::kLive);
  void* small = blocks.Allocate(4 * kMiB, false);
  ASSERT_NE(small, nullptr);
  EXPECT_NE(small, big) << "64 MiB must not serve 4 MiB";
  void* half = blocks.Allocate(33 * kMiB, false);
  EXPECT_EQ(half, big);
  EXPECT_TRUE(blocks.CheckIntegrity(2).ok());
  blocks.Free(small);
  blocks.Free(half);
}

TEST(MappedBlocksTest, TheCacheStaysWithinItsBoundsOldestEvictedFirst) {
  MappedBlocks blocks(true, true);
  std::vector<void*> live;
  for (int i = 0; i < MappedBlocks::kMaxCachedBlocks + 2; ++i) {
    live.push_back(blocks.Allocate(4 * kMiB, false));
    ASSERT_NE(live.back(), nullptr);
  }
  for (void* p : live) ASSERT_EQ(blocks.Free(p), MappedBlocks::State::kLive);
  EXPECT_EQ(blocks.cached_blocks(),
            static_cast<size_t>(MappedBlocks::kMaxCachedBlocks));
  EXPECT_EQ(blocks.Find(live[0]), MappedBlocks::State::kNone) << "evicted";
  EXPECT_EQ(blocks.Find(live[1]), MappedBlocks::State::kNone) << "evicted";
  EXPECT_EQ(blocks.Find(live.back()), MappedBlocks::State::kCached);
  EXPECT_TRUE(blocks.CheckIntegrity(0).ok());
  // A block above the byte bound is never cached.
  void* huge = blocks.Allocate(MappedBlocks::kMaxCachedBytes + 1, false);
  ASSERT_NE(huge, nullptr);
  ASSERT_EQ(blocks.Free(huge), MappedBlocks::State::kLive);
  EXPECT_EQ(blocks.Find(huge), MappedBlocks::State::kNone);
  EXPECT_LE(blocks.cached_bytes(), MappedBlocks::kMaxCachedBytes);
  EXPECT_EQ(blocks.ReleaseCached(),
            MappedBlocks::kMaxCachedBlocks * 4 * kMiB);
  EXPECT_EQ(blocks.cached_blocks(), 0u);
  EXPECT_TRUE(blocks.CheckIntegrity(0).ok());
}

TEST(MappedBlocksTest, DoubleAndForeignFreesAreToldApartAndChangeNothing) {
  MappedBlocks blocks(false, true);
  void* p = blocks.Allocate(4 * kMiB, false);
  ASSERT_NE(p, nullptr);
  ASSERT_EQ(blocks.Free(p), MappedBlocks::State::kLive);
  EXPECT_EQ(blocks.Free(p), MappedBlocks::State::kCached) << "double free";
  EXPECT_EQ(blocks.cached_blocks(), 1u);
  int local = 0;
  EXPECT_EQ(blocks.Free(&local), MappedBlocks::State::kNone);
  EXPECT_EQ(blocks.Free(static_cast<char*>(p) + MappedBlocks::kAlignment),
            MappedBlocks::State::kNone)
      << "an interior 2 MiB boundary is not a block";
  EXPECT_EQ(blocks.Free(nullptr), MappedBlocks::State::kNone);
  EXPECT_TRUE(blocks.CheckIntegrity(0).ok());
}

TEST(MappedBlocksTest, WithoutTheCacheEveryFreeUnmaps) {
  MappedBlocks blocks(true, /*cache=*/false);
  void* p = blocks.Allocate(4 * kMiB, true);
  ASSERT_NE(p, nullptr);
  ASSERT_EQ(blocks.Free(p), MappedBlocks::State::kLive);
  EXPECT_EQ(blocks.Find(p), MappedBlocks::State::kNone);
  EXPECT_EQ(blocks.cached_blocks(), 0u);
  // Unmapped: mincore refuses the range.
  unsigned char vec[1];
  EXPECT_NE(mincore(p, 4096, vec), 0);
}

TEST(MappedBlocksTest, ResizeMovesPagesToGrowAndGivesTheTailBackToShrink) {
  MappedBlocks blocks(true, true);
  char* p = static_cast<char*>(blocks.Allocate(5 * kMiB, false));
  ASSERT_NE(p, nullptr);
  std::memset(p, 0x6B, 5 * kMiB);
  char* grown = static_cast<char*>(blocks.Resize(p, 21 * kMiB));
  ASSERT_NE(grown, nullptr);
  size_t capacity = 0;
  EXPECT_EQ(blocks.Find(grown, &capacity), MappedBlocks::State::kLive);
  EXPECT_EQ(capacity, 22 * kMiB);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(grown) % MappedBlocks::kAlignment, 0u);
  EXPECT_TRUE(AllBytesAre(grown, 5 * kMiB, 0x6B));
  EXPECT_TRUE(AllBytesAre(grown + 6 * kMiB, 16 * kMiB, 0)) << "fresh growth";
  if (grown != p) {
    EXPECT_EQ(blocks.Find(p), MappedBlocks::State::kNone);
  }
  std::memset(grown, 0x6C, 21 * kMiB);
  EXPECT_TRUE(blocks.CheckIntegrity(1).ok());
  EXPECT_EQ(blocks.Resize(grown, 8 * kMiB), grown) << "shrinks in place";
  EXPECT_EQ(blocks.Find(grown, &capacity), MappedBlocks::State::kLive);
  EXPECT_EQ(capacity, 8 * kMiB);
  EXPECT_TRUE(AllBytesAre(grown, 8 * kMiB, 0x6C));
  unsigned char vec[1];
  EXPECT_NE(mincore(grown + 8 * kMiB, 4096, vec), 0) << "the tail is unmapped";
  ASSERT_EQ(blocks.Free(grown), MappedBlocks::State::kLive);
  EXPECT_EQ(blocks.Resize(grown, 16 * kMiB), nullptr) << "not live";
  int local = 0;
  EXPECT_EQ(blocks.Resize(&local, 16 * kMiB), nullptr);
  EXPECT_TRUE(blocks.CheckIntegrity(0).ok());
}

TEST(MappedBlocksTest, IntegrityNamesTooManyLiveBlocks) {
  MappedBlocks blocks(true, true);
  void* p = blocks.Allocate(4 * kMiB, false);
  ASSERT_NE(p, nullptr);
  const absl::Status status = blocks.CheckIntegrity(0);
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find("invariant 3"), absl::string_view::npos)
      << status;
  blocks.Free(p);
}

}  // namespace
}  // namespace internal
}  // namespace tessera
