// Copyright 2026 The Tessera Authors.

#include "alloc/pool/size_class_pool.h"

#include <cstdint>
#include <algorithm>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/random/random.h"
#include "absl/strings/str_format.h"
#include "alloc/pool/internal/test_allocator.h"
#include "alloc/pool/internal/violation_recorder.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;
using pool_internal::TestAllocator;
using pool_internal::ViolationRecorder;

bool IsAligned(const void* ptr, size_t alignment) {
  return (reinterpret_cast<uintptr_t>(ptr) & (alignment - 1)) == 0;
}

class SizeClassPoolTest : public ::testing::Test {
 protected:
  std::unique_ptr<SizeClassPool> Make(SizeClassPoolOptions options = {}) {
    options.upstream = &upstream_;
    options.check_returns = true;
    auto pool = SizeClassPool::Create(options);
    EXPECT_TRUE(pool.ok()) << pool.status();
    return pool.ok() ? std::move(*pool) : nullptr;
  }
  // Which class pool holds `ptr`, or -1.
  static int OwningClass(const SizeClassPool& pool, const void* ptr) {
    for (int c = 0; c < SizeClassPool::kNumClasses; ++c) {
      if (pool.class_pool(c).Owns(ptr)) return c;
    }
    return -1;
  }

  TestAllocator upstream_;
};

TEST(SizeClassPoolClassesTest, EachSizeMapsToTheSmallestClassHoldingIt) {
  for (size_t bytes = 0; bytes <= SizeClassPool::kMaxSmallSize; ++bytes) {
    const int c = SizeClassPool::ClassFor(bytes, 16);
    ASSERT_GE(c, 0) << bytes;
    EXPECT_GE(SizeClassPool::ClassSize(c), bytes);
    if (c > 0) {
      EXPECT_LT(SizeClassPool::ClassSize(c - 1), bytes) << bytes;
    }
  }
  EXPECT_EQ(SizeClassPool::ClassFor(1025, 16), -1);
  EXPECT_EQ(SizeClassPool::ClassFor(SIZE_MAX, 16), -1);
}

TEST(SizeClassPoolClassesTest, ClassesGrowAndWasteAtMostAQuarterAbove128) {
  for (int c = 1; c < SizeClassPool::kNumClasses; ++c) {
    EXPECT_GT(SizeClassPool::ClassSize(c), SizeClassPool::ClassSize(c - 1));
    if (SizeClassPool::ClassSize(c - 1) >= 128) {
      EXPECT_LE(SizeClassPool::ClassSize(c) * 4,
                SizeClassPool::ClassSize(c - 1) * 5 + 4);
    }
  }
  EXPECT_EQ(SizeClassPool::ClassSize(SizeClassPool::kNumClasses - 1), 1024u);
}

TEST(SizeClassPoolClassesTest, OverAlignedRequestsPickAnAlignedClass) {
  EXPECT_EQ(SizeClassPool::ClassSize(SizeClassPool::ClassFor(10, 64)), 64u);
  EXPECT_EQ(SizeClassPool::ClassSize(SizeClassPool::ClassFor(65, 64)), 128u);
  EXPECT_EQ(SizeClassPool::ClassSize(SizeClassPool::ClassFor(100, 32)), 128u);
  EXPECT_EQ(SizeClassPool::ClassSize(SizeClassPool::ClassFor(0, 1024)), 1024u);
  EXPECT_EQ(SizeClassPool::ClassFor(10, 2048), -1);
  // 640, 768 and 896 are not 512-aligned; 1024 is.
  EXPECT_EQ(SizeClassPool::ClassSize(SizeClassPool::ClassFor(600, 512)), 1024u);
}

TEST(SizeClassPoolOptionsTest, BadBlockBytesAreRejected) {
  for (size_t block : {0, 1000, 2048, 65535, 3 << 20}) {
    SizeClassPoolOptions options;
    options.block_bytes = block;
    auto pool = SizeClassPool::Create(options);
    EXPECT_EQ(pool.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(pool.status().message(),
                HasSubstr(absl::StrFormat("block_bytes %u", block)));
  }
}

TEST_F(SizeClassPoolTest, SmallRequestsAreServedByTheirClassAligned) {
  auto pool = Make();
  for (size_t bytes : {0, 1, 16, 17, 48, 100, 128, 129, 500, 1000, 1024}) {
    for (size_t alignment : {1, 8, 16}) {
      void* ptr = pool->Allocate(bytes, alignment);
      ASSERT_NE(ptr, nullptr);
      EXPECT_TRUE(IsAligned(ptr, 16));
      EXPECT_EQ(OwningClass(*pool, ptr), SizeClassPool::ClassFor(bytes, 16));
      std::memset(ptr, 0xC3, bytes);
      pool->Deallocate(ptr, bytes, alignment);
    }
  }
  EXPECT_EQ(upstream_.stats().allocations, 0u);
  EXPECT_TRUE(pool->CheckIntegrity().ok()) << pool->CheckIntegrity();
}

TEST_F(SizeClassPoolTest, LargeRequestsGoUpstreamAndComeBackThere) {
  auto pool = Make();
  void* big = pool->Allocate(1025);
  void* huge = pool->Allocate(1 << 20, 64);
  ASSERT_NE(big, nullptr);
  ASSERT_NE(huge, nullptr);
  EXPECT_TRUE(upstream_.IsLive(big));
  EXPECT_TRUE(upstream_.IsLive(huge));
  EXPECT_TRUE(IsAligned(huge, 64));
  EXPECT_EQ(OwningClass(*pool, big), -1);
  EXPECT_TRUE(pool->CheckIntegrity().ok()) << pool->CheckIntegrity();
  pool->Deallocate(big, 1025);
  pool->Deallocate(huge, 1 << 20, 64);
  EXPECT_EQ(upstream_.live_blocks(), 0u);
  EXPECT_EQ(upstream_.bad_frees(), 0u);
  EXPECT_EQ(pool->stats().live_allocations(), 0u);
}

TEST_F(SizeClassPoolTest, OverAlignedSmallRequestsAreAlignedCellsOrUpstream) {
  auto pool = Make();
  for (size_t alignment : {32, 64, 128, 256, 512, 1024, 2048, 4096}) {
    for (size_t bytes : {1, 24, 100, 300, 1000}) {
      void* ptr = pool->Allocate(bytes, alignment);
      ASSERT_NE(ptr, nullptr);
      EXPECT_TRUE(IsAligned(ptr, alignment)) << bytes << "/" << alignment;
      const bool pooled = SizeClassPool::ClassFor(bytes, alignment) >= 0;
      EXPECT_EQ(upstream_.IsLive(ptr), !pooled);
      pool->Deallocate(ptr, bytes, alignment);
    }
  }
  EXPECT_EQ(upstream_.live_blocks(), 0u);
  EXPECT_TRUE(pool->CheckIntegrity().ok());
}

TEST_F(SizeClassPoolTest, ZeroBytesGivesAUniqueBlock) {
  auto pool = Make();
  void* a = pool->Allocate(0);
  void* b = pool->Allocate(0);
  ASSERT_NE(a, nullptr);
  EXPECT_NE(a, b);
  pool->Deallocate(a, 0);
  pool->Deallocate(b, 0);
  EXPECT_EQ(pool->stats().live_allocations(), 0u);
}

TEST_F(SizeClassPoolTest, ZeroedAllocationReadsAsZeroAfterReuse) {
  auto pool = Make();
  for (size_t bytes : {16, 200, 1024, 5000}) {
    void* dirty = pool->Allocate(bytes);
    std::memset(dirty, 0xFF, bytes);
    pool->Deallocate(dirty, bytes);
    auto* zeroed = static_cast<unsigned char*>(pool->AllocateZeroed(bytes));
    ASSERT_NE(zeroed, nullptr);
    for (size_t i = 0; i < bytes; ++i) ASSERT_EQ(zeroed[i], 0) << i;
    pool->Deallocate(zeroed, bytes);
  }
}

TEST_F(SizeClassPoolTest, ReallocateWithinAClassKeepsTheCell) {
  auto pool = Make();
  auto* p = static_cast<char*>(pool->Allocate(20));
  std::memcpy(p, "tessera size class!", 20);
  EXPECT_EQ(pool->Reallocate(p, 20, 32), p);
  EXPECT_EQ(pool->stats().bytes_in_use, 32u);
  EXPECT_EQ(pool->stats().reallocations, 1u);
  // Across classes and up to upstream the bytes travel along.
  auto* q = static_cast<char*>(pool->Reallocate(p, 32, 300));
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(std::memcmp(q, "tessera size class!", 20), 0);
  auto* r = static_cast<char*>(pool->Reallocate(q, 300, 4000));
  ASSERT_TRUE(upstream_.IsLive(r));
  EXPECT_EQ(std::memcmp(r, "tessera size class!", 20), 0);
  auto* s = static_cast<char*>(pool->Reallocate(r, 4000, 8000));
  EXPECT_EQ(std::memcmp(s, "tessera size class!", 20), 0);
  auto* t = static_cast<char*>(pool->Reallocate(s, 8000, 20));
  EXPECT_EQ(std::memcmp(t, "tessera size class!", 20), 0);
  EXPECT_GE(OwningClass(*pool, t), 0);
  AllocatorStats stats = pool->stats();
  EXPECT_EQ(stats.allocations, 1u);
  EXPECT_EQ(stats.reallocations, 5u);
  EXPECT_EQ(stats.bytes_in_use, 20u);
  pool->Deallocate(t, 20);
  EXPECT_EQ(upstream_.live_blocks(), 0u);
  EXPECT_TRUE(pool->CheckIntegrity().ok()) << pool->CheckIntegrity();
}

TEST_F(SizeClassPoolTest, StatsCountEveryCall) {
  auto pool = Make();
  void* a = pool->Allocate(10);
  void* b = pool->Allocate(2000);
  AllocatorStats s = pool->stats();
  EXPECT_EQ(s.allocations, 2u);
  EXPECT_EQ(s.bytes_in_use, 2010u);
  EXPECT_EQ(s.peak_bytes_in_use, 2010u);
  pool->Deallocate(a, 10);
  pool->Deallocate(b, 2000);
  s = pool->stats();
  EXPECT_EQ(s.deallocations, 2u);
  EXPECT_EQ(s.bytes_in_use, 0u);
  EXPECT_EQ(s.failed_requests, 0u);
  EXPECT_EQ(pool->class_pool(0).stats().takes, 1u);
}

TEST_F(SizeClassPoolTest, InvalidAlignmentFailsAndIsCounted) {
  auto pool = Make();
  EXPECT_EQ(pool->Allocate(16, 3), nullptr);
  EXPECT_EQ(pool->Allocate(16, 0), nullptr);
  auto checked = pool->AllocateChecked(16, 48);
  EXPECT_EQ(checked.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(pool->stats().failed_requests, 3u);
}

TEST_F(SizeClassPoolTest, UpstreamOutOfMemoryFailsAndIsCounted) {
  auto pool = Make();
  upstream_.FailAfter(0);
  EXPECT_EQ(pool->Allocate(4096), nullptr);
  auto checked = pool->AllocateChecked(4096);
  EXPECT_EQ(checked.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(pool->stats().failed_requests, 2u);
  EXPECT_NE(pool->Allocate(64), nullptr) << "classes do not need upstream";
}

TEST_F(SizeClassPoolTest, BlockSourceOutOfMemoryFailsAndIsCounted) {
  TestAllocator source;
  SizeClassPoolOptions options;
  options.block_source = &source;
  options.block_bytes = 4096;
  auto pool = Make(options);
  source.FailAfter(1);  // one block for the 16-byte class, then nothing
  std::vector<void*> cells;
  for (;;) {
    void* cell = pool->Allocate(16);
    if (cell == nullptr) break;
    cells.push_back(cell);
  }
  EXPECT_EQ(cells.size(), pool->class_pool(0).cells_per_block());
  EXPECT_EQ(pool->stats().failed_requests, 1u);
  EXPECT_EQ(pool->Allocate(64), nullptr);
  for (void* cell : cells) pool->Deallocate(cell, 16);
  EXPECT_EQ(pool->Trim(), 1u);
  EXPECT_EQ(source.live_blocks(), 0u);
  EXPECT_TRUE(pool->CheckIntegrity().ok());
}

TEST_F(SizeClassPoolTest, HighWaterTrimReleasesIdleBlocksOnFree) {
  SizeClassPoolOptions options;
  options.block_bytes = 4096;
  options.keep_idle_blocks = 1;
  auto pool = Make(options);
  const size_t per_block = pool->class_pool(3).cells_per_block();  // 64 B
  std::vector<void*> cells;
  for (size_t i = 0; i < 4 * per_block; ++i) cells.push_back(pool->Allocate(64));
  EXPECT_EQ(pool->class_pool(3).stats().blocks, 4u);
  for (void* cell : cells) pool->Deallocate(cell, 64);
  EXPECT_EQ(pool->class_pool(3).stats().blocks, 1u);
  EXPECT_EQ(pool->class_pool(3).stats().trims, 3u);
}

// ---- Bad frees ----

TEST_F(SizeClassPoolTest, DoubleFreeIsReportedAndIgnored) {
  ViolationRecorder recorder;
  auto pool = Make();
  void* a = pool->Allocate(40);
  pool->Deallocate(a, 40);
  pool->Deallocate(a, 40);
  ASSERT_EQ(recorder.violations().size(), 1u);
  EXPECT_EQ(recorder.violations()[0].violation, ContractViolation::kDoubleFree);
  EXPECT_EQ(recorder.violations()[0].allocator, "size_class_pool");
  EXPECT_EQ(pool->stats().deallocations, 1u);
  EXPECT_TRUE(pool->CheckIntegrity().ok()) << pool->CheckIntegrity();
  absl::Status status = pool->DeallocateChecked(a, 40);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(status.message(), HasSubstr("double return"));
}

TEST_F(SizeClassPoolTest, SizeMismatchIsReportedNamingBothSizes) {
  ViolationRecorder recorder;
  auto pool = Make();
  void* a = pool->Allocate(16);
  pool->Deallocate(a, 500);
  ASSERT_EQ(recorder.violations().size(), 1u);
  EXPECT_EQ(recorder.violations()[0].violation,
            ContractViolation::kSizeMismatch);
  EXPECT_THAT(recorder.violations()[0].detail, HasSubstr("16-byte cell"));
  EXPECT_THAT(recorder.violations()[0].detail, HasSubstr("500 bytes"));
  EXPECT_EQ(pool->DeallocateChecked(a, 500).code(),
            absl::StatusCode::kFailedPrecondition);
  pool->Deallocate(a, 16);
  EXPECT_EQ(pool->stats().live_allocations(), 0u);
  EXPECT_TRUE(pool->CheckIntegrity().ok());
}

TEST_F(SizeClassPoolTest, ForeignAndInteriorPointersAreReported) {
  ViolationRecorder recorder;
  auto pool = Make();
  auto other = Make();
  void* theirs = other->Allocate(64);
  auto* mine = static_cast<char*>(pool->Allocate(64));
  int on_stack[4] = {};
  pool->Deallocate(theirs, 64);
  pool->Deallocate(on_stack, 16);
  pool->Deallocate(mine + 16, 48);
  ASSERT_EQ(recorder.violations().size(), 3u);
  for (const auto& v : recorder.violations()) {
    EXPECT_EQ(v.violation, ContractViolation::kForeignPointer);
  }
  EXPECT_EQ(pool->DeallocateChecked(theirs, 64).code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(pool->DeallocateChecked(mine, 64).ok());
  other->Deallocate(theirs, 64);
  EXPECT_TRUE(pool->CheckIntegrity().ok());
  EXPECT_TRUE(other->CheckIntegrity().ok());
}

TEST_F(SizeClassPoolTest, ReallocateOfAForeignPointerIsReportedAndFails) {
  ViolationRecorder recorder;
  auto pool = Make();
  int on_stack[8] = {};
  EXPECT_EQ(pool->Reallocate(on_stack, 32, 64), nullptr);
  ASSERT_EQ(recorder.violations().size(), 1u);
  EXPECT_EQ(pool->ReallocateChecked(on_stack, 32, 64).status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(pool->stats().failed_requests, 2u);
}

// ---- Randomised model test ----

TEST_F(SizeClassPoolTest, MatchesAShadowMapUnderRandomOperations) {
  ViolationRecorder recorder;
  SizeClassPoolOptions options;
  options.block_bytes = 4096;  // many blocks, so trims and grows happen
  options.keep_idle_blocks = 2;
  auto pool = Make(options);
  std::mt19937_64 gen(20260401);
  struct Live {
    size_t bytes;
    size_t alignment;
    unsigned char fill;
  };
  absl::flat_hash_map<unsigned char*, Live> live;
  std::vector<unsigned char*> order;
  auto verify = [&](unsigned char* ptr) {
    const Live& l = live.at(ptr);
    for (size_t i = 0; i < l.bytes; ++i) {
      ASSERT_EQ(ptr[i], l.fill) << static_cast<void*>(ptr) << " byte " << i;
    }
  };
  const size_t alignments[] = {8, 16, 16, 16, 32, 64, 256};
  for (int op = 0; op < 4000; ++op) {
    const int kind = absl::Uniform(gen, 0, 100);
    if (kind < 50 || order.empty()) {
      const size_t bytes = absl::Uniform(gen, 0, 100) < 90
                               ? absl::Uniform<size_t>(gen, 0, 1025)
                               : absl::Uniform<size_t>(gen, 1025, 3000);
      const size_t alignment = alignments[absl::Uniform(gen, 0, 7)];
      auto* ptr = static_cast<unsigned char*>(pool->Allocate(bytes, alignment));
      ASSERT_NE(ptr, nullptr);
      ASSERT_TRUE(IsAligned(ptr, alignment));
      ASSERT_FALSE(live.contains(ptr));
      const auto fill = static_cast<unsigned char>(op * 7 + 1);
      std::memset(ptr, fill, bytes);
      live[ptr] = Live{bytes, alignment, fill};
      order.push_back(ptr);
    } else if (kind < 90) {
      const size_t i = absl::Uniform<size_t>(gen, 0, order.size());
      unsigned char* ptr = order[i];
      verify(ptr);
      const Live l = live.at(ptr);
      order[i] = order.back();
      order.pop_back();
      live.erase(ptr);
      pool->Deallocate(ptr, l.bytes, l.alignment);
    } else if (kind < 97) {
      const size_t i = absl::Uniform<size_t>(gen, 0, order.size());
      unsigned char* ptr = order[i];
      verify(ptr);
      Live l = live.at(ptr);
      const size_t new_bytes = absl::Uniform<size_t>(gen, 0, 2000);
      auto* moved = static_cast<unsigned char*>(
          pool->Reallocate(ptr, l.bytes, new_bytes, l.alignment));
      ASSERT_NE(moved, nullptr);
      ASSERT_TRUE(IsAligned(moved, l.alignment));
      for (size_t b = 0; b < std::min(l.bytes, new_bytes); ++b) {
        ASSERT_EQ(moved[b], l.fill);
      }
      live.erase(ptr);
      ASSERT_FALSE(live.contains(moved));
      l.bytes = new_bytes;
      std::memset(moved, l.fill, new_bytes);
      live[moved] = l;
      order[i] = moved;
    } else {
      pool->Trim();
    }
    ASSERT_TRUE(pool->CheckIntegrity().ok()) << pool->CheckIntegrity();
    ASSERT_EQ(pool->stats().live_allocations(), live.size());
  }
  for (unsigned char* ptr : order) {
    verify(ptr);
    pool->Deallocate(ptr, live.at(ptr).bytes, live.at(ptr).alignment);
  }
  EXPECT_TRUE(recorder.violations().empty());
  EXPECT_EQ(pool->stats().bytes_in_use, 0u);
  EXPECT_EQ(upstream_.live_blocks(), 0u);
  EXPECT_EQ(upstream_.bad_frees(), 0u);
  EXPECT_TRUE(pool->CheckIntegrity().ok());
}

}  // namespace
}  // namespace tessera
