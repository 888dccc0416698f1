// Copyright 2026 The Tessera Authors.
//
// TesseraMalloc through the tessera::Allocator interface (the form that runs
// under the sanitizers). The override has its own test.

#include "alloc/malloc/tessera_malloc.h"

#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "alloc/malloc/internal/engine.h"
#include "alloc/malloc/internal/fast_paths.h"
#include "alloc/pool/internal/violation_recorder.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tessera {
namespace {

using pool_internal::ViolationRecorder;
using ::testing::HasSubstr;
namespace mi = malloc_internal;

TesseraMalloc& M() { return GlobalTesseraMalloc(); }

void ExpectIntact() {
  absl::Status status = M().CheckIntegrity();
  ASSERT_TRUE(status.ok()) << status;
}

// The `VmFlags:` line of the mapping that holds `p` (from /proc/self/smaps),
// with a space after its last flag, or "" when no mapping holds it.
std::string VmFlagsOf(const void* p) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  std::ifstream smaps("/proc/self/smaps");
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    unsigned long lo = 0, hi = 0;  // NOLINT(runtime/int): sscanf's %lx
    if (std::sscanf(line.c_str(), "%lx-%lx", &lo, &hi) == 2) {
      inside = lo <= a && a < hi;
    } else if (inside && line.rfind("VmFlags:", 0) == 0) {
      return line + " ";
    }
  }
  return "";
}

TEST(TesseraMallocTest, EverySizeClassAndHugeSizeRoundTripsWithItsBytes) {
  std::vector<std::pair<unsigned char*, size_t>> blocks;
  for (size_t bytes : {0ul, 1ul, 15ul, 16ul, 17ul, 100ul, 1000ul, 4096ul,
                       10000ul, 65536ul, 100000ul, 262144ul, 262145ul,
                       size_t{3} << 20, size_t{40} << 20}) {
    auto* p = static_cast<unsigned char*>(M().Allocate(bytes));
    ASSERT_NE(p, nullptr) << bytes;
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 16, 0u);
    EXPECT_GE(TesseraMalloc::UsableSize(p), bytes);
    std::memset(p, static_cast<int>(bytes & 0xff), bytes);
    blocks.push_back({p, bytes});
    ExpectIntact();
  }
  for (auto& [p, bytes] : blocks) {
    for (size_t i = 0; i < bytes; i += 997) {
      ASSERT_EQ(p[i], static_cast<unsigned char>(bytes & 0xff));
    }
    M().Deallocate(p, bytes);
    ExpectIntact();
  }
}

TEST(TesseraMallocTest, StatsCountBlocksAndBytes) {
  const AllocatorStats before = M().stats();
  void* a = M().Allocate(100);
  void* b = M().Allocate(size_t{1} << 20);
  const AllocatorStats during = M().stats();
  EXPECT_EQ(during.allocations - before.allocations, 2u);
  EXPECT_GE(during.bytes_in_use - before.bytes_in_use, 100u + (1u << 20));
  M().Deallocate(a, 100);
  M().Deallocate(b, size_t{1} << 20);
  const AllocatorStats after = M().stats();
  EXPECT_EQ(after.deallocations - before.deallocations, 2u);
  EXPECT_EQ(after.bytes_in_use, before.bytes_in_use);
  EXPECT_GE(after.peak_bytes_in_use, during.bytes_in_use);
}

TEST(TesseraMallocTest, ZeroedBlocksReadZeroEvenWhenReused) {
  for (size_t bytes : {64ul, 5000ul, 200000ul, size_t{2} << 20}) {
    void* dirty = M().Allocate(bytes);
    std::memset(dirty, 0xab, bytes);
    M().Deallocate(dirty, bytes);
    auto* z = static_cast<unsigned char*>(M().AllocateZeroed(bytes));
    ASSERT_NE(z, nullptr);
    EXPECT_TRUE(std::all_of(z, z + bytes, [](unsigned char c) { return c == 0; }))
        << bytes;
    M().Deallocate(z, bytes);
  }
}

TEST(TesseraMallocTest, AlignedRequestsAreAlignedAndFreeable) {
  for (size_t alignment = 32; alignment <= (size_t{1} << 22); alignment *= 2) {
    for (size_t bytes : {1ul, 48ul, 1000ul, 70000ul, 300000ul}) {
      void* p = M().Allocate(bytes, alignment);
      ASSERT_NE(p, nullptr) << bytes << " @" << alignment;
      EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % alignment, 0u);
      std::memset(p, 1, bytes);
      ExpectIntact();
      M().Deallocate(p, bytes, alignment);
    }
  }
  ExpectIntact();
}

// A request aligned to more than a line takes a cell of an aligned class
// (1-16 KiB, uncoloured) when one holds it, not a coloured cell of its size
// plus the alignment: posix_memalign(4096, 4096) uses 4 KiB, not 8. When a
// cell of the size plus the alignment is smaller, that one (a 1100-byte
// block aligned to 128 in a 1280-byte cell). Either way the block is freed
// and validated as any other: an aligned class's page serves no carved-out
// request, so an interior pointer into it is still reported.
TEST(TesseraMallocTest, AlignedRequestsTakeCellsOfTheirSizeNotSizePlusAlignment) {
  struct Case {
    size_t bytes, alignment, cell;
    bool aligned_class;  // else carved out of a cell of bytes + alignment
  };
  const Case cases[] = {
      {4096, 4096, 4096, true},    {1024, 1024, 1024, true},
      {8192, 8192, 8192, true},    {16384, 16384, 16384, true},
      {100, 4096, 4096, true},     {1024, 256, 1024, true},
      {3000, 2048, 4096, true},    {16384, 4096, 16384, true},
      {9000, 128, 10240, false},   {1100, 128, 1280, false}};
  std::thread thread([&] {
    for (const Case& c : cases) {
      std::vector<void*> blocks;
      for (int i = 0; i < 40; ++i) {  // past the first page of the class
        void* p = M().Allocate(c.bytes, c.alignment);
        ASSERT_NE(p, nullptr) << c.bytes << " @" << c.alignment;
        EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % c.alignment, 0u)
            << c.bytes << " @" << c.alignment;
        // The block's cell: usable bytes up to its end, at most the cell.
        const size_t usable = TesseraMalloc::UsableSize(p);
        EXPECT_GE(usable, c.bytes);
        EXPECT_LE(usable, c.cell) << c.bytes << " @" << c.alignment;
        std::memset(p, 5, usable);
        blocks.push_back(p);
      }
      // Whole cells of a page that serves no carved-out request.
      for (void* p : blocks) {
        if (!c.aligned_class) continue;
        EXPECT_EQ(TesseraMalloc::UsableSize(p), c.cell) << c.bytes;
        EXPECT_FALSE(TesseraMalloc::FreesInteriorPointers(p)) << c.bytes;
      }
      ExpectIntact();
      for (void* p : blocks) M().Deallocate(p, c.bytes, c.alignment);
      ExpectIntact();
    }
    // An interior pointer into an aligned class's cell, and a double free
    // of one: reported, nothing freed.
    ViolationRecorder recorder;
    char* p = static_cast<char*>(M().Allocate(4096, 4096));
    void* keep = M().Allocate(4096, 4096);  // keeps the page alive
    ASSERT_NE(p, nullptr);
    ASSERT_NE(keep, nullptr);
    M().Deallocate(p + 64, 4032, 64);
    ASSERT_EQ(recorder.violations().size(), 1u);
    EXPECT_THAT(recorder.violations()[0].detail, HasSubstr("inside a block"));
    EXPECT_EQ(recorder.violations()[0].ptr, p + 64);
    M().Deallocate(p, 4096, 4096);
    ExpectIntact();
    M().Deallocate(p, 4096, 4096);
    ASSERT_EQ(recorder.violations().size(), 2u);
    EXPECT_EQ(recorder.violations()[1].violation, ContractViolation::kDoubleFree);
    EXPECT_EQ(recorder.violations()[1].ptr, p);
    M().Deallocate(keep, 4096, 4096);
    ExpectIntact();
  });
  thread.join();
}

// A purge tick keeps the first empty page of each class up to 8 KiB, the
// aligned classes' included (a loop that empties and refills a batch of
// page-aligned buffers would otherwise re-carve its page every tick); a
// forced collection retires it.
TEST(TesseraMallocTest, APurgeTickKeepsAnAlignedClassesFirstEmptyPage) {
  std::thread thread([&] {
    const int c = mi::kFirstAlignedClass + 2;  // 4 KiB
    ASSERT_EQ(mi::ClassSize(c), 4096u);
    std::vector<void*> blocks;
    for (int i = 0; i < 8; ++i) blocks.push_back(M().Allocate(4096, 4096));
    for (void* p : blocks) M().Deallocate(p, 4096, 4096);
    mi::Heap* h = mi::tls_heap;
    ASSERT_NE(h, nullptr);
    ASSERT_FALSE(mi::BinEmpty(h, c));
    TesseraMalloc::Collect(false);
    EXPECT_FALSE(mi::BinEmpty(h, c)) << "a purge tick retired the page";
    ExpectIntact();
    TesseraMalloc::Collect(true);
    EXPECT_TRUE(mi::BinEmpty(h, c)) << "a forced collection kept it";
    ExpectIntact();
  });
  thread.join();
}

// An empty block aligned to any alignment is a block of its own: not the
// start of the next cell (found by the fuzzer: 0 bytes aligned to 32 in a
// 16-byte cell, rounded up to where the cell ends).
TEST(TesseraMallocTest, EmptyAlignedBlocksAreDistinctFromTheBlocksAfterThem) {
  std::thread thread([&] {
    for (size_t alignment = 32; alignment <= 65536; alignment *= 2) {
      std::vector<std::pair<void*, size_t>> blocks;
      std::set<uintptr_t> seen;
      for (int i = 0; i < 24; ++i) {
        const bool empty = i % 2 == 0;
        const size_t bytes = empty ? 0 : 16;
        const size_t align = empty ? alignment : 16;
        void* p = M().Allocate(bytes, align);
        ASSERT_NE(p, nullptr) << alignment;
        EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % align, 0u);
        EXPECT_TRUE(seen.insert(reinterpret_cast<uintptr_t>(p)).second)
            << p << " handed out twice, alignment " << alignment;
        if (!empty) std::memset(p, 9, 16);
        blocks.push_back({p, bytes});
      }
      ExpectIntact();
      for (auto [p, bytes] : blocks) {
        M().Deallocate(p, bytes, bytes == 0 ? alignment : 16);
      }
      ExpectIntact();
    }
  });
  thread.join();
}

// Pages of the 1-16 KiB classes start 0-15 lines into their span (their
// colour), so that the first lines of their cells spread over the cache's
// sets: 4 KiB blocks from several pages sit at several whole-line offsets
// from a 4 KiB boundary. A 4 KiB-aligned request of
// 4 KiB, which those pages no longer serve naturally, is still aligned.
TEST(TesseraMallocTest, PagesOfKiBClassesStartAtDifferentCacheLines) {
  std::set<uintptr_t> offsets;
  std::vector<void*> blocks;
  std::thread thread([&] {
    for (int i = 0; i < 96; ++i) {  // seven pages of at most 15 cells
      void* p = M().Allocate(4096);
      ASSERT_NE(p, nullptr);
      std::memset(p, 7, 4096);
      offsets.insert(reinterpret_cast<uintptr_t>(p) % 4096);
      blocks.push_back(p);
    }
    ExpectIntact();
    void* aligned = M().Allocate(4096, 4096);
    ASSERT_NE(aligned, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(aligned) % 4096, 0u);
    std::memset(aligned, 7, 4096);
    ExpectIntact();
    M().Deallocate(aligned, 4096, 4096);
    for (void* p : blocks) M().Deallocate(p, 4096);
    ExpectIntact();
  });
  thread.join();
  // Without colours every one would sit at 0. (Two slots can share a
  // colour, and the thread may adopt an exited thread's heap with pages
  // already made: not all seven need differ.)
  EXPECT_GE(offsets.size(), 3u);
  for (uintptr_t offset : offsets) EXPECT_EQ(offset % 64, 0u) << offset;
}

TEST(TesseraMallocTest, ReallocateKeepsContentsAcrossEveryTier) {
  size_t bytes = 8;
  auto* p = static_cast<unsigned char*>(M().Allocate(bytes));
  for (size_t i = 0; i < bytes; ++i) p[i] = static_cast<unsigned char>(i * 7);
  for (size_t next : {24ul, 200ul, 3000ul, 100000ul, 500000ul, size_t{9} << 20,
                      size_t{30} << 20, 100000ul, 40ul}) {
    auto* q = static_cast<unsigned char*>(M().Reallocate(p, bytes, next));
    ASSERT_NE(q, nullptr);
    const size_t kept = std::min(bytes, next);
    for (size_t i = 0; i < kept; i += (kept > 4096 ? 511 : 1)) {
      ASSERT_EQ(q[i], static_cast<unsigned char>(i * 7)) << next << " at " << i;
    }
    for (size_t i = kept; i < next; ++i) q[i] = static_cast<unsigned char>(i * 7);
    p = q;
    bytes = next;
    ExpectIntact();
  }
  M().Deallocate(p, bytes);
}

TEST(TesseraMallocTest, ImpossibleRequestsFailAndAreCounted) {
  const uint64_t failed = M().stats().failed_requests;
  EXPECT_EQ(M().Allocate(SIZE_MAX), nullptr);
  EXPECT_EQ(M().Allocate(size_t{1} << 62), nullptr);
  EXPECT_EQ(M().Allocate(64, 3), nullptr);  // not a power of two
  EXPECT_EQ(M().stats().failed_requests - failed, 3u);
  auto checked = M().AllocateChecked(64, 48);
  EXPECT_EQ(checked.status().code(), absl::StatusCode::kInvalidArgument);
  ExpectIntact();
}

TEST(TesseraMallocTest, DoubleFreeIsReportedNamingThePointer) {
  ViolationRecorder recorder;
  for (size_t bytes : {32ul, 5000ul, size_t{1} << 20}) {
    recorder.Clear();
    void* p = M().Allocate(bytes);
    void* keep = M().Allocate(bytes);  // keeps the page alive
    M().Deallocate(p, bytes);
    M().Deallocate(p, bytes);
    ASSERT_EQ(recorder.violations().size(), 1u) << bytes;
    EXPECT_EQ(recorder.violations()[0].ptr, p);
    EXPECT_EQ(recorder.violations()[0].allocator, "tessera_malloc");
    EXPECT_TRUE(recorder.violations()[0].violation ==
                    ContractViolation::kDoubleFree ||
                recorder.violations()[0].violation ==
                    ContractViolation::kForeignPointer);
    M().Deallocate(keep, bytes);
    ExpectIntact();
  }
}

// Cells carved but never handed out carry the free canary like freed ones
// (the owner's frees and the carve share one list): freeing one is a double
// free, reported, and the lists stay intact.
TEST(TesseraMallocTest, FreeingACellNeverHandedOutIsADoubleFree) {
  ViolationRecorder recorder;
  auto* block = static_cast<char*>(M().Allocate(3000));
  const size_t cell = M().UsableSize(block);
  ASSERT_GE(cell, 3000u);
  int tried = 0;
  for (int k = 1; k <= 3; ++k) {
    char* neighbour = block + k * cell;
    if (malloc_internal::Owns(neighbour)) continue;  // handed out to an earlier test
    recorder.Clear();
    M().Deallocate(neighbour, 3000);
    ASSERT_EQ(recorder.violations().size(), 1u) << k;
    EXPECT_EQ(recorder.violations()[0].violation, ContractViolation::kDoubleFree);
    EXPECT_EQ(recorder.violations()[0].ptr, neighbour);
    ExpectIntact();
    ++tried;
  }
  EXPECT_GT(tried, 0);
  M().Deallocate(block, 3000);
  ExpectIntact();
}

TEST(TesseraMallocTest, ForeignAndInteriorPointersAreReportedAndIgnored) {
  ViolationRecorder recorder;
  alignas(16) unsigned char on_stack[64] = {};
  M().Deallocate(on_stack, 64);
  ASSERT_EQ(recorder.violations().size(), 1u);
  EXPECT_EQ(recorder.violations()[0].violation, ContractViolation::kForeignPointer);
  EXPECT_THAT(recorder.violations()[0].detail, HasSubstr("not allocated"));
  for (unsigned char byte : on_stack) EXPECT_EQ(byte, 0);

  auto* block = static_cast<char*>(M().Allocate(256));
  M().Deallocate(block + 16, 128);
  ASSERT_EQ(recorder.violations().size(), 2u);
  EXPECT_THAT(recorder.violations()[1].detail, HasSubstr("inside a block"));
  EXPECT_EQ(M().DeallocateChecked(block + 16, 128).code(),
            absl::StatusCode::kFailedPrecondition);
  // A size larger than the block.
  M().Deallocate(block, 100000);
  ASSERT_EQ(recorder.violations().size(), 3u);
  EXPECT_EQ(recorder.violations()[2].violation, ContractViolation::kSizeMismatch);
  ExpectIntact();
  M().Deallocate(block, 256);
  EXPECT_EQ(M().DeallocateChecked(block, 256).code(),
            absl::StatusCode::kFailedPrecondition);
  ExpectIntact();
}

// Free bounds a pointer by the cells its page has carved (one compare that
// also catches pointers below the cells): both sides are reported.
TEST(TesseraMallocTest, PointersPastTheCarvedCellsOrIntoAHeaderAreReported) {
  ViolationRecorder recorder;
  // 12 KiB: a class nothing else here uses, so its page is fresh: 2 slots,
  // 9-10 cells, the first one carved (cells from 4 KiB are carved one at a
  // time).
  constexpr size_t kBytes = 12 << 10;
  auto* block = static_cast<char*>(M().Allocate(kBytes));
  ASSERT_NE(block, nullptr);
  M().Deallocate(block + 5 * kBytes, kBytes);
  ASSERT_EQ(recorder.violations().size(), 1u);
  EXPECT_EQ(recorder.violations()[0].violation, ContractViolation::kForeignPointer);
  EXPECT_THAT(recorder.violations()[0].detail, HasSubstr("past the cells"));
  // Into the segment's header (its first 16 KiB hold the page records).
  const uintptr_t segment =
      reinterpret_cast<uintptr_t>(block) & ~((uintptr_t{4} << 20) - 1);
  M().Deallocate(reinterpret_cast<void*>(segment + 4096), 16);
  ASSERT_EQ(recorder.violations().size(), 2u);
  EXPECT_NE(recorder.violations()[1].violation, ContractViolation::kSizeMismatch);
  ExpectIntact();
  M().Deallocate(block, kBytes);
  ASSERT_EQ(recorder.violations().size(), 2u);
  ExpectIntact();
}

// Segments lie in the segment range where it could be reserved (free finds
// a pointer there by its high bits, with no load).
TEST(TesseraMallocTest, SegmentsLieInTheSegmentRange) {
  void* block = M().Allocate(64);
  ASSERT_NE(block, nullptr);
  const TesseraMallocStats stats = M().detailed_stats();
  const bool in_range = mi::InSegmentRange(reinterpret_cast<uintptr_t>(block));
  if (mi::SegmentRangeReserved()) {
    EXPECT_TRUE(in_range);
    EXPECT_EQ(stats.segments_outside_range, 0u);
  } else {
    // (ThreadSanitizer's layout keeps these addresses for itself.)
    EXPECT_FALSE(in_range);
    EXPECT_EQ(stats.segments_outside_range, stats.segments);
  }
  M().Deallocate(block, 64);
  ExpectIntact();
}

// Free's fast path bounds a pointer by its own slot's record; the later
// slots of a multi-slot page and the slots of a retired page keep that bound
// at zero, so their frees take the slow path: the first kind are freed like
// any cell, the second reported.
TEST(TesseraMallocTest, FreesBeyondAPagesFirstSlotAndIntoRetiredSlotsAreTold) {
  ViolationRecorder recorder;
  // 14 KiB: a class no other test uses, 2 slots (128 KiB) a page, so the
  // cells after the fourth or fifth start in the page's second slot.
  constexpr size_t kBytes = 14 << 10;
  void* keeper = M().Allocate(32);
  std::vector<char*> blocks;
  for (int i = 0; i < 10; ++i) {
    blocks.push_back(static_cast<char*>(M().Allocate(kBytes)));
    ASSERT_NE(blocks.back(), nullptr);
    std::memset(blocks.back(), i, kBytes);
  }
  for (int i = 9; i >= 0; --i) {
    EXPECT_EQ(blocks[i][kBytes - 1], static_cast<char>(i));
    M().Deallocate(blocks[i], kBytes);
    ExpectIntact();
  }
  EXPECT_TRUE(recorder.violations().empty());
  // Every page of the class is empty: a forced collection retires them.
  // (`keeper` keeps a segment of this heap mapped, often the same one.)
  TesseraMalloc::Collect(/*force=*/true);
  ExpectIntact();
  for (char* block : {blocks[0], blocks[6]}) {
    recorder.Clear();
    const bool mapped = malloc_internal::IsSegment(
        reinterpret_cast<uintptr_t>(malloc_internal::SegmentOf(block)));
    if (mapped) {
      // The retired slot's own record: free, no carved cells (what sends
      // the free below past the fast path).
      const malloc_internal::Page* slot = malloc_internal::SlotRecord(
          malloc_internal::SegmentOf(block), reinterpret_cast<uintptr_t>(block));
      EXPECT_EQ(slot->kind, malloc_internal::kSlotFree);
      EXPECT_EQ(malloc_internal::CarvedCells(slot), 0u);
    }
    M().Deallocate(block, kBytes);
    ASSERT_EQ(recorder.violations().size(), 1u);
    EXPECT_EQ(recorder.violations()[0].ptr, block);
    // A retired slot of a mapped segment is memory the allocator holds
    // free; a segment that went back to the OS with the page is not its.
    EXPECT_EQ(recorder.violations()[0].violation,
              mapped ? ContractViolation::kDoubleFree
                     : ContractViolation::kForeignPointer);
    ExpectIntact();
  }
  M().Deallocate(keeper, 32);
  ExpectIntact();
}

// Invariant 2's new clause, enforced: a tail slot that recorded carved
// cells would let free's fast path take a pointer into it for a cell of the
// wrong page.
TEST(TesseraMallocTest, IntegrityReportsATailSlotThatRecordsCarvedCells) {
  constexpr size_t kBytes = 10 << 10;  // 2-slot pages
  void* block = M().Allocate(kBytes);
  ASSERT_NE(block, nullptr);
  const uintptr_t a = reinterpret_cast<uintptr_t>(block);
  malloc_internal::Page* lead =
      malloc_internal::PageAt(malloc_internal::SegmentOf(block), a);
  ASSERT_NE(lead, nullptr);
  ASSERT_EQ(lead->slots, 2);
  malloc_internal::Page* tail = lead + 1;
  ASSERT_EQ(tail->kind, malloc_internal::kSlotTail);
  // A tail's block size is whatever an earlier page left there, 0 in a slot
  // that never led one: the check must not depend on it.
  const uint32_t old_block_size = tail->block_size;
  tail->block_size = 0;
  tail->carved_cells.store(1, std::memory_order_relaxed);
  absl::Status status = M().CheckIntegrity();
  EXPECT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("tail slot records carved cells"));
  tail->carved_cells.store(0, std::memory_order_relaxed);
  tail->block_size = old_block_size;
  ExpectIntact();
  M().Deallocate(block, kBytes);
  ExpectIntact();
}

// Invariant 3's colour, enforced: a coloured page's cells start a whole
// number of lines (under 16) past its span's start, other pages' right at it.
TEST(TesseraMallocTest, IntegrityReportsCellsOffTheirPagesColour) {
  // 448 B cells (no colour) leave 128 or 320 bytes past the last one: room
  // for a shift that still fits the span.
  for (size_t bytes : {size_t{4096}, size_t{448}}) {
    void* block = M().Allocate(bytes);
    ASSERT_NE(block, nullptr);
    malloc_internal::Page* p = malloc_internal::PageAt(
        malloc_internal::SegmentOf(block), reinterpret_cast<uintptr_t>(block));
    ASSERT_NE(p, nullptr);
    char* const cells = p->cells;
    // 4 KiB: half a line off; 448 B: a whole line off.
    p->cells = cells + (bytes == 4096 ? 32 : 64);
    absl::Status status = M().CheckIntegrity();
    p->cells = cells;
    EXPECT_FALSE(status.ok()) << bytes;
    EXPECT_THAT(status.message(), HasSubstr("where its span and colour say"))
        << bytes;
    ExpectIntact();
    M().Deallocate(block, bytes);
  }
  ExpectIntact();
}

// Invariant 5's direct entries, enforced: a stale one would send small
// allocations to a page that is not their class's queue head.
TEST(TesseraMallocTest, IntegrityReportsAStaleDirectEntry) {
  void* block = M().Allocate(40);  // the calling thread has a heap now
  ASSERT_NE(block, nullptr);
  malloc_internal::Heap* h = malloc_internal::tls_heap;
  ASSERT_NE(h, nullptr);
  const size_t g = malloc_internal::SmallGranuleOf(40);
  malloc_internal::Page* const kept = h->direct[g];
  EXPECT_EQ(kept, h->bins[malloc_internal::SmallClassOf(40)]);
  ASSERT_NE(kept, &malloc_internal::g_empty_page);  // the block's page
  h->direct[g] = &malloc_internal::g_empty_page;
  absl::Status status = M().CheckIntegrity();
  EXPECT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("direct entry"));
  h->direct[g] = kept;
  ExpectIntact();
  M().Deallocate(block, 40);
  ExpectIntact();
}

// Invariant 5's full pages, enforced: free pushes onto `free` and only then
// looks at the full mark, and only when the list was empty, so a page
// marked full must have nothing on its lists.
TEST(TesseraMallocTest, IntegrityReportsAFullPageWithFreeCells) {
  constexpr size_t kBytes = 40 << 10;  // a class no other test uses
  std::vector<void*> blocks;
  malloc_internal::Page* first = nullptr;
  for (int i = 0; i < 64 && (first == nullptr || !first->in_full); ++i) {
    blocks.push_back(M().Allocate(kBytes));
    ASSERT_NE(blocks.back(), nullptr);
    if (first == nullptr) {
      first = malloc_internal::PageAt(malloc_internal::SegmentOf(blocks[0]),
                                      reinterpret_cast<uintptr_t>(blocks[0]));
      ASSERT_NE(first, nullptr);
    }
  }
  ASSERT_TRUE(first->in_full);
  ExpectIntact();
  first->local_free = static_cast<malloc_internal::Cell*>(blocks[0]);
  absl::Status status = M().CheckIntegrity();
  first->local_free = nullptr;
  EXPECT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("marked full has free cells"));
  ExpectIntact();
  for (void* block : blocks) M().Deallocate(block, kBytes);
  ExpectIntact();
}

#if TESSERA_MALLOC_HARDENED
// Hardened builds only (--define=tessera_malloc_hardened=1).
TEST(TesseraMallocHardenedTest, AnOverwrittenFreeListLinkIsReportedNotHandedOut) {
  ViolationRecorder recorder;
  constexpr size_t kBytes = 3500;  // a class nothing else here uses (3.5 KiB)
  std::vector<void*> blocks;
  for (int i = 0; i < 8; ++i) blocks.push_back(M().Allocate(kBytes));
  void* victim = blocks[3];
  M().Deallocate(victim, kBytes);
  // A write after free plants a pointer where the free cell keeps its link.
  alignas(16) static unsigned char planted[4096];
  void* bad = planted;
  std::memcpy(victim, &bad, sizeof bad);
  std::vector<void*> again;
  for (int i = 0; i < 16; ++i) {
    void* p = M().Allocate(kBytes);
    ASSERT_NE(p, nullptr);
    ASSERT_NE(p, static_cast<void*>(planted));
    again.push_back(p);
  }
  ASSERT_EQ(recorder.violations().size(), 1u);
  EXPECT_EQ(recorder.violations()[0].ptr, victim);
  EXPECT_THAT(recorder.violations()[0].detail, HasSubstr("link was overwritten"));
  EXPECT_THAT(again, testing::Contains(victim));  // the cell itself is sound
  for (void* p : again) M().Deallocate(p, kBytes);
  for (void* p : blocks) {
    if (p != victim) M().Deallocate(p, kBytes);
  }
  ExpectIntact();
}

TEST(TesseraMallocHardenedDeathTest, TheLastSlotOfEverySegmentIsAGuard) {
  void* p = M().Allocate(64);
  const uintptr_t segment =
      reinterpret_cast<uintptr_t>(p) & ~((uintptr_t{4} << 20) - 1);
  volatile char* last_byte =
      reinterpret_cast<volatile char*>(segment + (uintptr_t{4} << 20) - 1);
  EXPECT_DEATH(*last_byte = 1, "");
  volatile char* guard_start =
      reinterpret_cast<volatile char*>(segment + (uintptr_t{63} << 16));
  EXPECT_DEATH(*guard_start = 1, "");
  M().Deallocate(p, 64);
  ExpectIntact();
}
#endif  // TESSERA_MALLOC_HARDENED

TEST(TesseraMallocTest, CrossThreadFreesComeBackToTheOwner) {
  constexpr int kBlocks = 20000;
  std::vector<void*> blocks(kBlocks);
  for (int i = 0; i < kBlocks; ++i) blocks[i] = M().Allocate(16 + (i % 64) * 16);
  const uint64_t remote_before = M().detailed_stats().remote_frees;
  std::thread other([&] {
    for (int i = 0; i < kBlocks; ++i) M().Deallocate(blocks[i], 16 + (i % 64) * 16);
  });
  other.join();
  EXPECT_GE(M().detailed_stats().remote_frees - remote_before,
            static_cast<uint64_t>(kBlocks));
  ExpectIntact();
  // The owner reuses them: allocating again maps no new segment.
  TesseraMalloc::Collect(false);
  const uint64_t segments = M().detailed_stats().segments;
  for (int i = 0; i < kBlocks; ++i) blocks[i] = M().Allocate(16 + (i % 64) * 16);
  EXPECT_LE(M().detailed_stats().segments, segments + 1);
  ExpectIntact();
  for (int i = 0; i < kBlocks; ++i) M().Deallocate(blocks[i], 16 + (i % 64) * 16);
  ExpectIntact();
}

TEST(TesseraMallocTest, BlocksOfAnExitedThreadAreFreedByOthersAndItsHeapAdopted) {
  std::vector<void*> blocks;
  std::thread producer([&] {
    for (int i = 0; i < 5000; ++i) blocks.push_back(M().Allocate(48));
    ExpectIntact();
  });
  producer.join();
  EXPECT_GE(M().detailed_stats().abandoned_heaps, 1u);
  for (void* p : blocks) M().Deallocate(p, 48);
  const uint64_t heaps = M().detailed_stats().heaps;
  std::thread adopter([&] {
    void* p = M().Allocate(48);
    ExpectIntact();
    M().Deallocate(p, 48);
  });
  adopter.join();
  EXPECT_EQ(M().detailed_stats().heaps, heaps);  // adopted, not created
  TesseraMalloc::Collect(true);
  absl::Status all = M().CheckAllHeaps();
  EXPECT_TRUE(all.ok()) << all;
}

// malloc's fast path reads the thread's bin heads without testing for a
// heap: before the thread has one they all name the empty page, whose empty
// lists send the first allocation to the slow path, which gives the thread
// its heap and points the bin heads at the heap's.
TEST(TesseraMallocTest, MallocBeforeAThreadHasAHeapTakesTheSlowPathToOne) {
  std::thread thread([] {
    ASSERT_EQ(mi::tls_heap, nullptr);
    ASSERT_EQ(mi::tls_bins, mi::kNoHeapBins.data());
    for (const mi::Page* head : mi::kNoHeapBins) {
      ASSERT_EQ(head, &mi::g_empty_page);
    }
    void* small = mi::AllocateInline<mi::Counting::kNone>(64);
    void* medium = mi::AllocateInline<mi::Counting::kNone>(5000);
    ASSERT_NE(small, nullptr);
    ASSERT_NE(medium, nullptr);
    ASSERT_NE(mi::tls_heap, nullptr);
    EXPECT_EQ(mi::tls_bins, mi::tls_heap->direct);
    std::memset(small, 1, 64);
    std::memset(medium, 2, 5000);
    ExpectIntact();
    mi::FreeInline<mi::Counting::kNone>(small);
    mi::FreeInline<mi::Counting::kNone>(medium);
    ExpectIntact();
  });
  thread.join();
  ExpectIntact();
}

// Free's owner test compares the page's owning thread with the caller's
// thread pointer. A thread that exits hands its pages to no thread before
// its heap is abandoned, so a thread created after it, which glibc usually
// gives the exited thread's cached stack and so its thread pointer, frees
// those blocks the remote way instead of pushing onto a heap it does not
// own.
TEST(TesseraMallocTest, AThreadWithAnExitedThreadsPointerFreesItsBlocksRemotely) {
  namespace mi = malloc_internal;
  constexpr size_t kBytes = 176;  // class 192: 341 cells to a page
  constexpr int kBlocks = 100;
  std::vector<void*> blocks;
  uintptr_t producer_thread = 0;
  mi::Page* page = nullptr;
  std::thread producer([&] {
    for (int i = 0; i < kBlocks; ++i) blocks.push_back(M().Allocate(kBytes));
    producer_thread = mi::ThreadPointer();
    page = mi::PageAt(mi::SegmentOf(blocks[0]),
                      reinterpret_cast<uintptr_t>(blocks[0]));
    ASSERT_NE(page, nullptr);
    EXPECT_EQ(page->owner.load(), producer_thread);
    EXPECT_EQ(page->heap->owner_thread, producer_thread);
  });
  producer.join();
  ASSERT_NE(page, nullptr);
  EXPECT_NE(producer_thread, 0u);
  EXPECT_EQ(page->owner.load(), 0u);
  EXPECT_EQ(page->heap->owner_thread, 0u);
  auto remote_cells = [&] {
    int n = 0;
    for (const mi::Cell* c = reinterpret_cast<const mi::Cell*>(
             page->thread_free.load() & ~uintptr_t{1});
         c != nullptr; c = mi::LinkOf(c)) {
      ++n;
    }
    return n;
  };
  const int remote_before = remote_cells();  // an adopted heap's, if any
  bool same_pointer = false;
  std::thread freer([&] {
    same_pointer = mi::ThreadPointer() == producer_thread;
    for (void* p : blocks) {
      if (mi::PageAt(mi::SegmentOf(p), reinterpret_cast<uintptr_t>(p)) == page) {
        M().Deallocate(p, kBytes);
      }
    }
  });
  freer.join();
  // Every block of the page is on its thread_free list, none on `free`.
  const int remote = remote_cells() - remote_before;
  int on_page = 0;
  for (void* p : blocks) {
    on_page += mi::PageAt(mi::SegmentOf(p), reinterpret_cast<uintptr_t>(p)) == page;
  }
  EXPECT_EQ(remote, on_page) << "freer had the producer's thread pointer: "
                             << same_pointer;
  for (void* p : blocks) {
    if (mi::PageAt(mi::SegmentOf(p), reinterpret_cast<uintptr_t>(p)) != page) {
      M().Deallocate(p, kBytes);
    }
  }
  TesseraMalloc::Collect(true);
  absl::Status all = M().CheckAllHeaps();
  EXPECT_TRUE(all.ok()) << all;
}

// Collect(true) (malloc_trim) purges every abandoned heap, not one heap
// again and again: three threads that allocated at once (so three heaps)
// free everything and exit, leaving heaps with freshly freed, dirty slots.
// A thread whose heap cannot be registered for the key's destructor
// (pthread_setspecific failing, as it can with ENOMEM) is served by the
// orphan heap and leaves no heap owned by it: one left so would pass for
// the heap of a later thread given the same thread pointer, and no collector
// would reclaim it.
TEST(TesseraMallocTest, AThreadWhoseHeapCannotBeRegisteredLeavesNoHeapBehind) {
  namespace mi = malloc_internal;
  auto* const saved = mi::g_set_thread_heap;
  mi::g_set_thread_heap = [](pthread_key_t, const void*) { return ENOMEM; };
  uintptr_t thread_pointer = 0;
  bool had_heap = true;
  std::thread thread([&] {
    thread_pointer = mi::ThreadPointer();
    for (size_t bytes : {size_t{64}, size_t{100000}}) {
      void* p = M().Allocate(bytes);
      ASSERT_NE(p, nullptr) << bytes;
      std::memset(p, 5, bytes);
      had_heap = had_heap && mi::tls_heap != nullptr;
      // Given back at once: malloc reads the no-heap bin heads again.
      EXPECT_EQ(mi::tls_bins, mi::kNoHeapBins.data());
      M().Deallocate(p, bytes);
    }
  });
  thread.join();
  mi::g_set_thread_heap = saved;
  EXPECT_FALSE(had_heap);
  for (mi::Heap* h = mi::g_registry.load(); h != nullptr; h = h->registry_next) {
    EXPECT_NE(h->owner_thread, thread_pointer);
  }
  ExpectIntact();
}

TEST(TesseraMallocTest, CollectPurgesEveryAbandonedHeap) {
  namespace mi = malloc_internal;
  constexpr int kThreads = 3;
  std::atomic<int> allocated{0}, freed{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      std::vector<void*> blocks;
      for (int i = 0; i < 2000; ++i) {
        blocks.push_back(M().Allocate(1024));
        std::memset(blocks.back(), 1, 1024);
      }
      allocated.fetch_add(1);
      while (allocated.load() < kThreads) std::this_thread::yield();
      for (void* p : blocks) M().Deallocate(p, 1024);
      // No thread exits (whose heap retires its empty pages, dirtying their
      // slots) before all have freed: a slow path after that could collect
      // an abandoned heap.
      freed.fetch_add(1);
      while (freed.load() < kThreads) std::this_thread::yield();
    });
  }
  for (std::thread& t : threads) t.join();
  int dirty_before = 0;
  pthread_mutex_lock(&mi::g_registry_lock);
  for (mi::Heap* h = mi::g_abandoned; h != nullptr; h = h->abandoned_next) {
    dirty_before += h->dirty_segments != nullptr;
  }
  pthread_mutex_unlock(&mi::g_registry_lock);
  EXPECT_GE(dirty_before, 2);  // else the test shows nothing
  TesseraMalloc::Collect(true);
  int abandoned = 0, dirty = 0;
  pthread_mutex_lock(&mi::g_registry_lock);
  for (mi::Heap* h = mi::g_abandoned; h != nullptr; h = h->abandoned_next) {
    ++abandoned;
    dirty += h->dirty_segments != nullptr;
  }
  pthread_mutex_unlock(&mi::g_registry_lock);
  EXPECT_GE(abandoned, kThreads);
  EXPECT_EQ(dirty, 0);
  absl::Status all = M().CheckAllHeaps();
  EXPECT_TRUE(all.ok()) << all;
}

// A thread that frees an exited thread's blocks before it allocates adopts
// that thread's heap when it first allocates (not the newest abandoned one),
// and reuses the cells it freed.
TEST(TesseraMallocTest, AThreadThatFirstFreesAnExitedThreadsBlocksAdoptsItsHeap) {
  constexpr int kBlocks = 3000;
  std::vector<void*> blocks;
  std::atomic<bool> decoy_has_heap{false}, producer_gone{false};
  std::thread producer([&] {
    for (int i = 0; i < kBlocks; ++i) blocks.push_back(M().Allocate(48));
    while (!decoy_has_heap.load()) std::this_thread::yield();
  });
  // Gets a heap while the producer holds its own, and exits after it: its
  // heap is the one a plain new thread would adopt.
  std::thread decoy([&] {
    M().Deallocate(M().Allocate(48), 48);
    decoy_has_heap.store(true);
    while (!producer_gone.load()) std::this_thread::yield();
  });
  producer.join();
  producer_gone.store(true);
  decoy.join();
  const TesseraMallocStats before = M().detailed_stats();
  ASSERT_GE(before.abandoned_heaps, 2u);
  TesseraMallocStats freed, adopted;
  void* first = nullptr;
  std::thread successor([&] {
    for (void* p : blocks) M().Deallocate(p, 48);
    freed = M().detailed_stats();
    first = M().Allocate(48);
    adopted = M().detailed_stats();
    ExpectIntact();
    M().Deallocate(first, 48);
  });
  successor.join();
  // Before it allocates, the thread has no heap: its frees are remote, and
  // no lock is taken to adopt anything.
  EXPECT_EQ(freed.remote_frees - before.remote_frees,
            static_cast<uint64_t>(kBlocks));
  EXPECT_EQ(freed.abandoned_heaps, before.abandoned_heaps);
  // Its first allocation adopts the producer's heap: nothing new, one
  // abandoned heap fewer, and the block lies in a segment of that heap.
  EXPECT_EQ(adopted.abandoned_heaps, before.abandoned_heaps - 1);
  EXPECT_EQ(adopted.heaps, before.heaps);
  EXPECT_EQ(malloc_internal::SegmentOf(first)->heap,
            malloc_internal::SegmentOf(blocks.front())->heap)
      << "the successor did not adopt the heap whose blocks it freed";
  TesseraMalloc::Collect(true);
  absl::Status all = M().CheckAllHeaps();
  EXPECT_TRUE(all.ok()) << all;
}

// 200 KiB blocks (one a page, four slots) that a thread allocates, and the
// VmFlags of each segment they came from, in the order the segments came.
struct SegmentAdvice {
  static constexpr size_t kBytes = size_t{200} << 10;
  std::vector<void*> blocks;
  std::set<uintptr_t> segments;
  std::vector<std::string> flags;
  // Notes the segment of `block` (its flags if it is new).
  void Record(const void* block) {
    const uintptr_t segment =
        reinterpret_cast<uintptr_t>(malloc_internal::SegmentOf(block));
    if (segments.insert(segment).second) flags.push_back(VmFlagsOf(block));
  }
  // Allocates until the blocks span `count` segments.
  void AllocateUntil(size_t count) {
    while (segments.size() < count && blocks.size() < 2000) {
      blocks.push_back(M().Allocate(kBytes));
      Record(blocks.back());
    }
  }
  void FreeAll() {
    for (void* p : blocks) M().Deallocate(p, kBytes);
  }
  // Whether each segment is advised MADV_HUGEPAGE ("hg") exactly when
  // `advised(i)` says the i-th should be, for `count` segments.
  template <typename Advised>
  bool Matches(size_t count, Advised advised) const {
    bool ok = flags.size() == count;
    for (size_t i = 0; i < flags.size(); ++i) {
      const bool hg = flags[i].find(" hg ") != std::string::npos;
      ok = ok && !flags[i].empty() && hg == advised(i);
      std::fprintf(stderr, "segment %zu [%s]\n", i, flags[i].c_str());
    }
    return ok;
  }
};

// A new thread fills kSmallPageSegments + 1 segments of its new heap; exits
// 0 when its first kSmallPageSegments are not advised MADV_HUGEPAGE and the
// next one is.
void CheckHugePageAdviceAndExit() {
  constexpr size_t kSmall = malloc_internal::kSmallPageSegments;
  SegmentAdvice advice;
  std::thread thread([&] {
    advice.AllocateUntil(kSmall + 1);
    advice.FreeAll();
  });
  thread.join();
  std::exit(advice.Matches(kSmall + 1, [](size_t i) { return i >= kSmall; })
                ? 0
                : 1);
}

// In a fresh process (the death test re-executes the binary), so the thread
// gets a new heap rather than adopting one that already has segments.
TEST(TesseraMallocDeathTest, AHeapAdvisesHugePagesPastItsFirstSegments) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(CheckHugePageAdviceAndExit(), ::testing::ExitedWithCode(0),
              "segment 0");
}

// A new thread fills kSmallPageSegments + 1 segments of its new heap, then
// frees and takes back kDriftUnfulls of its blocks, which gives as many
// full pages room again and maps nothing, and allocates on. Exits 0 when
// the segment it maps next, after that churn, is not advised MADV_HUGEPAGE
// (kDriftUnfulls) and the one after it, mapped with no free in between, is.
void CheckDriftingHeapGetsSmallPagesAndExit() {
  constexpr size_t kSmall = malloc_internal::kSmallPageSegments;
  SegmentAdvice advice;
  size_t segments_after_churn = 0;
  std::thread thread([&] {
    advice.AllocateUntil(kSmall + 1);
    for (size_t i = 0; i < malloc_internal::kDriftUnfulls; ++i) {
      M().Deallocate(advice.blocks[i], SegmentAdvice::kBytes);
      advice.blocks[i] = M().Allocate(SegmentAdvice::kBytes);
      advice.Record(advice.blocks[i]);
    }
    segments_after_churn = advice.segments.size();
    advice.AllocateUntil(kSmall + 3);
    advice.FreeAll();
  });
  thread.join();
  const bool ok =
      segments_after_churn == kSmall + 1 &&
      advice.Matches(kSmall + 3,
                     [](size_t i) { return i >= kSmall && i != kSmall + 1; });
  std::exit(ok ? 0 : 1);
}

TEST(TesseraMallocDeathTest, AHeapThatTakesMemoryBackGrowsInSmallPages) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(CheckDriftingHeapGetsSmallPagesAndExit(),
              ::testing::ExitedWithCode(0), "segment 0");
}

// Which of the 4 KiB pages [p, p + pages * 4096) are resident.
std::vector<bool> ResidentPages(const void* p, size_t pages) {
  std::vector<unsigned char> v(pages);
  std::vector<bool> out(pages, false);
  if (mincore(const_cast<void*>(p), pages * 4096, v.data()) != 0) return out;
  for (size_t i = 0; i < pages; ++i) out[i] = (v[i] & 1) != 0;
  return out;
}

// `resident` as a string of '1' (resident) and '0', page by page.
std::string ResidencyString(const std::vector<bool>& resident) {
  std::string s;
  for (bool r : resident) s += r ? '1' : '0';
  return s;
}

// How many of the 4 KiB pages of [p, p + bytes) are resident (p page
// aligned); the range must be mapped.
size_t ResidentPageCount(const void* p, size_t bytes) {
  std::vector<unsigned char> pages(bytes / 4096);
  EXPECT_EQ(mincore(const_cast<void*>(p), bytes, pages.data()), 0);  // mapped
  size_t resident = 0;
  for (unsigned char page : pages) resident += page & 1;
  return resident;
}

// A new thread's first 64-byte block, in its new heap's first segment (small
// pages, never resident): the carve that made it prefaulted the page's first
// 4 KiB (kPrefaultFirstBytes) and nothing past them; the page's second carve
// (its 65th block) prefaulted up to its first 16 KiB (kPrefaultBytes) in one
// call, and nothing past them. Exits 0 if so.
void CheckCarvePrefaultsAndExit() {
  std::vector<bool> first_carve, second_carve;
  uintptr_t offset = 0;
  std::thread thread([&] {
    std::vector<void*> blocks;
    blocks.push_back(M().Allocate(64));
    offset = reinterpret_cast<uintptr_t>(blocks[0]) & 0xffff;
    first_carve = ResidentPages(blocks[0], 5);
    for (int i = 1; i <= 64; ++i) blocks.push_back(M().Allocate(64));
    second_carve = ResidentPages(blocks[0], 5);
    for (void* p : blocks) M().Deallocate(p, 64);
  });
  thread.join();
  const std::string seen =
      ResidencyString(first_carve) + ' ' + ResidencyString(second_carve);
  std::fprintf(stderr, "cells at slot offset %#lx, pages resident %s\n",
               static_cast<unsigned long>(offset), seen.c_str());
  // The first block is the page's first cell (at a 64 KiB slot or just past
  // the segment header), so its 16 KiB are the page's first 16 KiB.
  const bool first_cell = offset == 0 || offset == 16384;
  // A kernel before 5.14 refuses MADV_POPULATE_WRITE: then each carve's own
  // writes fault in its 4 KiB page alone.
  void* probe = mmap(nullptr, 4096, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  const bool populate = madvise(probe, 4096, MADV_POPULATE_WRITE) == 0;
  munmap(probe, 4096);
  // With transparent huge pages "always", the first write faults in the
  // whole 2 MiB, advice or not.
  std::ifstream thp("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string thp_mode((std::istreambuf_iterator<char>(thp)),
                       std::istreambuf_iterator<char>());
  const char* expected = thp_mode.find("[always]") != std::string::npos
                             ? "11111 11111"
                             : populate ? "10000 11110" : "10000 11000";
  std::exit(first_cell && seen == expected ? 0 : 1);
}

TEST(TesseraMallocDeathTest, CarvePrefaultsFreshSmallPageMemoryInBatches) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(CheckCarvePrefaultsAndExit(), ::testing::ExitedWithCode(0),
              "pages resident");
}

// The same for a new thread's 1 KiB blocks, whose page is coloured (its
// cells start 0-15 lines past the slot, not on a memory page boundary): the
// carves prefault from the memory page that holds their first cell, which
// the kernel accepts, so prefault stays on for the process (an unaligned
// MADV_POPULATE_WRITE fails with EINVAL, taken for a kernel without it).
// The first carve (four cells) populates 4 KiB past the first cell, the
// second up to 16 KiB past it. Exits 0 if so.
void CheckColouredCarvePrefaultsAndExit() {
  std::vector<bool> resident;
  uintptr_t cell = 0;
  std::thread thread([&] {
    std::vector<void*> blocks;
    for (int i = 0; i < 5; ++i) blocks.push_back(M().Allocate(1024));
    cell = reinterpret_cast<uintptr_t>(blocks[0]);
    resident = ResidentPages(reinterpret_cast<void*>(cell & ~uintptr_t{4095}), 5);
    for (void* p : blocks) M().Deallocate(p, 1024);
  });
  thread.join();
  const std::string seen = ResidencyString(resident);
  const bool prefault_off = malloc_internal::g_no_prefault.load();
  std::fprintf(stderr, "cell at page offset %#lx, pages resident %s, prefault %s\n",
               static_cast<unsigned long>(cell & 4095), seen.c_str(),
               prefault_off ? "off" : "on");
  void* probe = mmap(nullptr, 4096, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  const bool populate = madvise(probe, 4096, MADV_POPULATE_WRITE) == 0;
  munmap(probe, 4096);
  // Kernels without MADV_POPULATE_WRITE: the carve's own writes fault in
  // the cell's first page, and prefault is off.
  // Populated: the pages of [cell, cell + 16 KiB), four or five of them.
  const char* expected = (cell & 4095) == 0 ? "11110" : "11111";
  const bool ok = populate ? seen == expected && !prefault_off : seen[0] == '1';
  std::exit(ok ? 0 : 1);
}

TEST(TesseraMallocDeathTest, CarvePrefaultsColouredPagesFromTheirFirstMemoryPage) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(CheckColouredCarvePrefaultsAndExit(),
              ::testing::ExitedWithCode(0), "pages resident");
}

// Ends a death test's child: prints "<label>: ok", or the findings after
// the label, and exits 0 only if there are none.
[[noreturn]] void ExitWithFindings(const char* label, const std::string& what) {
  std::fprintf(stderr, "%s:%s\n", label, what.empty() ? " ok" : what.c_str());
  std::exit(what.empty() ? 0 : 1);
}

// Blocks above 16 KiB have a page each, never beside a segment's header
// when the cell would not fit there,
// and a freed one's slots serve the next large request of another class.
// Exits 0 if so (a fresh process: the thread's heap is new).
void CheckLargeBlocksHaveAPageEachAndExit() {
  std::string what;
  std::thread thread([&] {
    // The 256 KiB class: pages of 4 slots, one cell, which does not fit
    // beside the 16 KiB header.
    constexpr size_t kBytes = 250 << 10;
    void* a = M().Allocate(kBytes);
    void* b = M().Allocate(kBytes);
    const uintptr_t offset_a = reinterpret_cast<uintptr_t>(a) & ((4 << 20) - 1);
    const uintptr_t offset_b = reinterpret_cast<uintptr_t>(b) & ((4 << 20) - 1);
    const uintptr_t apart = reinterpret_cast<uintptr_t>(a) > reinterpret_cast<uintptr_t>(b)
                                ? reinterpret_cast<uintptr_t>(a) - reinterpret_cast<uintptr_t>(b)
                                : reinterpret_cast<uintptr_t>(b) - reinterpret_cast<uintptr_t>(a);
    if (offset_a < (64 << 10) || offset_b < (64 << 10)) what += " beside-header";
    if (apart != (256 << 10)) what += " not-one-page-each";
    std::memset(a, 1, kBytes);
    std::memset(b, 2, kBytes);
    if (!M().CheckIntegrity().ok()) what += " integrity";
    M().Deallocate(a, kBytes);
    M().Deallocate(b, kBytes);
    // Retires both: an empty page of several slots is not kept for its
    // class (only one-slot pages are).
    malloc_internal::Page* page_a = malloc_internal::PageAt(
        malloc_internal::SegmentOf(a), reinterpret_cast<uintptr_t>(a));
    malloc_internal::Page* page_b = malloc_internal::PageAt(
        malloc_internal::SegmentOf(b), reinterpret_cast<uintptr_t>(b));
    TesseraMalloc::Collect(false);
    if (page_a->kind != malloc_internal::kSlotFree ||
        page_b->kind != malloc_internal::kSlotFree) {
      what += " empty-page-kept";
    }
    void* c = M().Allocate(150 << 10);  // the 160 KiB class
    if (c != a && c != b) what += " slots-not-reused";
    if (!M().CheckIntegrity().ok()) what += " integrity";
    M().Deallocate(c, 150 << 10);
  });
  thread.join();
  ExitWithFindings("large blocks", what);
}

TEST(TesseraMallocDeathTest, LargeBlocksHaveAPageEachAndFreedOnesServeOtherClasses) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(CheckLargeBlocksHaveAPageEachAndExit(),
              ::testing::ExitedWithCode(0), "large blocks: ok");
}

// A page takes as few slots as hold its cells, anywhere in its segment: a
// 160 KiB block's page spans three slots and starts right after a one-slot
// page, not at the next multiple of its span. And before a new page takes
// slots never used, the empty pages of freed large blocks go back (in a heap
// of any size, where the walk over every queue runs only now and then), so
// the new page lands in their resident slots. Exits 0 if so (a fresh
// process, so the thread's heap is new).
void CheckLargePagesPackAndGoBackFirstAndExit() {
  std::string what;
  std::thread thread([&] {
    namespace mi = malloc_internal;
    auto page_of = [](void* b) {
      return mi::PageAt(mi::SegmentOf(b), reinterpret_cast<uintptr_t>(b));
    };
    constexpr size_t kOneSlot = 60 << 10;   // the 64 KiB class: one slot
    constexpr size_t kThree = 150 << 10;    // the 160 KiB class: three
    void* one = M().Allocate(kOneSlot);
    void* three = M().Allocate(kThree);
    mi::Page* p1 = page_of(one);
    mi::Page* p3 = page_of(three);
    mi::Segment* s = mi::SegmentOf(one);
    // The 64 KiB cell does not fit beside the header: slot 1. The 160 KiB
    // one would at slot 0, but slot 1 is taken: slots 2-4.
    if (p1 == nullptr || p3 == nullptr || mi::SegmentOf(three) != s ||
        p1->slots != 1 || p3->slots != 3 || p1 - s->pages != 1 ||
        p3 - s->pages != 2) {
      what += " not-packed";
    }
    std::memset(one, 1, kOneSlot);
    std::memset(three, 3, kThree);
    if (!M().CheckIntegrity().ok()) what += " integrity";
    // Past kRetireWalkEveryCleanPage pages (never written by the test), so
    // only the walk over the large classes' queues runs before the next new
    // page.
    std::vector<void*> filler;
    while (mi::tls_heap->pages <= mi::kRetireWalkEveryCleanPage) {
      filler.push_back(M().Allocate(kOneSlot));
      if (filler.back() == nullptr) break;
    }
    M().Deallocate(three, kThree);  // its page empties, stays queued
    if (p3->kind != mi::kSlotPage || p3->used != 0) what += " setup";
    mi::tls_heap->clean_pages_since_retire = 0;
    void* other = M().Allocate(3000);  // a class with no page yet
    if (p3->kind != mi::kSlotPage || page_of(other) != p3 ||
        p3->size_class != mi::ClassOf(3000)) {
      what += " freed-large-slots-not-reused";
    }
    if (!M().CheckIntegrity().ok()) what += " integrity";
    M().Deallocate(other, 3000);
    M().Deallocate(one, kOneSlot);
    for (void* b : filler) M().Deallocate(b, kOneSlot);
    TesseraMalloc::Collect(true);
    if (!M().CheckIntegrity().ok()) what += " integrity-after";
  });
  thread.join();
  ExitWithFindings("packed", what);
}

TEST(TesseraMallocDeathTest, LargePagesPackAnywhereAndGoBackBeforeUnusedSlots) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  TesseraMalloc::SetPurgeDelayMs(60000);  // no purge tick in between
  EXPECT_EXIT(CheckLargePagesPackAndGoBackFirstAndExit(),
              ::testing::ExitedWithCode(0), "packed: ok");
  TesseraMalloc::SetPurgeDelayMs(100);
}

// A page that was full and gets a cell back rejoins its class's queue after
// the head, not at the back: the head serves until it is dry, then the page
// nearest full. Exits 0 if so (a fresh process, so the thread's heap is new).
void CheckUnfullPageRejoinsAfterTheHeadAndExit() {
  std::string what;
  std::thread thread([&] {
    namespace mi = malloc_internal;
    constexpr size_t kBytes = 2048;  // 31 cells a page (23 beside the header)
    std::vector<void*> blocks;
    std::vector<mi::Page*> pages;  // in the order they were made
    // Three pages: the first two full, the third the head.
    while (pages.size() < 3) {
      void* b = M().Allocate(kBytes);
      if (b == nullptr) break;
      blocks.push_back(b);
      mi::Page* p = mi::PageAt(mi::SegmentOf(b), reinterpret_cast<uintptr_t>(b));
      if (pages.empty() || pages.back() != p) pages.push_back(p);
    }
    mi::Heap* h = mi::tls_heap;
    const int c = mi::ClassOf(kBytes);
    if (pages.size() != 3 || !pages[0]->in_full || !pages[1]->in_full ||
        h->bins[c] != pages[2]) {
      what += " setup";
    } else {
      // A cell back to the first page, then one to the second: each goes
      // after the head, so the second is next in line.
      M().Deallocate(blocks[0], kBytes);
      void* in_second = nullptr;
      for (void* b : blocks) {
        if (mi::PageAt(mi::SegmentOf(b), reinterpret_cast<uintptr_t>(b)) ==
            pages[1]) {
          in_second = b;
          break;
        }
      }
      M().Deallocate(in_second, kBytes);
      if (h->bins[c] != pages[2]) what += " head-changed";
      if (pages[2]->next != pages[1] || pages[1]->next != pages[0]) {
        what += " not-after-the-head";
      }
      if (!M().CheckIntegrity().ok()) what += " integrity";
      // The head still serves first.
      void* next = M().Allocate(kBytes);
      if (mi::PageAt(mi::SegmentOf(next), reinterpret_cast<uintptr_t>(next)) !=
          pages[2]) {
        what += " head-not-first";
      }
      M().Deallocate(next, kBytes);
      blocks.erase(std::remove(blocks.begin(), blocks.end(), in_second),
                   blocks.end());
      blocks.erase(blocks.begin());
    }
    for (void* b : blocks) M().Deallocate(b, kBytes);
    if (!M().CheckIntegrity().ok()) what += " integrity";
  });
  thread.join();
  ExitWithFindings("unfull page", what);
}

TEST(TesseraMallocDeathTest, AFullPageGivenACellRejoinsItsQueueAfterTheHead) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(CheckUnfullPageRejoinsAfterTheHeadAndExit(),
              ::testing::ExitedWithCode(0), "unfull page: ok");
}

// Empty pages waiting in their queues go back to their segment before a new
// page of another class takes slots never used: the new page lands in their
// resident slots and the segment count stays. Exits 0 if so.
void CheckEmptyPagesGoBackBeforeUnusedSlotsAndExit() {
  std::string what;
  std::thread thread([&] {
    namespace mi = malloc_internal;
    constexpr size_t kEmptied = 2048, kNew = 3072;
    std::vector<void*> blocks;
    std::vector<mi::Page*> emptied;  // four pages, all in the first segment
    for (int i = 0; i < 100; ++i) {
      blocks.push_back(M().Allocate(kEmptied));
      mi::Page* p = mi::PageAt(mi::SegmentOf(blocks.back()),
                               reinterpret_cast<uintptr_t>(blocks.back()));
      if (std::find(emptied.begin(), emptied.end(), p) == emptied.end()) {
        emptied.push_back(p);
      }
    }
    for (void* b : blocks) M().Deallocate(b, kEmptied);
    if (emptied.size() != 4) what += " setup";
    for (mi::Page* p : emptied) {
      if (p->kind != mi::kSlotPage || p->used != 0) what += " setup";
    }
    const uint64_t segments = M().detailed_stats().segments;
    // No purge tick can run between (the delay is a minute): only the new
    // page's need retires the empty ones.
    void* other = M().Allocate(kNew);
    mi::Page* p = mi::PageAt(mi::SegmentOf(other), reinterpret_cast<uintptr_t>(other));
    for (mi::Page* e : emptied) {
      if (e != p && e->kind != mi::kSlotFree) what += " empty-page-kept";
    }
    if (std::find(emptied.begin(), emptied.end(), p) == emptied.end()) {
      what += " unused-slot-taken";
    }
    if (M().detailed_stats().segments != segments) what += " segment-added";
    if (!M().CheckIntegrity().ok()) what += " integrity";
    M().Deallocate(other, kNew);
  });
  thread.join();
  ExitWithFindings("empty pages", what);
}

TEST(TesseraMallocDeathTest, EmptyPagesGoBackBeforeANewPageTakesUnusedSlots) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  TesseraMalloc::SetPurgeDelayMs(60000);
  EXPECT_EXIT(CheckEmptyPagesGoBackBeforeUnusedSlotsAndExit(),
              ::testing::ExitedWithCode(0), "empty pages: ok");
  TesseraMalloc::SetPurgeDelayMs(100);
}

// A freed huge block's resident mapping becomes the next segment a heap
// needs, and its pages serve small and large blocks without a fault; the
// rest of the mapping stays cached for huge blocks. Hardened builds never
// do this: there the blocks come from the heap's first segment and the
// mapping stays cached whole. Exits 0 if so (a fresh process: the cache and the thread's
// heap start empty).
void CheckFreedHugeMappingBecomesASegmentAndExit() {
  constexpr bool kRecycles = !malloc_internal::kHardened;
  std::string what;
  std::thread thread([&] {
    void* first = M().Allocate(64);  // the heap's first (small-page) segment
    constexpr size_t kHuge = size_t{10} << 20;
    char* huge = static_cast<char*>(M().Allocate(kHuge));
    std::memset(huge, 7, kHuge);  // resident
    const uintptr_t lo = reinterpret_cast<uintptr_t>(huge);
    const uintptr_t hi = lo + kHuge;
    M().Deallocate(huge, kHuge);
    const TesseraMallocStats cached = M().detailed_stats();
    if (cached.huge_cached_bytes < kHuge) what += " not-cached";
    // Where the mapping's memory serves blocks: in place (no segment range)
    // or moved into the range with its pages, so with the bytes the huge
    // block held (past the 16 a free cell's link and canary take).
    const bool moved = malloc_internal::SegmentRangeReserved();
    auto in_mapping = [&](const void* p, size_t n) {
      const uintptr_t at = reinterpret_cast<uintptr_t>(p);
      const char* bytes = static_cast<const char*>(p);
      if (!moved) return at >= lo && at + n <= hi;
      return malloc_internal::InSegmentRange(at) &&
             std::all_of(bytes + 16, bytes + n, [](char b) { return b == 7; });
    };
    // The mapping's first aligned 4 MiB, the window a segment takes.
    char* const window = reinterpret_cast<char*>(
        (lo + malloc_internal::kSegmentSize - 1) &
        ~(malloc_internal::kSegmentSize - 1));
    // The first segment still has free slots, but none resident: the new
    // page goes to the cached mapping's memory instead.
    constexpr size_t kLarge = 100 << 10;
    void* large = M().Allocate(kLarge);
    if (in_mapping(large, kLarge) != kRecycles) {
      what += " large-in-the-mapping-or-not";
    }
    // Moved: nothing is left mapped at the window (mincore fails).
    unsigned char probe;
    if (moved && kRecycles && mincore(window, 4096, &probe) == 0) {
      what += " window-still-mapped";
    }
    std::vector<bool> resident = ResidentPages(large, kLarge / 4096);
    if (kRecycles && std::count(resident.begin(), resident.end(), true) !=
                         static_cast<long>(resident.size())) {
      what += " not-resident";
    }
    const TesseraMallocStats after = M().detailed_stats();
    if (after.segments != cached.segments + (kRecycles ? 1 : 0)) {
      what += " segments";
    }
    // The segment is the mapping's first aligned 4 MiB; the rest is cached.
    if (kRecycles && (after.huge_cached_bytes == 0 ||
                      after.huge_cached_bytes + (size_t{4} << 20) >
                          cached.huge_cached_bytes)) {
      what += " tail-not-cached";
    }
    if (!kRecycles && after.huge_cached_bytes != cached.huge_cached_bytes) {
      what += " cache-changed";
    }
    void* small = M().Allocate(200);
    if (in_mapping(small, 200) != kRecycles) {
      what += " small-in-the-mapping-or-not";
    }
    std::memset(large, 1, kLarge);
    std::memset(small, 2, 200);
    if (!M().CheckIntegrity().ok()) what += " integrity";
    M().Deallocate(small, 200);
    M().Deallocate(large, kLarge);
    M().Deallocate(first, 64);
    TesseraMalloc::Collect(true);
    if (!M().CheckIntegrity().ok()) what += " integrity-after";
  });
  thread.join();
  ExitWithFindings("recycled", what);
}

TEST(TesseraMallocDeathTest, AFreedHugeMappingBecomesTheNextSegment) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(CheckFreedHugeMappingBecomesASegmentAndExit(),
              ::testing::ExitedWithCode(0), "recycled: ok");
}

// Without the segment range (TESSERA_MALLOC_SEGMENT_RANGE=0; also what an
// address-space limit or another mapping at its addresses leaves): segments
// are mapped anywhere and every free finds them through the map, locally
// and from other threads. Someone else's memory at the range's addresses is
// then not ours: a free into it is reported and leaves it as it was, even
// where its bytes pass the fast path's cell test (which reads a slot record
// there on the address alone). Exits 0 if so.
void CheckWithoutTheSegmentRangeAndExit() {
  std::string what;
  ViolationRecorder recorder;
  std::vector<std::pair<char*, size_t>> blocks;
  for (size_t bytes = 16; bytes <= (size_t{1} << 20); bytes += bytes / 5 + 8) {
    char* block = static_cast<char*>(M().Allocate(bytes));
    std::memset(block, static_cast<int>(bytes & 0xff), bytes);
    blocks.push_back({block, bytes});
  }
  if (malloc_internal::SegmentRangeReserved()) what += " reserved";
  const TesseraMallocStats stats = M().detailed_stats();
  if (stats.segments == 0 || stats.segments_outside_range != stats.segments) {
    what += " segments";
  }
  for (const auto& [block, bytes] : blocks) {
    if (malloc_internal::InSegmentRange(reinterpret_cast<uintptr_t>(block))) {
      what += " in-range";
    }
    if (block[bytes - 1] != static_cast<char>(bytes & 0xff)) what += " bytes";
  }
  // Every other block freed by another thread.
  std::thread([&] {
    for (size_t i = 0; i < blocks.size(); i += 2) {
      M().Deallocate(blocks[i].first, blocks[i].second);
    }
  }).join();
  for (size_t i = 1; i < blocks.size(); i += 2) {
    M().Deallocate(blocks[i].first, blocks[i].second);
  }
  if (!recorder.violations().empty()) what += " reported";
  void* const want = reinterpret_cast<void*>(malloc_internal::kSegmentRangeBase);
  // (A hint: ThreadSanitizer's mmap turns these addresses into 0.)
  void* other = mmap(want, malloc_internal::kSegmentSize, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (other == want) {
    // A slot record whose one carved cell is the pointer freed.
    char* stray = static_cast<char*>(other) + (64 << 10) + 256;
    mi::Page* record = mi::SlotRecord(static_cast<mi::Segment*>(other),
                                      reinterpret_cast<uintptr_t>(stray));
    record->cells = stray;
    record->carved_cells.store(1);
    constexpr uint64_t kWord = 0x5a5a5a5a5a5a5a5aull;
    std::memcpy(stray + 8, &kWord, 8);
    mi::FreeInline<mi::Counting::kNone>(stray);
    if (recorder.violations().size() != 1 ||
        recorder.violations()[0].violation != ContractViolation::kForeignPointer ||
        recorder.violations()[0].ptr != stray) {
      what += " not-reported";
    }
    uint64_t word;
    std::memcpy(&word, stray + 8, 8);
    if (word != kWord) what += " overwritten";
    munmap(other, malloc_internal::kSegmentSize);
  } else if (other != MAP_FAILED) {
    // (A sanitizer's mmap that will not map there: nothing can be there.)
    munmap(other, malloc_internal::kSegmentSize);
  }
  if (!M().CheckIntegrity().ok()) what += " integrity";
  ExitWithFindings("no segment range", what);
}

TEST(TesseraMallocDeathTest, WithoutTheSegmentRangeSegmentsAreFreedThroughTheMap) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  // Read when the child maps its first segment.
  setenv("TESSERA_MALLOC_SEGMENT_RANGE", "0", 1);
  EXPECT_EXIT(CheckWithoutTheSegmentRangeAndExit(),
              ::testing::ExitedWithCode(0), "no segment range: ok");
  unsetenv("TESSERA_MALLOC_SEGMENT_RANGE");
}

// A segment's chunk of the range, given back, reads as zeros: a free that
// still points there (a double free after the segment went) finds a slot
// record with no cells and is reported by the slow path, not followed; the
// next segment takes the same chunk (lowest first). In a fresh process, so
// that the block's segment is the heap's only one. Exits 0 if so.
void CheckAFreeIntoAChunkGivenBackIsReportedAndExit() {
  std::string what;
  ViolationRecorder recorder;
  char* block = static_cast<char*>(M().Allocate(64));
  const bool range = mi::SegmentRangeReserved();
  if (range != mi::InSegmentRange(reinterpret_cast<uintptr_t>(block))) {
    what += " range";
  }
  M().Deallocate(block, 64);
  TesseraMalloc::Collect(true);
  if (M().detailed_stats().segments != 0) what += " segment-kept";
  if (range) {
    M().Deallocate(block, 64);
    mi::FreeInline<mi::Counting::kNone>(block);
    if (recorder.violations().size() != 2) what += " not-reported";
    for (const auto& v : recorder.violations()) {
      if (v.violation != ContractViolation::kForeignPointer || v.ptr != block ||
          v.detail.find("not allocated") == std::string::npos) {
        what += " wrong-report";
      }
    }
    char* again = static_cast<char*>(M().Allocate(64));
    if (mi::SegmentOf(again) != mi::SegmentOf(block)) what += " chunk-not-reused";
    M().Deallocate(again, 64);
  }
  if (!M().CheckIntegrity().ok()) what += " integrity";
  ExitWithFindings("given back", what);
}

TEST(TesseraMallocDeathTest, AFreeIntoAChunkGivenBackIsReported) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(CheckAFreeIntoAChunkGivenBackIsReportedAndExit(),
              ::testing::ExitedWithCode(0), "given back: ok");
}

TEST(TesseraMallocTest, FreedMemoryIsPurgedAndSegmentsReturned) {
  TesseraMalloc::Collect(true);
  const TesseraMallocStats before = M().detailed_stats();
  std::vector<void*> blocks;
  for (int i = 0; i < 4000; ++i) blocks.push_back(M().Allocate(4000));  // 16 MB
  EXPECT_GT(M().detailed_stats().segments, before.segments);
  for (void* p : blocks) M().Deallocate(p, 4000);
  TesseraMalloc::Collect(true);
  const TesseraMallocStats after = M().detailed_stats();
  EXPECT_LE(after.segments, before.segments + 1);
  EXPECT_GT(after.purged_bytes, before.purged_bytes);
  ExpectIntact();
}

// A freed huge block that the cache has no room for makes room by unmapping
// the oldest cached mappings first, as many as it takes.
TEST(TesseraMallocTest, TheHugeCacheEvictsItsOldestMappingsFirst) {
  TesseraMalloc::Collect(true);  // an empty huge cache
  constexpr size_t kOld = size_t{50} << 20;  // five: 250 of the 256 MiB
  constexpr size_t kNew = size_t{64} << 20;  // two of them must go
  std::vector<void*> old;
  for (int i = 0; i < 5; ++i) {
    old.push_back(M().Allocate(kOld));
    ASSERT_NE(old.back(), nullptr);
  }
  void* newest = M().Allocate(kNew);
  ASSERT_NE(newest, nullptr);
  for (void* p : old) {
    M().Deallocate(p, kOld);
    // Distinct free times (the cache keeps them in milliseconds).
    std::this_thread::sleep_for(std::chrono::milliseconds(3));
  }
  M().Deallocate(newest, kNew);
  const auto mapped = [](const void* p) {
    unsigned char page = 0;
    void* start = reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(p) &
                                          ~uintptr_t{4095});
    return mincore(start, 4096, &page) == 0;
  };
  EXPECT_FALSE(mapped(old[0]));
  EXPECT_FALSE(mapped(old[1]));
  EXPECT_TRUE(mapped(old[2]));
  EXPECT_TRUE(mapped(old[3]));
  EXPECT_TRUE(mapped(old[4])) << "a newer mapping was evicted before an older";
  EXPECT_TRUE(mapped(newest));
  ExpectIntact();
  TesseraMalloc::Collect(true);
}

// Of the cached mappings smaller than a segment only the newest stays
// resident (nothing but a huge block could reuse their pages): freeing one
// purges the one before it, which stays cached for the next block it fits.
TEST(TesseraMallocTest, OnlyTheNewestFreedHugeBlockUnderASegmentStaysResident) {
  TesseraMalloc::Collect(true);  // an empty huge cache
  constexpr size_t kFirst = size_t{1} << 20, kSecond = size_t{2} << 20;
  auto* first = static_cast<unsigned char*>(M().Allocate(kFirst));
  auto* second = static_cast<unsigned char*>(M().Allocate(kSecond));
  ASSERT_NE(first, nullptr);
  ASSERT_NE(second, nullptr);
  std::memset(first, 1, kFirst);
  std::memset(second, 1, kSecond);
  M().Deallocate(first, kFirst);
  EXPECT_EQ(ResidentPageCount(first, kFirst), kFirst / 4096);  // the newest
  const uint64_t purged_before = M().detailed_stats().purged_bytes;
  M().Deallocate(second, kSecond);
  EXPECT_GE(M().detailed_stats().purged_bytes - purged_before, kFirst);
  EXPECT_GE(M().detailed_stats().huge_cached_bytes, kFirst + kSecond);
  EXPECT_EQ(ResidentPageCount(first, kFirst), 0u);
  EXPECT_EQ(ResidentPageCount(second, kSecond), kSecond / 4096);
  auto* again = static_cast<unsigned char*>(M().AllocateZeroed(kFirst));
  EXPECT_EQ(again, first);  // the cached mapping that fits, purged
  ASSERT_NE(again, nullptr);
  for (size_t i = 0; i < kFirst; i += 4096) ASSERT_EQ(again[i], 0) << i;
  M().Deallocate(again, kFirst);
  ExpectIntact();
  TesseraMalloc::Collect(true);
}

// A huge block that no cached mapping fits within 25% takes the resident
// one under a segment's size instead of a fresh mapping: trimmed when it is
// larger, grown (mremap) when smaller, its pages resident either way.
TEST(TesseraMallocTest, TheResidentCachedMappingIsTrimmedOrGrownForTheNextHugeBlock) {
  TesseraMalloc::Collect(true);  // an empty huge cache
  constexpr size_t kSmall = 600 << 10, kLarge = size_t{2} << 20;
  auto* small = static_cast<unsigned char*>(M().Allocate(kSmall));
  ASSERT_NE(small, nullptr);
  std::memset(small, 1, kSmall);
  M().Deallocate(small, kSmall);
  ASSERT_EQ(M().detailed_stats().huge_cached_bytes, kSmall);
  // Grown: its first 600 KiB are the freed block's pages, already resident.
  auto* large = static_cast<unsigned char*>(M().Allocate(kLarge));
  ASSERT_NE(large, nullptr);
  EXPECT_EQ(M().detailed_stats().huge_cached_bytes, 0u);
  EXPECT_EQ(ResidentPageCount(large, kSmall), kSmall / 4096);
  EXPECT_EQ(large[kSmall - 1], 1);
  EXPECT_EQ(large[kSmall], 0);  // the grown part is fresh memory
  EXPECT_GE(M().UsableSize(large), kLarge);
  std::memset(large, 2, kLarge);
  ExpectIntact();
  M().Deallocate(large, kLarge);
  // Trimmed: the same pages, the mapping cut to the new block's size.
  auto* trimmed = static_cast<unsigned char*>(M().AllocateZeroed(kSmall));
  ASSERT_NE(trimmed, nullptr);
  EXPECT_EQ(trimmed, large);
  EXPECT_EQ(M().detailed_stats().huge_cached_bytes, 0u);
  EXPECT_EQ(ResidentPageCount(trimmed, kSmall), kSmall / 4096);
  for (size_t i = 0; i < kSmall; i += 512) ASSERT_EQ(trimmed[i], 0) << i;
  EXPECT_LT(M().UsableSize(trimmed), kSmall + 4096);
  std::memset(trimmed, 3, kSmall);
  M().Deallocate(trimmed, kSmall);
  // Grown for calloc: the old pages zeroed, the new tail fresh.
  auto* zeroed = static_cast<unsigned char*>(M().AllocateZeroed(kLarge));
  ASSERT_NE(zeroed, nullptr);
  EXPECT_EQ(M().detailed_stats().huge_cached_bytes, 0u);
  for (size_t i = 0; i < kLarge; i += 512) ASSERT_EQ(zeroed[i], 0) << i;
  M().Deallocate(zeroed, kLarge);
  ExpectIntact();
  TesseraMalloc::Collect(true);
}

// A freed huge block's mapping stays cached and resident for ten purge
// delays (a purge costs the kernel time in proportion to what is resident),
// then Collect gives its pages back.
TEST(TesseraMallocTest, CachedHugeMappingsArePurgedAfterTenDelays) {
  TesseraMalloc::Collect(true);  // an empty huge cache
  constexpr uint32_t kDelayMs = 40;
  TesseraMalloc::SetPurgeDelayMs(kDelayMs);
  struct RestoreDelay {
    ~RestoreDelay() {
      TesseraMalloc::SetPurgeDelayMs(100);
      TesseraMalloc::Collect(true);  // nothing cached for later tests
    }
  } restore;
  constexpr size_t kBytes = size_t{6} << 20;
  auto* block = static_cast<unsigned char*>(M().Allocate(kBytes));
  ASSERT_NE(block, nullptr);
  std::memset(block, 1, kBytes);
  // Resident pages of the (cached, still mapped) block; all of them count as
  // given back if the mapping is gone (ENOMEM: a stall past its unmap).
  const auto resident_pages = [&] {
    const uintptr_t begin = reinterpret_cast<uintptr_t>(block) & ~uintptr_t{4095};
    std::vector<unsigned char> pages((kBytes + 4095) / 4096);
    if (mincore(reinterpret_cast<void*>(begin), kBytes, pages.data()) != 0) {
      EXPECT_EQ(errno, ENOMEM);
      return size_t{0};
    }
    size_t resident = 0;
    for (unsigned char page : pages) resident += page & 1;
    return resident;
  };
  const auto freed_at = std::chrono::steady_clock::now();
  M().Deallocate(block, kBytes);
  EXPECT_GE(M().detailed_stats().huge_cached_bytes, kBytes);
  const uint64_t purged_before = M().detailed_stats().purged_bytes;
  std::this_thread::sleep_for(std::chrono::milliseconds(2 * kDelayMs));
  TesseraMalloc::Collect(false);
  if (std::chrono::steady_clock::now() - freed_at <
      std::chrono::milliseconds(9 * kDelayMs)) {
    // Past one delay (slots would be purged now), short of ten.
    EXPECT_EQ(resident_pages(), kBytes / 4096);
  } else {
    std::printf("CachedHugeMappings: stalled past nine delays, the "
                "before-ten check is skipped\n");
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(10 * kDelayMs));
  TesseraMalloc::Collect(false);
  EXPECT_EQ(resident_pages(), 0u);
  EXPECT_GE(M().detailed_stats().purged_bytes - purged_before, kBytes);
  ExpectIntact();
}

// Random program, single thread: every block is filled with a pattern, the
// live intervals never overlap, and the heap is intact after every call.
TEST(TesseraMallocTest, RandomProgramKeepsPatternsAndIntegrity) {
  std::mt19937_64 rng(12345);
  struct Live { size_t bytes; size_t alignment; unsigned char tag; };
  std::map<uintptr_t, Live> live;
  auto fill = [](void* p, size_t n, unsigned char tag) {
    std::memset(p, tag, std::min<size_t>(n, 256));
  };
  auto check = [](const void* p, size_t n, unsigned char tag) {
    const auto* c = static_cast<const unsigned char*>(p);
    for (size_t i = 0; i < std::min<size_t>(n, 256); ++i) {
      if (c[i] != tag) return false;
    }
    return true;
  };
  for (int step = 0; step < 6000; ++step) {
    const int op = static_cast<int>(rng() % 10);
    if (op < 5 || live.empty()) {
      size_t bytes = rng() % 4 == 0 ? rng() % 300000 : rng() % 2000;
      size_t alignment = rng() % 8 == 0 ? size_t{16} << (rng() % 9) : 16;
      void* p = M().Allocate(bytes, alignment);
      ASSERT_NE(p, nullptr);
      const uintptr_t a = reinterpret_cast<uintptr_t>(p);
      ASSERT_EQ(a % alignment, 0u);
      auto next = live.lower_bound(a);
      if (next != live.end()) {
        ASSERT_LE(a + std::max<size_t>(bytes, 1), next->first);
      }
      if (next != live.begin()) {
        auto prev = std::prev(next);
        ASSERT_LE(prev->first + std::max<size_t>(prev->second.bytes, 1), a);
      }
      const unsigned char tag = static_cast<unsigned char>(rng());
      fill(p, bytes, tag);
      live[a] = {bytes, alignment, tag};
    } else {
      auto it = live.begin();
      std::advance(it, rng() % live.size());
      void* p = reinterpret_cast<void*>(it->first);
      ASSERT_TRUE(check(p, it->second.bytes, it->second.tag)) << step;
      if (op < 8) {
        M().Deallocate(p, it->second.bytes, it->second.alignment);
        live.erase(it);
      } else if (it->second.alignment == 16) {
        const size_t bytes = rng() % 3 == 0 ? rng() % 400000 : rng() % 3000;
        Live l = it->second;
        live.erase(it);
        void* q = M().Reallocate(p, l.bytes, bytes);
        ASSERT_NE(q, nullptr);
        ASSERT_TRUE(check(q, std::min(bytes, l.bytes), l.tag));
        fill(q, bytes, l.tag);
        live[reinterpret_cast<uintptr_t>(q)] = {bytes, 16, l.tag};
      }
    }
    if (step % 7 == 0) {
      ASSERT_NO_FATAL_FAILURE(ExpectIntact()) << step;
    }
  }
  for (auto& [a, l] : live) M().Deallocate(reinterpret_cast<void*>(a), l.bytes, l.alignment);
  ExpectIntact();
}

}  // namespace
}  // namespace tessera
