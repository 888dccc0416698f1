// Copyright 2026 The Tessera Authors.

#include "alloc/malloc/internal/size_classes.h"

#include "gtest/gtest.h"

namespace tessera {
namespace malloc_internal {
namespace {

TEST(SizeClassesTest, EveryRequestGetsTheSmallestClassThatHoldsIt) {
  for (size_t bytes = 1; bytes <= kMaxClassSize; bytes += (bytes < 4096 ? 1 : 61)) {
    const int c = ClassOf(bytes);
    ASSERT_GE(c, 0);
    ASSERT_LT(c, kNumClasses);
    EXPECT_GE(ClassSize(c), bytes) << bytes;
    if (c > 0) {
      EXPECT_LT(ClassSize(c - 1), bytes) << bytes;
    }
  }
}

TEST(SizeClassesTest, ClassesAreIncreasingMultiplesOfSixteenWithBoundedWaste) {
  for (int c = 0; c < kNumClasses; ++c) {
    EXPECT_EQ(ClassSize(c) % 16, 0u);
    EXPECT_EQ(ClassOf(ClassSize(c)), c);
    if (c > 0) {
      EXPECT_GT(ClassSize(c), ClassSize(c - 1));
      if (ClassSize(c - 1) >= 128) {
        EXPECT_LE(ClassSize(c) * 4, ClassSize(c - 1) * 5) << c;  // <= 25%
      }
    }
  }
}

TEST(SizeClassesTest, PagesHoldEightCellsUpTo16KiBAndAreSizedForOneAbove) {
  for (int c = 0; c < kNumClasses; ++c) {
    const int slots = SlotsPerPage(c);
    const size_t span = slots * kSlotSize;
    EXPECT_GE(slots, 1);
    EXPECT_LE(slots, 4);
    EXPECT_LE(span / ClassSize(c), kSlotSize / kMinCellSize);
    EXPECT_GE(CellsPerCarve(c), 1u);
    if (ClassSize(c) <= kMultiCellMaxSize) {
      EXPECT_LT(c, kFirstLargeClass);
      // Slot 0 loses 16 KiB to the segment header, and a coloured page up
      // to 15 lines: still 5+ cells there.
      EXPECT_GE((span - 16384 - (kColors - 1) * kColorBytes) / ClassSize(c),
                5u)
          << c;
      // And no slot more than eight cells need.
      EXPECT_LT((span - kSlotSize), 8 * ClassSize(c)) << c;
    } else {
      EXPECT_GE(c, kFirstLargeClass);
      // As few slots as hold one cell (NewPage keeps the pages whose cell
      // does not fit beside the header out of slot 0).
      EXPECT_GE(span, ClassSize(c)) << c;
      EXPECT_LT(span - kSlotSize, ClassSize(c)) << c;
    }
  }
}

// The aligned classes: powers of two from 1 to 16 KiB, pages like those of
// the classes of the same sizes (so the cell arithmetic tested below holds
// for them), never coloured; AlignedClassOf gives the smallest that holds
// both the size and the alignment, for every alignment past a line.
TEST(SizeClassesTest, AlignedClassesAreUncolouredPowersOfTwoThatHoldTheRequest) {
  for (int c = kFirstAlignedClass; c < kNumBins; ++c) {
    const size_t size = ClassSize(c);
    EXPECT_EQ(size, kMinAlignedClassSize << (c - kFirstAlignedClass));
    EXPECT_FALSE(IsColoredClass(c)) << c;
    EXPECT_TRUE(IsColoredClass(ClassOf(size))) << c;
    EXPECT_EQ(SlotsPerPage(c), SlotsPerPage(ClassOf(size))) << c;
    EXPECT_EQ(CellsPerCarve(c), CellsPerCarve(ClassOf(size))) << c;
  }
  for (size_t alignment = 2 * kColorBytes; alignment <= kMultiCellMaxSize;
       alignment *= 2) {
    for (size_t bytes = 1; bytes <= kMultiCellMaxSize + 1; bytes += 7) {
      const int c = AlignedClassOf(bytes, alignment);
      if (bytes > kMultiCellMaxSize) {
        EXPECT_EQ(c, -1) << bytes;
        continue;
      }
      ASSERT_GE(c, kFirstAlignedClass) << bytes << " @" << alignment;
      ASSERT_LT(c, kNumBins);
      EXPECT_GE(ClassSize(c), bytes);
      EXPECT_EQ(ClassSize(c) % alignment, 0u);
      if (c > kFirstAlignedClass) {
        EXPECT_LT(ClassSize(c - 1), bytes > alignment ? bytes : alignment);
      }
    }
  }
}

TEST(SizeClassesTest, TheSmallTableAgreesWithClassOfForEverySmallSize) {
  for (size_t bytes = 0; bytes <= kMaxSmallSize; ++bytes) {
    EXPECT_EQ(SmallClassOf(bytes), ClassOf(bytes)) << bytes;
  }
}

TEST(SizeClassesTest, TheMediumTableAgreesWithClassOfForEveryMediumSize) {
  for (size_t bytes = kMaxSmallSize + 1; bytes <= kMaxClassSize; ++bytes) {
    ASSERT_EQ(MediumClassOf(bytes), ClassOf(bytes)) << bytes;
  }
  // Above 1 KiB every class boundary falls on a 256-byte unit's end: what
  // lets the unit decide.
  for (int c = ClassOf(kMaxSmallSize) + 1; c < kNumClasses; ++c) {
    EXPECT_EQ(ClassSize(c) % (size_t{1} << kMediumUnitShift), 0u) << c;
  }
}

// Exhaustive over every offset of every class's page span, and over as
// many offsets below the cells: the key gives the index of the cell an
// offset starts, and a number no page's cells reach for every other offset.
TEST(SizeClassesTest, CellIndexIfStartIsExactDivisionOrOutOfReach) {
  for (int c = 0; c < kNumClasses; ++c) {
    const uint64_t size = ClassSize(c);
    const uint64_t key = CellKey(size);
    const uint64_t span = static_cast<uint64_t>(SlotsPerPage(c)) * kSlotSize;
    ASSERT_LE(span, kMaxPageSpan);
    ASSERT_LT(span / size, kNotACellIndex);
    for (uint64_t offset = 0; offset < span; ++offset) {
      const uint64_t index = CellIndexIfStart(offset, key);
      if (offset % size == 0) {
        ASSERT_EQ(index, offset / size) << c << " " << offset;
      } else {
        ASSERT_GE(index, kNotACellIndex) << c << " " << offset;
      }
      // A pointer `offset` bytes below the cells (offset 0 is the first).
      ASSERT_GE(CellIndexIfStart(0 - (offset + 1), key), kNotACellIndex)
          << c << " -" << offset + 1;
    }
  }
}

// The rest of a segment, both ways, sampled: a pointer and the page its
// slot's record describes lie in one 4 MiB segment.
TEST(SizeClassesTest, CellIndexIfStartRejectsTheRestOfTheSegment) {
  uint64_t state = 0x9e3779b97f4a7c15ull;
  for (int c = 0; c < kNumClasses; ++c) {
    const uint64_t size = ClassSize(c);
    const uint64_t key = CellKey(size);
    for (int i = 0; i < 20000; ++i) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      // Multiples of the size are the likeliest to slip through.
      const uint64_t t = (state >> 40) % (kSegmentSize / size) * size +
                         ((i & 1) ? 0 : (state >> 20) % size);
      const uint64_t index = CellIndexIfStart(t, key);
      if (t % size == 0) {
        ASSERT_EQ(index, t / size) << c << " " << t;
      } else {
        ASSERT_GE(index, kNotACellIndex) << c << " " << t;
      }
      if (t != 0) {
        ASSERT_GE(CellIndexIfStart(0 - t, key), kNotACellIndex) << c << " -" << t;
      }
    }
  }
}

}  // namespace
}  // namespace malloc_internal
}  // namespace tessera
