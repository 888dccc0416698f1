// Copyright 2026 The Tessera Authors.
//
// CheckIntegrity of every pool, against state corrupted on purpose: each
// numbered invariant in the pools' headers must be caught, and the error must
// name it. (The fuzzers and the other tests only ever see sound pools, so
// without this nothing shows that the checks can fail.) Each test breaks one
// field through IntegrityTestPeer, checks, and restores it, so the pool is
// sound again before it is destroyed.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "alloc/allocator.h"
#include "alloc/internal/dcheck.h"
#include "alloc/pool/buffer_cache.h"
#include "alloc/pool/concurrent_pool.h"
#include "alloc/pool/size_class_pool.h"
#include "alloc/pool/stacked_pool.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tessera {
namespace pool_internal {

class IntegrityTestPeer {
 public:
  using Block = StackedPool::Block;
  using FreeCell = StackedPool::FreeCell;

  // StackedPool.
  static Block* BlockOf(const StackedPool& p, void* cell) {
    return p.BlockOf(cell);
  }
  static Block*& blocks_head(StackedPool& p) { return p.blocks_head_; }
  static Block*& available_head(StackedPool& p) { return p.available_head_; }
  static size_t& block_count(StackedPool& p) { return p.block_count_; }
  static uint64_t& block_cells_in_use(StackedPool& p) {
    return p.block_cells_in_use_;
  }
  static uint64_t& overflows(StackedPool& p) { return p.overflows_; }
  static absl::flat_hash_set<void*>& overflow_cells(StackedPool& p) {
    return p.overflow_cells_;
  }
  static absl::flat_hash_set<uintptr_t>& block_table(StackedPool& p) {
    return p.block_table_;
  }
  static uint32_t& magazine_count(StackedPool& p) { return p.magazine_count_; }
  static void*& magazine(StackedPool& p, int i) { return p.magazine_[i]; }
  static uint32_t& used(Block* b) { return b->used; }
  static char*& bump(Block* b) { return b->bump; }
  static bool& available(Block* b) { return b->available; }
  static FreeCell*& free_top(Block* b) { return b->free; }
  static Block*& next(Block* b) { return b->next; }
  static FreeCell*& next(FreeCell* c) { return c->next; }
  static void FlipBit(const StackedPool& p, Block* b, const void* cell) {
    const uint32_t index = p.CellIndex(b, cell);
    b->bitmap()[index >> 6] ^= uint64_t{1} << (index & 63);
  }

  // ConcurrentPool.
  static StackedPool& depot(ConcurrentPool& p) { return *p.depot_; }
  static std::atomic<uint32_t>& first_cache_count(ConcurrentPool& p) {
    return p.caches_.front()->count;
  }
  static absl::flat_hash_set<void*>& client_held(ConcurrentPool& p) {
    return p.client_held_;
  }

  // SizeClassPool.
  static StackedPool& class_pool(SizeClassPool& p, int c) {
    return *p.pools_[c];
  }
  // Upstream blocks obtained by reallocations (not counted as allocations).
  static uint64_t& realloc_takes(SizeClassPool& p) { return p.realloc_takes_; }
  static uint64_t& bytes_in_use(SizeClassPool& p) { return p.bytes_in_use_; }

  // BufferCache.
  static uint64_t& cached_bytes(BufferCache& c) { return c.cached_bytes_; }
  static uint64_t& live_mapped_bytes(BufferCache& c) {
    return c.live_mapped_bytes_;
  }
  static std::atomic<uint64_t>& upstream_live(BufferCache& c) {
    return c.upstream_live_;
  }
  // Appends a second entry for the newest cached buffer; undone by PopCached.
  static void DuplicateNewestCached(BufferCache& c) {
    c.cached_.push_back(c.cached_.back());
  }
  static void PopCached(BufferCache& c) { c.cached_.pop_back(); }
  static void RecordPhantomBytes(BufferCache& c, size_t bytes, bool add) {
    if (add) {
      c.stats_.RecordReallocation(0, bytes);
    } else {
      c.stats_.RecordReallocation(bytes, 0);
    }
  }
};

namespace {

using ::testing::HasSubstr;
using Peer = IntegrityTestPeer;

// Sets `field` to `bad`, expects CheckIntegrity to fail naming `invariant`
// (and `detail`), restores the field and expects the pool sound again.
template <typename Pool, typename T>
void ExpectCaught(const Pool& pool, T& field, T bad, int invariant,
                  const std::string& detail) {
  const T saved = field;
  field = bad;
  const absl::Status status = pool.CheckIntegrity();
  field = saved;
  EXPECT_TRUE(absl::IsInternal(status)) << status;
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("invariant " + std::to_string(invariant)));
  EXPECT_THAT(std::string(status.message()), HasSubstr(detail));
  EXPECT_TRUE(pool.CheckIntegrity().ok()) << pool.CheckIntegrity();
}

StackedPoolOptions SmallPool(bool checks) {
  StackedPoolOptions options;
  options.cell_size = 16;
  options.alignment = 16;
  options.cells_per_block = 4;
  options.initial_blocks = 1;
  options.check_returns = checks;
  options.name = "integrity";
  return options;
}

// A pool of two blocks: the first has every cell handed out, the second has
// one returned cell on its free stack and uncarved cells.
class StackedPoolIntegrityTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto pool = StackedPool::Create(SmallPool(/*checks=*/true));
    ASSERT_TRUE(pool.ok()) << pool.status();
    pool_ = *std::move(pool);
    const size_t capacity = pool_->cells_per_block();
    for (size_t i = 0; i < capacity + 2; ++i) cells_.push_back(pool_->Take());
    returned_ = cells_.back();
    cells_.pop_back();
    pool_->Return(returned_);
    full_ = Peer::BlockOf(*pool_, cells_.front());
    partial_ = Peer::BlockOf(*pool_, returned_);
    ASSERT_NE(full_, partial_);
    ASSERT_TRUE(pool_->CheckIntegrity().ok()) << pool_->CheckIntegrity();
  }
  void TearDown() override {
    for (void* cell : cells_) pool_->Return(cell);
    EXPECT_TRUE(pool_->CheckIntegrity().ok());
  }

  std::unique_ptr<StackedPool> pool_;
  std::vector<void*> cells_;
  void* returned_ = nullptr;
  Peer::Block* full_ = nullptr;
  Peer::Block* partial_ = nullptr;
};

TEST_F(StackedPoolIntegrityTest, BlockListAndTableMustAgree) {  // 1
  ExpectCaught(*pool_, Peer::block_count(*pool_),
               Peer::block_count(*pool_) + 1, 1, "blocks listed");
  Peer::Block* head = Peer::blocks_head(*pool_);
  ExpectCaught(*pool_, Peer::next(head), head, 1,
               "block list is longer than the block table");
  auto& table = Peer::block_table(*pool_);
  const uintptr_t key = reinterpret_cast<uintptr_t>(head);
  table.erase(key);
  const absl::Status status = pool_->CheckIntegrity();
  table.insert(key);
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("is misaligned or not in the block table"));
  EXPECT_TRUE(pool_->CheckIntegrity().ok());
}

TEST_F(StackedPoolIntegrityTest, BlockCellAccountingMustAddUp) {  // 2
  const uint32_t capacity = static_cast<uint32_t>(pool_->cells_per_block());
  ExpectCaught(*pool_, Peer::used(partial_), capacity + 1, 2,
               "cells in use of");
  ExpectCaught(*pool_, Peer::bump(partial_), Peer::bump(partial_) + 1, 2,
               "off the cell grid");
  ExpectCaught(*pool_, Peer::used(partial_), Peer::used(partial_) - 1, 2,
               "in use +");
  Peer::FreeCell* top = Peer::free_top(partial_);
  ASSERT_NE(top, nullptr);
  ExpectCaught(*pool_, Peer::next(top), top, 2, "free stack is longer");
  ExpectCaught(*pool_, Peer::free_top(partial_),
               reinterpret_cast<Peer::FreeCell*>(
                   reinterpret_cast<char*>(top) + 8),
               2, "not a carved cell");
}

TEST_F(StackedPoolIntegrityTest, AvailableListMustMatchTheBlocks) {  // 3
  ExpectCaught(*pool_, Peer::available(partial_), false, 3,
               "is not on the available list");
  ExpectCaught(*pool_, Peer::available_head(*pool_), full_, 3,
               "not marked available");
  ExpectCaught(*pool_, Peer::available_head(*pool_),
               static_cast<Peer::Block*>(nullptr), 3,
               "blocks on the available list");
}

TEST_F(StackedPoolIntegrityTest, CellCounterMustMatchTheBlocks) {  // 4
  ExpectCaught(*pool_, Peer::block_cells_in_use(*pool_),
               Peer::block_cells_in_use(*pool_) + 1, 4, "the counter says");
}

TEST_F(StackedPoolIntegrityTest, InUseBitmapMustMatchTheCells) {  // 5
  Peer::FlipBit(*pool_, partial_, returned_);
  absl::Status status = pool_->CheckIntegrity();
  Peer::FlipBit(*pool_, partial_, returned_);
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("invariant 5 violated: idle cell"));
  Peer::FlipBit(*pool_, full_, cells_.front());
  status = pool_->CheckIntegrity();
  Peer::FlipBit(*pool_, full_, cells_.front());
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("invariant 5 violated: block"));
  EXPECT_TRUE(pool_->CheckIntegrity().ok());
}

TEST_F(StackedPoolIntegrityTest, OverflowCellsMustMatchThePolicyAndCounters) {  // 6
  ExpectCaught(*pool_, Peer::overflows(*pool_), Peer::overflows(*pool_) + 1, 6,
               "overflow cells tracked");
  int dummy = 0;
  Peer::overflow_cells(*pool_).insert(&dummy);
  const absl::Status status = pool_->CheckIntegrity();
  Peer::overflow_cells(*pool_).erase(&dummy);
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("without the upstream policy"));
}

TEST_F(StackedPoolIntegrityTest, MagazineMustBeEmptyWithChecks) {  // 7
  ExpectCaught(*pool_, Peer::magazine_count(*pool_), uint32_t{1}, 7,
               "magazine holds 1 cells");
}

TEST(StackedPoolMagazineIntegrityTest, MagazineHoldsOnlyDistinctIdleCells) {
  auto made = StackedPool::Create(SmallPool(/*checks=*/false));
  ASSERT_TRUE(made.ok()) << made.status();
  StackedPool& pool = **made;
  void* a = pool.Take();
  void* b = pool.Take();
  // Without checks a return lands in the magazine.
  pool.Return(b);
  ASSERT_EQ(Peer::magazine_count(pool), 1u);
  void*& second = Peer::magazine(pool, 1);
  second = b;
  ExpectCaught(pool, Peer::magazine_count(pool), uint32_t{2}, 7,
               "is a duplicate or not a carved cell");
  second = static_cast<char*>(a) + 1;
  ExpectCaught(pool, Peer::magazine_count(pool), uint32_t{2}, 7,
               "is a duplicate or not a carved cell");
  ExpectCaught(pool, Peer::magazine_count(pool),
               StackedPool::kMagazineCells + 1, 7, "magazine holds");
  pool.Return(a);
}

TEST(StackedPoolMagazineIntegrityTest,
     ExpensiveChecksCatchACorruptionWithinAPeriodOfReturns) {
  if (!internal::kTesseraExpensiveChecks) {
    GTEST_SKIP() << "expensive checks run in sanitizer builds only";
  }
  auto made = StackedPool::Create(SmallPool(/*checks=*/true));
  ASSERT_TRUE(made.ok()) << made.status();
  StackedPool& pool = **made;
  std::vector<void*> cells;
  for (uint32_t k = 0; k < internal::kExpensiveCheckPeriod; ++k) {
    cells.push_back(pool.Take());
    ASSERT_NE(cells.back(), nullptr);
  }
  EXPECT_DEATH(
      {
        Peer::block_cells_in_use(pool) += 1;
        for (void* cell : cells) pool.Return(cell);
      },
      "TESSERA_DCHECK failed: the pool should be intact after a return "
      "\\(.*invariant 4");
  for (void* cell : cells) pool.Return(cell);
  EXPECT_TRUE(pool.CheckIntegrity().ok()) << pool.CheckIntegrity();
}

TEST(ConcurrentPoolIntegrityTest, EachInvariantIsNamed) {
  ConcurrentPoolOptions options;
  options.depot = SmallPool(/*checks=*/true);
  options.cache_cells = 4;
  options.check_returns = true;
  auto made = ConcurrentPool::Create(options);
  ASSERT_TRUE(made.ok()) << made.status();
  ConcurrentPool& pool = **made;
  void* cell = pool.Take();  // gives this thread a cache
  ASSERT_NE(cell, nullptr);
  StackedPool& depot = Peer::depot(pool);
  uint64_t& counter = Peer::block_cells_in_use(depot);
  ExpectCaught(pool, counter, counter + 1, 1, "depot is sound");
  std::atomic<uint32_t>& count = Peer::first_cache_count(pool);
  const uint32_t saved = count.load();
  count.store(5);
  absl::Status status = pool.CheckIntegrity();
  count.store(saved);
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("invariant 2 (caches within capacity"));
  int dummy = 0;
  Peer::client_held(pool).insert(&dummy);
  status = pool.CheckIntegrity();
  Peer::client_held(pool).erase(&dummy);
  EXPECT_THAT(std::string(status.message()), HasSubstr("invariant 3"));
  EXPECT_TRUE(pool.CheckIntegrity().ok()) << pool.CheckIntegrity();
  pool.Return(cell);
}

TEST(SizeClassPoolIntegrityTest, EachInvariantIsNamed) {
  SizeClassPoolOptions options;
  options.check_returns = true;
  auto made = SizeClassPool::Create(options);
  ASSERT_TRUE(made.ok()) << made.status();
  SizeClassPool& pool = **made;
  ExpectCaught(pool, Peer::bytes_in_use(pool), uint64_t{8}, 3,
               "nothing live, no bytes in use");
  void* small = pool.Allocate(40);
  ASSERT_NE(small, nullptr);
  const int c = SizeClassPool::ClassFor(40, kDefaultAlignment);
  uint64_t& counter = Peer::block_cells_in_use(Peer::class_pool(pool, c));
  ExpectCaught(pool, counter, counter + 1, 1, "class pools are sound");
  ExpectCaught(pool, Peer::realloc_takes(pool), Peer::realloc_takes(pool) + 1,
               2, "cells in use + upstream blocks");
  pool.Deallocate(small, 40);
}

TEST(BufferCacheIntegrityTest, EachInvariantIsNamed) {
  BufferCacheOptions options;
  options.huge_pages = false;
  options.max_buffers_per_class = 1;
  auto made = BufferCache::Create(options);
  ASSERT_TRUE(made.ok()) << made.status();
  BufferCache& cache = **made;
  constexpr size_t kBytes = 100000;
  // Invariant 5: nothing live, yet bytes in use.
  Peer::RecordPhantomBytes(cache, 64, /*add=*/true);
  absl::Status status = cache.CheckIntegrity();
  Peer::RecordPhantomBytes(cache, 64, /*add=*/false);
  EXPECT_THAT(std::string(status.message()), HasSubstr("invariant 5"));

  void* live = cache.Allocate(kBytes);
  void* idle = cache.Allocate(kBytes);
  ASSERT_NE(live, nullptr);
  ASSERT_NE(idle, nullptr);
  cache.Deallocate(idle, kBytes);
  ASSERT_EQ(cache.cache_stats().cached_buffers, 1u);

  ExpectCaught(cache, Peer::cached_bytes(cache), Peer::cached_bytes(cache) + 1,
               1, "cached buffers sum to");
  ExpectCaught(cache, Peer::live_mapped_bytes(cache),
               Peer::live_mapped_bytes(cache) + 1, 4, "live buffers");
  std::atomic<uint64_t>& upstream = Peer::upstream_live(cache);
  upstream.fetch_add(1);
  status = cache.CheckIntegrity();
  upstream.fetch_sub(1);
  EXPECT_THAT(std::string(status.message()), HasSubstr("invariant 4"));
  // One buffer per class: a second entry breaks invariant 3 first.
  Peer::DuplicateNewestCached(cache);
  status = cache.CheckIntegrity();
  Peer::PopCached(cache);
  EXPECT_THAT(std::string(status.message()), HasSubstr("invariant 3"));
  EXPECT_TRUE(cache.CheckIntegrity().ok()) << cache.CheckIntegrity();
  cache.Deallocate(live, kBytes);
}

TEST(BufferCacheIntegrityTest, ABufferCachedTwiceIsNamed) {
  BufferCacheOptions options;
  options.huge_pages = false;
  options.max_buffers_per_class = 4;
  auto made = BufferCache::Create(options);
  ASSERT_TRUE(made.ok()) << made.status();
  BufferCache& cache = **made;
  void* idle = cache.Allocate(100000);
  ASSERT_NE(idle, nullptr);
  cache.Deallocate(idle, 100000);
  Peer::DuplicateNewestCached(cache);
  const absl::Status status = cache.CheckIntegrity();
  Peer::PopCached(cache);
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("invariant 2 violated: buffer"));
  EXPECT_TRUE(cache.CheckIntegrity().ok());
}

}  // namespace
}  // namespace pool_internal
}  // namespace tessera
