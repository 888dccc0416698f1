// Copyright 2026 The Tessera Authors.
//
// -----------------------------------------------------------------------------
// File: arena_map.h
// -----------------------------------------------------------------------------
//
// A picture of a TLSF arena: which addresses hold live blocks, free blocks,
// quick-cached blocks, the pointer index and the metadata nodes, drawn from a
// `TlsfArena::WalkBlocks` snapshot as an SVG, with the figures that say how
// fragmented it is. The shootout takes the snapshot at the end of W4 on the
// `tlsf` subject (before the teardown frees everything) and writes
// `tlsf_arena_map.svg` next to report.md.
//
// Drawing: each region is a grid of cells read left to right, top to bottom
// in address order; a cell stands for a fixed number of bytes and is coloured
// by the mix of what lies in it (a cell that is part live, part free is drawn
// in between), so a shattered stretch looks speckled. Only the part of a
// region up to its highest live block is drawn to scale: the free tail above
// it (never touched, or given back) is one labelled gap, followed by the
// metadata nodes at the region's top.

#ifndef TESSERA_BENCH_SHOOTOUT_ARENA_MAP_H_
#define TESSERA_BENCH_SHOOTOUT_ARENA_MAP_H_

#include <cstdint>
#include <string>
#include <vector>

#include "alloc/tlsf/tlsf_arena.h"

namespace tessera {
namespace shootout {

struct ArenaSnapshot {
  std::vector<TlsfRegionInfo> regions;
  std::vector<TlsfBlockInfo> blocks;  // in region, then address, order
  bool taken = false;
};

// Fills `snapshot` from `arena` (read-only).
void TakeArenaSnapshot(const TlsfArena& arena, ArenaSnapshot* snapshot);

struct ArenaFigures {
  uint64_t live_blocks = 0, live_bytes = 0;
  uint64_t free_blocks = 0, free_bytes = 0;  // cached blocks count as free
  uint64_t largest_free = 0;
  // Free space below the highest live block of each region (the holes
  // between live blocks, without the untouched tail) and its largest piece.
  uint64_t hole_bytes = 0, largest_hole = 0, holes = 0;
  uint64_t metadata_bytes = 0, index_bytes = 0;
  uint64_t span_bytes = 0;  // base to highest live block end, summed
  // 1 - largest free / free bytes (TlsfStats::fragmentation).
  double fragmentation = 0;
  // 1 - largest hole / hole bytes: how shattered the used span is.
  double hole_fragmentation = 0;
  // hole bytes / span bytes: the share of the used span that is free.
  double hole_share = 0;
};

ArenaFigures FiguresOf(const ArenaSnapshot& snapshot);

// The SVG picture, titled `title`.
std::string ArenaMapSvg(const ArenaSnapshot& snapshot,
                        const std::string& title);

}  // namespace shootout
}  // namespace tessera

#endif  // TESSERA_BENCH_SHOOTOUT_ARENA_MAP_H_
