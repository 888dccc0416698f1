// Copyright 2026 The Tessera Authors.

#include "alloc/tlsf/tlsf_arena.h"

#include <sys/mman.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <memory_resource>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "alloc/memory_resource.h"
#include "alloc/tlsf/locked_tlsf_arena.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

#if defined(__SANITIZE_ADDRESS__)
#define TLSF_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TLSF_TEST_ASAN 1
#endif
#endif
#ifdef TLSF_TEST_ASAN
#include <sanitizer/asan_interface.h>
#endif

namespace tessera {
namespace {

using ::testing::HasSubstr;

constexpr size_t kKiB = 1024;
constexpr size_t kMiB = 1024 * 1024;

bool IsAligned(const void* ptr, size_t alignment) {
  return (reinterpret_cast<uintptr_t>(ptr) & (alignment - 1)) == 0;
}

std::string Message(const absl::Status& status) {
  return std::string(status.message());
}

// Records contract violations instead of aborting, for the duration of a test.
struct RecordedViolation {
  ContractViolation violation;
  const void* ptr;
};
std::vector<RecordedViolation>* g_violations = nullptr;

class ViolationRecorder {
 public:
  ViolationRecorder() {
    g_violations = &violations_;
    previous_ = SetContractViolationHandler(
        [](absl::string_view, ContractViolation violation, const void* ptr,
           absl::string_view) { g_violations->push_back({violation, ptr}); });
  }
  ~ViolationRecorder() {
    SetContractViolationHandler(previous_);
    g_violations = nullptr;
  }
  const std::vector<RecordedViolation>& violations() const {
    return violations_;
  }

 private:
  std::vector<RecordedViolation> violations_;
  ContractViolationHandler previous_;
};

std::unique_ptr<TlsfArena> MakeArena(size_t bytes,
                                     TlsfArenaOptions options = {}) {
  options.arena_bytes = bytes;
  absl::StatusOr<std::unique_ptr<TlsfArena>> arena = TlsfArena::Create(options);
  EXPECT_TRUE(arena.ok()) << arena.status();
  return arena.ok() ? *std::move(arena) : nullptr;
}

// The TLSF core alone: tests of merging and of its statistics turn the
// quick cache (on by default) off, since it holds small freed blocks
// unmerged.
TlsfArenaOptions Uncached() {
  TlsfArenaOptions options;
  options.quick_cache_depth = 0;
  return options;
}

// Caller memory for CreateOver, 4096-aligned.
struct Buffer {
  explicit Buffer(size_t bytes)
      : storage(new std::byte[bytes + 4096]),
        data(reinterpret_cast<std::byte*>(
            (reinterpret_cast<uintptr_t>(storage.get()) + 4095) &
            ~uintptr_t{4095})),
        size(bytes) {}
  std::unique_ptr<std::byte[]> storage;
  std::byte* data;
  size_t size;
};

// System memory that counts its calls.
struct CountingSystem {
  int maps = 0;
  int unmaps = 0;
  SystemMemory hooks() {
    return SystemMemory{
        [](size_t bytes, void* self) {
          ++static_cast<CountingSystem*>(self)->maps;
          return DefaultSystemMemory().map(bytes, nullptr);
        },
        [](void* ptr, size_t bytes, void* self) {
          ++static_cast<CountingSystem*>(self)->unmaps;
          DefaultSystemMemory().unmap(ptr, bytes, nullptr);
        },
        this};
  }
};

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

// Resident pages of [begin, end), both page-aligned.
size_t ResidentPages(const void* begin, const void* end) {
  const size_t pages = (static_cast<const char*>(end) -
                        static_cast<const char*>(begin)) / 4096;
  std::vector<unsigned char> resident(pages);
  EXPECT_EQ(mincore(const_cast<void*>(begin), pages * 4096, resident.data()),
            0);
  size_t count = 0;
  for (unsigned char r : resident) count += r & 1;
  return count;
}

TEST(TlsfArenaTest, PointerIndexIsBuiltOnFirstUseAndUntouchedBefore) {
  auto arena = MakeArena(8 * kMiB);
  std::vector<Handle> blocks;
  for (int i = 0; i < 256; ++i) blocks.push_back(*arena->Alloc(8000));
  ASSERT_TRUE(arena->Free(blocks[3]).ok());  // by handle
  const void* index_begin = nullptr;
  const void* index_end = nullptr;
  arena->WalkBlocks(
      [&](const TlsfRegionInfo& region) {
        index_begin = region.memory;
        index_end = reinterpret_cast<const void*>(
            reinterpret_cast<uintptr_t>(region.base) & ~uintptr_t{4095});
      },
      nullptr);
  ASSERT_NE(index_begin, nullptr);
  ASSERT_GT(index_end, index_begin);
  // Blocks allocated by handle do not write the index.
  EXPECT_EQ(ResidentPages(index_begin, index_end), 0u);
  // The first pointer call builds it from the blocks allocated by handle.
  EXPECT_TRUE(arena->Free(blocks[10].address()).ok());
  absl::StatusOr<Handle> found = arena->HandleOf(blocks[200].address());
  ASSERT_TRUE(found.ok()) << found.status();
  EXPECT_EQ(found->size(), blocks[200].size());
  EXPECT_THAT(Message(arena->Free(blocks[3].address())),
              HasSubstr("not the start of a live block"));
  EXPECT_GT(ResidentPages(index_begin, index_end), 0u);
  EXPECT_TRUE(arena->CheckIntegrity().ok()) << arena->CheckIntegrity();
  // From now on allocations keep it: the generic interface frees them.
  void* p = arena->Allocate(8000);
  ASSERT_NE(p, nullptr);
  arena->Deallocate(p, 8000);
  EXPECT_TRUE(arena->CheckIntegrity().ok()) << arena->CheckIntegrity();
}

TEST(TlsfArenaTest, PointerIndexMemoryFollowsTheBlocksNotTheAddressSpace) {
  // Memory without transparent huge pages, so that residency is counted in
  // 4 KiB pages.
  TlsfArenaOptions options;
  options.system_memory = SystemMemory{
      [](size_t bytes, void*) -> void* {
        void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (p == MAP_FAILED) return nullptr;
        madvise(p, bytes, MADV_NOHUGEPAGE);
        return p;
      },
      [](void* p, size_t bytes, void*) { munmap(p, bytes); }, nullptr};
  auto arena = MakeArena(3 * kMiB, options);
  const void* index_begin = nullptr;
  const void* index_end = nullptr;
  arena->WalkBlocks(
      [&](const TlsfRegionInfo& region) {
        index_begin = region.memory;
        index_end = reinterpret_cast<const void*>(
            reinterpret_cast<uintptr_t>(region.base) & ~uintptr_t{4095});
      },
      nullptr);
  // 300 blocks of 8 KiB, one start every two 4 KiB pages over 2.4 MiB: a
  // per-granule index would touch 150 KiB of itself; the page slots of
  // 2.4 MiB are 4.8 KiB.
  std::vector<void*> blocks;
  for (int i = 0; i < 300; ++i) {
    blocks.push_back(arena->Allocate(8000));
    ASSERT_NE(blocks.back(), nullptr);
  }
  EXPECT_LE(ResidentPages(index_begin, index_end), 3u);
  TlsfStats s = arena->Stats();
  EXPECT_EQ(s.index_tables, 0u);
  EXPECT_EQ(s.index_table_bytes_touched, 0u);
  for (void* p : blocks) arena->Deallocate(p, 8000);
  EXPECT_TRUE(arena->CheckIntegrity().ok()) << arena->CheckIntegrity();
}

TEST(TlsfArenaTest, PagesOfManySmallBlocksGetARecordThenATable) {
  auto arena = MakeArena(1 * kMiB, Uncached());
  // Blocks split off the bottom of the free arena in address order: the
  // first 64 are the 64 granules of one index page.
  void* first = arena->Allocate(64);
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(arena->Stats().index_tables, 0u);  // one start: the slot alone
  std::vector<void*> blocks = {first};
  for (int i = 1; i < 20; ++i) {
    blocks.push_back(arena->Allocate(64));
    ASSERT_EQ(blocks.back(), static_cast<char*>(first) + 64 * i);
    EXPECT_EQ(arena->Stats().index_tables, 1u) << i;  // a record, a table
    ASSERT_TRUE(arena->CheckIntegrity().ok()) << arena->CheckIntegrity();
  }
  // 20 starts: past the record's 14, the page has a 256-byte table.
  EXPECT_EQ(arena->Stats().index_table_bytes_touched, 64u + 256u);
  for (void* p : blocks) {
    absl::StatusOr<Handle> h = arena->HandleOf(p);
    ASSERT_TRUE(h.ok()) << h.status();
    EXPECT_EQ(h->address(), p);
  }
  // Freed blocks, interior pointers and double frees in a table page.
  ASSERT_TRUE(arena->Free(blocks[5]).ok());
  EXPECT_THAT(Message(arena->Free(blocks[5])), HasSubstr("double free"));
  EXPECT_THAT(Message(arena->Free(static_cast<char*>(blocks[6]) + 16)),
              HasSubstr("interior"));
  // Down to two starts (a table stays a table), then to none: the table is
  // recycled; a new page of starts reuses it.
  for (int i = 0; i < 20; ++i) {
    if (i == 5 || i == 7 || i == 12) continue;
    ASSERT_TRUE(arena->Free(blocks[i]).ok()) << i;
  }
  EXPECT_EQ(arena->Stats().index_tables, 1u);
  ASSERT_TRUE(arena->Free(blocks[7]).ok());
  ASSERT_TRUE(arena->Free(blocks[12]).ok());
  EXPECT_EQ(arena->Stats().index_tables, 0u);
  ASSERT_TRUE(arena->CheckIntegrity().ok()) << arena->CheckIntegrity();
  // A record page: two starts, then one (the record is recycled and the
  // slot names the survivor), double free and interior pointer rejected.
  void* a = arena->Allocate(64);
  void* b = arena->Allocate(64);
  void* c = arena->Allocate(128);
  EXPECT_EQ(arena->Stats().index_tables, 1u);
  ASSERT_TRUE(arena->Free(b).ok());
  EXPECT_THAT(Message(arena->Free(b)), HasSubstr("double free"));
  EXPECT_EQ(arena->Stats().index_tables, 1u);
  ASSERT_TRUE(arena->Free(a).ok());
  EXPECT_EQ(arena->Stats().index_tables, 0u);
  EXPECT_THAT(Message(arena->Free(a)), HasSubstr("double free"));
  EXPECT_THAT(Message(arena->Free(static_cast<char*>(c) + 64)),
              HasSubstr("interior"));
  EXPECT_TRUE(arena->HandleOf(c).ok());
  ASSERT_TRUE(arena->CheckIntegrity().ok()) << arena->CheckIntegrity();
  // Nothing new was touched: the recycled record and table came back.
  EXPECT_EQ(arena->Stats().index_table_bytes_touched, 64u + 256u);
  ASSERT_TRUE(arena->Free(c).ok());
  EXPECT_TRUE(arena->CheckIntegrity().ok()) << arena->CheckIntegrity();
}

TEST(TlsfArenaTest, CheckIntegrityFindsAPageSlotWithNoBlock) {
  auto arena = MakeArena(1 * kMiB);
  void* p = arena->Allocate(1000);
  ASSERT_NE(p, nullptr);
  ASSERT_TRUE(arena->CheckIntegrity().ok());
  // Page slots are 8 bytes {ref, state} from the start of the mapping; the
  // last one covers the top of the region, where no block starts.
  uint32_t* slots = nullptr;
  size_t pages = 0;
  arena->WalkBlocks(
      [&](const TlsfRegionInfo& region) {
        slots = static_cast<uint32_t*>(const_cast<void*>(region.memory));
        pages = region.memory_bytes / 4096;
      },
      nullptr);
  uint32_t* state = &slots[2 * (pages - 40) + 1];
  ASSERT_EQ(*state, 0u);
  *state = 1;  // "one block starts at granule 0"
  EXPECT_THAT(Message(arena->CheckIntegrity()), HasSubstr("invariant 6"));
  *state = 0;
  EXPECT_TRUE(arena->CheckIntegrity().ok());
  arena->Deallocate(p, 1000);
}

// ---- Quick cache. ----

TlsfArenaOptions QuickCache(uint32_t depth) {
  TlsfArenaOptions options;
  options.quick_cache_depth = depth;
  return options;
}

TEST(TlsfQuickCacheTest, FreedSmallBlockIsHandedBackUnmerged) {
  auto arena = MakeArena(1 * kMiB, QuickCache(4));
  Handle a = *arena->Alloc(64), b = *arena->Alloc(100);
  const uint64_t free_blocks = arena->Stats().free_blocks;
  ASSERT_TRUE(arena->Free(a).ok());
  TlsfStats stats = arena->Stats();
  EXPECT_EQ(stats.cached_blocks, 1u);
  EXPECT_EQ(stats.cached_bytes, 64u);
  EXPECT_EQ(stats.free_blocks, free_blocks);  // not merged, not listed
  EXPECT_EQ(stats.bytes_in_use, 128u);
  EXPECT_EQ(stats.live_blocks, 1u);
  EXPECT_TRUE(arena->CheckIntegrity().ok()) << arena->CheckIntegrity();
  absl::StatusOr<Handle> again = arena->Alloc(10);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->address(), a.address());
  EXPECT_EQ(arena->Stats().cached_blocks, 0u);
  // Other sizes and aligned requests do not take it.
  ASSERT_TRUE(arena->Free(*again).ok());
  absl::StatusOr<Handle> other = arena->Alloc(200);
  ASSERT_TRUE(other.ok());
  EXPECT_NE(other->address(), a.address());
  EXPECT_EQ(arena->Stats().cached_blocks, 1u);
  EXPECT_TRUE(arena->Free(b).ok());
  EXPECT_TRUE(arena->CheckIntegrity().ok()) << arena->CheckIntegrity();
}

TEST(TlsfQuickCacheTest, OnlySizesUpToTheConfiguredMaximumAreCached) {
  TlsfArenaOptions options = QuickCache(4);
  options.quick_cache_max_granules = 8;
  auto narrow = MakeArena(1 * kMiB, options);
  options.quick_cache_max_granules = 64;  // the default
  auto wide = MakeArena(1 * kMiB, options);
  for (TlsfArena* arena : {narrow.get(), wide.get()}) {
    Handle small = *arena->Alloc(512), large = *arena->Alloc(1024);
    Handle fence = *arena->Alloc(64);
    ASSERT_TRUE(arena->Free(small).ok());
    ASSERT_TRUE(arena->Free(large).ok());
    EXPECT_TRUE(arena->CheckIntegrity().ok()) << arena->CheckIntegrity();
    (void)fence;
  }
  EXPECT_EQ(narrow->Stats().cached_blocks, 1u);
  EXPECT_EQ(narrow->Stats().cached_bytes, 512u);
  EXPECT_EQ(wide->Stats().cached_blocks, 2u);
  EXPECT_EQ(wide->Stats().cached_bytes, 1536u);
}

TEST(TlsfQuickCacheTest, DoubleFreeOfACachedBlockIsDetected) {
  ViolationRecorder recorder;
  auto arena = MakeArena(1 * kMiB, QuickCache(4));
  Handle a = *arena->Alloc(64);
  ASSERT_TRUE(arena->Free(a).ok());
  EXPECT_THAT(Message(arena->Free(a)), HasSubstr("double free"));
  EXPECT_THAT(Message(arena->Free(a.address())), HasSubstr("double free"));
  arena->Deallocate(a.address(), 64);
  ASSERT_EQ(recorder.violations().size(), 1u);
  EXPECT_EQ(recorder.violations()[0].violation, ContractViolation::kDoubleFree);
  EXPECT_EQ(arena->Stats().cached_blocks, 1u);
  EXPECT_TRUE(arena->CheckIntegrity().ok());
}

TEST(TlsfQuickCacheTest, CacheIsBoundedAndCollectMergesIt) {
  auto arena = MakeArena(1 * kMiB, QuickCache(3));
  std::vector<Handle> blocks;
  for (int i = 0; i < 10; ++i) blocks.push_back(*arena->Alloc(64));
  for (const Handle& h : blocks) ASSERT_TRUE(arena->Free(h).ok());
  EXPECT_EQ(arena->Stats().cached_blocks, 3u);
  EXPECT_TRUE(arena->CheckIntegrity().ok()) << arena->CheckIntegrity();
  arena->Collect();
  const TlsfStats stats = arena->Stats();
  EXPECT_EQ(stats.cached_blocks, 0u);
  EXPECT_EQ(stats.free_blocks, 1u);
  EXPECT_EQ(stats.largest_free_block, stats.free_bytes);
  EXPECT_TRUE(arena->CheckIntegrity().ok());
}

TEST(TlsfQuickCacheTest, CacheHoldsAtMostItsByteLimit) {
  TlsfArenaOptions options;  // default depth: the byte limit binds first
  options.quick_cache_bytes = 1024;
  auto arena = MakeArena(1 * kMiB, options);
  std::vector<Handle> blocks;
  for (int i = 0; i < 10; ++i) blocks.push_back(*arena->Alloc(256));
  Handle fence = *arena->Alloc(64);
  for (const Handle& h : blocks) ASSERT_TRUE(arena->Free(h).ok());
  TlsfStats stats = arena->Stats();
  EXPECT_EQ(stats.cached_bytes, 1024u);
  EXPECT_EQ(stats.cached_blocks, 4u);
  // The six frees past the limit merged into one free block (beside the
  // arena's tail), which a request of exactly that size finds.
  EXPECT_EQ(stats.free_blocks, 2u);
  EXPECT_TRUE(arena->CheckIntegrity().ok()) << arena->CheckIntegrity();
  absl::StatusOr<Handle> run = arena->Alloc(6 * 256);
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->address(), blocks[4].address());
  // Handing one back makes room for a smaller block, not for another 256.
  Handle again = *arena->Alloc(200);
  EXPECT_EQ(arena->Stats().cached_bytes, 768u);
  ASSERT_TRUE(arena->Free(fence).ok());
  EXPECT_EQ(arena->Stats().cached_bytes, 832u);
  // 832 + 256 would pass the limit: that block merges instead.
  ASSERT_TRUE(arena->Free(again).ok());
  EXPECT_EQ(arena->Stats().cached_bytes, 832u);
  EXPECT_TRUE(arena->CheckIntegrity().ok()) << arena->CheckIntegrity();
}

TEST(TlsfQuickCacheTest, AllocationThatWouldFailFlushesTheCacheFirst) {
  Buffer buffer(64 * kKiB);
  TlsfArenaOptions options = QuickCache(64);
  absl::StatusOr<std::unique_ptr<TlsfArena>> made =
      TlsfArena::CreateOver(buffer.data, buffer.size, {}, options);
  ASSERT_TRUE(made.ok());
  TlsfArena& arena = **made;
  std::vector<Handle> blocks;
  Handle h;
  while (arena.TryAlloc(64, &h)) blocks.push_back(h);
  for (int i = 0; i < 32; ++i) ASSERT_TRUE(arena.Free(blocks[i]).ok());
  EXPECT_EQ(arena.Stats().cached_blocks, 32u);
  EXPECT_EQ(arena.Stats().free_bytes, 0u);
  // 32 adjacent cached granules merge into one 2 KiB block on demand.
  absl::StatusOr<Handle> big = arena.Alloc(2048);
  ASSERT_TRUE(big.ok()) << big.status();
  EXPECT_EQ(big->address(), blocks[0].address());
  EXPECT_EQ(arena.Stats().cached_blocks, 0u);
  EXPECT_TRUE(arena.CheckIntegrity().ok()) << arena.CheckIntegrity();
}

// ---- Growth. ----

TEST(TlsfArenaTest, ArenaThatMayNotGrowNeverCallsSystemMemory) {
  CountingSystem system;
  TlsfArenaOptions options;
  options.system_memory = system.hooks();
  {
    Buffer buffer(64 * kKiB);
    absl::StatusOr<std::unique_ptr<TlsfArena>> arena =
        TlsfArena::CreateOver(buffer.data, buffer.size, {}, options);
    ASSERT_TRUE(arena.ok());
    Handle h;
    while ((*arena)->TryAlloc(1000, &h)) {
    }
    EXPECT_FALSE((*arena)->Alloc(1000).ok());
  }
  EXPECT_EQ(system.maps, 0);
  EXPECT_EQ(system.unmaps, 0);
  options.arena_bytes = 64 * kKiB;
  {
    auto arena = MakeArena(64 * kKiB, options);
    EXPECT_EQ(system.maps, 1);
    Handle h;
    while (arena->TryAlloc(1000, &h)) {
    }
    EXPECT_EQ(system.maps, 1);
  }
  EXPECT_EQ(system.unmaps, 1);
}

TEST(TlsfArenaTest, GrowingArenaMapsRegionsAndChecksEachOne) {
  CountingSystem system;
  TlsfArenaOptions options;
  options.system_memory = system.hooks();
  options.grow = true;
  options.growth_region_bytes = 256 * kKiB;
  {
    auto arena = MakeArena(128 * kKiB, options);
    std::vector<Handle> live;
    for (int i = 0; i < 100; ++i) {
      absl::StatusOr<Handle> h = arena->Alloc(10000);
      ASSERT_TRUE(h.ok()) << i << h.status();
      std::memset(h->address(), i, h->size());
      live.push_back(*h);
    }
    // A request larger than the growth size gets a region of its own.
    absl::StatusOr<Handle> big = arena->Alloc(1 * kMiB);
    ASSERT_TRUE(big.ok()) << big.status();
    live.push_back(*big);
    const TlsfStats stats = arena->Stats();
    EXPECT_GE(stats.regions, 4u);
    EXPECT_EQ(system.maps, static_cast<int>(stats.regions));
    EXPECT_TRUE(arena->CheckIntegrity().ok()) << arena->CheckIntegrity();
    for (const Handle& h : live) ASSERT_TRUE(arena->Free(h.address()).ok());
    EXPECT_EQ(arena->Stats().free_blocks, stats.regions);
    EXPECT_TRUE(arena->CheckIntegrity().ok());
  }
  EXPECT_EQ(system.unmaps, system.maps);
}

TEST(TlsfArenaTest, CallerRegionsAreUsedAndReleasedOnDestruction) {
  Buffer first(64 * kKiB), second(64 * kKiB);
  int released = 0;
  {
    absl::StatusOr<std::unique_ptr<TlsfArena>> made = TlsfArena::CreateOver(
        first.data, first.size, [&](void*, size_t) { ++released; });
    ASSERT_TRUE(made.ok());
    TlsfArena& arena = **made;
    EXPECT_THAT(Message(arena.AddRegion(second.data, 100, {})),
                HasSubstr("too small"));
    ASSERT_TRUE(arena.AddRegion(second.data, second.size,
                                [&](void*, size_t) { ++released; })
                    .ok());
    std::vector<Handle> live;
    Handle h;
    while (arena.TryAlloc(4000, &h)) live.push_back(h);
    EXPECT_GT(live.size(), 20u);  // both regions were used
    EXPECT_TRUE(arena.CheckIntegrity().ok()) << arena.CheckIntegrity();
    EXPECT_EQ(arena.Stats().regions, 2u);
  }
  EXPECT_EQ(released, 2);
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

// ---- The largest free block. ----

// Blocks of 8192 to 8447 bytes share one size class (128 to 131 granules of
// 64 bytes: a class four granules wide).
constexpr size_t kClassStart = 8192;

// An uncached 1 MiB arena laid out as
//   [lead 64 B | hole 0 | 128 B | hole 1 | 128 B | hole 2 | 128 B | fill ...]
// with every block live and the rest of the arena allocated, so that the
// holes, once freed, are its only free blocks of 8 KiB or more.
struct TopClassHoles {
  std::unique_ptr<TlsfArena> arena;
  Handle lead;
  std::array<Handle, 3> holes;
  std::array<Handle, 3> separators;
};

TopClassHoles MakeTopClassHoles(const std::array<size_t, 3>& sizes) {
  TopClassHoles t;
  t.arena = MakeArena(1 * kMiB, Uncached());
  t.lead = *t.arena->Alloc(64);
  for (int k = 0; k < 3; ++k) {
    t.holes[k] = *t.arena->Alloc(sizes[k]);
    t.separators[k] = *t.arena->Alloc(128);
  }
  // Allocate the rest: a request for the largest block takes it whole (it
  // fails only when carving metadata nodes just shrank it; then ask again).
  for (int attempt = 0; attempt < 100; ++attempt) {
    const uint64_t largest = t.arena->Stats().largest_free_block;
    if (largest < kClassStart) break;
    (void)t.arena->Alloc(largest);
  }
  EXPECT_LT(t.arena->Stats().largest_free_block, kClassStart);
  return t;
}

// The node describing the block at `addr`: nodes sit in 32-byte slots below
// the top of their region's metadata area.
TlsfArena::Node* NodeOf(const TlsfArena& arena, const void* addr) {
  TlsfArena::Node* found = nullptr;
  arena.WalkBlocks(
      [&](const TlsfRegionInfo& region) {
        auto* top = reinterpret_cast<TlsfArena::Node*>(
            const_cast<char*>(static_cast<const char*>(region.floor)) +
            region.metadata_bytes);
        const size_t nodes = region.metadata_bytes / sizeof(TlsfArena::Node);
        for (size_t k = 0; k < nodes; ++k) {
          if ((top - 1 - k)->addr == addr) found = top - 1 - k;
        }
      },
      nullptr);
  return found;
}

TEST(TlsfArenaTest, LargestFreeBlockIsExactWhenItsClassHoldsSeveralBlocks) {
  TopClassHoles t = MakeTopClassHoles({8320, 8192, 8256});
  // Freed largest first: a list that keeps the last freed block first
  // would report 8192 here, an undercount.
  ASSERT_TRUE(t.arena->Free(t.holes[0]).ok());
  ASSERT_TRUE(t.arena->Free(t.holes[2]).ok());
  ASSERT_TRUE(t.arena->Free(t.holes[1]).ok());
  TlsfStats s = t.arena->Stats();
  EXPECT_EQ(s.largest_free_block, 8320u);
  EXPECT_EQ(s.fragmentation(),
            1.0 - 8320.0 / static_cast<double>(s.free_bytes));
  // An allocation from the class leaves its largest block in place.
  absl::StatusOr<Handle> h = t.arena->Alloc(kClassStart);
  ASSERT_TRUE(h.ok());
  EXPECT_NE(h->address(), t.holes[0].address());
  EXPECT_EQ(t.arena->Stats().largest_free_block, 8320u);
  EXPECT_TRUE(t.arena->CheckIntegrity().ok()) << t.arena->CheckIntegrity();
}

TEST(TlsfArenaTest, LargestFreeBlockStaysExactWhenReallocAbsorbsTheLargest) {
  TopClassHoles t = MakeTopClassHoles({8384, 8192, 8256});
  ASSERT_TRUE(t.arena->Free(t.holes[0]).ok());
  ASSERT_TRUE(t.arena->Free(t.holes[2]).ok());
  ASSERT_TRUE(t.arena->Free(t.holes[1]).ok());
  EXPECT_EQ(t.arena->Stats().largest_free_block, 8384u);
  // The lead block grows in place over all of hole 0, the class's largest
  // block: what is left first in its list (8192) is not its largest (8256).
  absl::StatusOr<Handle> grown = t.arena->Realloc(t.lead, 64 + 8384);
  ASSERT_TRUE(grown.ok());
  ASSERT_EQ(grown->address(), t.lead.address());
  EXPECT_TRUE(t.arena->CheckIntegrity().ok()) << t.arena->CheckIntegrity();
  EXPECT_EQ(t.arena->Stats().largest_free_block, 8256u);
  EXPECT_TRUE(t.arena->CheckIntegrity().ok()) << t.arena->CheckIntegrity();
  EXPECT_EQ(t.arena->Stats().largest_free_block, 8256u);
}

TEST(TlsfArenaTest, CheckIntegrityFindsAListWhoseHeadIsNotItsLargest) {
  TopClassHoles t = MakeTopClassHoles({8192, 8256, 8192});
  ASSERT_TRUE(t.arena->Free(t.holes[1]).ok());  // 8256, the list's head
  ASSERT_TRUE(t.arena->Free(t.holes[0]).ok());  // 8192, linked second
  ASSERT_TRUE(t.arena->CheckIntegrity().ok());
  TlsfArena::Node* second = NodeOf(*t.arena, t.holes[0].address());
  TlsfArena::Node* separator = NodeOf(*t.arena, t.separators[0].address());
  TlsfArena::Node* head = NodeOf(*t.arena, t.holes[1].address());
  ASSERT_NE(second, nullptr);
  ASSERT_NE(separator, nullptr);
  ASSERT_NE(head, nullptr);
  // Move 64 bytes from the head to the second block (the separator between
  // them shifts up): the chain, the classes and every count stay right, but
  // the second block is now the larger one.
  second->size_flags += 64;
  separator->addr += 64;
  head->addr += 64;
  head->size_flags -= 64;
  absl::Status status = t.arena->CheckIntegrity();
  EXPECT_THAT(Message(status), HasSubstr("invariant 9"));
  second->size_flags -= 64;
  separator->addr -= 64;
  head->addr -= 64;
  head->size_flags += 64;
  EXPECT_TRUE(t.arena->CheckIntegrity().ok());
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

// ---- The locked wrapper. ----

TEST(LockedTlsfArenaTest, ThreadsShareOneArenaSafely) {
  absl::StatusOr<std::unique_ptr<LockedTlsfArena>> made =
      LockedTlsfArena::Create();
  ASSERT_TRUE(made.ok());
  LockedTlsfArena& arena = **made;
  constexpr int kThreads = 4;
  constexpr int kRounds = 500;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&arena, t] {
      std::mt19937 rng(t);
      std::vector<std::pair<Handle, unsigned char>> live;
      for (int i = 0; i < kRounds; ++i) {
        absl::StatusOr<Handle> h = arena.Alloc(16 + rng() % 500);
        ASSERT_TRUE(h.ok());
        const auto tag = static_cast<unsigned char>(t * 31 + i);
        std::memset(h->address(), tag, h->size());
        live.push_back({*h, tag});
        if (live.size() > 8) {
          const auto [old, old_tag] = live.front();
          live.erase(live.begin());
          const auto* bytes = static_cast<unsigned char*>(old.address());
          for (size_t k = 0; k < old.size(); ++k) ASSERT_EQ(bytes[k], old_tag);
          if (i % 2 == 0) {
            ASSERT_TRUE(arena.Free(old).ok());
          } else {
            arena.Deallocate(old.address(), old.size());
          }
        }
      }
      for (const auto& block : live) ASSERT_TRUE(arena.Free(block.first).ok());
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_TRUE(arena.CheckIntegrity().ok()) << arena.CheckIntegrity();
  const AllocatorStats stats = arena.stats();
  EXPECT_EQ(stats.allocations, uint64_t{kThreads * kRounds});
  EXPECT_EQ(stats.deallocations, uint64_t{kThreads * kRounds});
  EXPECT_EQ(arena.Stats().free_blocks, 1u);
  EXPECT_EQ(arena.Allocate(64, 3), nullptr);
  EXPECT_EQ(arena.stats().failed_requests, 1u);
}

}  // namespace
}  // namespace tessera
