// Copyright 2026 The Tessera Authors.
//
// TlsfArena's largest free block per segregated list (invariant 9 of
// tlsf_arena.h): exact when a class holds several blocks, kept exact by
// realloc, and a wrong head named by CheckIntegrity.

#include "alloc/tlsf/tlsf_arena.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "alloc/tlsf/tlsf_arena_test_support.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tessera {
namespace tlsf_test {
namespace {

using ::testing::HasSubstr;

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

}  // namespace
}  // namespace tlsf_test
}  // namespace tessera
