// Copyright 2026 The Tessera Authors.
//
// TlsfArena: basic behaviour, bad input, the seed's bug classes, coalescing
// and Collect, realloc and the generic interface, statistics and poisoning.
// The other concerns have their own files: tlsf_arena_pointer_index_test.cc,
// tlsf_arena_quick_cache_test.cc, tlsf_arena_growth_test.cc and
// tlsf_arena_list_head_test.cc (with the integrity, model and walk tests).

#include "alloc/tlsf/tlsf_arena.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <memory_resource>
#include <random>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "alloc/allocator.h"
#include "alloc/memory_resource.h"
#include "alloc/tlsf/tlsf_arena_test_support.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tessera {
namespace tlsf_test {
namespace {

using ::testing::HasSubstr;

// ---- Basic behaviour. ----

TEST(TlsfArenaTest, BlocksAreGranuleRoundedAlignedAndInsideTheArena) {
  auto arena = MakeArena(1 * kMiB);
  for (size_t size : {1, 63, 64, 65, 100, 4096, 5000}) {
    absl::StatusOr<Handle> h = arena->Alloc(size);
    ASSERT_TRUE(h.ok()) << h.status();
    EXPECT_EQ(h->size(), (size + 63) / 64 * 64) << size;
    EXPECT_TRUE(IsAligned(h->address(), 64));
    EXPECT_TRUE(arena->Contains(h->address()));
    std::memset(h->address(), 0x5A, h->size());
  }
  EXPECT_TRUE(arena->CheckIntegrity().ok()) << arena->CheckIntegrity();
}

TEST(TlsfArenaTest, SizeZeroGivesAUniqueMinimalBlock) {
  auto arena = MakeArena(64 * kKiB);
  absl::StatusOr<Handle> a = arena->Alloc(0);
  absl::StatusOr<Handle> b = arena->Alloc(0);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE(a->address(), b->address());
  EXPECT_EQ(a->size(), 64u);
  void* c = arena->Allocate(0);
  ASSERT_NE(c, nullptr);
  EXPECT_NE(c, a->address());
  arena->Deallocate(c, 0);
  EXPECT_TRUE(arena->Free(*a).ok());
  EXPECT_TRUE(arena->Free(*b).ok());
  EXPECT_EQ(arena->Stats().live_blocks, 0u);
}

TEST(TlsfArenaTest, HandleSpanAndIndexerReachTheWholeBlock) {
  auto arena = MakeArena(64 * kKiB);
  absl::StatusOr<Handle> h = arena->Alloc(100);
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(h->span().size(), 128u);
  EXPECT_EQ(static_cast<void*>(h->span().data()), h->address());
  for (size_t i = 0; i < h->size(); ++i) (*h)[i] = std::byte(i & 0xFF);
  EXPECT_EQ(static_cast<unsigned char*>(h->address())[127], 127);
#ifndef NDEBUG
  EXPECT_DEATH((void)(*h)[128], "out of bounds");
#endif
}

// ---- Bad input. ----

TEST(TlsfArenaTest, SizeAboveMaxBlockIsRejected) {
  TlsfArenaOptions options;
  options.max_block_size = 64 * kKiB;
  auto arena = MakeArena(1 * kMiB, options);
  const TlsfStats before = arena->Stats();
  absl::StatusOr<Handle> h = arena->Alloc(64 * kKiB + 1);
  EXPECT_EQ(h.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(h.status()), HasSubstr("max block size 65536"));
  Handle out;
  EXPECT_FALSE(arena->TryAlloc(64 * kKiB + 1, &out));
  EXPECT_EQ(arena->Allocate(64 * kKiB + 1), nullptr);
  EXPECT_TRUE(arena->Alloc(64 * kKiB).ok());
  EXPECT_EQ(arena->Stats().failures, before.failures + 3);
  EXPECT_TRUE(arena->CheckIntegrity().ok());
}

TEST(TlsfArenaTest, SizesWhoseRoundingOverflowsAreRejected) {
  auto arena = MakeArena(64 * kKiB);
  const uint64_t free_before = arena->Stats().free_bytes;
  for (size_t size : {SIZE_MAX, SIZE_MAX - 1}) {
    absl::StatusOr<Handle> h = arena->Alloc(size);
    EXPECT_EQ(h.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(Message(h.status()), HasSubstr(std::to_string(size)));
    EXPECT_THAT(Message(h.status()), HasSubstr("overflows"));
    Handle out;
    EXPECT_FALSE(arena->TryAlloc(size, &out));
    EXPECT_EQ(arena->Allocate(size, 64), nullptr);
  }
  EXPECT_EQ(arena->Stats().free_bytes, free_before);
  EXPECT_EQ(arena->Stats().failures, 6u);
  EXPECT_TRUE(arena->CheckIntegrity().ok());
}

TEST(TlsfArenaTest, NonPowerOfTwoAlignmentIsRejected) {
  auto arena = MakeArena(64 * kKiB);
  for (size_t alignment : {3, 48, 100, 4097}) {
    absl::StatusOr<Handle> h = arena->Alloc(64, alignment);
    EXPECT_EQ(h.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(Message(h.status()),
                HasSubstr("alignment " + std::to_string(alignment)));
    Handle out;
    EXPECT_FALSE(arena->TryAlloc(64, &out, alignment));
    EXPECT_EQ(arena->Allocate(64, alignment), nullptr);
  }
  EXPECT_EQ(arena->Stats().live_blocks, 0u);
  EXPECT_TRUE(arena->CheckIntegrity().ok());
}

TEST(TlsfArenaTest, AlignmentAboveTheSupportedMaximumIsRejected) {
  auto arena = MakeArena(8 * kMiB);
  absl::StatusOr<Handle> h = arena->Alloc(64, kMaxArenaAlignment * 2);
  EXPECT_EQ(h.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(h.status()), HasSubstr("exceeds the supported maximum"));
  EXPECT_EQ(arena->Allocate(64, kMaxArenaAlignment * 2), nullptr);
  absl::StatusOr<Handle> max = arena->Alloc(64, kMaxArenaAlignment);
  ASSERT_TRUE(max.ok()) << max.status();
  EXPECT_TRUE(IsAligned(max->address(), kMaxArenaAlignment));
  EXPECT_TRUE(arena->CheckIntegrity().ok());
}

TEST(TlsfArenaTest, DoubleFreeByHandleIsRejectedAndChangesNothing) {
  ViolationRecorder recorder;
  auto arena = MakeArena(64 * kKiB);
  absl::StatusOr<Handle> a = arena->Alloc(100);
  absl::StatusOr<Handle> b = arena->Alloc(100);
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_TRUE(arena->Free(*a).ok());
  const TlsfStats before = arena->Stats();
  absl::Status again = arena->Free(*a);
  EXPECT_EQ(again.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(Message(again), HasSubstr("double free"));
  EXPECT_FALSE(arena->TryFree(*a));
  ASSERT_EQ(recorder.violations().size(), 1u);
  EXPECT_EQ(recorder.violations()[0].violation, ContractViolation::kDoubleFree);
  EXPECT_EQ(recorder.violations()[0].ptr, a->address());
  EXPECT_EQ(arena->Stats().frees, before.frees);
  EXPECT_EQ(arena->Stats().free_bytes, before.free_bytes);
  EXPECT_TRUE(arena->CheckIntegrity().ok()) << arena->CheckIntegrity();
  EXPECT_TRUE(arena->Free(*b).ok());
}

TEST(TlsfArenaTest, HandleFromAnotherArenaIsRejected) {
  ViolationRecorder recorder;
  auto first = MakeArena(64 * kKiB);
  auto second = MakeArena(64 * kKiB);
  absl::StatusOr<Handle> h = first->Alloc(64);
  ASSERT_TRUE(h.ok());
  absl::Status status = second->Free(*h);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(Message(status), HasSubstr("not to this arena"));
  EXPECT_FALSE(second->TryFree(*h));
  ASSERT_EQ(recorder.violations().size(), 1u);
  EXPECT_EQ(recorder.violations()[0].violation,
            ContractViolation::kForeignPointer);
  EXPECT_FALSE(second->Realloc(*h, 128).ok());
  EXPECT_TRUE(second->CheckIntegrity().ok());
  EXPECT_TRUE(first->Free(*h).ok());
}

TEST(TlsfArenaTest, DefaultConstructedHandleIsRejected) {
  ViolationRecorder recorder;
  auto arena = MakeArena(64 * kKiB);
  Handle empty;
  EXPECT_TRUE(empty.empty());
  absl::Status status = arena->Free(empty);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(status), HasSubstr("default-constructed"));
  EXPECT_FALSE(arena->TryFree(empty));
  EXPECT_EQ(recorder.violations().size(), 1u);
  EXPECT_FALSE(arena->Realloc(empty, 64).ok());
  EXPECT_TRUE(arena->CheckIntegrity().ok());
}

TEST(TlsfArenaTest, InteriorPointerIsRejectedAndTheBlockStaysLive) {
  ViolationRecorder recorder;
  auto arena = MakeArena(64 * kKiB);
  absl::StatusOr<Handle> h = arena->Alloc(256);
  ASSERT_TRUE(h.ok());
  char* p = static_cast<char*>(h->address());
  absl::Status unaligned = arena->Free(p + 1);
  EXPECT_EQ(unaligned.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(Message(unaligned), HasSubstr("interior pointer"));
  absl::Status granule = arena->Free(p + 64);
  EXPECT_EQ(granule.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(Message(granule), HasSubstr("not the start of a live block"));
  arena->Deallocate(p + 128, 64);
  ASSERT_EQ(recorder.violations().size(), 1u);
  EXPECT_EQ(recorder.violations()[0].violation,
            ContractViolation::kForeignPointer);
  EXPECT_EQ(arena->DeallocateChecked(p + 192, 64).code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(arena->Stats().live_blocks, 1u);
  EXPECT_TRUE(arena->CheckIntegrity().ok());
  EXPECT_TRUE(arena->Free(p).ok());
}

TEST(TlsfArenaTest, ForeignPointerIsRejected) {
  ViolationRecorder recorder;
  auto arena = MakeArena(64 * kKiB);
  alignas(64) static char not_ours[256];
  absl::Status status = arena->Free(not_ours);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(Message(status), HasSubstr("not allocated from this arena"));
  arena->Deallocate(not_ours, 64);
  ASSERT_EQ(recorder.violations().size(), 1u);
  EXPECT_EQ(recorder.violations()[0].violation,
            ContractViolation::kForeignPointer);
  EXPECT_TRUE(arena->Free(static_cast<void*>(nullptr)).ok());
  EXPECT_EQ(arena->Stats().frees, 0u);
  EXPECT_TRUE(arena->CheckIntegrity().ok());
}

TEST(TlsfArenaTest, DoubleFreeByPointerIsReported) {
  ViolationRecorder recorder;
  auto arena = MakeArena(64 * kKiB);
  void* keep = arena->Allocate(64);
  void* ptr = arena->Allocate(64);
  void* fence = arena->Allocate(64);
  arena->Deallocate(ptr, 64);
  arena->Deallocate(ptr, 64);
  ASSERT_EQ(recorder.violations().size(), 1u);
  EXPECT_EQ(recorder.violations()[0].violation, ContractViolation::kDoubleFree);
  absl::Status status = arena->Free(ptr);
  EXPECT_THAT(Message(status), HasSubstr("double free"));
  EXPECT_EQ(arena->stats().deallocations, 1u);
  EXPECT_TRUE(arena->CheckIntegrity().ok());
  arena->Deallocate(keep, 64);
  arena->Deallocate(fence, 64);
}

TEST(TlsfArenaTest, ArenaTooSmallForOneBlockAndItsMetadataIsRejected) {
  Buffer buffer(4096);
  for (size_t bytes : {0, 64, 96, 127, 3 * 64}) {
    absl::StatusOr<std::unique_ptr<TlsfArena>> arena =
        TlsfArena::CreateOver(buffer.data, bytes, {});
    EXPECT_EQ(arena.status().code(), absl::StatusCode::kInvalidArgument)
        << bytes;
    EXPECT_THAT(Message(arena.status()), HasSubstr("too small"));
  }
  TlsfArenaOptions options;
  options.arena_bytes = 64;
  EXPECT_EQ(TlsfArena::Create(options).status().code(),
            absl::StatusCode::kInvalidArgument);
  // The smallest that works: index (a page slot and one 64-byte start
  // record) + one block + one node granule.
  absl::StatusOr<std::unique_ptr<TlsfArena>> tiny =
      TlsfArena::CreateOver(buffer.data, 4 * 64, {});
  ASSERT_TRUE(tiny.ok()) << tiny.status();
  absl::StatusOr<Handle> h = (*tiny)->Alloc(1);
  ASSERT_TRUE(h.ok());
  EXPECT_FALSE((*tiny)->Alloc(1).ok());
  EXPECT_TRUE((*tiny)->CheckIntegrity().ok());
}

TEST(TlsfArenaTest, BadOptionsAreRejected) {
  TlsfArenaOptions options;
  options.granularity = 48;
  EXPECT_THAT(Message(TlsfArena::Create(options).status()),
              HasSubstr("granularity 48"));
  options = {};
  options.arena_alignment = 3;
  EXPECT_EQ(TlsfArena::Create(options).status().code(),
            absl::StatusCode::kInvalidArgument);
  options = {};
  options.max_block_size = 8;
  EXPECT_EQ(TlsfArena::Create(options).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(TlsfArenaTest, MetadataExhaustionServesWholeBlocksAndFailsGapsCleanly) {
  Buffer buffer(64 * kKiB);
  absl::StatusOr<std::unique_ptr<TlsfArena>> made =
      TlsfArena::CreateOver(buffer.data, buffer.size, {});
  ASSERT_TRUE(made.ok());
  TlsfArena& arena = **made;
  // A four-granule block in the middle, then one-granule blocks until full:
  // the tail is allocated, so no node can be carved any more.
  std::vector<Handle> small;
  for (int i = 0; i < 8; ++i) small.push_back(*arena.Alloc(64));
  const Handle large = *arena.Alloc(512);
  Handle h;
  while (arena.TryAlloc(64, &h)) small.push_back(h);
  EXPECT_EQ(arena.Stats().free_bytes, 0u);
  ASSERT_TRUE(arena.Free(large).ok());
  // Use up the recycled nodes by splitting the large block.
  while (arena.Stats().metadata_nodes_carved >
         arena.Stats().metadata_nodes_in_use) {
    ASSERT_TRUE(arena.TryAlloc(64, &h));
    EXPECT_EQ(h.size(), 64u);
  }
  const TlsfStats before = arena.Stats();
  ASSERT_GE(before.free_bytes, 128u);
  absl::StatusOr<Handle> whole = arena.Alloc(64);
  ASSERT_TRUE(whole.ok()) << whole.status();
  EXPECT_EQ(whole->size(), before.free_bytes);  // served unsplit
  EXPECT_EQ(arena.Stats().unsplit_for_metadata, before.unsplit_for_metadata + 1);
  EXPECT_TRUE(arena.CheckIntegrity().ok()) << arena.CheckIntegrity();
  // An aligned request whose leading gap needs a node fails cleanly.
  ASSERT_TRUE(arena.Free(*whole).ok());
  const bool needs_gap = !IsAligned(whole->address(), 128);
  absl::StatusOr<Handle> aligned = arena.Alloc(64, 128);
  if (needs_gap) {
    EXPECT_EQ(aligned.status().code(), absl::StatusCode::kResourceExhausted);
    EXPECT_THAT(Message(aligned.status()), HasSubstr("metadata"));
    EXPECT_EQ(arena.Stats().free_bytes, before.free_bytes);
  } else {
    ASSERT_TRUE(aligned.ok());
    EXPECT_EQ(aligned->address(), whole->address());
  }
  EXPECT_TRUE(arena.CheckIntegrity().ok()) << arena.CheckIntegrity();
}

// Fills the arena until 50 requests fail, then frees everything in a
// shuffled order; the arena must end as one free block (after Collect()
// when the quick cache holds some of the freed blocks).
void ExhaustThenFreeEverything(const TlsfArenaOptions& options) {
  auto arena = MakeArena(256 * kKiB, options);
  const uint64_t carved_at_start = arena->Stats().metadata_nodes_carved;
  std::mt19937 rng(7);
  std::vector<Handle> live;
  const size_t sizes[] = {16, 64, 100, 200, 400, 1024, 4096};
  Handle h;
  int failures = 0;
  while (failures < 50) {
    if (arena->TryAlloc(sizes[rng() % 7], &h)) {
      live.push_back(h);
    } else {
      ++failures;
    }
  }
  EXPECT_LT(arena->Stats().free_bytes + arena->Stats().cached_bytes, 4096u);
  EXPECT_TRUE(arena->CheckIntegrity().ok()) << arena->CheckIntegrity();
  std::shuffle(live.begin(), live.end(), rng);
  for (const Handle& block : live) ASSERT_TRUE(arena->Free(block).ok());
  EXPECT_TRUE(arena->CheckIntegrity().ok()) << arena->CheckIntegrity();
  if (options.quick_cache_depth != 0) {
    EXPECT_GT(arena->Stats().cached_blocks, 0u);
    arena->Collect();
  }
  const TlsfStats stats = arena->Stats();
  EXPECT_EQ(stats.free_blocks, 1u);
  EXPECT_EQ(stats.cached_blocks, 0u);
  EXPECT_EQ(stats.bytes_in_use, 0u);
  EXPECT_EQ(stats.largest_free_block, stats.free_bytes);
  EXPECT_EQ(stats.fragmentation(), 0.0);
  EXPECT_EQ(stats.metadata_nodes_in_use, 1u);
  EXPECT_GT(stats.metadata_nodes_carved, carved_at_start);
  EXPECT_TRUE(arena->CheckIntegrity().ok());
}

TEST(TlsfArenaTest, ExhaustionThenFreeingEverythingLeavesOneFreeBlock) {
  ExhaustThenFreeEverything(Uncached());
}

TEST(TlsfArenaTest, ExhaustionThenFreeingEverythingAndCollectLeavesOneFreeBlock) {
  ExhaustThenFreeEverything(TlsfArenaOptions{});
}

// ---- Regression tests for the seed's five bug classes. ----

// Seed bug 1: after a split the allocated block kept its pre-split size.
TEST(TlsfArenaSeedRegressionTest, SplitBlockDoesNotOverlapItsRemainder) {
  auto arena = MakeArena(1 * kMiB);
  absl::StatusOr<Handle> a = arena->Alloc(100);
  absl::StatusOr<Handle> b = arena->Alloc(100);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->size(), 128u);
  EXPECT_EQ(static_cast<char*>(b->address()),
            static_cast<char*>(a->address()) + 128);
  std::memset(a->address(), 0xAA, a->size());
  std::memset(b->address(), 0xBB, b->size());
  for (size_t i = 0; i < a->size(); ++i) {
    ASSERT_EQ(std::to_integer<int>((*a)[i]), 0xAA);
  }
  EXPECT_TRUE(arena->CheckIntegrity().ok());
}

// Seed bug 2: Collect resized a node before unlinking it, leaving it in two
// buckets, so one address was handed out twice.
TEST(TlsfArenaSeedRegressionTest, CollectNeverHandsOutAnAddressTwice) {
  auto arena = MakeArena(1 * kMiB);
  std::vector<Handle> blocks;
  for (int i = 0; i < 64; ++i) blocks.push_back(*arena->Alloc(64 * (1 + i % 5)));
  for (int i = 8; i < 56; ++i) ASSERT_TRUE(arena->Free(blocks[i], 0).ok());
  EXPECT_GT(arena->Stats().pending_free_blocks, 0u);
  EXPECT_TRUE(arena->CheckIntegrity().ok()) << arena->CheckIntegrity();
  const CollectReport report = arena->Collect();
  EXPECT_EQ(report.runs_merged, 1u);
  EXPECT_EQ(report.blocks_merged, 47u);
  EXPECT_EQ(arena->Stats().pending_free_blocks, 0u);
  EXPECT_TRUE(arena->CheckIntegrity().ok()) << arena->CheckIntegrity();
  std::vector<std::pair<uintptr_t, size_t>> spans;
  for (int i : {0, 1, 2, 3, 4, 5, 6, 7, 56, 57, 58, 59, 60, 61, 62, 63}) {
    spans.push_back({reinterpret_cast<uintptr_t>(blocks[i].address()),
                     blocks[i].size()});
  }
  Handle h;
  while (arena->TryAlloc(64, &h)) {
    spans.push_back({reinterpret_cast<uintptr_t>(h.address()), h.size()});
  }
  std::sort(spans.begin(), spans.end());
  for (size_t i = 1; i < spans.size(); ++i) {
    ASSERT_GE(spans[i].first, spans[i - 1].first + spans[i - 1].second);
  }
}

// Seed bug 3: no double-free detection.
TEST(TlsfArenaSeedRegressionTest, DoubleFreeIsDetectedOnEveryPath) {
  ViolationRecorder recorder;
  auto arena = MakeArena(64 * kKiB);
  absl::StatusOr<Handle> a = arena->Alloc(64);
  absl::StatusOr<Handle> fence = arena->Alloc(64);
  ASSERT_TRUE(arena->Free(*a, 0).ok());  // deferred: still detected
  EXPECT_FALSE(arena->Free(*a).ok());
  EXPECT_FALSE(arena->Free(a->address()).ok());
  EXPECT_FALSE(arena->TryFree(*a));
  arena->Deallocate(a->address(), 64);
  EXPECT_EQ(recorder.violations().size(), 2u);
  EXPECT_EQ(arena->Stats().frees, 1u);
  EXPECT_TRUE(arena->CheckIntegrity().ok());
  (void)fence;
}

// Seed bug 4: split never reused recycled nodes, so metadata grew forever.
TEST(TlsfArenaSeedRegressionTest, MetadataStaysProportionalToLiveBlocks) {
  auto arena = MakeArena(4 * kMiB, Uncached());
  std::mt19937 rng(11);
  std::vector<Handle> live;
  uint64_t carved_after_first_round = 0;
  for (int round = 0; round < 200; ++round) {
    for (int i = 0; i < 100; ++i) {
      live.push_back(*arena->Alloc(64 + rng() % 2000));
    }
    std::shuffle(live.begin(), live.end(), rng);
    for (const Handle& h : live) ASSERT_TRUE(arena->Free(h).ok());
    live.clear();
    if (round == 0) carved_after_first_round = arena->Stats().metadata_nodes_carved;
  }
  // 100 live blocks and their free gaps need at most ~200 nodes.
  EXPECT_LE(arena->Stats().metadata_nodes_carved, carved_after_first_round + 8);
  EXPECT_LE(arena->Stats().metadata_nodes_carved, 256u);
  EXPECT_EQ(arena->Stats().metadata_nodes_in_use, 1u);
  EXPECT_TRUE(arena->CheckIntegrity().ok());
}

// Seed bug 5: the alignment argument was ignored.
TEST(TlsfArenaSeedRegressionTest, EveryPowerOfTwoAlignmentIsHonoured) {
  auto arena = MakeArena(8 * kMiB);
  std::vector<Handle> live;
  for (size_t alignment = 1; alignment <= 65536; alignment <<= 1) {
    for (size_t size : {1, 64, 100, 3000}) {
      absl::StatusOr<Handle> h = arena->Alloc(size, alignment);
      ASSERT_TRUE(h.ok()) << h.status();
      EXPECT_TRUE(IsAligned(h->address(), std::max<size_t>(alignment, 64)))
          << size << " " << alignment;
      EXPECT_GE(h->size(), size);
      void* p = arena->Allocate(size, alignment);
      ASSERT_NE(p, nullptr);
      EXPECT_TRUE(IsAligned(p, alignment));
      arena->Deallocate(p, size, alignment);
      live.push_back(*h);
    }
  }
  EXPECT_TRUE(arena->CheckIntegrity().ok()) << arena->CheckIntegrity();
  for (const Handle& h : live) ASSERT_TRUE(arena->Free(h).ok());
  arena->Collect();  // merges what the quick cache holds
  EXPECT_EQ(arena->Stats().free_blocks, 1u);
}

// ---- Coalescing, aligned gaps, Collect. ----

TEST(TlsfArenaTest, AlignedAllocReturnsItsLeadingGapAsAFreeBlock) {
  auto arena = MakeArena(1 * kMiB);
  absl::StatusOr<Handle> first = arena->Alloc(64);
  absl::StatusOr<Handle> aligned = arena->Alloc(64, 4096);
  ASSERT_TRUE(first.ok() && aligned.ok());
  char* gap_start = static_cast<char*>(first->address()) + 64;
  const size_t gap = static_cast<char*>(aligned->address()) - gap_start;
  ASSERT_GT(gap, 0u);  // first block is at the base, so 4096 alignment skips
  absl::StatusOr<Handle> filler = arena->Alloc(gap);
  ASSERT_TRUE(filler.ok());
  EXPECT_EQ(filler->address(), gap_start);
  EXPECT_TRUE(arena->CheckIntegrity().ok());
}

TEST(TlsfArenaTest, FreeMergesBothNeighbours) {
  auto arena = MakeArena(1 * kMiB, Uncached());
  Handle a = *arena->Alloc(64), b = *arena->Alloc(64), c = *arena->Alloc(64),
         d = *arena->Alloc(64);
  ASSERT_TRUE(arena->Free(a).ok());
  ASSERT_TRUE(arena->Free(c).ok());
  const uint64_t free_blocks = arena->Stats().free_blocks;  // a, c, tail
  ASSERT_TRUE(arena->Free(b).ok());
  EXPECT_EQ(arena->Stats().free_blocks, free_blocks - 1);  // a+b+c
  absl::StatusOr<Handle> three = arena->Alloc(192);
  ASSERT_TRUE(three.ok());
  EXPECT_EQ(three->address(), a.address());
  EXPECT_TRUE(arena->Free(d).ok());
  EXPECT_TRUE(arena->CheckIntegrity().ok());
}

TEST(TlsfArenaTest, DeferredFreeLeavesNeighboursUnmergedUntilCollect) {
  auto arena = MakeArena(1 * kMiB);
  std::vector<Handle> blocks;
  for (int i = 0; i < 10; ++i) blocks.push_back(*arena->Alloc(128));
  for (int i = 2; i < 6; ++i) ASSERT_TRUE(arena->Free(blocks[i], 0).ok());
  TlsfStats stats = arena->Stats();
  EXPECT_EQ(stats.free_blocks, 5u);  // four deferred + the tail
  // Every deferred block has a free neighbour, so all four are pending.
  EXPECT_EQ(stats.pending_free_blocks, 4u);
  EXPECT_TRUE(arena->CheckIntegrity().ok()) << arena->CheckIntegrity();
  CollectReport report = arena->Collect();
  EXPECT_EQ(report.runs_merged, 1u);
  EXPECT_EQ(report.blocks_merged, 3u);
  stats = arena->Stats();
  EXPECT_EQ(stats.free_blocks, 2u);
  EXPECT_EQ(stats.pending_free_blocks, 0u);
  EXPECT_TRUE(arena->CheckIntegrity().ok());
}

TEST(TlsfArenaTest, ScanWindowMergesRunsLeftByDeferredFrees) {
  auto arena = MakeArena(1 * kMiB, Uncached());
  std::vector<Handle> blocks;
  for (int i = 0; i < 10; ++i) blocks.push_back(*arena->Alloc(64));
  for (int i = 2; i < 5; ++i) ASSERT_TRUE(arena->Free(blocks[i], 0).ok());
  // Freeing block 5 with a window of 4 absorbs the three deferred blocks.
  ASSERT_TRUE(arena->Free(blocks[5], 4).ok());
  EXPECT_EQ(arena->Stats().free_blocks, 2u);
  EXPECT_EQ(arena->Stats().pending_free_blocks, 0u);
  EXPECT_TRUE(arena->CheckIntegrity().ok());
}

TEST(TlsfArenaTest, CollectReturnsWholePagesOfLargeFreeBlocks) {
  auto arena = MakeArena(16 * kMiB);
  absl::StatusOr<Handle> big = arena->Alloc(8 * kMiB);
  ASSERT_TRUE(big.ok());
  std::memset(big->address(), 1, big->size());
  ASSERT_TRUE(arena->Free(*big).ok());
  CollectOptions options;
  options.release_pages = true;
  options.release_threshold = 1 * kMiB;
  const CollectReport report = arena->Collect(options);
  EXPECT_GE(report.bytes_released, 8 * kMiB);
  // The pages come back as zero on next use.
  absl::StatusOr<Handle> again = arena->Alloc(8 * kMiB);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(static_cast<char*>(again->address())[4096], 0);
  EXPECT_TRUE(arena->CheckIntegrity().ok());
}

// ---- Realloc and the generic interface. ----

TEST(TlsfArenaTest, ReallocGrowsAndShrinksInPlaceWhenTheNeighbourAllows) {
  auto arena = MakeArena(1 * kMiB);
  absl::StatusOr<Handle> h = arena->Alloc(128);
  ASSERT_TRUE(h.ok());
  std::memset(h->address(), 7, 128);
  absl::StatusOr<Handle> grown = arena->Realloc(*h, 1000);
  ASSERT_TRUE(grown.ok());
  EXPECT_EQ(grown->address(), h->address());
  EXPECT_EQ(grown->size(), 1024u);
  EXPECT_EQ(static_cast<char*>(grown->address())[127], 7);
  absl::StatusOr<Handle> shrunk = arena->Realloc(*grown, 64);
  ASSERT_TRUE(shrunk.ok());
  EXPECT_EQ(shrunk->address(), h->address());
  EXPECT_EQ(shrunk->size(), 64u);
  EXPECT_EQ(arena->Stats().bytes_in_use, 64u);
  EXPECT_EQ(arena->stats().reallocations, 2u);
  EXPECT_TRUE(arena->CheckIntegrity().ok()) << arena->CheckIntegrity();
  // Shrinking with an allocated upper neighbour splits off a free tail.
  absl::StatusOr<Handle> fence = arena->Alloc(64);
  absl::StatusOr<Handle> wide = arena->Alloc(512);
  absl::StatusOr<Handle> fence2 = arena->Alloc(64);
  ASSERT_TRUE(fence.ok() && wide.ok() && fence2.ok());
  absl::StatusOr<Handle> narrow = arena->Realloc(*wide, 128);
  ASSERT_TRUE(narrow.ok());
  EXPECT_EQ(narrow->address(), wide->address());
  absl::StatusOr<Handle> tail = arena->Alloc(384);
  ASSERT_TRUE(tail.ok());
  EXPECT_EQ(tail->address(), static_cast<char*>(wide->address()) + 128);
  EXPECT_TRUE(arena->CheckIntegrity().ok()) << arena->CheckIntegrity();
}

TEST(TlsfArenaTest, ReallocMovesKeepingContentsAndAlignment) {
  auto arena = MakeArena(1 * kMiB);
  absl::StatusOr<Handle> h = arena->Alloc(100, 1024);
  absl::StatusOr<Handle> fence = arena->Alloc(64);
  ASSERT_TRUE(h.ok() && fence.ok());
  for (size_t i = 0; i < 100; ++i) (*h)[i] = std::byte(i);
  absl::StatusOr<Handle> moved = arena->Realloc(*h, 5000, 1024);
  ASSERT_TRUE(moved.ok());
  EXPECT_NE(moved->address(), h->address());
  EXPECT_TRUE(IsAligned(moved->address(), 1024));
  for (size_t i = 0; i < 100; ++i) {
    ASSERT_EQ(std::to_integer<size_t>((*moved)[i]), i);
  }
  EXPECT_FALSE(arena->Free(*h).ok());  // the old block went with the move
  EXPECT_TRUE(arena->CheckIntegrity().ok());
}

TEST(TlsfArenaTest, FailedReallocKeepsTheOldBlock) {
  auto arena = MakeArena(256 * kKiB);
  absl::StatusOr<Handle> h = arena->Alloc(64);
  absl::StatusOr<Handle> fence = arena->Alloc(64);
  ASSERT_TRUE(h.ok() && fence.ok());
  std::memset(h->address(), 3, 64);
  absl::StatusOr<Handle> too_big = arena->Realloc(*h, 1 * kMiB);
  EXPECT_EQ(too_big.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(Message(too_big.status()), HasSubstr("still valid"));
  EXPECT_EQ(static_cast<char*>(h->address())[63], 3);
  EXPECT_TRUE(arena->Free(*h).ok());
  EXPECT_TRUE(arena->CheckIntegrity().ok());
}

TEST(TlsfArenaTest, FreeByPointerAndHandleOfFindTheBlock) {
  auto arena = MakeArena(1 * kMiB);
  absl::StatusOr<Handle> h = arena->Alloc(300);
  ASSERT_TRUE(h.ok());
  absl::StatusOr<Handle> found = arena->HandleOf(h->address());
  ASSERT_TRUE(found.ok());
  EXPECT_EQ(found->size(), 320u);
  EXPECT_TRUE(arena->Free(found->address()).ok());
  EXPECT_FALSE(arena->HandleOf(h->address()).ok());
  EXPECT_EQ(arena->Stats().live_blocks, 0u);
}

TEST(TlsfArenaTest, WorksThroughTheGenericInterfaceAndPmr) {
  auto arena = MakeArena(4 * kMiB);
  Allocator& allocator = *arena;
  MemoryResource resource(allocator);
  {
    std::pmr::vector<int> v(&resource);
    for (int i = 0; i < 10000; ++i) v.push_back(i);
    EXPECT_EQ(v[9999], 9999);
    EXPECT_GT(allocator.stats().allocations, 5u);
  }
  EXPECT_EQ(allocator.stats().live_allocations(), 0u);
  void* p = allocator.Allocate(100, 256);
  ASSERT_NE(p, nullptr);
  std::memset(p, 9, 100);
  void* q = allocator.Reallocate(p, 100, 20000, 256);
  ASSERT_NE(q, nullptr);
  EXPECT_TRUE(IsAligned(q, 256));
  EXPECT_EQ(static_cast<char*>(q)[99], 9);
  allocator.Deallocate(q, 20000, 256);
  EXPECT_EQ(allocator.max_allocation_size(), 32 * kMiB);
  EXPECT_EQ(allocator.AllocateChecked(64 * kMiB).status().code(),
            absl::StatusCode::kResourceExhausted);
  EXPECT_TRUE(allocator.CheckIntegrity().ok());
}

TEST(TlsfArenaTest, HandleOnlyArenaRejectsFreeByPointer) {
  ViolationRecorder recorder;
  TlsfArenaOptions options;
  options.pointer_index = false;
  auto arena = MakeArena(1 * kMiB, options);
  absl::StatusOr<Handle> h = arena->Alloc(100);
  ASSERT_TRUE(h.ok());
  absl::Status status = arena->Free(h->address());
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(Message(status), HasSubstr("pointer index"));
  arena->Deallocate(h->address(), 100);
  EXPECT_EQ(recorder.violations().size(), 1u);
  EXPECT_EQ(arena->Stats().live_blocks, 1u);
  EXPECT_TRUE(arena->CheckIntegrity().ok()) << arena->CheckIntegrity();
  EXPECT_TRUE(arena->Free(*h).ok());
  EXPECT_EQ(arena->Stats().free_blocks, 1u);
}

// ---- Stats and integrity. ----

TEST(TlsfArenaTest, StatsTrackBytesPeakHighWaterAndCounts) {
  auto arena = MakeArena(1 * kMiB, Uncached());
  const TlsfStats empty = arena->Stats();
  Handle a = *arena->Alloc(1000);
  Handle b = *arena->Alloc(64);
  TlsfStats s = arena->Stats();
  EXPECT_EQ(s.bytes_in_use, 1088u);
  EXPECT_EQ(s.free_bytes + s.bytes_in_use + 64 * (s.metadata_nodes_carved -
                                                  empty.metadata_nodes_carved) /
                                                2,
            empty.free_bytes);
  EXPECT_EQ(s.high_water_offset, 1088u);
  EXPECT_EQ(s.allocations, 2u);
  EXPECT_EQ(s.live_blocks, 2u);
  EXPECT_EQ(s.metadata_bytes, s.metadata_nodes_carved * 32);
  EXPECT_GT(s.index_bytes, 0u);
  ASSERT_TRUE(arena->Free(a).ok());
  s = arena->Stats();
  EXPECT_EQ(s.bytes_in_use, 64u);
  EXPECT_EQ(s.peak_bytes_in_use, 1088u);
  EXPECT_EQ(s.frees, 1u);
  EXPECT_EQ(s.free_blocks, 2u);
  EXPECT_GT(s.fragmentation(), 0.0);
  EXPECT_EQ(s.largest_free_block, s.free_bytes - 1024);
  ASSERT_TRUE(arena->Free(b).ok());
  EXPECT_EQ(arena->Stats().fragmentation(), 0.0);
}

TEST(TlsfArenaTest, CheckIntegrityNamesTheBrokenInvariant) {
  Buffer buffer(64 * kKiB);
  absl::StatusOr<std::unique_ptr<TlsfArena>> made =
      TlsfArena::CreateOver(buffer.data, buffer.size, {});
  ASSERT_TRUE(made.ok());
  ASSERT_TRUE((*made)->CheckIntegrity().ok());
  // The first node sits at the very top of the region and describes its
  // only block.
  auto* node = reinterpret_cast<TlsfArena::Node*>(buffer.data + buffer.size) - 1;
  node->size_flags += 64;
  absl::Status status = (*made)->CheckIntegrity();
  EXPECT_THAT(Message(status), HasSubstr("invariant 1"));
  node->size_flags -= 64;
  node->size_flags |= 2;  // pending flag the statistics do not know about
  EXPECT_THAT(Message((*made)->CheckIntegrity()), HasSubstr("invariant 7"));
  node->size_flags &= ~uint64_t{2};
  EXPECT_TRUE((*made)->CheckIntegrity().ok());
}

#ifdef TLSF_TEST_ASAN
TEST(TlsfArenaTest, FreedPayloadIsPoisonedUnderAsan) {
  auto arena = MakeArena(1 * kMiB);
  absl::StatusOr<Handle> h = arena->Alloc(256);
  ASSERT_TRUE(h.ok());
  EXPECT_FALSE(__asan_address_is_poisoned(h->address()));
  EXPECT_FALSE(
      __asan_address_is_poisoned(static_cast<char*>(h->address()) + 255));
  ASSERT_TRUE(arena->Free(*h).ok());
  EXPECT_TRUE(__asan_address_is_poisoned(h->address()));
  EXPECT_TRUE(
      __asan_address_is_poisoned(static_cast<char*>(h->address()) + 255));
}
#endif

}  // namespace
}  // namespace tlsf_test
}  // namespace tessera
