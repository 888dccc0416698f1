// Copyright 2026 The Tessera Authors.

#include "alloc/pool/stacked_pool.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <random>
#include <tuple>
#include <vector>

#include "absl/base/config.h"
#include "absl/container/flat_hash_map.h"
#include "absl/random/random.h"
#include "absl/strings/str_cat.h"
#include "alloc/pool/internal/test_allocator.h"
#include "alloc/pool/internal/violation_recorder.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

#if defined(ABSL_HAVE_ADDRESS_SANITIZER)
#include <sanitizer/asan_interface.h>
#endif

namespace tessera {
namespace {

using ::testing::HasSubstr;
using pool_internal::TestAllocator;
using pool_internal::ViolationRecorder;

bool IsAligned(const void* ptr, size_t alignment) {
  return (reinterpret_cast<uintptr_t>(ptr) & (alignment - 1)) == 0;
}

std::unique_ptr<StackedPool> MakePool(StackedPoolOptions options) {
  auto pool = StackedPool::Create(options);
  EXPECT_TRUE(pool.ok()) << pool.status();
  return pool.ok() ? std::move(*pool) : nullptr;
}

StackedPoolOptions Checked(size_t cell_size = 16, size_t cells = 8) {
  StackedPoolOptions options;
  options.cell_size = cell_size;
  options.cells_per_block = cells;
  options.check_returns = true;
  return options;
}


// ---- Bad options ----

TEST(StackedPoolOptionsTest, CellSizeZeroIsRejected) {
  StackedPoolOptions options;
  options.cell_size = 0;
  auto pool = StackedPool::Create(options);
  EXPECT_EQ(pool.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(pool.status().message(), HasSubstr("cell size 0"));
}

TEST(StackedPoolOptionsTest, CellSizeNotMultipleOfEightIsRejected) {
  for (size_t size : {1, 4, 12, 17, 100}) {
    StackedPoolOptions options;
    options.cell_size = size;
    auto pool = StackedPool::Create(options);
    EXPECT_EQ(pool.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(pool.status().message(),
                HasSubstr(absl::StrCat("cell size ", size)));
  }
}

TEST(StackedPoolOptionsTest, AlignmentNotPowerOfTwoOrAbovePageIsRejected) {
  for (size_t alignment : {0, 3, 24, 48, 8192, 1 << 20}) {
    StackedPoolOptions options;
    options.alignment = alignment;
    auto pool = StackedPool::Create(options);
    EXPECT_EQ(pool.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(pool.status().message(),
                HasSubstr(absl::StrCat("alignment ", alignment)));
  }
}

TEST(StackedPoolOptionsTest, ReserveCountZeroIsRejected) {
  StackedPoolOptions options;
  options.cells_per_block = 0;
  auto pool = StackedPool::Create(options);
  EXPECT_EQ(pool.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(pool.status().message(), HasSubstr("reserve count"));
}

TEST(StackedPoolOptionsTest, OverflowingReserveCountIsRejected) {
  for (size_t cells : {SIZE_MAX, SIZE_MAX / 16 + 1, kMaxBlockBytes / 16 + 1,
                       kMaxBlockBytes / 16}) {
    StackedPoolOptions options;
    options.cell_size = 16;
    options.cells_per_block = cells;
    options.initial_blocks = 0;
    auto pool = StackedPool::Create(options);
    EXPECT_EQ(pool.status().code(), absl::StatusCode::kInvalidArgument)
        << cells;
    EXPECT_THAT(pool.status().message(),
                HasSubstr(absl::StrCat("reserve count ", cells)));
  }
  StackedPoolOptions huge_cell;
  huge_cell.cell_size = SIZE_MAX - 7;
  EXPECT_EQ(StackedPool::Create(huge_cell).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(StackedPoolOptionsTest, UpstreamPolicyWithoutUpstreamIsRejected) {
  StackedPoolOptions options;
  options.overflow = OverflowPolicy::kUpstream;
  auto pool = StackedPool::Create(options);
  EXPECT_EQ(pool.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(pool.status().message(), HasSubstr("upstream"));
}

TEST(StackedPoolOptionsTest, HighWaterThresholdBelowOneBlockIsRejected) {
  StackedPoolOptions options;
  options.cells_per_block = 64;
  options.trim_idle_cells_above = 10;
  auto pool = StackedPool::Create(options);
  EXPECT_EQ(pool.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(pool.status().message(), HasSubstr("threshold 10"));
}

// ---- Layout ----

TEST(StackedPoolTest, CellsHonourSizeAndAlignmentAndNeverOverlap) {
  for (size_t cell_size : {8, 16, 24, 40, 64, 200, 4096, 5000}) {
    for (size_t alignment : {8, 16, 32, 64, 256, 4096}) {
      StackedPoolOptions options = Checked(cell_size, 5);
      options.alignment = alignment;
      auto pool = MakePool(options);
      ASSERT_NE(pool, nullptr);
      EXPECT_EQ(pool->stride() % alignment, 0u);
      EXPECT_GE(pool->stride(), cell_size);
      std::vector<char*> cells;
      for (int i = 0; i < 12; ++i) {  // spans several blocks
        auto* cell = static_cast<char*>(pool->Take());
        ASSERT_NE(cell, nullptr);
        EXPECT_TRUE(IsAligned(cell, alignment)) << cell_size << "/" << alignment;
        std::memset(cell, i, cell_size);
        cells.push_back(cell);
      }
      for (int i = 0; i < 12; ++i) {
        for (size_t b = 0; b < cell_size; ++b) {
          ASSERT_EQ(cells[i][b], static_cast<char>(i)) << "overlap";
        }
      }
      EXPECT_TRUE(pool->CheckIntegrity().ok()) << pool->CheckIntegrity();
      for (char* cell : cells) pool->Return(cell);
      EXPECT_TRUE(pool->CheckIntegrity().ok()) << pool->CheckIntegrity();
    }
  }
}

TEST(StackedPoolTest, ReservationHoldsAtLeastTheRequestedCellsWithoutGrowing) {
  StackedPoolOptions options = Checked(16, 100);
  options.initial_blocks = 2;
  auto pool = MakePool(options);
  ASSERT_NE(pool, nullptr);
  EXPECT_GE(pool->cells_per_block(), 100u);
  EXPECT_EQ(pool->stats().cells_reserved, 2 * pool->cells_per_block());
  std::vector<void*> cells;
  for (size_t i = 0; i < 2 * pool->cells_per_block(); ++i) {
    cells.push_back(pool->Take());
  }
  EXPECT_EQ(pool->stats().grows, 0u);
  EXPECT_EQ(pool->stats().cells_available, 0u);
  for (void* cell : cells) pool->Return(cell);
}

TEST(StackedPoolTest, ReturnedCellIsTheNextOneTaken) {
  auto pool = MakePool(Checked());
  void* a = pool->Take();
  void* b = pool->Take();
  pool->Return(a);
  EXPECT_EQ(pool->Take(), a);
  pool->Return(b);
  pool->Return(a);
}

TEST(StackedPoolTest, WithChecksOffTheMagazineServesRecentReturnsFirst) {
  StackedPoolOptions options = Checked(16, 64);
  options.check_returns = false;
  auto pool = MakePool(options);
  std::vector<void*> cells;
  for (int i = 0; i < 40; ++i) cells.push_back(pool->Take());
  for (void* cell : cells) pool->Return(cell);
  // The last kMagazineCells returns wait in the magazine; they count as idle.
  StackedPoolStats s = pool->stats();
  EXPECT_EQ(s.cells_in_use, 0u);
  EXPECT_EQ(s.cells_available, s.cells_reserved);
  EXPECT_EQ(s.returns, 40u);
  EXPECT_TRUE(pool->CheckIntegrity().ok()) << pool->CheckIntegrity();
  // The magazine took the first 32 returns; the other 8 went to the block.
  const size_t top = StackedPool::kMagazineCells - 1;
  EXPECT_EQ(pool->Take(), cells[top]);
  EXPECT_EQ(pool->Take(), cells[top - 1]);
  pool->Return(cells[top - 1]);
  pool->Return(cells[top]);
  // Trim empties the magazine into the blocks, so the block is idle.
  EXPECT_EQ(pool->Trim(), 1u);
  EXPECT_EQ(pool->stats().blocks, 0u);
  EXPECT_TRUE(pool->CheckIntegrity().ok()) << pool->CheckIntegrity();
}

#if defined(ABSL_HAVE_ADDRESS_SANITIZER)
TEST(StackedPoolTest, IdleAndUncarvedCellsArePoisonedUnderAsan) {
  for (bool checks : {true, false}) {
    StackedPoolOptions options = Checked(64, 8);
    options.check_returns = checks;
    auto pool = MakePool(options);
    auto* cell = static_cast<char*>(pool->Take());
    char* uncarved = cell + pool->stride();
    EXPECT_TRUE(__asan_address_is_poisoned(uncarved + 16)) << checks;
    EXPECT_FALSE(__asan_address_is_poisoned(cell + 40)) << checks;
    pool->Return(cell);
    // A use after return is caught; the link word stays readable.
    EXPECT_TRUE(__asan_address_is_poisoned(cell + 40)) << checks;
    EXPECT_EQ(pool->Take(), cell);
    EXPECT_FALSE(__asan_address_is_poisoned(cell + 40)) << checks;
    pool->Return(cell);
  }
}
#endif

// ---- Overflow policies ----

TEST(StackedPoolTest, GrowPolicyAddsABlockWhenEveryCellIsInUse) {
  auto pool = MakePool(Checked(16, 4));
  const size_t per_block = pool->cells_per_block();
  std::vector<void*> cells;
  for (size_t i = 0; i < per_block; ++i) cells.push_back(pool->Take());
  EXPECT_EQ(pool->stats().blocks, 1u);
  cells.push_back(pool->Take());
  ASSERT_NE(cells.back(), nullptr);
  StackedPoolStats s = pool->stats();
  EXPECT_EQ(s.blocks, 2u);
  EXPECT_EQ(s.grows, 1u);
  EXPECT_EQ(s.hits, per_block);
  EXPECT_EQ(s.cells_in_use, per_block + 1);
  for (void* cell : cells) pool->Return(cell);
  EXPECT_TRUE(pool->CheckIntegrity().ok());
}

TEST(StackedPoolTest, FailPolicyReturnsNullptrAndCountsTheFailure) {
  StackedPoolOptions options = Checked(32, 4);
  options.overflow = OverflowPolicy::kFail;
  auto pool = MakePool(options);
  std::vector<void*> cells;
  for (size_t i = 0; i < pool->cells_per_block(); ++i) {
    cells.push_back(pool->Take());
    ASSERT_NE(cells.back(), nullptr);
  }
  EXPECT_EQ(pool->Take(), nullptr);
  auto checked = pool->TakeChecked();
  EXPECT_EQ(checked.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(checked.status().message(), HasSubstr("'fail'"));
  EXPECT_EQ(pool->stats().failures, 2u);
  EXPECT_EQ(pool->stats().blocks, 1u);
  // Nothing was corrupted: a returned cell can be taken again.
  pool->Return(cells.back());
  cells.back() = pool->Take();
  EXPECT_NE(cells.back(), nullptr);
  for (void* cell : cells) pool->Return(cell);
  EXPECT_TRUE(pool->CheckIntegrity().ok());
}

TEST(StackedPoolTest, FailPolicyWithNoReservationAlwaysFails) {
  StackedPoolOptions options = Checked();
  options.overflow = OverflowPolicy::kFail;
  options.initial_blocks = 0;
  auto pool = MakePool(options);
  EXPECT_EQ(pool->Take(), nullptr);
  EXPECT_EQ(pool->stats().failures, 1u);
}

TEST(StackedPoolTest, UpstreamPolicyOverflowsToUpstreamAndReturnsThere) {
  TestAllocator upstream;
  StackedPoolOptions options = Checked(48, 2);
  options.overflow = OverflowPolicy::kUpstream;
  options.upstream = &upstream;
  auto pool = MakePool(options);
  std::vector<void*> cells;
  for (size_t i = 0; i < pool->cells_per_block() + 3; ++i) {
    cells.push_back(pool->Take());
    ASSERT_NE(cells.back(), nullptr);
    std::memset(cells.back(), 0x5A, 48);
  }
  StackedPoolStats s = pool->stats();
  EXPECT_EQ(s.blocks, 1u);
  EXPECT_EQ(s.overflows, 3u);
  EXPECT_EQ(s.overflow_cells_in_use, 3u);
  EXPECT_EQ(s.cells_in_use, pool->cells_per_block() + 3);
  EXPECT_EQ(upstream.live_blocks(), 3u);
  EXPECT_TRUE(pool->Owns(cells.back()));
  EXPECT_TRUE(pool->CheckIntegrity().ok()) << pool->CheckIntegrity();
  for (void* cell : cells) pool->Return(cell);
  EXPECT_EQ(upstream.live_blocks(), 0u);
  EXPECT_EQ(pool->stats().cells_in_use, 0u);
  EXPECT_EQ(pool->stats().returns, pool->cells_per_block() + 3);
  EXPECT_TRUE(pool->CheckIntegrity().ok()) << pool->CheckIntegrity();
}

TEST(StackedPoolTest, DestroyingThePoolGivesLiveOverflowCellsBackUpstream) {
  TestAllocator upstream;
  StackedPoolOptions options = Checked(16, 1);
  options.overflow = OverflowPolicy::kUpstream;
  options.upstream = &upstream;
  options.initial_blocks = 0;
  auto pool = MakePool(options);
  pool->Take();
  pool->Take();
  EXPECT_EQ(upstream.live_blocks(), 2u);
  pool.reset();
  EXPECT_EQ(upstream.live_blocks(), 0u);
}

TEST(StackedPoolTest, BlocksComeFromTheBlockSourceAlignedToTheirSize) {
  TestAllocator source;
  StackedPoolOptions options = Checked(64, 10);
  options.block_source = &source;
  options.initial_blocks = 2;
  auto pool = MakePool(options);
  EXPECT_EQ(source.live_blocks(), 2u);
  void* cell = pool->Take();
  EXPECT_TRUE(pool->Owns(cell));
  pool->Return(cell);
  EXPECT_EQ(pool->Trim(), 2u);
  EXPECT_EQ(source.live_blocks(), 0u);
}

// ---- Trimming ----

TEST(StackedPoolTest, TrimReleasesOnlyWhollyIdleBlocks) {
  StackedPoolOptions options = Checked(16, 4);
  options.initial_blocks = 3;
  auto pool = MakePool(options);
  const size_t per_block = pool->cells_per_block();
  std::vector<void*> cells;
  for (size_t i = 0; i < per_block + 1; ++i) cells.push_back(pool->Take());
  // Two blocks have cells in use (one full, one with a single cell).
  EXPECT_EQ(pool->Trim(), 1u);
  StackedPoolStats s = pool->stats();
  EXPECT_EQ(s.blocks, 2u);
  EXPECT_EQ(s.trims, 1u);
  EXPECT_TRUE(pool->CheckIntegrity().ok());
  for (void* cell : cells) pool->Return(cell);
  EXPECT_EQ(pool->Trim(), 2u);
  EXPECT_EQ(pool->stats().blocks, 0u);
  // An empty pool under kGrow grows again on demand.
  void* cell = pool->Take();
  ASSERT_NE(cell, nullptr);
  pool->Return(cell);
  EXPECT_TRUE(pool->CheckIntegrity().ok());
}

TEST(StackedPoolTest, HighWaterPolicyReleasesAnIdleBlockOnReturn) {
  StackedPoolOptions options = Checked(16, 4);
  auto probe = MakePool(options);
  const size_t per_block = probe->cells_per_block();
  options.trim_idle_cells_above = per_block;
  auto pool = MakePool(options);
  std::vector<void*> cells;
  for (size_t i = 0; i < 3 * per_block; ++i) cells.push_back(pool->Take());
  EXPECT_EQ(pool->stats().blocks, 3u);
  // Return all: the first block to empty leaves idle = per_block (not above
  // the threshold) or more; blocks are released while idle > threshold.
  for (void* cell : cells) {
    pool->Return(cell);
    ASSERT_TRUE(pool->CheckIntegrity().ok()) << pool->CheckIntegrity();
    EXPECT_LE(pool->stats().cells_available, 2 * per_block);
  }
  StackedPoolStats s = pool->stats();
  EXPECT_EQ(s.blocks, 1u);
  EXPECT_EQ(s.trims, 2u);
  EXPECT_EQ(s.cells_available, per_block);
}

TEST(StackedPoolTest, HighWaterPolicyKeepsBlocksWhileIdleCellsAreFew) {
  StackedPoolOptions options = Checked(16, 4);
  options.initial_blocks = 2;
  auto probe = MakePool(options);
  options.trim_idle_cells_above = 2 * probe->cells_per_block();
  auto pool = MakePool(options);
  void* cell = pool->Take();
  pool->Return(cell);  // its block is wholly idle, but idle == threshold
  EXPECT_EQ(pool->stats().blocks, 2u);
  EXPECT_EQ(pool->stats().trims, 0u);
}

// ---- Bad returns ----

TEST(StackedPoolTest, DoubleReturnIsReportedAndLeavesThePoolUntouched) {
  ViolationRecorder recorder;
  auto pool = MakePool(Checked());
  void* a = pool->Take();
  void* b = pool->Take();
  pool->Return(a);
  const StackedPoolStats before = pool->stats();
  pool->Return(a);
  ASSERT_EQ(recorder.violations().size(), 1u);
  EXPECT_EQ(recorder.violations()[0].violation, ContractViolation::kDoubleFree);
  EXPECT_EQ(recorder.violations()[0].ptr, a);
  EXPECT_EQ(recorder.violations()[0].allocator, "stacked_pool");
  EXPECT_EQ(pool->stats().returns, before.returns);
  EXPECT_TRUE(pool->CheckIntegrity().ok()) << pool->CheckIntegrity();
  // The cell comes back once, not twice.
  void* first = pool->Take();
  void* second = pool->Take();
  EXPECT_EQ(first, a);
  EXPECT_NE(second, a);
  EXPECT_EQ(pool->ReturnChecked(first).code(), absl::StatusCode::kOk);
  absl::Status again = pool->ReturnChecked(first);
  EXPECT_EQ(again.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(again.message(), HasSubstr("double return"));
  pool->Return(second);
  pool->Return(b);
  EXPECT_TRUE(pool->CheckIntegrity().ok());
}

TEST(StackedPoolTest, PointerFromAnotherPoolIsReportedAsForeign) {
  ViolationRecorder recorder;
  auto pool = MakePool(Checked());
  auto other = MakePool(Checked());
  void* theirs = other->Take();
  pool->Return(theirs);
  ASSERT_EQ(recorder.violations().size(), 1u);
  EXPECT_EQ(recorder.violations()[0].violation,
            ContractViolation::kForeignPointer);
  EXPECT_THAT(recorder.violations()[0].detail, HasSubstr("foreign"));
  EXPECT_FALSE(pool->Owns(theirs));
  EXPECT_TRUE(other->Owns(theirs));
  EXPECT_EQ(pool->stats().returns, 0u);
  other->Return(theirs);
  EXPECT_TRUE(pool->CheckIntegrity().ok());
  EXPECT_TRUE(other->CheckIntegrity().ok());
}

TEST(StackedPoolTest, HeapAndStackPointersAreReportedAsForeign) {
  ViolationRecorder recorder;
  auto pool = MakePool(Checked());
  void* heap = std::malloc(64);
  // A stack buffer as large and as aligned as a cell: a check that failed
  // to see the foreign pointer would corrupt this buffer (and fail the
  // test below), never the test's own frame.
  alignas(16) unsigned char on_stack[64] = {};
  pool->Return(heap);
  pool->Return(on_stack);
  ASSERT_EQ(recorder.violations().size(), 2u);
  for (const auto& v : recorder.violations()) {
    EXPECT_EQ(v.violation, ContractViolation::kForeignPointer);
  }
  std::free(heap);
  for (unsigned char byte : on_stack) EXPECT_EQ(byte, 0);
  EXPECT_TRUE(pool->CheckIntegrity().ok());
}

TEST(StackedPoolTest, InteriorAndMisalignedPointersAreReported) {
  ViolationRecorder recorder;
  auto pool = MakePool(Checked(32, 8));
  auto* cell = static_cast<char*>(pool->Take());
  pool->Return(cell + 8);   // interior, on an 8-byte boundary
  pool->Return(cell + 1);   // misaligned
  pool->Return(cell + 31);  // last byte
  ASSERT_EQ(recorder.violations().size(), 3u);
  for (const auto& v : recorder.violations()) {
    EXPECT_EQ(v.violation, ContractViolation::kForeignPointer);
    EXPECT_THAT(v.detail, HasSubstr("interior or misaligned"));
  }
  EXPECT_FALSE(pool->Owns(cell + 8));
  EXPECT_EQ(pool->stats().cells_in_use, 1u);
  absl::Status status = pool->ReturnChecked(cell + 16);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(status.message(), HasSubstr("16 bytes into cell"));
  pool->Return(cell);
  EXPECT_TRUE(pool->CheckIntegrity().ok());
}

TEST(StackedPoolTest, PointerIntoBlockHeaderOrUncarvedCellIsReported) {
  ViolationRecorder recorder;
  auto pool = MakePool(Checked(16, 8));
  auto* cell = static_cast<char*>(pool->Take());
  char* block = reinterpret_cast<char*>(reinterpret_cast<uintptr_t>(cell) &
                                        ~(pool->block_bytes() - 1));
  pool->Return(block);                   // the block header
  pool->Return(cell + pool->stride());   // never handed out yet
  ASSERT_EQ(recorder.violations().size(), 2u);
  EXPECT_THAT(recorder.violations()[0].detail, HasSubstr("header"));
  EXPECT_THAT(recorder.violations()[1].detail, HasSubstr("never handed out"));
  pool->Return(cell);
  EXPECT_TRUE(pool->CheckIntegrity().ok());
}

TEST(StackedPoolTest, NullReturnIsReported) {
  ViolationRecorder recorder;
  auto pool = MakePool(Checked());
  EXPECT_EQ(pool->ReturnChecked(nullptr).code(),
            absl::StatusCode::kFailedPrecondition);
  pool->Return(nullptr);
  EXPECT_EQ(recorder.violations().size(), 1u);
}

TEST(StackedPoolTest, ReturnCheckedCatchesForeignPointersEvenWithChecksOff) {
  StackedPoolOptions options = Checked(16, 8);
  options.check_returns = false;
  auto pool = MakePool(options);
  auto other = MakePool(options);
  auto* cell = static_cast<char*>(pool->Take());
  void* theirs = other->Take();
  EXPECT_EQ(pool->ReturnChecked(theirs).code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(pool->ReturnChecked(cell + 8).code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(pool->ReturnChecked(cell).ok());
  EXPECT_EQ(pool->stats().cells_in_use, 0u);
  other->Return(theirs);
  EXPECT_TRUE(pool->CheckIntegrity().ok());
}

TEST(StackedPoolTest, ReturnAfterDestructionIsReportedWhileStorageLives) {
  ViolationRecorder recorder;
  StackedPoolOptions options = Checked();
  std::unique_ptr<StackedPool> owned = MakePool(options);
  void* cell = owned->Take();
  // Destroy the pool but keep its storage, so the dangling Return reads
  // memory that is still allocated (what a debug build can hope to see).
  StackedPool* pool = owned.release();
  pool->~StackedPool();
  pool->Return(cell);
  ::operator delete(static_cast<void*>(pool));
  ASSERT_EQ(recorder.violations().size(), 1u);
  EXPECT_EQ(recorder.violations()[0].violation,
            ContractViolation::kForeignPointer);
  EXPECT_THAT(recorder.violations()[0].detail, HasSubstr("destroyed"));
}

// ---- Statistics and batches ----

TEST(StackedPoolTest, StatsCountEveryOperation) {
  auto pool = MakePool(Checked(16, 2));
  const size_t per_block = pool->cells_per_block();
  std::vector<void*> cells;
  for (size_t i = 0; i < per_block + 1; ++i) cells.push_back(pool->Take());
  StackedPoolStats s = pool->stats();
  EXPECT_EQ(s.takes, per_block + 1);
  EXPECT_EQ(s.hits, per_block);
  EXPECT_EQ(s.grows, 1u);
  EXPECT_EQ(s.cells_in_use, per_block + 1);
  EXPECT_EQ(s.peak_cells_in_use, per_block + 1);
  EXPECT_EQ(s.cells_reserved, 2 * per_block);
  EXPECT_EQ(s.cells_available, per_block - 1);
  pool->Return(cells.back());
  cells.pop_back();
  s = pool->stats();
  EXPECT_EQ(s.returns, 1u);
  EXPECT_EQ(s.cells_in_use, per_block);
  EXPECT_EQ(s.peak_cells_in_use, per_block + 1);
  for (void* cell : cells) pool->Return(cell);
  EXPECT_EQ(pool->stats().cells_in_use, 0u);
}

TEST(StackedPoolTest, BatchTakeAndReturnMoveManyCellsAtOnce) {
  StackedPoolOptions options = Checked(16, 8);
  options.overflow = OverflowPolicy::kFail;
  auto pool = MakePool(options);
  const size_t per_block = pool->cells_per_block();
  std::vector<void*> cells(per_block + 5);
  EXPECT_EQ(pool->TakeBatch(cells.data(), cells.size()), per_block);
  EXPECT_EQ(pool->stats().cells_in_use, per_block);
  pool->ReturnBatch(cells.data(), per_block);
  EXPECT_EQ(pool->stats().cells_in_use, 0u);
  EXPECT_TRUE(pool->CheckIntegrity().ok());
}

// ---- Randomised model test ----

struct ModelConfig {
  size_t cell_size;
  size_t alignment;
  size_t cells_per_block;
  OverflowPolicy overflow;
  bool high_water;
  bool checks;
};

class StackedPoolModelTest : public ::testing::TestWithParam<ModelConfig> {};

TEST_P(StackedPoolModelTest, MatchesAShadowSetUnderRandomOperations) {
  const ModelConfig config = GetParam();
  ViolationRecorder recorder;
  TestAllocator upstream;
  StackedPoolOptions options;
  options.cell_size = config.cell_size;
  options.alignment = config.alignment;
  options.cells_per_block = config.cells_per_block;
  options.overflow = config.overflow;
  options.upstream = &upstream;
  options.initial_blocks = 2;
  options.check_returns = config.checks;
  auto probe = MakePool(options);
  if (config.high_water) {
    options.trim_idle_cells_above = probe->cells_per_block() + 3;
  }
  auto pool = MakePool(options);
  ASSERT_NE(pool, nullptr);

  // Fixed seed per configuration: a failure replays exactly.
  std::mt19937_64 gen(config.cell_size * 1000003 + config.cells_per_block);
  // Shadow: live cell -> the byte it was filled with.
  absl::flat_hash_map<char*, unsigned char> live;
  std::vector<char*> order;
  char* last_returned = nullptr;
  auto verify = [&](char* cell) {
    const unsigned char expect = live.at(cell);
    for (size_t b = 0; b < config.cell_size; ++b) {
      ASSERT_EQ(static_cast<unsigned char>(cell[b]), expect)
          << "cell " << static_cast<void*>(cell) << " byte " << b;
    }
  };
  for (int op = 0; op < 3000; ++op) {
    const int kind = absl::Uniform(gen, 0, 100);
    if (kind < 55) {
      auto* cell = static_cast<char*>(pool->Take());
      if (cell == nullptr) {
        ASSERT_EQ(config.overflow, OverflowPolicy::kFail);
        ASSERT_EQ(pool->stats().cells_available, 0u);
      } else {
        ASSERT_TRUE(IsAligned(cell, config.alignment));
        ASSERT_FALSE(live.contains(cell)) << "cell handed out twice";
        const auto fill = static_cast<unsigned char>(op);
        std::memset(cell, fill, config.cell_size);
        live[cell] = fill;
        order.push_back(cell);
      }
    } else if (kind < 95 && !order.empty()) {
      const size_t i = absl::Uniform<size_t>(gen, 0, order.size());
      char* cell = order[i];
      verify(cell);
      order[i] = order.back();
      order.pop_back();
      live.erase(cell);
      pool->Return(cell);
      last_returned = cell;
    } else if (kind < 97) {
      pool->Trim();
    } else if (config.checks && last_returned != nullptr &&
               !live.contains(last_returned)) {
      // A double return, caught and ignored. If the cell's block was
      // trimmed (or it went back upstream) it is no longer the pool's.
      const bool owned = pool->Owns(last_returned);
      const size_t reported = recorder.violations().size();
      pool->Return(last_returned);
      ASSERT_EQ(recorder.violations().size(), reported + 1);
      ASSERT_EQ(recorder.violations().back().violation,
                owned ? ContractViolation::kDoubleFree
                      : ContractViolation::kForeignPointer);
    }
    ASSERT_TRUE(pool->CheckIntegrity().ok()) << pool->CheckIntegrity();
    ASSERT_EQ(pool->stats().cells_in_use, live.size());
  }
  for (char* cell : order) {
    verify(cell);
    pool->Return(cell);
  }
  EXPECT_EQ(pool->stats().cells_in_use, 0u);
  EXPECT_EQ(upstream.live_blocks(), 0u);
  EXPECT_TRUE(pool->CheckIntegrity().ok());
  if (!config.checks) {
    EXPECT_TRUE(recorder.violations().empty());
  }
}

INSTANTIATE_TEST_SUITE_P(
    Configs, StackedPoolModelTest,
    ::testing::Values(
        ModelConfig{16, 16, 16, OverflowPolicy::kGrow, false, true},
        ModelConfig{8, 8, 7, OverflowPolicy::kGrow, true, true},
        ModelConfig{24, 64, 5, OverflowPolicy::kUpstream, false, true},
        ModelConfig{40, 8, 9, OverflowPolicy::kFail, false, true},
        ModelConfig{64, 4096, 3, OverflowPolicy::kGrow, true, true},
        ModelConfig{16, 16, 16, OverflowPolicy::kGrow, true, false},
        ModelConfig{32, 32, 4, OverflowPolicy::kUpstream, false, false}));

// A block source that ignores the alignment it is asked for, as a careless
// one would: its blocks would break BlockOf, so the pool must refuse them.
class MisaligningAllocator final : public Allocator {
 public:
  MisaligningAllocator() : Allocator("misaligning") {}
  AllocatorStats stats() const override { return stats_; }

 protected:
  void* DoAllocate(size_t bytes, size_t) noexcept override {
    char* base = static_cast<char*>(std::malloc(bytes + 64));
    ++stats_.allocations;
    return base + 16;  // 16-aligned, never block-aligned
  }
  void DoDeallocate(void* ptr, size_t, size_t) noexcept override {
    ++stats_.deallocations;
    std::free(static_cast<char*>(ptr) - 16);
  }
  void* CountFailure() noexcept override {
    ++stats_.failed_requests;
    return nullptr;
  }

 private:
  AllocatorStats stats_;
};

TEST(StackedPoolBlockSourceTest, FailingBlockSourceFailsCreateAndTakes) {
  TestAllocator source;
  source.FailAfter(0);
  StackedPoolOptions options;
  options.cell_size = 32;
  options.block_source = &source;
  options.initial_blocks = 2;
  auto failed = StackedPool::Create(options);
  EXPECT_TRUE(absl::IsResourceExhausted(failed.status()));
  EXPECT_THAT(std::string(failed.status().message()),
              HasSubstr("reserving block 1 of 2"));
  options.initial_blocks = 0;
  auto pool = StackedPool::Create(options);
  ASSERT_TRUE(pool.ok()) << pool.status();
  EXPECT_EQ((*pool)->Take(), nullptr);
  absl::StatusOr<void*> checked = (*pool)->TakeChecked();
  EXPECT_TRUE(absl::IsResourceExhausted(checked.status()));
  EXPECT_THAT(std::string(checked.status().message()),
              HasSubstr("overflow policy 'grow'"));
  EXPECT_EQ((*pool)->stats().failures, 2u);
  EXPECT_TRUE((*pool)->CheckIntegrity().ok());
}

TEST(StackedPoolBlockSourceTest, MisalignedBlocksAreGivenBackAndRefused) {
  MisaligningAllocator source;
  StackedPoolOptions options;
  options.cell_size = 32;
  options.block_source = &source;
  options.initial_blocks = 0;
  auto pool = StackedPool::Create(options);
  ASSERT_TRUE(pool.ok()) << pool.status();
  EXPECT_EQ((*pool)->Take(), nullptr);
  EXPECT_EQ(source.stats().allocations, 1u);
  EXPECT_EQ(source.stats().deallocations, 1u);  // handed straight back
  EXPECT_EQ((*pool)->stats().blocks, 0u);
  EXPECT_EQ((*pool)->stats().failures, 1u);
}

TEST(StackedPoolBlockSourceTest, FailingUpstreamAndFailPolicyNameThePolicy) {
  TestAllocator upstream;
  upstream.FailAfter(0);
  StackedPoolOptions options;
  options.cell_size = 32;
  options.initial_blocks = 0;
  options.overflow = OverflowPolicy::kUpstream;
  options.upstream = &upstream;
  auto pool = StackedPool::Create(options);
  ASSERT_TRUE(pool.ok()) << pool.status();
  absl::StatusOr<void*> checked = (*pool)->TakeChecked();
  EXPECT_THAT(std::string(checked.status().message()),
              HasSubstr("overflow policy 'upstream'"));
  options.overflow = OverflowPolicy::kFail;
  options.upstream = nullptr;
  auto failing = StackedPool::Create(options);
  ASSERT_TRUE(failing.ok()) << failing.status();
  checked = (*failing)->TakeChecked();
  EXPECT_THAT(std::string(checked.status().message()),
              HasSubstr("overflow policy 'fail' (0 of 0 reserved cells"));
  EXPECT_EQ((*pool)->stats().failures, 1u);
  EXPECT_EQ((*failing)->stats().failures, 1u);
}

}  // namespace
}  // namespace tessera
