// Copyright 2026 The Tessera Authors.
//
// Randomised model test: thousands of random alloc / aligned alloc / realloc /
// free / deferred free / free-by-pointer / collect operations against a
// shadow model. Every block is filled with a pattern derived from its
// allocation number and verified before it is freed or resized; a shadow
// interval map proves that no two live blocks overlap and that every pointer
// honours its alignment; CheckIntegrity() runs after every operation; and the
// arena's statistics are compared with the model (the largest free block
// with the largest free block of a walk of the address chains).

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <memory>
#include <random>
#include <string>

#include "absl/container/btree_map.h"
#include "absl/random/random.h"
#include "alloc/tlsf/tlsf_arena.h"
#include "gtest/gtest.h"

namespace tessera {
namespace {

struct ModelConfig {
  const char* name;
  size_t arena_bytes;
  size_t granularity;
  bool grow;
  uint64_t seed;
  int operations;
  uint32_t quick_cache_depth = 0;
  size_t quick_cache_bytes = TlsfArenaOptions{}.quick_cache_bytes;
  // Nonzero: sizes are uniform in [narrow_min, narrow_max] instead of
  // log-uniform, so that the free blocks crowd a few wide size classes.
  size_t narrow_min = 0;
  size_t narrow_max = 0;
  // Share of operations that allocate (percent); more keeps the arena full.
  int alloc_percent = 45;
};

struct LiveBlock {
  Handle handle;
  size_t alignment;
  uint64_t tag;  // pattern seed
};

uint8_t PatternByte(uint64_t tag, size_t i) {
  return static_cast<uint8_t>((tag * 0x9E3779B97F4A7C15ULL + i * 131) >> 56);
}

void Fill(const LiveBlock& block) {
  auto* bytes = static_cast<uint8_t*>(block.handle.address());
  for (size_t i = 0; i < block.handle.size(); ++i) {
    bytes[i] = PatternByte(block.tag, i);
  }
}

::testing::AssertionResult Verify(const LiveBlock& block, size_t bytes) {
  const auto* data = static_cast<const uint8_t*>(block.handle.address());
  for (size_t i = 0; i < bytes; ++i) {
    if (data[i] != PatternByte(block.tag, i)) {
      return ::testing::AssertionFailure()
             << "block " << block.handle.address() << " tag " << block.tag
             << " corrupted at byte " << i;
    }
  }
  return ::testing::AssertionSuccess();
}

class TlsfArenaModelTest : public ::testing::TestWithParam<ModelConfig> {
 protected:
  void SetUp() override {
    const ModelConfig& config = GetParam();
    TlsfArenaOptions options;
    options.arena_bytes = config.arena_bytes;
    options.granularity = config.granularity;
    options.grow = config.grow;
    options.growth_region_bytes = config.arena_bytes;
    options.max_block_size = 256 * 1024;
    options.quick_cache_depth = config.quick_cache_depth;
    options.quick_cache_max_granules = 64;
    options.quick_cache_bytes = config.quick_cache_bytes;
    absl::StatusOr<std::unique_ptr<TlsfArena>> arena =
        TlsfArena::Create(options);
    ASSERT_TRUE(arena.ok()) << arena.status();
    arena_ = *std::move(arena);
  }

  // Inserts a block into the shadow map, failing if it overlaps a neighbour
  // or misses its alignment.
  ::testing::AssertionResult Track(const LiveBlock& block) {
    const uintptr_t begin = reinterpret_cast<uintptr_t>(block.handle.address());
    const uintptr_t end = begin + block.handle.size();
    const size_t alignment =
        std::max(block.alignment, arena_->granularity());
    if ((begin & (alignment - 1)) != 0) {
      return ::testing::AssertionFailure()
             << block.handle.address() << " misses alignment " << alignment;
    }
    auto next = live_.lower_bound(begin);
    if (next != live_.end() && next->first < end) {
      return ::testing::AssertionFailure()
             << "block at " << begin << " overlaps the one at " << next->first;
    }
    if (next != live_.begin()) {
      auto prev = std::prev(next);
      if (prev->first + prev->second.handle.size() > begin) {
        return ::testing::AssertionFailure()
               << "block at " << begin << " overlaps the one at "
               << prev->first;
      }
    }
    live_.emplace(begin, block);
    used_ += block.handle.size();
    return ::testing::AssertionSuccess();
  }

  void Untrack(uintptr_t key) {
    used_ -= live_.at(key).handle.size();
    live_.erase(key);
  }

  size_t RandomSize() {
    const ModelConfig& config = GetParam();
    if (config.narrow_max != 0) {
      return absl::Uniform<size_t>(absl::IntervalClosed, rng_,
                                   config.narrow_min, config.narrow_max);
    }
    // Log-uniform from 1 byte to 64 KiB, and sometimes zero.
    if (absl::Bernoulli(rng_, 0.02)) return 0;
    const int log = absl::Uniform(rng_, 0, 17);
    return absl::Uniform<size_t>(rng_, size_t{1} << log, size_t{2} << log);
  }

  // The largest block the address chains say is free (cached blocks are
  // not free blocks), or 0.
  uint64_t LargestFreeBlockByWalk() const {
    uint64_t largest = 0;
    arena_->WalkBlocks(nullptr, [&](const TlsfBlockInfo& block) {
      if (block.state == TlsfBlockInfo::State::kFree) {
        largest = std::max<uint64_t>(largest, block.size);
      }
    });
    return largest;
  }

  auto RandomLive() {
    // Roughly uniform: the first block at or after a random address.
    const uintptr_t first = live_.begin()->first;
    const uintptr_t last = live_.rbegin()->first;
    auto it = live_.lower_bound(absl::Uniform<uintptr_t>(rng_, first, last + 1));
    return it == live_.end() ? live_.begin() : it;
  }

  std::unique_ptr<TlsfArena> arena_;
  absl::btree_map<uintptr_t, LiveBlock> live_;
  uint64_t used_ = 0;
  uint64_t next_tag_ = 1;
  uint64_t allocations_ = 0, frees_ = 0, reallocations_ = 0;
  std::mt19937_64 rng_{GetParam().seed};
};

TEST_P(TlsfArenaModelTest, RandomOperationsKeepEveryInvariant) {
  const ModelConfig& config = GetParam();
  uint64_t failed_allocs = 0;
  for (int op = 0; op < config.operations; ++op) {
    const int kind = absl::Uniform(rng_, 0, 100);
    std::string what;
    const int allocs = config.alloc_percent;
    if (kind < allocs || live_.empty()) {
      // Plain or aligned allocation.
      const size_t size = RandomSize();
      const size_t alignment =
          kind < allocs * 3 / 4 ? 0
                                : size_t{1} << absl::Uniform(rng_, 0, 14);
      what = "alloc " + std::to_string(size) + " align " +
             std::to_string(alignment);
      absl::StatusOr<Handle> h = arena_->Alloc(size, alignment);
      if (h.ok()) {
        ASSERT_GE(h->size(), std::max<size_t>(size, 1)) << what;
        LiveBlock block{*h, alignment, next_tag_++};
        ASSERT_TRUE(Track(block)) << what;
        Fill(block);
        ++allocations_;
      } else {
        ASSERT_EQ(h.status().code(), absl::StatusCode::kResourceExhausted)
            << what << ": " << h.status();
        ++failed_allocs;
      }
    } else if (kind < allocs + 13) {
      // Realloc: contents up to the smaller size survive, alignment kept.
      auto it = RandomLive();
      LiveBlock block = it->second;
      const size_t new_size = RandomSize();
      what = "realloc " + std::to_string(new_size);
      ASSERT_TRUE(Verify(block, block.handle.size())) << what;
      absl::StatusOr<Handle> h =
          arena_->Realloc(block.handle, new_size, block.alignment);
      if (h.ok()) {
        const size_t kept = std::min(block.handle.size(), h->size());
        Untrack(it->first);
        ASSERT_TRUE(Verify(LiveBlock{*h, block.alignment, block.tag}, kept))
            << what;
        const LiveBlock moved{*h, block.alignment, next_tag_++};
        ASSERT_TRUE(Track(moved)) << what;
        Fill(moved);
        ++reallocations_;
      } else {
        ASSERT_EQ(h.status().code(), absl::StatusCode::kResourceExhausted)
            << what << ": " << h.status();
        ASSERT_TRUE(Verify(block, block.handle.size())) << what;
      }
    } else if (kind < 95) {
      // Free: by handle (immediate or deferred) or by pointer.
      auto it = RandomLive();
      const LiveBlock block = it->second;
      ASSERT_TRUE(Verify(block, block.handle.size()));
      const int how = absl::Uniform(rng_, 0, 4);
      what = "free mode " + std::to_string(how);
      if (how == 0) {
        ASSERT_TRUE(arena_->Free(block.handle, 0).ok()) << what;
      } else if (how == 1) {
        ASSERT_TRUE(arena_->Free(block.handle.address()).ok()) << what;
      } else {
        ASSERT_TRUE(arena_->Free(block.handle, how - 1).ok()) << what;
      }
      Untrack(it->first);
      ++frees_;
      // The block is gone: freeing it again is rejected, arena untouched.
      if (absl::Bernoulli(rng_, 0.05)) {
        ASSERT_FALSE(arena_->Free(block.handle).ok()) << what;
        ASSERT_FALSE(arena_->Free(block.handle.address()).ok()) << what;
      }
    } else {
      what = "collect";
      CollectOptions options;
      options.release_pages = absl::Bernoulli(rng_, 0.3);
      options.release_threshold = 16 * 1024;
      arena_->Collect(options);
      ASSERT_EQ(arena_->Stats().pending_free_blocks, 0u);
    }
    const absl::Status integrity = arena_->CheckIntegrity();
    ASSERT_TRUE(integrity.ok()) << "after op " << op << " (" << what
                                << "): " << integrity;
    const TlsfStats stats = arena_->Stats();
    ASSERT_EQ(stats.bytes_in_use, used_) << "op " << op << " " << what;
    ASSERT_EQ(stats.live_blocks, live_.size()) << "op " << op;
    ASSERT_EQ(stats.allocations, allocations_) << "op " << op;
    ASSERT_EQ(stats.frees, frees_) << "op " << op;
    ASSERT_EQ(arena_->stats().reallocations, reallocations_) << "op " << op;
    ASSERT_LE(stats.largest_free_block, stats.free_bytes);
    // The largest free block is exact: the largest free block of the
    // address chains (walked independently of the lists and bitmaps).
    ASSERT_EQ(stats.largest_free_block, LargestFreeBlockByWalk())
        << "op " << op << " " << what;
    // One node per block, nothing leaked: metadata tracks the block count.
    ASSERT_EQ(stats.metadata_nodes_in_use,
              live_.size() + stats.free_blocks + stats.cached_blocks);
  }
  // Drain: everything verifies, and the arena returns to one free block per
  // region.
  for (const auto& [address, block] : live_) {
    ASSERT_TRUE(Verify(block, block.handle.size()));
    ASSERT_TRUE(arena_->Free(block.handle).ok());
  }
  arena_->Collect();
  const TlsfStats stats = arena_->Stats();
  EXPECT_EQ(stats.bytes_in_use, 0u);
  EXPECT_EQ(stats.free_blocks, stats.regions);
  EXPECT_EQ(stats.metadata_nodes_in_use, stats.regions);
  EXPECT_TRUE(arena_->CheckIntegrity().ok());
  // The configurations are sized so that exhaustion is reached sometimes.
  if (!config.grow) {
    EXPECT_GT(failed_allocs, 0u);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Configs, TlsfArenaModelTest,
    ::testing::Values(ModelConfig{"small_g64", 768 << 10, 64, false, 1, 3000},
                      ModelConfig{"small_g16", 1 << 20, 16, false, 2, 2500},
                      ModelConfig{"growing", 256 << 10, 64, true, 3, 2500},
                      ModelConfig{"tight_g256", 512 << 10, 256, false, 4,
                                  2000},
                      ModelConfig{"quick_cache", 512 << 10, 64, false, 5, 3000,
                                  4},
                      // The default cache (depth 512, 4 MiB) over an arena
                      // it could hold whole, and a byte limit that binds.
                      ModelConfig{"default_cache", 512 << 10, 64, false, 6,
                                  3000, TlsfArenaOptions{}.quick_cache_depth},
                      ModelConfig{"cache_byte_limit", 512 << 10, 64, false, 7,
                                  3000, 512, 16 << 10},
                      // Sizes of one class (8192-8447 bytes) and more
                      // allocations than frees: the arena stays full, the
                      // highest lists hold several blocks, and merges and
                      // Realloc remove their heads (stale lists repaired).
                      ModelConfig{"narrow_sizes", 512 << 10, 64, false, 8,
                                  3000, 0, 0, 8192, 8447, 60}),
    [](const ::testing::TestParamInfo<ModelConfig>& info) {
      return std::string(info.param.name);
    });

}  // namespace
}  // namespace tessera
