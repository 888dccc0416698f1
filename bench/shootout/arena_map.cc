// Copyright 2026 The Tessera Authors.

#include "bench/shootout/arena_map.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace tessera {
namespace shootout {
namespace {

enum Class { kLive, kFree, kCached, kIndex, kMetadata, kClasses };

struct ClassStyle {
  const char* name;
  int r, g, b;
};
constexpr std::array<ClassStyle, kClasses> kStyles = {{
    {"live block", 0x4e, 0x79, 0xa7},
    {"free block", 0xd4, 0xee, 0xc8},
    {"quick-cached block", 0xed, 0xc9, 0x48},
    {"pointer index", 0xba, 0xb0, 0xac},
    {"metadata nodes", 0x44, 0x44, 0x44},
}};

uintptr_t Addr(const void* p) { return reinterpret_cast<uintptr_t>(p); }

std::string Bytes(uint64_t n) {
  if (n >= (uint64_t{1} << 30)) return absl::StrFormat("%.2f GiB", n / 1073741824.0);
  if (n >= (uint64_t{1} << 20)) return absl::StrFormat("%.2f MiB", n / 1048576.0);
  if (n >= (uint64_t{1} << 10)) return absl::StrFormat("%.1f KiB", n / 1024.0);
  return absl::StrFormat("%d B", n);
}

// End of the highest live or cached block of `region` (its base if none).
uintptr_t UsedEnd(const ArenaSnapshot& s, const TlsfRegionInfo& region) {
  uintptr_t end = Addr(region.base);
  for (const TlsfBlockInfo& b : s.blocks) {
    if (b.region == region.region && b.state != TlsfBlockInfo::State::kFree) {
      end = std::max(end, Addr(b.address) + b.size);
    }
  }
  return end;
}

}  // namespace

void TakeArenaSnapshot(const TlsfArena& arena, ArenaSnapshot* snapshot) {
  snapshot->regions.clear();
  snapshot->blocks.clear();
  arena.WalkBlocks(
      [&](const TlsfRegionInfo& r) { snapshot->regions.push_back(r); },
      [&](const TlsfBlockInfo& b) { snapshot->blocks.push_back(b); });
  snapshot->taken = true;
}

ArenaFigures FiguresOf(const ArenaSnapshot& s) {
  ArenaFigures f;
  std::vector<uintptr_t> used_end;
  for (const TlsfRegionInfo& r : s.regions) {
    used_end.push_back(UsedEnd(s, r));
    f.metadata_bytes += r.metadata_bytes;
    f.index_bytes += Addr(r.base) - Addr(r.memory);
    f.span_bytes += used_end.back() - Addr(r.base);
  }
  for (const TlsfBlockInfo& b : s.blocks) {
    if (b.state == TlsfBlockInfo::State::kLive) {
      ++f.live_blocks;
      f.live_bytes += b.size;
      continue;
    }
    ++f.free_blocks;
    f.free_bytes += b.size;
    f.largest_free = std::max<uint64_t>(f.largest_free, b.size);
    const size_t r = static_cast<size_t>(b.region);
    if (r < used_end.size() && Addr(b.address) < used_end[r]) {
      ++f.holes;
      f.hole_bytes += b.size;
      f.largest_hole = std::max<uint64_t>(f.largest_hole, b.size);
    }
  }
  f.fragmentation =
      f.free_bytes == 0 ? 0 : 1.0 - double(f.largest_free) / double(f.free_bytes);
  f.hole_fragmentation =
      f.hole_bytes == 0 ? 0 : 1.0 - double(f.largest_hole) / double(f.hole_bytes);
  f.hole_share = f.span_bytes == 0 ? 0 : double(f.hole_bytes) / double(f.span_bytes);
  return f;
}

std::string ArenaMapSvg(const ArenaSnapshot& s, const std::string& title) {
  constexpr int kCols = 128, kMaxRows = 40, kCell = 6, kLeft = 20;
  const int width = kLeft * 2 + kCols * kCell;
  const ArenaFigures f = FiguresOf(s);
  std::string body;
  int y = 96;
  for (const TlsfRegionInfo& region : s.regions) {
    const uintptr_t memory = Addr(region.memory);
    const uintptr_t base = Addr(region.base);
    const uintptr_t used_end = UsedEnd(s, region);
    const uintptr_t floor = Addr(region.floor);
    // Virtual layout: index, blocks up to the highest live one, metadata.
    // The pointer index reserves 4 bytes per granule of the whole region
    // but only pages where blocks start are touched: draw the share of it
    // that covers the drawn blocks.
    const uint64_t block_bytes = used_end - base;
    const uintptr_t region_end = memory + region.memory_bytes;
    const uint64_t index_reserved = base - memory;
    const uint64_t index_bytes =
        region_end > base
            ? static_cast<uint64_t>(double(index_reserved) *
                                    double(block_bytes) /
                                    double(region_end - base))
            : index_reserved;
    const uint64_t drawn = index_bytes + block_bytes + region.metadata_bytes;
    const uint64_t per_cell = std::max<uint64_t>(
        64, (drawn + kCols * kMaxRows - 1) / (kCols * kMaxRows));
    const int cells = static_cast<int>((drawn + per_cell - 1) / per_cell);
    std::vector<std::array<double, kClasses>> mix(
        static_cast<size_t>(cells), std::array<double, kClasses>{});
    auto paint = [&](uint64_t v0, uint64_t v1, Class c) {
      for (uint64_t v = v0; v < v1;) {
        const uint64_t cell = v / per_cell;
        const uint64_t next = std::min(v1, (cell + 1) * per_cell);
        if (cell < mix.size()) mix[cell][c] += double(next - v);
        v = next;
      }
    };
    paint(0, index_bytes, kIndex);
    for (const TlsfBlockInfo& b : s.blocks) {
      if (b.region != region.region) continue;
      const uintptr_t a = Addr(b.address);
      if (a >= used_end) continue;
      const uint64_t v0 = index_bytes + (a - base);
      const uint64_t v1 = index_bytes + (std::min<uintptr_t>(a + b.size, used_end) - base);
      paint(v0, v1,
            b.state == TlsfBlockInfo::State::kLive
                ? kLive
                : b.state == TlsfBlockInfo::State::kCached ? kCached : kFree);
    }
    paint(index_bytes + block_bytes, drawn, kMetadata);
    absl::StrAppendFormat(
        &body,
        "<text x=\"%d\" y=\"%d\" font-weight=\"bold\">region %d: %s mapped; "
        "one cell = %s</text>\n",
        kLeft, y, region.region, Bytes(region.memory_bytes), Bytes(per_cell));
    y += 6;
    const int rows = (cells + kCols - 1) / kCols;
    for (int row = 0; row < rows; ++row) {
      // Runs of equal colour become one rectangle.
      int run_start = 0;
      std::string run_color;
      auto flush = [&](int end) {
        if (end > run_start && !run_color.empty()) {
          absl::StrAppendFormat(
              &body,
              "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
              "fill=\"%s\"/>\n",
              kLeft + run_start * kCell, y + row * kCell,
              (end - run_start) * kCell, kCell - 1, run_color);
        }
      };
      for (int col = 0; col < kCols; ++col) {
        const int cell = row * kCols + col;
        std::string color;
        if (cell < cells) {
          double total = 0, r = 0, g = 0, bl = 0;
          for (int c = 0; c < kClasses; ++c) {
            const double w = mix[static_cast<size_t>(cell)][c];
            total += w;
            r += w * kStyles[c].r;
            g += w * kStyles[c].g;
            bl += w * kStyles[c].b;
          }
          if (total > 0) {
            color = absl::StrFormat("#%02x%02x%02x", int(r / total + 0.5),
                                    int(g / total + 0.5), int(bl / total + 0.5));
          }
        }
        if (color != run_color) {
          flush(col);
          run_start = col;
          run_color = color;
        }
      }
      flush(kCols);
    }
    y += rows * kCell + 14;
    absl::StrAppendFormat(
        &body,
        "<text x=\"%d\" y=\"%d\" fill=\"#555\">pointer index: the %s "
        "covering the drawn blocks (%s reserved); blocks up to the highest "
        "live one (%s); not drawn: free tail of %s; then %s of metadata "
        "nodes</text>\n",
        kLeft, y, Bytes(index_bytes), Bytes(index_reserved),
        Bytes(block_bytes),
        Bytes(floor > used_end ? floor - used_end : 0),
        Bytes(region.metadata_bytes));
    y += 24;
  }
  std::string svg = absl::StrFormat(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
      "font-family=\"sans-serif\" font-size=\"12\">\n"
      "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
      "<text x=\"%d\" y=\"20\" font-size=\"14\" font-weight=\"bold\">%s"
      "</text>\n",
      width, y + 10, kLeft, title);
  absl::StrAppendFormat(
      &svg,
      "<text x=\"%d\" y=\"38\">live: %d blocks, %s; free: %d blocks, %s "
      "(largest %s); fragmentation 1 - largest/free = %.3f</text>\n"
      "<text x=\"%d\" y=\"54\">holes below the highest live block: %d, %s "
      "= %.1f%% of the used span (largest %s, 1 - largest/holes = %.3f); "
      "metadata %s, index %s</text>\n",
      kLeft, f.live_blocks, Bytes(f.live_bytes), f.free_blocks,
      Bytes(f.free_bytes), Bytes(f.largest_free), f.fragmentation, kLeft,
      f.holes, Bytes(f.hole_bytes), 100 * f.hole_share, Bytes(f.largest_hole),
      f.hole_fragmentation, Bytes(f.metadata_bytes), Bytes(f.index_bytes));
  for (int c = 0; c < kClasses; ++c) {
    absl::StrAppendFormat(
        &svg,
        "<rect x=\"%d\" y=\"64\" width=\"12\" height=\"12\" "
        "fill=\"#%02x%02x%02x\" stroke=\"#999\"/><text x=\"%d\" y=\"75\">%s"
        "</text>\n",
        kLeft + 150 * c, kStyles[c].r, kStyles[c].g, kStyles[c].b,
        kLeft + 150 * c + 16, kStyles[c].name);
  }
  svg += body;
  svg += "</svg>\n";
  return svg;
}

}  // namespace shootout
}  // namespace tessera
