// Copyright 2026 The Tessera Authors.
//
// TlsfArena's pointer index (invariant 6 of tlsf_arena.h): built on first use
// of a by-pointer call, its memory following the blocks rather than the
// address space, and the integrity walk finding a slot with no block.

#include "alloc/tlsf/tlsf_arena.h"

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "alloc/tlsf/tlsf_arena_test_support.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tessera {
namespace tlsf_test {
namespace {

using ::testing::HasSubstr;

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

// The whole pages at the start of the arena's (last) region that precede
// its blocks: where its pointer index lives.
struct IndexPages {
  const void* begin = nullptr;
  const void* end = nullptr;
};
IndexPages IndexPagesOf(TlsfArena& arena) {
  IndexPages index;
  arena.WalkBlocks(
      [&](const TlsfRegionInfo& region) {
        index.begin = region.memory;
        index.end = reinterpret_cast<const void*>(
            reinterpret_cast<uintptr_t>(region.base) & ~uintptr_t{4095});
      },
      nullptr);
  return index;
}

TEST(TlsfArenaTest, PointerIndexIsBuiltOnFirstUseAndUntouchedBefore) {
  auto arena = MakeArena(8 * kMiB);
  std::vector<Handle> blocks;
  for (int i = 0; i < 256; ++i) blocks.push_back(*arena->Alloc(8000));
  ASSERT_TRUE(arena->Free(blocks[3]).ok());  // by handle
  const IndexPages index = IndexPagesOf(*arena);
  const void* index_begin = index.begin;
  const void* index_end = index.end;
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
  const IndexPages index = IndexPagesOf(*arena);
  const void* index_begin = index.begin;
  const void* index_end = index.end;
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

}  // namespace
}  // namespace tlsf_test
}  // namespace tessera
