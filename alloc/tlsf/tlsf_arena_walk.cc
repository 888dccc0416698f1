// Copyright 2026 The Tessera Authors.
//
// TlsfArena::WalkBlocks, kept apart from the allocator's hot paths: it only
// reads the address chains that CheckIntegrity also walks.

#include <vector>

#include "alloc/tlsf/tlsf_arena.h"

namespace tessera {

void TlsfArena::WalkBlocks(
    const std::function<void(const TlsfRegionInfo&)>& on_region,
    const std::function<void(const TlsfBlockInfo&)>& on_block) const {
  std::vector<uint32_t> chain;
  for (int r = 0; r < num_regions_; ++r) {
    const Region& region = regions_[r];
    TlsfRegionInfo info;
    info.region = r;
    info.memory = region.memory;
    info.memory_bytes = region.memory_bytes;
    info.base = region.base;
    info.floor = region.floor;
    info.metadata_bytes = size_t{region.carved} * sizeof(Node);
    if (on_region) on_region(info);
    // The chain is linked downwards from the region's highest block.
    chain.clear();
    for (uint32_t x = region.last; x != kNil; x = N(x)->prev_phys) {
      chain.push_back(x);
    }
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      const Node* n = N(*it);
      TlsfBlockInfo block;
      block.region = r;
      block.address = n->addr;
      block.size = SizeOf(n);
      if ((n->size_flags & kFlagCached) != 0) {
        block.state = TlsfBlockInfo::State::kCached;
      } else if (IsFree(n)) {
        block.state = TlsfBlockInfo::State::kFree;
      } else {
        block.state = TlsfBlockInfo::State::kLive;
      }
      block.pending = (n->size_flags & kFlagPending) != 0;
      if (on_block) on_block(block);
    }
  }
}

}  // namespace tessera
