// Copyright 2026 The Tessera Authors.

#include "alloc/system/system_allocator.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "alloc/pool/internal/violation_recorder.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tessera {
namespace system_internal {

class IntegrityTestPeer {
 public:
  static internal::LiveBlockRegistry* registry(SystemAllocator& a) {
    return a.registry_.get();
  }
  // Bytes in use without a live block (and back).
  static void RecordPhantomBytes(SystemAllocator& a, size_t bytes, bool add) {
    a.stats_.RecordAllocation(add ? bytes : 0);
    a.stats_.RecordDeallocation(add ? 0 : bytes);
  }
};

}  // namespace system_internal

namespace {

using ::testing::HasSubstr;
using IntegrityPeer = system_internal::IntegrityTestPeer;

bool IsAligned(const void* ptr, size_t alignment) {
  return (reinterpret_cast<uintptr_t>(ptr) & (alignment - 1)) == 0;
}

// Records contract violations instead of aborting, for the duration of a test.
using pool_internal::ViolationRecorder;

SystemAllocatorOptions Tracked() {
  SystemAllocatorOptions options;
  options.track_live_blocks = true;
  return options;
}

SystemAllocatorOptions Untracked() {
  SystemAllocatorOptions options;
  options.track_live_blocks = false;
  return options;
}

enum class Kind { kMalloc, kAligned32, kAligned64, kZeroed };

std::unique_ptr<SystemAllocator> Make(Kind kind,
                                      const SystemAllocatorOptions& options) {
  switch (kind) {
    case Kind::kMalloc:
      return std::make_unique<MallocAllocator>(options);
    case Kind::kAligned32:
      return std::make_unique<AlignedAllocator>(32, options);
    case Kind::kAligned64:
      return std::make_unique<AlignedAllocator>(64, options);
    case Kind::kZeroed:
      return std::make_unique<ZeroedAllocator>(kDefaultAlignment, options);
  }
  return nullptr;
}

class SystemAllocatorTest : public ::testing::TestWithParam<Kind> {
 protected:
  std::unique_ptr<SystemAllocator> allocator_ = Make(GetParam(), Tracked());
};

TEST_P(SystemAllocatorTest, EveryPointerHonoursRequestedAndMinimumAlignment) {
  for (size_t alignment = 1; alignment <= 8192; alignment <<= 1) {
    for (size_t bytes : {0, 1, 7, 64, 100, 1024, 4097, 100000}) {
      void* ptr = allocator_->Allocate(bytes, alignment);
      ASSERT_NE(ptr, nullptr) << bytes << " " << alignment;
      EXPECT_TRUE(IsAligned(ptr, alignment)) << bytes << " " << alignment;
      EXPECT_TRUE(IsAligned(ptr, allocator_->min_alignment()));
      EXPECT_TRUE(IsAligned(ptr, kDefaultAlignment));
      std::memset(ptr, 0xAB, bytes);
      allocator_->Deallocate(ptr, bytes, alignment);
    }
  }
  EXPECT_EQ(allocator_->stats().bytes_in_use, 0u);
  EXPECT_TRUE(allocator_->CheckIntegrity().ok());
}

TEST_P(SystemAllocatorTest, ZeroedAllocationReadsAsZero) {
  // Dirty the heap first so a recycled chunk would show through.
  for (size_t bytes : {64, 4096, 300000}) {
    void* dirty = allocator_->Allocate(bytes, 64);
    std::memset(dirty, 0xFF, bytes);
    allocator_->Deallocate(dirty, bytes, 64);
    auto* zeroed = static_cast<unsigned char*>(allocator_->AllocateZeroed(bytes, 64));
    ASSERT_NE(zeroed, nullptr);
    for (size_t i = 0; i < bytes; ++i) ASSERT_EQ(zeroed[i], 0) << i;
    allocator_->Deallocate(zeroed, bytes, 64);
  }
}

TEST_P(SystemAllocatorTest, StatsCountEveryCall) {
  void* a = allocator_->Allocate(100);
  void* b = allocator_->AllocateZeroed(200, 64);
  AllocatorStats s = allocator_->stats();
  EXPECT_EQ(s.allocations, 2u);
  EXPECT_EQ(s.bytes_in_use, 300u);
  a = allocator_->Reallocate(a, 100, 1000);
  ASSERT_NE(a, nullptr);
  s = allocator_->stats();
  EXPECT_EQ(s.reallocations, 1u);
  EXPECT_EQ(s.bytes_in_use, 1200u);
  EXPECT_EQ(s.peak_bytes_in_use, 1200u);
  allocator_->Deallocate(a, 1000);
  allocator_->Deallocate(b, 200, 64);
  s = allocator_->stats();
  EXPECT_EQ(s.deallocations, 2u);
  EXPECT_EQ(s.bytes_in_use, 0u);
  EXPECT_EQ(s.peak_bytes_in_use, 1200u);
  EXPECT_EQ(s.failed_requests, 0u);
  EXPECT_TRUE(allocator_->CheckIntegrity().ok());
}

TEST_P(SystemAllocatorTest, ZeroBytesGivesAUniqueBlock) {
  void* a = allocator_->Allocate(0);
  void* b = allocator_->Allocate(0);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_NE(a, b);
  allocator_->Deallocate(a, 0);
  allocator_->Deallocate(b, 0);
  EXPECT_EQ(allocator_->stats().live_allocations(), 0u);
}

TEST_P(SystemAllocatorTest, ReallocateKeepsContentsAndAlignment) {
  for (size_t alignment : {16, 64, 256, 4096}) {
    size_t bytes = 24;
    auto* ptr = static_cast<unsigned char*>(allocator_->Allocate(bytes, alignment));
    for (size_t i = 0; i < bytes; ++i) ptr[i] = static_cast<unsigned char>(i);
    for (size_t next : {100, 5000, 70000, 30, 3000000, 10}) {
      ptr = static_cast<unsigned char*>(
          allocator_->Reallocate(ptr, bytes, next, alignment));
      ASSERT_NE(ptr, nullptr);
      EXPECT_TRUE(IsAligned(ptr, alignment));
      const size_t kept = std::min(bytes, next);
      for (size_t i = 0; i < std::min<size_t>(kept, 10); ++i) {
        ASSERT_EQ(ptr[i], static_cast<unsigned char>(i)) << alignment;
      }
      for (size_t i = 0; i < next; ++i) ptr[i] = static_cast<unsigned char>(i);
      bytes = next;
    }
    allocator_->Deallocate(ptr, bytes, alignment);
  }
  EXPECT_TRUE(allocator_->CheckIntegrity().ok());
}

TEST_P(SystemAllocatorTest, ReallocateOfNullAllocates) {
  void* ptr = allocator_->Reallocate(nullptr, 0, 64, 64);
  ASSERT_NE(ptr, nullptr);
  EXPECT_TRUE(IsAligned(ptr, 64));
  EXPECT_EQ(allocator_->stats().allocations, 1u);
  allocator_->Deallocate(ptr, 64, 64);
}

TEST_P(SystemAllocatorTest, BadAlignmentFailsAndIsCounted) {
  EXPECT_EQ(allocator_->Allocate(64, 3), nullptr);
  EXPECT_EQ(allocator_->AllocateZeroed(64, 0), nullptr);
  EXPECT_EQ(allocator_->Allocate(64, kMaxAlignment * 2), nullptr);
  EXPECT_EQ(allocator_->stats().failed_requests, 3u);
  absl::StatusOr<void*> result = allocator_->AllocateChecked(64, 48);
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(result.status().message()), HasSubstr("alignment 48"));
  EXPECT_EQ(allocator_->stats().failed_requests, 4u);
}

TEST_P(SystemAllocatorTest, OverflowingSizesAreRejected) {
  for (size_t bytes : {SIZE_MAX, SIZE_MAX - 1, SIZE_MAX - 62}) {
    EXPECT_EQ(allocator_->Allocate(bytes, 64), nullptr);
    absl::StatusOr<void*> result = allocator_->AllocateChecked(bytes, 64);
    EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(result.status().message()),
                HasSubstr(std::to_string(bytes)));
  }
  absl::StatusOr<void*> huge = allocator_->AllocateChecked(SIZE_MAX / 2, 64);
  EXPECT_EQ(huge.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(allocator_->stats().live_allocations(), 0u);
}

TEST_P(SystemAllocatorTest, OutOfMemoryIsResourceExhausted) {
  // 2^46 bytes (64 TiB) passes validation but no machine here can map it.
  absl::StatusOr<void*> result = allocator_->AllocateChecked(size_t{1} << 46);
  EXPECT_EQ(result.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(result.status().message()), HasSubstr("out of memory"));
}

TEST_P(SystemAllocatorTest, DoubleFreeIsReportedAndNotPassedOn) {
  ViolationRecorder recorder;
  void* ptr = allocator_->Allocate(64);
  allocator_->Deallocate(ptr, 64);
  allocator_->Deallocate(ptr, 64);
  ASSERT_EQ(recorder.violations().size(), 1u);
  EXPECT_EQ(recorder.violations()[0].violation, ContractViolation::kDoubleFree);
  EXPECT_EQ(recorder.violations()[0].ptr, ptr);
  EXPECT_EQ(allocator_->stats().deallocations, 1u);
  EXPECT_TRUE(allocator_->CheckIntegrity().ok());
}

TEST_P(SystemAllocatorTest, ForeignPointerIsReported) {
  ViolationRecorder recorder;
  alignas(64) static char not_ours[128];
  allocator_->Deallocate(not_ours, 64);
  ASSERT_EQ(recorder.violations().size(), 1u);
  EXPECT_EQ(recorder.violations()[0].violation,
            ContractViolation::kForeignPointer);
  absl::Status status = allocator_->DeallocateChecked(not_ours + 64, 64);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(status.message()), HasSubstr("not allocated"));
  EXPECT_EQ(allocator_->stats().deallocations, 0u);
}

TEST_P(SystemAllocatorTest, CheckedDeallocateRejectsDoubleFree) {
  void* ptr = allocator_->Allocate(32);
  EXPECT_TRUE(allocator_->DeallocateChecked(ptr, 32).ok());
  absl::Status status = allocator_->DeallocateChecked(ptr, 32);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(status.message()), HasSubstr("double free"));
}

TEST_P(SystemAllocatorTest, SizeMismatchIsReported) {
  ViolationRecorder recorder;
  void* ptr = allocator_->Allocate(64);
  allocator_->Deallocate(ptr, 65);
  ASSERT_EQ(recorder.violations().size(), 1u);
  EXPECT_EQ(recorder.violations()[0].violation, ContractViolation::kSizeMismatch);
  allocator_->Deallocate(ptr, 64);
  EXPECT_EQ(allocator_->stats().live_allocations(), 0u);
}

TEST_P(SystemAllocatorTest, ReallocateReportsTheRightViolation) {
  ViolationRecorder recorder;
  void* ptr = allocator_->Allocate(64);
  EXPECT_EQ(allocator_->Reallocate(ptr, 65, 128), nullptr);
  ASSERT_EQ(recorder.violations().size(), 1u);
  EXPECT_EQ(recorder.violations()[0].violation, ContractViolation::kSizeMismatch);
  allocator_->Deallocate(ptr, 64);
  EXPECT_EQ(allocator_->Reallocate(ptr, 64, 128), nullptr);
  ASSERT_EQ(recorder.violations().size(), 2u);
  EXPECT_EQ(recorder.violations()[1].violation, ContractViolation::kDoubleFree);
  EXPECT_EQ(allocator_->stats().failed_requests, 2u);
  EXPECT_EQ(allocator_->stats().live_allocations(), 0u);
}

TEST_P(SystemAllocatorTest, ThreadsShareOneAllocator) {
  constexpr int kThreads = 4;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([this, t] {
      std::vector<std::pair<void*, size_t>> blocks;
      for (int i = 0; i < 2000; ++i) {
        const size_t bytes = 16 + (i % 7) * 24;
        void* ptr = allocator_->Allocate(bytes, 64);
        ASSERT_NE(ptr, nullptr);
        std::memset(ptr, t, bytes);
        blocks.emplace_back(ptr, bytes);
        if (i % 3 == 0) {
          allocator_->Deallocate(blocks.back().first, blocks.back().second, 64);
          blocks.pop_back();
        }
      }
      for (auto [ptr, bytes] : blocks) {
        EXPECT_EQ(static_cast<unsigned char*>(ptr)[bytes - 1], t);
        allocator_->Deallocate(ptr, bytes, 64);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  const AllocatorStats s = allocator_->stats();
  EXPECT_EQ(s.live_allocations(), 0u);
  EXPECT_EQ(s.bytes_in_use, 0u);
  EXPECT_TRUE(allocator_->CheckIntegrity().ok());
}

INSTANTIATE_TEST_SUITE_P(AllKinds, SystemAllocatorTest,
                         ::testing::Values(Kind::kMalloc, Kind::kAligned32,
                                           Kind::kAligned64, Kind::kZeroed));

// Blocks of 4 MiB and more are mapped blocks (internal/mapped_blocks.h):
// 2 MiB-aligned, kept mapped after a free, zeroed on reuse by giving their
// pages back, found by address whatever size a free claims.
class MappedBlockTest
    : public ::testing::TestWithParam<std::tuple<Kind, bool>> {
 protected:
  MappedBlockTest() {
    SystemAllocatorOptions options =
        std::get<1>(GetParam()) ? Tracked() : Untracked();
    allocator_ = Make(std::get<0>(GetParam()), options);
  }
  std::unique_ptr<SystemAllocator> allocator_;
};

bool AllBytesAre(const void* p, size_t bytes, unsigned char value) {
  const auto* c = static_cast<const unsigned char*>(p);
  return std::all_of(c, c + bytes, [&](unsigned char b) { return b == value; });
}

TEST_P(MappedBlockTest, BigBlocksAreReusedZeroedAndAligned) {
  constexpr size_t kBytes = (size_t{40} << 20) + 64;
  for (size_t alignment : {size_t{1}, size_t{64}, size_t{4096}, size_t{2} << 20}) {
    auto* dirty =
        static_cast<unsigned char*>(allocator_->Allocate(kBytes, alignment));
    ASSERT_NE(dirty, nullptr);
    // Sanitizer builds leave big blocks to glibc, where ASan watches them.
    if (kSystemThreadCacheEnabled) {
      EXPECT_TRUE(IsAligned(dirty, size_t{2} << 20)) << alignment;
    }
    std::memset(dirty, 0xA5, kBytes);
    allocator_->Deallocate(dirty, kBytes, alignment);
    EXPECT_TRUE(allocator_->CheckIntegrity().ok());
    auto* zeroed = static_cast<unsigned char*>(
        allocator_->AllocateZeroed(kBytes, alignment));
    ASSERT_NE(zeroed, nullptr);
    if (kSystemThreadCacheEnabled) {
      EXPECT_EQ(zeroed, dirty) << "the kept mapping is reused";
    }
    EXPECT_TRUE(AllBytesAre(zeroed, kBytes, 0)) << alignment;
    zeroed[kBytes - 1] = 1;
    allocator_->Deallocate(zeroed, kBytes, alignment);
  }
  EXPECT_EQ(allocator_->stats().bytes_in_use, 0u);
  EXPECT_TRUE(allocator_->CheckIntegrity().ok());
  if (kSystemThreadCacheEnabled) {
    EXPECT_GE(allocator_->cached_mapping_bytes(), kBytes);
  }
  allocator_->ReleaseCachedMappings();
  EXPECT_EQ(allocator_->cached_mapping_bytes(), 0u);
}

TEST_P(MappedBlockTest, ReallocateMovesBetweenMappedAndHeapBlocks) {
  constexpr size_t kBig = size_t{5} << 20;  // capacity 6 MiB
  constexpr size_t kHuge = size_t{2} << 20;
  // Sanitizer builds leave big blocks to glibc: contents are checked there,
  // addresses only where the blocks are mapped.
  const bool mapped = kSystemThreadCacheEnabled;
  auto* p = static_cast<unsigned char*>(allocator_->Allocate(kBig, 64));
  ASSERT_NE(p, nullptr);
  if (mapped) {
    EXPECT_TRUE(IsAligned(p, kHuge)) << "a mapped block";
  }
  std::memset(p, 0x22, kBig);
  // Within its capacity: in place.
  auto* q = static_cast<unsigned char*>(
      allocator_->Reallocate(p, kBig, kBig + 4096, 64));
  ASSERT_NE(q, nullptr);
  if (mapped) {
    EXPECT_EQ(q, p);
  }
  EXPECT_TRUE(AllBytesAre(q, kBig, 0x22));
  // Past it: its pages move to a new mapped block, contents kept.
  auto* r = static_cast<unsigned char*>(
      allocator_->Reallocate(q, kBig + 4096, 3 * kBig, 64));
  ASSERT_NE(r, nullptr);
  if (mapped) {
    EXPECT_TRUE(IsAligned(r, kHuge));
  }
  EXPECT_TRUE(AllBytesAre(r, kBig, 0x22));
  if (std::get<0>(GetParam()) == Kind::kZeroed) {
    EXPECT_TRUE(AllBytesAre(r + kBig + 4096, 2 * kBig - 4096, 0));
  }
  std::memset(r, 0x33, 3 * kBig);
  // Below half its capacity but still big: shrunk in place.
  auto* s = static_cast<unsigned char*>(
      allocator_->Reallocate(r, 3 * kBig, kBig, 64));
  ASSERT_NE(s, nullptr);
  if (mapped) {
    EXPECT_EQ(s, r);
  }
  EXPECT_TRUE(AllBytesAre(s, kBig, 0x33));
  EXPECT_TRUE(allocator_->CheckIntegrity().ok());
  // Small again: a heap block, and the mapping is kept for reuse.
  auto* t = static_cast<unsigned char*>(
      allocator_->Reallocate(s, kBig, 100, 64));
  ASSERT_NE(t, nullptr);
  EXPECT_TRUE(AllBytesAre(t, 100, 0x33));
  if (mapped) {
    EXPECT_GE(allocator_->cached_mapping_bytes(), kBig);
  }
  // A heap block grown past 4 MiB stays glibc's (its realloc moves pages).
  auto* u = static_cast<unsigned char*>(
      allocator_->Reallocate(t, 100, 2 * kBig, 64));
  ASSERT_NE(u, nullptr);
  EXPECT_TRUE(AllBytesAre(u, 100, 0x33));
  allocator_->Deallocate(u, 2 * kBig, 64);
  EXPECT_EQ(allocator_->stats().bytes_in_use, 0u);
  EXPECT_EQ(allocator_->stats().live_allocations(), 0u);
  EXPECT_TRUE(allocator_->CheckIntegrity().ok());
}

TEST_P(MappedBlockTest, ADoubleFreeOfAMappedBlockIsReported) {
  ViolationRecorder recorder;
  constexpr size_t kBig = size_t{8} << 20;
  void* p = allocator_->Allocate(kBig);
  ASSERT_NE(p, nullptr);
  allocator_->Deallocate(p, kBig);
  // Without a registry or a cache (an untracked allocator in a sanitizer
  // build) the block is unmapped at once and nothing remembers it.
  if (std::get<1>(GetParam()) || kSystemThreadCacheEnabled) {
    allocator_->Deallocate(p, kBig);
    ASSERT_EQ(recorder.violations().size(), 1u);
    EXPECT_EQ(recorder.violations()[0].violation,
              ContractViolation::kDoubleFree);
  }
  EXPECT_EQ(allocator_->stats().bytes_in_use, 0u);
  EXPECT_TRUE(allocator_->CheckIntegrity().ok());
}

INSTANTIATE_TEST_SUITE_P(
    AllKinds, MappedBlockTest,
    ::testing::Combine(::testing::Values(Kind::kMalloc, Kind::kAligned32,
                                         Kind::kAligned64, Kind::kZeroed),
                       ::testing::Bool()));

// Untracked (release): a free that understates a mapped block's size still
// finds the block by its address (no glibc free of a mapping); the stats take
// the size the free gave, which CheckIntegrity then reports.
TEST(MappedBlockSizeTest, AFreeWithTheWrongSizeStillFindsTheMappedBlock) {
  MallocAllocator allocator(Untracked());
  void* p = allocator.Allocate(size_t{5} << 20);
  ASSERT_NE(p, nullptr);
  allocator.Deallocate(p, 100);  // a lie the mapped path does not rely on
  EXPECT_EQ(allocator.stats().live_allocations(), 0u);
  if (kSystemThreadCacheEnabled) {
    EXPECT_EQ(allocator.cached_mapping_bytes(), size_t{6} << 20);
    EXPECT_EQ(allocator.Allocate(size_t{5} << 20), p) << "kept and reused";
    allocator.Deallocate(p, size_t{5} << 20);
  }
  const absl::Status status = allocator.CheckIntegrity();
  EXPECT_FALSE(status.ok());
  EXPECT_THAT(std::string(status.message()), ::testing::HasSubstr("invariant 2"));
}

// MallocAllocator's own blocks of 64 KiB to 4 MiB share the thread's big
// cache: reused (zeroed with a memset of a block still in cache), bounded,
// and a second free of one while it is cached is caught by looking it up.
TEST(MallocAllocatorTest, PlainBigBlocksAreCachedReusedZeroedAndChecked) {
  ReleaseCallingThreadCache();
  ViolationRecorder recorder;
  MallocAllocator allocator(Untracked());
  constexpr size_t kBytes = 400 << 10;
  auto* dirty = static_cast<unsigned char*>(allocator.Allocate(kBytes));
  ASSERT_NE(dirty, nullptr);
  std::memset(dirty, 0xA5, kBytes);
  allocator.Deallocate(dirty, kBytes);
  if (!kSystemThreadCacheEnabled) {
    EXPECT_EQ(CallingThreadCacheUsage().blocks, 0u);
    return;
  }
  EXPECT_EQ(CallingThreadCacheUsage().blocks, 1u);
  EXPECT_GE(CallingThreadCacheUsage().bytes, kBytes);
  auto* zeroed = static_cast<unsigned char*>(allocator.AllocateZeroed(kBytes));
  EXPECT_EQ(zeroed, dirty) << "the cached block is reused";
  EXPECT_TRUE(AllBytesAre(zeroed, kBytes, 0));
  std::memset(zeroed, 0x5A, kBytes);
  allocator.Deallocate(zeroed, kBytes);
  // A much smaller request does not take it; a similar unzeroed one does.
  void* small = allocator.Allocate(100 << 10);
  EXPECT_NE(small, dirty);
  allocator.Deallocate(small, 100 << 10);
  void* again = allocator.Allocate(kBytes - 1000);
  EXPECT_EQ(again, dirty);
  allocator.Deallocate(again, kBytes - 1000);
  // Freed or reallocated again while cached: reported, nothing passed on.
  allocator.Deallocate(again, kBytes - 1000);
  EXPECT_EQ(allocator.Reallocate(again, kBytes - 1000, 2 * kBytes), nullptr);
  ASSERT_EQ(recorder.violations().size(), 2u);
  EXPECT_EQ(recorder.violations()[0].violation, ContractViolation::kDoubleFree);
  EXPECT_EQ(recorder.violations()[1].violation, ContractViolation::kDoubleFree);
  // Bounded like the aligned blocks: at most 4 blocks and 64 MiB.
  std::vector<void*> blocks;
  for (int i = 0; i < 6; ++i) blocks.push_back(allocator.Allocate(size_t{3} << 20));
  for (void* ptr : blocks) allocator.Deallocate(ptr, size_t{3} << 20);
  EXPECT_LE(CallingThreadCacheUsage().blocks, 4u);
  EXPECT_LE(CallingThreadCacheUsage().bytes, size_t{64} << 20);
  ReleaseCallingThreadCache();
  EXPECT_EQ(CallingThreadCacheUsage().blocks, 0u);
  EXPECT_EQ(allocator.stats().live_allocations(), 0u);
}

// A plain block cached by one thread and freed again on another is caught
// by the mark it carries while cached (the other thread's cache is not
// looked at).
TEST(MallocAllocatorTest, ASecondFreeOnAnotherThreadOfACachedPlainBlockIsCaught) {
  if (!kSystemThreadCacheEnabled) return;  // no cache: glibc's own checks
  ReleaseCallingThreadCache();
  ViolationRecorder recorder;
  MallocAllocator allocator(Untracked());
  constexpr size_t kBytes = 200 << 10;
  void* block = allocator.Allocate(kBytes);
  ASSERT_NE(block, nullptr);
  allocator.Deallocate(block, kBytes);  // into this thread's cache
  std::thread([&] { allocator.Deallocate(block, kBytes); }).join();
  ASSERT_EQ(recorder.violations().size(), 1u);
  EXPECT_EQ(recorder.violations()[0].violation, ContractViolation::kDoubleFree);
  // Still cached here, once: taken again, then freed for good.
  EXPECT_EQ(allocator.Allocate(kBytes), block);
  allocator.Deallocate(block, kBytes);
  ReleaseCallingThreadCache();
}

// Only requests below 4 MiB look in the thread cache, so a block of 8 MiB
// or more (a buffer grown there by realloc) is given back, not kept.
TEST(MallocAllocatorTest, BlocksTooBigToBeTakenAgainAreNotCached) {
  ReleaseCallingThreadCache();
  MallocAllocator allocator(Untracked());
  void* block = allocator.Allocate(100 << 10);
  ASSERT_NE(block, nullptr);
  block = allocator.Reallocate(block, 100 << 10, size_t{20} << 20);
  ASSERT_NE(block, nullptr);
  allocator.Deallocate(block, size_t{20} << 20);
  EXPECT_EQ(CallingThreadCacheUsage().blocks, 0u);
  EXPECT_EQ(CallingThreadCacheUsage().bytes, 0u);
}

TEST(ZeroedAllocatorTest, EveryAllocationAndGrowthIsZero) {
  ZeroedAllocator allocator(64, Tracked());
  auto* ptr = static_cast<unsigned char*>(allocator.Allocate(1000));
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(ptr[i], 0);
  std::memset(ptr, 7, 1000);
  ptr = static_cast<unsigned char*>(allocator.Reallocate(ptr, 1000, 5000));
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(ptr[i], 7);
  for (int i = 1000; i < 5000; ++i) ASSERT_EQ(ptr[i], 0) << i;
  allocator.Deallocate(ptr, 5000);
}

TEST(AlignedAllocatorTest, RejectsBadMinimumAlignment) {
  auto bad = AlignedAllocator::Create(48);
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("48"));
  auto good = AlignedAllocator::Create(128);
  ASSERT_TRUE(good.ok());
  EXPECT_EQ((*good)->min_alignment(), 128u);
  EXPECT_EQ((*good)->name(), "aligned128");
}

TEST(AlignedAllocatorTest, HeaderCatchesForeignPointerWithoutRegistry) {
  ViolationRecorder recorder;
  AlignedAllocator allocator(64, Untracked());
  alignas(64) static char not_ours[256] = {};
  allocator.Deallocate(not_ours + 64, 64);
  ASSERT_EQ(recorder.violations().size(), 1u);
  EXPECT_EQ(recorder.violations()[0].violation,
            ContractViolation::kForeignPointer);
  absl::Status status = allocator.DeallocateChecked(not_ours + 128, 64);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  // A misaligned pointer cannot be one of its blocks at all.
  void* ptr = allocator.Allocate(64);
  EXPECT_FALSE(allocator.DeallocateChecked(static_cast<char*>(ptr) + 8, 64).ok());
  EXPECT_TRUE(allocator.DeallocateChecked(ptr, 64).ok());
}

TEST(AlignedAllocatorTest, ThreadCacheRecyclesSmallBlocksAndCatchesDoubleFree) {
  if (!kSystemThreadCacheEnabled) {
    // Sanitizer builds: no cache; ASan itself reports the double free.
    EXPECT_TRUE(SystemAllocatorOptions().track_live_blocks);
    return;
  }
  ViolationRecorder recorder;
  AlignedAllocator allocator(64, Untracked());
  void* first = allocator.Allocate(200);
  allocator.Deallocate(first, 200);
  // Same size class, same thread: the cached block comes back.
  void* second = allocator.Allocate(195);
  EXPECT_EQ(second, first);
  allocator.Deallocate(second, 195);
  // Freed again while it sits in the cache: caught by the header's flag.
  allocator.Deallocate(second, 195);
  ASSERT_EQ(recorder.violations().size(), 1u);
  EXPECT_EQ(recorder.violations()[0].violation, ContractViolation::kDoubleFree);
  EXPECT_THAT(std::string(allocator.DeallocateChecked(second, 195).message()),
              HasSubstr("double free"));
  EXPECT_EQ(allocator.stats().live_allocations(), 0u);
}

TEST(AlignedAllocatorTest, ThreadCacheRecyclesBigBlocksWithinItsBounds) {
  ReleaseCallingThreadCache();
  if (!kSystemThreadCacheEnabled) {
    AlignedAllocator allocator(64, Untracked());
    allocator.Deallocate(allocator.Allocate(100 << 10), 100 << 10);
    EXPECT_EQ(CallingThreadCacheUsage().blocks, 0u);
    return;
  }
  ViolationRecorder recorder;
  AlignedAllocator allocator(64, Untracked());
  const size_t bytes = 100 << 10;
  void* first = allocator.Allocate(bytes);
  allocator.Deallocate(first, bytes);
  EXPECT_EQ(CallingThreadCacheUsage().blocks, 1u);
  EXPECT_GE(CallingThreadCacheUsage().bytes, bytes);
  // A request far smaller than the cached block does not take it...
  void* small = allocator.Allocate(bytes / 4);
  EXPECT_NE(small, first);
  allocator.Deallocate(small, bytes / 4);
  // ...a similar one does, still aligned.
  void* second = allocator.Allocate(bytes - 1000);
  EXPECT_EQ(second, first);
  std::memset(second, 7, bytes - 1000);
  allocator.Deallocate(second, bytes - 1000);
  // Freed again while cached: a double free, caught by the header's flag.
  allocator.Deallocate(second, bytes - 1000);
  ASSERT_EQ(recorder.violations().size(), 1u);
  EXPECT_EQ(recorder.violations()[0].violation, ContractViolation::kDoubleFree);

  // Bounded: six 3 MiB blocks freed leave at most 4 blocks (blocks of 4 MiB
  // and more are mapped blocks, kept by the allocator, not the thread).
  std::vector<void*> big;
  for (int i = 0; i < 6; ++i) big.push_back(allocator.Allocate(size_t{3} << 20));
  for (void* ptr : big) allocator.Deallocate(ptr, size_t{3} << 20);
  EXPECT_LE(CallingThreadCacheUsage().blocks, 4u);
  EXPECT_LE(CallingThreadCacheUsage().bytes, size_t{64} << 20);
  EXPECT_GE(CallingThreadCacheUsage().bytes, size_t{9} << 20);
  ReleaseCallingThreadCache();
  EXPECT_EQ(CallingThreadCacheUsage().blocks, 0u);
  EXPECT_EQ(CallingThreadCacheUsage().bytes, 0u);
  EXPECT_EQ(allocator.stats().bytes_in_use, 0u);

  // A zeroing allocator never reuses big cached blocks, so it keeps none.
  ZeroedAllocator zeroed(64, Untracked());
  zeroed.Deallocate(zeroed.Allocate(bytes), bytes);
  EXPECT_EQ(CallingThreadCacheUsage().blocks, 0u);
}

// A zeroed request below the crossover of alloc/internal/zero_memory.h
// (4 MiB) takes a dirty cached big block too and must clear all of it; at and
// above it the block is a mapped block, whose dirty pages a zeroed reuse gives
// back. Sizes around the crossover.
TEST(AlignedAllocatorTest, ZeroedRequestReusesADirtyBigBlockAndReadsAllZero) {
  ReleaseCallingThreadCache();
  AlignedAllocator allocator(64, Untracked());
  const size_t sizes[] = {100 << 10, (size_t{4} << 20) - 4096, size_t{4} << 20,
                          (size_t{4} << 20) + 12345, size_t{10} << 20};
  for (size_t bytes : sizes) {
    auto* dirty = static_cast<unsigned char*>(allocator.Allocate(bytes));
    ASSERT_NE(dirty, nullptr);
    std::memset(dirty, 0xA5, bytes);
    allocator.Deallocate(dirty, bytes);
    auto* zeroed = static_cast<unsigned char*>(allocator.AllocateZeroed(bytes));
    ASSERT_NE(zeroed, nullptr);
    if (kSystemThreadCacheEnabled) {
      EXPECT_EQ(zeroed, dirty) << bytes;
    }
    const size_t first_nonzero = static_cast<size_t>(
        std::find_if(zeroed, zeroed + bytes,
                     [](unsigned char c) { return c != 0; }) -
        zeroed);
    EXPECT_EQ(first_nonzero, bytes) << bytes;
    allocator.Deallocate(zeroed, bytes);
  }
  ReleaseCallingThreadCache();
  EXPECT_TRUE(allocator.CheckIntegrity().ok());
}

TEST(AlignedAllocatorTest, BigCacheTrustsGlibcNotTheClaimedSize) {
  ReleaseCallingThreadCache();
  AlignedAllocator allocator(64, Untracked());
  void* first = allocator.Allocate(2048);
  ASSERT_NE(first, nullptr);
  // A caller that lies about the size (untracked: not detectable here)...
  allocator.Deallocate(first, size_t{1} << 20);
  // ...must not get that 2 KiB block back for a 1 MiB request. (Without a
  // thread cache, in sanitizer builds, the block went back to glibc, which
  // may rightly hand its address out again inside a larger chunk.)
  if (kSystemThreadCacheEnabled) {
    EXPECT_EQ(CallingThreadCacheUsage().blocks, 1u);
    EXPECT_LT(CallingThreadCacheUsage().bytes, size_t{1} << 20)
        << "cached at glibc's size, not the claimed one";
  } else {
    EXPECT_EQ(CallingThreadCacheUsage().blocks, 0u);
  }
  void* big = allocator.Allocate(size_t{1} << 20);
  ASSERT_NE(big, nullptr);
  if (kSystemThreadCacheEnabled) {
    EXPECT_NE(big, first);
  }
  std::memset(big, 1, size_t{1} << 20);
  allocator.Deallocate(big, size_t{1} << 20);
  ReleaseCallingThreadCache();
}

TEST(AlignedAllocatorTest, BlocksFreedOnAnotherThreadAreReusable) {
  AlignedAllocator allocator(32, Untracked());
  std::vector<void*> blocks;
  for (int i = 0; i < 100; ++i) blocks.push_back(allocator.Allocate(64 + i));
  std::thread([&] {
    for (int i = 0; i < 100; ++i) allocator.Deallocate(blocks[i], 64 + i);
    // This thread's cache is flushed back to glibc when it exits.
  }).join();
  for (int i = 0; i < 100; ++i) {
    void* ptr = allocator.Allocate(64 + i);
    ASSERT_NE(ptr, nullptr);
    EXPECT_TRUE(IsAligned(ptr, 32));
    std::memset(ptr, i, 64 + i);
    allocator.Deallocate(ptr, 64 + i);
  }
  EXPECT_EQ(allocator.stats().bytes_in_use, 0u);
}

TEST(SystemAllocatorOptionsTest, HugePageAdviceIsAppliedToLargeBlocks) {
  SystemAllocatorOptions options = Untracked();
  options.huge_pages = true;
  AlignedAllocator allocator(64, options);
  const size_t bytes = size_t{8} << 20;
  void* ptr = allocator.Allocate(bytes);
  ASSERT_NE(ptr, nullptr);
  std::memset(ptr, 1, bytes);
  // The advice is visible in /proc/self/smaps as the "hg" VmFlag on the mapping.
  FILE* smaps = std::fopen("/proc/self/smaps", "r");
  ASSERT_NE(smaps, nullptr);
  char line[512];
  bool in_mapping = false;
  bool advised = false;
  const uintptr_t addr = reinterpret_cast<uintptr_t>(ptr) + bytes / 2;
  while (std::fgets(line, sizeof(line), smaps) != nullptr) {
    uintptr_t begin, end;
    if (std::sscanf(line, "%lx-%lx", &begin, &end) == 2 &&
        std::strchr(line, ' ') != nullptr && std::strchr(line, '-') < std::strchr(line, ' ')) {
      in_mapping = addr >= begin && addr < end;
    } else if (in_mapping && std::strncmp(line, "VmFlags:", 8) == 0) {
      advised = std::strstr(line, " hg") != nullptr;
    }
  }
  std::fclose(smaps);
  EXPECT_TRUE(advised);
  allocator.Deallocate(ptr, bytes);
}

TEST(SystemAllocatorOptionsTest, HugePagesCanBeSwitchedOff) {
  SystemAllocatorOptions options;
  options.huge_pages = false;
  MallocAllocator allocator(options);
  EXPECT_FALSE(allocator.options().huge_pages);
  void* ptr = allocator.Allocate(size_t{8} << 20);
  ASSERT_NE(ptr, nullptr);
  allocator.Deallocate(ptr, size_t{8} << 20);
}

TEST(SystemAllocatorOptionsTest, RegistryIsOnInDebugAndSanitizerBuilds) {
#if !defined(NDEBUG)
  EXPECT_TRUE(SystemAllocatorOptions().track_live_blocks);
#else
  EXPECT_EQ(SystemAllocatorOptions().track_live_blocks,
            internal::kTrackLiveBlocksByDefault);
#endif
}

TEST(GlobalMallocAllocatorTest, IsOneInstance) {
  EXPECT_EQ(&GlobalMallocAllocator(), &GlobalMallocAllocator());
  EXPECT_EQ(GlobalMallocAllocator().name(), "malloc");
}

// ---- CheckIntegrity against state corrupted on purpose: one test per
// numbered invariant of system_allocator.h, each naming it. ----

TEST(SystemAllocatorIntegrityTest, ARegistryThatDisagreesWithTheStatsBreaksInvariant1) {
  MallocAllocator allocator(Tracked());
  internal::LiveBlockRegistry* registry = IntegrityPeer::registry(allocator);
  ASSERT_NE(registry, nullptr);
  ASSERT_TRUE(allocator.CheckIntegrity().ok());
  int phantom = 0;
  registry->Insert(&phantom, sizeof(phantom), alignof(int));
  EXPECT_THAT(std::string(allocator.CheckIntegrity().message()),
              HasSubstr("invariant 1 (registry matches live count) violated"));
  ContractViolation violation;
  ASSERT_TRUE(
      registry->Erase(&phantom, sizeof(phantom), alignof(int), &violation)
          .ok());
  EXPECT_TRUE(allocator.CheckIntegrity().ok()) << allocator.CheckIntegrity();
}

TEST(SystemAllocatorIntegrityTest, BytesInUseWithNoLiveBlockBreakInvariant2) {
  SystemAllocatorOptions untracked;
  untracked.track_live_blocks = false;
  AlignedAllocator allocator(64, untracked);
  ASSERT_TRUE(allocator.CheckIntegrity().ok());
  IntegrityPeer::RecordPhantomBytes(allocator, 64, /*add=*/true);
  EXPECT_THAT(std::string(allocator.CheckIntegrity().message()),
              HasSubstr("invariant 2 (no live block, no bytes in use) "
                        "violated: 64 bytes"));
  IntegrityPeer::RecordPhantomBytes(allocator, 64, /*add=*/false);
  EXPECT_TRUE(allocator.CheckIntegrity().ok()) << allocator.CheckIntegrity();
}

}  // namespace
}  // namespace tessera
