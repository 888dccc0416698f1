// Copyright 2026 The Tessera Authors.
//
// The harness support must itself fail when it should: a shadow heap that
// accepts an overlap would make every allocator harness prove nothing.

#include <cstdint>
#include <cstring>
#include <vector>

#include "fuzz/byte_reader.h"
#include "fuzz/shadow_heap.h"
#include "gtest/gtest.h"

namespace tessera {
namespace fuzzing {
namespace {

TEST(ByteReaderTest, ReadsFrontToBackThenReturnsZeroes) {
  const uint8_t data[] = {7, 1, 0xff};
  ByteReader reader(data, sizeof(data));
  EXPECT_EQ(reader.remaining_bytes(), 3u);
  EXPECT_EQ(reader.ConsumeByte(), 7);
  EXPECT_TRUE(reader.ConsumeBool());
  EXPECT_EQ(reader.ConsumeByte(), 0xff);
  EXPECT_TRUE(reader.empty());
  EXPECT_EQ(reader.ConsumeByte(), 0);
  EXPECT_FALSE(reader.ConsumeBool());
  EXPECT_EQ(reader.ConsumeIntegralInRange<int>(-5, 5), -5);
}

TEST(ByteReaderTest, SmallRangesTakeOneByteAndWrapModuloTheRange) {
  const uint8_t data[] = {10, 3};
  ByteReader reader(data, sizeof(data));
  EXPECT_EQ(reader.ConsumeIntegralInRange<int>(0, 3), 2);  // 10 % 4
  EXPECT_EQ(reader.ConsumeIntegralInRange<int>(-1, 1), -1);  // 3 % 3
  EXPECT_TRUE(reader.empty());
}

TEST(ByteReaderTest, WideRangesReadLittleEndian) {
  const uint8_t data[] = {0x34, 0x12, 0x78, 0x56, 0, 0, 0, 0, 0};
  ByteReader reader(data, sizeof(data));
  EXPECT_EQ(reader.ConsumeIntegralInRange<uint32_t>(0, 0xffff), 0x1234u);
  EXPECT_EQ(reader.ConsumeIntegralInRange<uint32_t>(0, 0x1ffff), 0x5678u);
  EXPECT_EQ(reader.ConsumeIntegral<int32_t>(), INT32_MIN);  // min + 0
  EXPECT_TRUE(reader.empty());
}

TEST(ByteReaderTest, EveryValueStaysInItsRange) {
  std::vector<uint8_t> data(4096);
  for (size_t i = 0; i < data.size(); ++i) data[i] = (i * 37 + 11) & 0xff;
  ByteReader reader(data.data(), data.size());
  while (!reader.empty()) {
    const int small = reader.ConsumeIntegralInRange<int>(-3, 9);
    EXPECT_GE(small, -3);
    EXPECT_LE(small, 9);
    const size_t wide = reader.ConsumeIntegralInRange<size_t>(100, 70000);
    EXPECT_GE(wide, 100u);
    EXPECT_LE(wide, 70000u);
  }
}

TEST(ByteReaderTest, PicksEveryTableEntry) {
  static constexpr int kTable[] = {4, 8, 15};
  const uint8_t data[] = {0, 1, 2, 3};
  ByteReader reader(data, sizeof(data));
  EXPECT_EQ(reader.PickValueInArray(kTable), 4);
  EXPECT_EQ(reader.PickValueInArray(kTable), 8);
  EXPECT_EQ(reader.PickValueInArray(kTable), 15);
  EXPECT_EQ(reader.PickValueInArray(kTable), 4);
}

TEST(BlockPatternTest, IntactBlockPasses) {
  std::vector<uint8_t> block(300);
  FillPattern(block.data(), 42, 0, block.size());
  CheckPattern(block.data(), 42, 0, block.size(), "test");
}

TEST(BlockPatternTest, DifferentIdsGiveDifferentBytes) {
  std::vector<uint8_t> a(64), b(64);
  FillPattern(a.data(), 1, 0, a.size());
  FillPattern(b.data(), 2, 0, b.size());
  EXPECT_NE(std::memcmp(a.data(), b.data(), a.size()), 0);
}

TEST(BlockPatternDeathTest, BlockShiftedByOneByteIsCaught) {
  std::vector<uint8_t> block(64);
  FillPattern(block.data() + 1, 5, 0, 63);
  EXPECT_DEATH(CheckPattern(block.data(), 5, 0, 63, "shifted"),
               "shifted: block 5 .* byte 0");
}

TEST(BlockPatternDeathTest, BlockShiftedByAWordIsCaught) {
  std::vector<uint8_t> block(128);
  FillPattern(block.data() + 8, 9, 0, 120);
  EXPECT_DEATH(CheckPattern(block.data(), 9, 0, 120, "moved"), "moved");
}

TEST(BlockPatternDeathTest, OneOverwrittenByteIsCaught) {
  std::vector<uint8_t> block(4096);
  FillPattern(block.data(), 3, 0, block.size());
  block[4000] ^= 1;
  EXPECT_DEATH(CheckPattern(block.data(), 3, 0, block.size(), "freed"),
               "byte 4000");
}

TEST(BlockPatternDeathTest, NonZeroByteIsCaught) {
  std::vector<uint8_t> block(32, 0);
  block[31] = 1;
  EXPECT_DEATH(CheckZero(block.data(), 0, 32, "zeroed"), "byte 31");
}

alignas(64) uint8_t g_memory[1024];

TEST(ShadowHeapTest, TracksBytesAndMovesBlocks) {
  ShadowHeap heap;
  const size_t a = heap.Add(g_memory, 100, 16, 16);
  const size_t b = heap.Add(g_memory + 128, 0, 16, 16);
  EXPECT_EQ(heap.size(), 2u);
  EXPECT_EQ(heap.bytes_in_use(), 100u);
  EXPECT_NE(heap.blocks()[a].id, heap.blocks()[b].id);
  heap.Move(a, g_memory + 256, 40, 16);
  EXPECT_EQ(heap.bytes_in_use(), 40u);
  EXPECT_TRUE(heap.IsLiveStart(g_memory + 256));
  EXPECT_FALSE(heap.IsLiveStart(g_memory));
  EXPECT_TRUE(heap.IsInsideLiveBlock(g_memory + 295));
  EXPECT_FALSE(heap.IsInsideLiveBlock(g_memory + 296));
  heap.Remove(a);
  EXPECT_EQ(heap.size(), 1u);
  EXPECT_EQ(heap.bytes_in_use(), 0u);
}

TEST(ShadowHeapTest, AdjacentBlocksAndZeroByteBlocksDoNotOverlap) {
  ShadowHeap heap;
  heap.Add(g_memory, 16, 16, 16);
  heap.Add(g_memory + 16, 0, 1, 1);
  heap.Add(g_memory + 17, 0, 1, 1);
  heap.Add(g_memory + 18, 14, 1, 1);
  EXPECT_EQ(heap.size(), 4u);
}

TEST(ShadowHeapTest, RecentlyFreedSkipsAddressesThatAreLiveAgain) {
  ShadowHeap heap;
  heap.Remove(heap.Add(g_memory, 32, 16, 16));
  ShadowHeap::Block freed;
  ASSERT_TRUE(heap.PickRecentlyFreed(0, &freed));
  EXPECT_EQ(freed.ptr, g_memory);
  EXPECT_EQ(freed.bytes, 32u);
  heap.Add(g_memory, 8, 16, 16);
  EXPECT_FALSE(heap.PickRecentlyFreed(0, &freed));
}

TEST(ShadowHeapDeathTest, SameAddressTwiceIsCaught) {
  ShadowHeap heap;
  heap.Add(g_memory + 64, 32, 16, 16);
  EXPECT_DEATH(heap.Add(g_memory + 64, 32, 16, 16), "overlaps");
}

TEST(ShadowHeapDeathTest, OverlapWithPreviousBlockIsCaught) {
  ShadowHeap heap;
  heap.Add(g_memory, 100, 16, 16);
  EXPECT_DEATH(heap.Add(g_memory + 96, 16, 16, 16), "overlaps live block");
}

TEST(ShadowHeapDeathTest, OverlapWithNextBlockIsCaught) {
  ShadowHeap heap;
  heap.Add(g_memory + 64, 16, 16, 16);
  EXPECT_DEATH(heap.Add(g_memory + 16, 64, 16, 16), "overlaps live block");
}

TEST(ShadowHeapDeathTest, ReallocationOntoAnotherBlockIsCaught) {
  ShadowHeap heap;
  const size_t a = heap.Add(g_memory, 16, 16, 16);
  heap.Add(g_memory + 64, 16, 16, 16);
  EXPECT_DEATH(heap.Move(a, g_memory + 48, 32, 16), "overlaps");
}

TEST(ShadowHeapDeathTest, MisalignedBlockIsCaught) {
  ShadowHeap heap;
  EXPECT_DEATH(heap.Add(g_memory + 16, 8, 64, 64), "not aligned to 64");
}

TEST(ShadowHeapDeathTest, BlockOutsideEveryRegionIsCaught) {
  ShadowHeap heap;
  heap.AddRegion(g_memory, g_memory + 512);
  heap.Add(g_memory + 448, 64, 16, 16);
  EXPECT_DEATH(heap.Add(g_memory + 512, 16, 16, 16), "outside every region");
}

}  // namespace
}  // namespace fuzzing
}  // namespace tessera
