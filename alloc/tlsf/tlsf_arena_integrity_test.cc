// Copyright 2026 The Tessera Authors.
//
// CheckIntegrity of TlsfArena against state corrupted on purpose, one test
// per numbered invariant of tlsf_arena.h that the per-concern tests do not
// already break (tlsf_arena_test.cc corrupts 1 and 7,
// tlsf_arena_pointer_index_test.cc 6, tlsf_arena_list_head_test.cc 9): each
// breaks one field through IntegrityTestPeer, checks that the error names exactly that invariant, and
// restores the field, so the arena is sound again before it is destroyed.
// Also the graded internal checks (alloc/internal/dcheck.h): the cheap ones
// fire where an invariant is relied on, the expensive one catches a
// corruption within a period of frees in sanitizer builds.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "alloc/internal/dcheck.h"
#include "alloc/tlsf/tlsf_arena.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tessera {
namespace tlsf_internal {

class IntegrityTestPeer {
 public:
  using Node = TlsfArena::Node;
  static constexpr uint32_t kNil = TlsfArena::kNil;
  static constexpr uint64_t kFlagPending = TlsfArena::kFlagPending;
  static constexpr uint64_t kFlagFree = TlsfArena::kFlagFree;

  // The node index of the block starting at `addr` (walks the chains).
  static uint32_t IndexOf(const TlsfArena& a, const void* addr) {
    for (int r = 0; r < a.num_regions_; ++r) {
      for (uint32_t x = a.regions_[r].last; x != kNil; x = a.N(x)->prev_phys) {
        if (a.N(x)->addr == addr) return x;
      }
    }
    return kNil;
  }
  static Node* NodeOf(const TlsfArena& a, const void* addr) {
    const uint32_t i = IndexOf(a, addr);
    return i == kNil ? nullptr : a.N(i);
  }
  // The node of region 0's last block (the free tail of a fresh arena).
  static Node* Tail(const TlsfArena& a) { return a.N(a.regions_[0].last); }
  static uint32_t& sl_bitmap(TlsfArena& a, int fl) { return a.sl_bitmap_[fl]; }
  static uint32_t recycled_head(const TlsfArena& a) { return a.recycled_head_; }
  static Node* N(const TlsfArena& a, uint32_t i) { return a.N(i); }
  static uint32_t& quick_count(TlsfArena& a, uint32_t q) {
    return a.quick_[q].count;
  }
  static uint64_t& high_water(TlsfArena& a) { return a.high_water_; }
  // Frees block i without any of the API's validation.
  static void FreeMerging(TlsfArena& a, uint32_t i) { a.FreeMerging(i, 4); }
};

namespace {

using ::testing::HasSubstr;
using Peer = IntegrityTestPeer;

constexpr size_t kMiB = 1024 * 1024;

std::unique_ptr<TlsfArena> MakeArena(TlsfArenaOptions options = {}) {
  options.arena_bytes = 1 * kMiB;
  absl::StatusOr<std::unique_ptr<TlsfArena>> made = TlsfArena::Create(options);
  EXPECT_TRUE(made.ok()) << made.status();
  return made.ok() ? std::move(*made) : nullptr;
}

std::string Message(const absl::Status& status) {
  return std::string(status.message());
}

// A zeroed request trusts the bytes above the mark to read zero: a block
// above it would let one skip clearing memory that was handed out.
TEST(TlsfIntegrityTest, ABlockAboveTheHighWaterMarkBreaksInvariant10) {
  auto arena = MakeArena();
  Handle a = *arena->Alloc(256);
  ASSERT_TRUE(arena->CheckIntegrity().ok()) << arena->CheckIntegrity();
  uint64_t& mark = Peer::high_water(*arena);
  const uint64_t saved = mark;
  mark = saved - 64;
  EXPECT_THAT(Message(arena->CheckIntegrity()),
              HasSubstr("invariant 10 violated"));
  mark = saved;
  EXPECT_TRUE(arena->CheckIntegrity().ok()) << arena->CheckIntegrity();
  ASSERT_TRUE(arena->Free(a).ok());
}

TEST(TlsfIntegrityTest, AdjacentFreeBlocksNotBothPendingBreakInvariant2) {
  auto arena = MakeArena();
  Handle a = *arena->Alloc(256), b = *arena->Alloc(256), c = *arena->Alloc(256);
  // Deferred frees leave a and b adjacent, free and both pending.
  ASSERT_TRUE(arena->Free(a, /*scan_window=*/0).ok());
  ASSERT_TRUE(arena->Free(b, /*scan_window=*/0).ok());
  ASSERT_TRUE(arena->CheckIntegrity().ok()) << arena->CheckIntegrity();
  Peer::Node* nb = Peer::NodeOf(*arena, b.address());
  ASSERT_NE(nb, nullptr);
  ASSERT_NE(nb->size_flags & Peer::kFlagPending, 0u);
  nb->size_flags &= ~Peer::kFlagPending;
  EXPECT_THAT(Message(arena->CheckIntegrity()),
              HasSubstr("invariant 2 violated"));
  nb->size_flags |= Peer::kFlagPending;
  EXPECT_TRUE(arena->CheckIntegrity().ok()) << arena->CheckIntegrity();
  ASSERT_TRUE(arena->Free(c).ok());
}

TEST(TlsfIntegrityTest, AFreeBlockWithABadListLinkBreaksInvariant3) {
  auto arena = MakeArena();
  // The free tail is alone on its list: nothing may precede it there.
  Peer::Node* tail = Peer::Tail(*arena);
  ASSERT_NE(tail->size_flags & Peer::kFlagFree, 0u);
  ASSERT_EQ(tail->prev_free, Peer::kNil);
  tail->prev_free = 0;
  EXPECT_THAT(Message(arena->CheckIntegrity()),
              HasSubstr("invariant 3 violated"));
  tail->prev_free = Peer::kNil;
  EXPECT_TRUE(arena->CheckIntegrity().ok()) << arena->CheckIntegrity();
}

TEST(TlsfIntegrityTest, ABitmapBitOfAnEmptyListBreaksInvariant4) {
  auto arena = MakeArena();
  // A fresh arena has one (large) free block: list (0, 1) is empty.
  uint32_t& row0 = Peer::sl_bitmap(*arena, 0);
  ASSERT_EQ(row0 & 2u, 0u);
  row0 |= 2u;
  EXPECT_THAT(Message(arena->CheckIntegrity()),
              HasSubstr("invariant 4 violated"));
  row0 &= ~2u;
  EXPECT_TRUE(arena->CheckIntegrity().ok()) << arena->CheckIntegrity();
}

TEST(TlsfIntegrityTest, ARecycledNodeNotMarkedRecycledBreaksInvariant5) {
  auto arena = MakeArena();
  // The first carve unit holds two nodes at the default granularity: one
  // describes the only block, the other waits on the recycled list.
  const uint32_t head = Peer::recycled_head(*arena);
  ASSERT_NE(head, Peer::kNil);
  Peer::Node* n = Peer::N(*arena, head);
  const uint64_t flags = n->size_flags;
  n->size_flags |= Peer::kFlagFree;
  EXPECT_THAT(Message(arena->CheckIntegrity()),
              HasSubstr("invariant 5 violated"));
  n->size_flags = flags;
  EXPECT_TRUE(arena->CheckIntegrity().ok()) << arena->CheckIntegrity();
}

TEST(TlsfIntegrityTest, AQuickListCountOffByOneBreaksInvariant8) {
  auto arena = MakeArena();
  Handle a = *arena->Alloc(64), keep = *arena->Alloc(64);
  ASSERT_TRUE(arena->Free(a).ok());  // into the quick list of 1 granule
  ASSERT_EQ(arena->Stats().cached_blocks, 1u);
  ASSERT_TRUE(arena->CheckIntegrity().ok()) << arena->CheckIntegrity();
  uint32_t& count = Peer::quick_count(*arena, 0);
  ++count;
  EXPECT_THAT(Message(arena->CheckIntegrity()),
              HasSubstr("invariant 8 violated"));
  --count;
  EXPECT_TRUE(arena->CheckIntegrity().ok()) << arena->CheckIntegrity();
  ASSERT_TRUE(arena->Free(keep).ok());
}

TEST(TlsfIntegrityTest, FreeingABlockThatIsNotLiveTripsTheInternalCheck) {
  if (!internal::kTesseraInternalChecks) {
    GTEST_SKIP() << "internal checks are compiled out (NDEBUG)";
  }
  auto arena = MakeArena();
  Handle a = *arena->Alloc(256), keep = *arena->Alloc(256);
  ASSERT_TRUE(arena->Free(a, /*scan_window=*/0).ok());
  const uint32_t i = Peer::IndexOf(*arena, a.address());
  ASSERT_NE(i, Peer::kNil);
  // The API rejects a double free before it gets this far; the internal
  // check is what stops the arena's own code from doing one.
  EXPECT_DEATH(Peer::FreeMerging(*arena, i),
               "tlsf_arena\\.cc:[0-9]+: TESSERA_DCHECK failed: a block being "
               "freed should be live");
  ASSERT_TRUE(arena->Free(keep).ok());
}

TEST(TlsfIntegrityTest, ExpensiveChecksCatchACorruptionWithinAPeriodOfFrees) {
  if (!internal::kTesseraExpensiveChecks) {
    GTEST_SKIP() << "expensive checks run in sanitizer builds only";
  }
  auto arena = MakeArena();
  std::vector<Handle> blocks;
  for (uint32_t k = 0; k < internal::kExpensiveCheckPeriod; ++k) {
    blocks.push_back(*arena->Alloc(256));
  }
  EXPECT_DEATH(
      {
        ++Peer::quick_count(*arena, 0);
        for (const Handle& h : blocks) (void)arena->Free(h);
      },
      "TESSERA_DCHECK failed: the arena should be intact after a free "
      "\\(tlsf: invariant 8 violated");
  for (const Handle& h : blocks) ASSERT_TRUE(arena->Free(h).ok());
  EXPECT_TRUE(arena->CheckIntegrity().ok()) << arena->CheckIntegrity();
}

}  // namespace
}  // namespace tlsf_internal
}  // namespace tessera
