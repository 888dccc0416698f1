// Copyright 2026 The Tessera Authors.
//
// -----------------------------------------------------------------------------
// File: size_classes.h
// -----------------------------------------------------------------------------
//
// The size classes of Tessera malloc and the constants of its address layout.
// Private to alloc/malloc.
//
// Classes: 16, 32, ..., 128 in steps of 16 (eight classes), then four per
// doubling up to 256 KiB (160, 192, 224, 256, 320, ...): 52 classes, at most
// 25% internal waste above 128 bytes and 16-byte alignment everywhere (every
// class size is a multiple of 16). A request above `kMaxClassSize` is "huge"
// and is mapped on its own.
//
// Layout: memory for classes comes in segments of 4 MiB aligned to 4 MiB, so
// any pointer finds its segment by masking its low 22 bits. A segment is 64
// slots of 64 KiB; a page (the cells of one class, owned by one heap) spans a
// run of as few slots as hold eight cells of its class up to 16 KiB, one cell
// above (SlotsPerPage), anywhere in its segment (FindRun). (Fewer than eight
// where the segment header or a page colour takes room: at least five.)

#ifndef TESSERA_ALLOC_MALLOC_INTERNAL_SIZE_CLASSES_H_
#define TESSERA_ALLOC_MALLOC_INTERNAL_SIZE_CLASSES_H_

#include <cstddef>
#include <cstdint>

namespace tessera {
namespace malloc_internal {

inline constexpr int kSegmentShift = 22;
inline constexpr size_t kSegmentSize = size_t{1} << kSegmentShift;  // 4 MiB
inline constexpr int kSlotShift = 16;
inline constexpr size_t kSlotSize = size_t{1} << kSlotShift;  // 64 KiB
inline constexpr int kSlotsPerSegment = 1 << (kSegmentShift - kSlotShift);
static_assert(kSlotsPerSegment == 64,
              "a segment's free slots are one 64-bit mask");

inline constexpr int kNumClasses = 52;
inline constexpr size_t kMaxClassSize = size_t{256} << 10;
inline constexpr size_t kMinCellSize = 16;
// Requests up to this size are "small": one 16-byte granule lookup.
inline constexpr size_t kMaxSmallSize = 1024;

// Aligned classes: 1, 2, 4, 8 and 16 KiB, bins kNumClasses and up, for
// requests aligned to more than a cache line. Their pages are never
// coloured (IsColoredClass), so every cell is aligned to its size, where the
// coloured classes of the same sizes give only 64 bytes (see the page
// colours below): posix_memalign(4096, 4096) takes a 4 KiB cell, not the
// 8 KiB one that a 4 KiB block plus its alignment needs in a coloured
// class. malloc never reaches them (ClassOf stops at kNumClasses - 1), so
// their pages hold only aligned blocks, and their cells are validated and
// freed like any other class's.
inline constexpr int kNumAlignedClasses = 5;
inline constexpr size_t kMinAlignedClassSize = 1024;
inline constexpr int kFirstAlignedClass = kNumClasses;
// Bins per heap: the classes malloc maps sizes to, then the aligned ones.
inline constexpr int kNumBins = kNumClasses + kNumAlignedClasses;

// Size in bytes of class `c` (0 <= c < kNumBins).
constexpr size_t ClassSize(int c) {
  if (c < 8) return static_cast<size_t>(c + 1) * 16;
  if (c >= kFirstAlignedClass) {
    return kMinAlignedClassSize << (c - kFirstAlignedClass);
  }
  const int octave = 7 + (c - 8) / 4;
  const int step = (c - 8) % 4;
  return (size_t{1} << octave) + static_cast<size_t>(step + 1) *
                                     (size_t{1} << (octave - 2));
}
static_assert(ClassSize(kNumClasses - 1) == kMaxClassSize,
              "the last class is the largest size served from pages");
static_assert(ClassSize(7) == 128 && ClassSize(8) == 160 &&
              ClassSize(11) == 256 && ClassSize(12) == 320);

// The smallest class whose size is >= `bytes`, for 0 < bytes <= kMaxClassSize
// (0 maps to class 0 as well). Branch-light: a shift and a count of leading
// zeros above 128 bytes.
constexpr int ClassOf(size_t bytes) {
  if (bytes <= 128) return bytes == 0 ? 0 : static_cast<int>((bytes - 1) >> 4);
  const size_t m = bytes - 1;
  const int octave = 63 - __builtin_clzll(m);  // floor(log2(bytes - 1)) >= 7
  const int step = static_cast<int>((m >> (octave - 2)) & 3);
  return 8 + (octave - 7) * 4 + step;
}
static_assert(ClassOf(1) == 0 && ClassOf(16) == 0 && ClassOf(17) == 1 &&
              ClassOf(128) == 7 && ClassOf(129) == 8 && ClassOf(160) == 8 &&
              ClassOf(161) == 9 && ClassOf(256) == 11 && ClassOf(257) == 12 &&
              ClassOf(kMaxClassSize) == kNumClasses - 1);

// The 16-byte granules of sizes up to kMaxSmallSize (granule g: sizes
// 16g - 15 .. 16g; granule 0 is size 0).
inline constexpr int kSmallGranules = kMaxSmallSize / 16 + 1;
constexpr size_t SmallGranuleOf(size_t bytes) {  // bytes <= kMaxSmallSize
  return (bytes + 15) >> 4;
}
inline constexpr int kLastSmallClass = ClassOf(kMaxSmallSize);

// ClassOf for requests up to kMaxSmallSize, by table: one add, one shift and
// one byte load instead of a leading-zero count and four dependent
// arithmetic steps (sizes up to 1 KiB are most of what programs ask for).
// Every class boundary below 1 KiB is a multiple of 16, so the 16-byte
// granule of a size decides its class. Also each small class's granules,
// [first, end) (ClassOf is monotonic, so they are one run): the bin queues'
// updates read them at run time (SetBinHead).
struct SmallClassTable {
  uint8_t class_of_granule[kSmallGranules];
  uint8_t first_granule[kLastSmallClass + 1];
  uint8_t end_granule[kLastSmallClass + 1];
  constexpr SmallClassTable()
      : class_of_granule(), first_granule(), end_granule() {
    for (int g = kSmallGranules - 1; g >= 0; --g) {
      const int c = ClassOf(static_cast<size_t>(g) * 16);
      class_of_granule[g] = static_cast<uint8_t>(c);
      first_granule[c] = static_cast<uint8_t>(g);
      if (end_granule[c] == 0) end_granule[c] = static_cast<uint8_t>(g + 1);
    }
  }
};
inline constexpr SmallClassTable kSmallClasses{};

constexpr int SmallClassOf(size_t bytes) {  // bytes <= kMaxSmallSize
  return kSmallClasses.class_of_granule[SmallGranuleOf(bytes)];
}
static_assert(kSmallClasses.first_granule[0] == 0 &&
              kSmallClasses.end_granule[0] == 2 &&
              kSmallClasses.end_granule[kLastSmallClass] == kSmallGranules);
static_assert(SmallClassOf(0) == 0 && SmallClassOf(1) == 0 &&
              SmallClassOf(17) == 1 && SmallClassOf(129) == 8 &&
              SmallClassOf(161) == 9 && SmallClassOf(1024) == ClassOf(1024));

// ClassOf for requests above kMaxSmallSize, up to kMaxClassSize, by table
// as well: above 1 KiB every class boundary is a multiple of 256 (four
// classes an octave, the narrowest octave 1-2 KiB), so a size's 256-byte
// unit decides its class. 1 KiB of table (16 lines) for two instructions
// and one byte load in place of a leading-zero count and seven arithmetic
// steps: rt_100k 3.23 against 3.68 ns, preloaded A/B (2026-12-07); W1, W4
// and the cc1plus trace level.
inline constexpr int kMediumUnitShift = 8;
struct MediumClassTable {
  uint8_t class_of_unit[kMaxClassSize >> kMediumUnitShift];
  constexpr MediumClassTable() : class_of_unit() {
    for (size_t u = 0; u < (kMaxClassSize >> kMediumUnitShift); ++u) {
      // Unit u: sizes u * 256 + 1 .. (u + 1) * 256.
      class_of_unit[u] =
          static_cast<uint8_t>(ClassOf((u + 1) << kMediumUnitShift));
    }
  }
};
inline constexpr MediumClassTable kMediumClasses{};

// bytes in (kMaxSmallSize, kMaxClassSize].
constexpr int MediumClassOf(size_t bytes) {
  return kMediumClasses.class_of_unit[(bytes - 1) >> kMediumUnitShift];
}
static_assert(MediumClassOf(1025) == ClassOf(1025) &&
              MediumClassOf(1280) == ClassOf(1280) &&
              MediumClassOf(1281) == ClassOf(1281) &&
              MediumClassOf(kMaxClassSize) == kNumClasses - 1);

// Classes up to kMultiCellMaxSize have pages sized for eight cells (one
// slot for every class up to 8 KiB, two slots above; five to seven of them
// fit beside the segment header or past a page colour in some classes); the classes above
// ("large"), pages of as few slots as hold one cell (1-4 slots; up to 32 KiB
// a slot holds two or three, and NewPage carves every cell that fits), so a
// large block's memory goes back to its segment, free for any class, once
// it is freed and its page retired. (At eight cells a page of a 160-256 KiB
// class spanned 2 MiB: one block kept that much resident in a huge-page
// segment. A replayed cc1plus trace: peak
// RSS growth / peak live 2.1 -> 1.9, the Python trace 5.5 -> 3.9, sqlite's
// peak RSS 55.8 -> 53.0 MB; a 100 KiB round trip 3.7 -> 4.1 ns, 2026-12-06.
// From 64 KiB down to 16 KiB, with NewPage retiring empty one-cell pages
// before it takes slots never used: the cc1plus trace 1.51-1.53 -> 1.36-1.39
// (jemalloc 1.33-1.35), at the peak 28 freed 64 KiB cells had held 1.8 MiB
// that only their class could reuse; its time a call level or better, and
// W1, W1 touched, W4, larson and a 100 KiB round trip level, 2026-12-07.
// Earlier, when pages were retired as soon as they emptied, classes from
// 16 KiB in one- or two-cell pages cost the traces 1.7-2x the time a call.)
inline constexpr size_t kMultiCellMaxSize = size_t{16} << 10;
constexpr size_t CellsPerPage(int c) {
  return ClassSize(c) > kMultiCellMaxSize ? 1 : 8;
}
// The first class whose pages are sized for one cell.
inline constexpr int kFirstLargeClass = ClassOf(kMultiCellMaxSize) + 1;
static_assert(CellsPerPage(kFirstLargeClass) == 1 &&
              CellsPerPage(kFirstLargeClass - 1) == 8);
// Slots per page of class `c`: as few as hold CellsPerPage(c) cells. Spans
// need not be powers of two nor aligned to their length (FindRun takes any
// run of free slots): a one-cell page of a 160 KiB class spans three slots,
// not four.
constexpr int SlotsPerPage(int c) {
  return static_cast<int>((CellsPerPage(c) * ClassSize(c) + kSlotSize - 1) /
                          kSlotSize);
}
static_assert(SlotsPerPage(0) == 1 &&
              SlotsPerPage(ClassOf(kMultiCellMaxSize)) == 2 &&
              SlotsPerPage(kNumClasses - 1) == 4);

// Page colours. The cells of a class of 1-16 KiB lie at strides that are
// multiples of 256 bytes (powers of two for 1, 2, 4, 8 and 16 KiB), and
// every page starts on a 64 KiB slot: the first lines of all the 4 KiB
// cells of all pages fall into one L1 set in 64 and one L2 set in 16, and
// a batch of such blocks (the free list's links, the double-free canary,
// the program's own headers) evicts itself. So NewPage starts each page of
// these classes 0-15 lines past its slot (its colour, from the slot and
// the segment), giving up one cell where fewer than 15 lines were left
// over past the last one (in slots 1-63 the 1, 1.25, 2, 4, 8 and 16 KiB
// classes; beside the segment header more). Cells stay 64-byte aligned, so
// a larger alignment no longer comes naturally from these classes: a
// request aligned to more than 64 bytes takes an aligned class's cell
// (uncoloured, see kNumAlignedClasses), or, where that is larger, a cell of
// its size plus the alignment, marking the page as holding aligned blocks
// (an interior pointer into it is then freed as the block it lies in, not
// reported). Until the aligned classes, a 4 KiB-aligned 4 KiB block took an
// 8 KiB cell: 20,000 of them preloaded, 182 MB of RSS, now 85 MB (jemalloc
// 87, mimalloc 82, glibc 162). W1 (2,048 blocks of 64 B-4 KiB freed
// in shuffled order): 6.12 against 7.48 ns a pair, W1 touched 8.29 against
// 10.32 (tcmalloc 7.02 and 9.70; 9 alternating runs of the preloaded
// library, 2026-12-07); colouring only the classes that are not powers of
// two (no cell given up) gained nothing. The cost: a 4 KiB block no longer
// fits one 4 KiB memory page, and W4's peak RSS / peak live read 1.30
// against 1.28; the cc1plus trace's 1.34 against 1.35 (5 runs, noise).
// (jemalloc's large extents start at a random line of their first page,
// for the same reason.)
inline constexpr size_t kColoredMinSize = 1024;
inline constexpr size_t kColorBytes = 64;
inline constexpr uint32_t kColors = 16;
constexpr bool IsColoredClass(int c) {
  return c < kFirstAlignedClass && ClassSize(c) >= kColoredMinSize &&
         ClassSize(c) <= kMultiCellMaxSize;
}
static_assert(ClassSize(kNumBins - 1) == kMultiCellMaxSize &&
                  !IsColoredClass(kFirstAlignedClass),
              "aligned classes span 1-16 KiB, uncoloured");
// The aligned class whose cells hold `bytes` aligned to `alignment`, or -1
// (kColorBytes < alignment, and both at most 16 KiB): the smallest power of
// two of at least 1 KiB that holds both.
constexpr int AlignedClassOf(size_t bytes, size_t alignment) {
  const size_t need = bytes > alignment ? bytes : alignment;
  if (need > kMultiCellMaxSize) return -1;
  int c = kFirstAlignedClass;
  while (ClassSize(c) < need) ++c;
  return c;
}
static_assert(AlignedClassOf(4096, 4096) == kFirstAlignedClass + 2 &&
              AlignedClassOf(100, 4096) == kFirstAlignedClass + 2 &&
              AlignedClassOf(1025, 128) == kFirstAlignedClass + 1 &&
              AlignedClassOf(16384, 128) == kNumBins - 1 &&
              AlignedClassOf(16385, 128) == -1);

// Cell arithmetic by exact division: free validates a pointer `a` into a
// page with one multiply, one constant rotate and one compare. For a class
// size d = 2^k * m (m odd, k <= 18 since sizes are at most 2^18), a page
// keeps key = m^-1 * 2^(18 - k) (mod 2^64), and for n = a - cells:
//   CellIndexIfStart(n, key) = rotr(n * key, 18),
// which is n * 2^(18 - k) * m^-1 rotated: the exact division by
// d' = d * 2^(18 - k) = 2^18 * m of n' = n * 2^(18 - k) (Granlund and
// Montgomery's test, Hacker's Delight 10-17). When d divides n, it is n / d;
// otherwise (n' < 2^40: |n| < 2^22, a pointer and its page share a segment)
// it exceeds (2^64 - 1) / d' >= 2^28. A pointer below the cells (n wrapped
// to 2^64 - t, 0 < t < 2^22) gives 2^46 or more when 2^k does not divide t
// (its low bits rotate to the top), and else 2^46 - (t / 2^k) * m^-1 mod
// 2^46, which would be below 2^28 only for t / 2^k within 2^28 * m < 2^46
// of 2^46: never. So `CellIndexIfStart(a - cells, key) < carved cells` holds
// exactly for the carved cells' starts, one branch where a bound and a
// start test took two (see FreeInSegment).
inline constexpr int kCellKeyShift = 18;
inline constexpr uint64_t kMaxPageSpan = uint64_t{1} << 21;
// Above every page's cell count: what CellIndexIfStart gives a pointer that
// does not start a cell.
inline constexpr uint64_t kNotACellIndex = uint64_t{1} << 28;
constexpr uint64_t OddInverse(uint64_t m) {
  uint64_t x = m;  // right in its low 3 bits; each step doubles them
  for (int i = 0; i < 5; ++i) x *= 2 - m * x;
  return x;
}
constexpr uint64_t CellKey(uint64_t size) {
  const int k = __builtin_ctzll(size);
  return OddInverse(size >> k) << (kCellKeyShift - k);
}
constexpr uint64_t CellIndexIfStart(uint64_t offset, uint64_t key) {
  const uint64_t x = offset * key;
  return (x >> kCellKeyShift) | (x << (64 - kCellKeyShift));
}
// The longest span of any class's page.
constexpr int MaxSlotsPerPage() {
  int most = 0;
  for (int c = 0; c < kNumBins; ++c) {
    if (SlotsPerPage(c) > most) most = SlotsPerPage(c);
  }
  return most;
}
static_assert(kMaxClassSize <= (size_t{1} << kCellKeyShift) &&
                  MaxSlotsPerPage() * kSlotSize <= kMaxPageSpan &&
                  kMaxPageSpan / kMinCellSize < kNotACellIndex &&
                  kSegmentSize <= (size_t{1} << 22),
              "the bounds the cell arithmetic relies on");

// Cells of class `c` carved per refill of a page's free list: about 4 KiB
// at a time below 1 KiB, four cells up to 4 KiB, one from there, so a fresh
// page touches memory as it is used, not all at once.
constexpr uint32_t CellsPerCarve(int c) {
  const size_t size = ClassSize(c);
  // From 4 KiB, one cell a carve: carving writes a line into each cell it
  // carves, so each cost a page of RSS before the program asked for it (a
  // replayed Python trace's peak RSS growth / peak live 1.65-1.69 -> 1.58,
  // 2026-12-07; its time and W1's level). Below, at least four: carving one
  // cell at a time sent every allocation through the slow path.
  if (size >= 4096) return 1;
  return size >= 1024 ? 4 : static_cast<uint32_t>(4096 / size);
}

}  // namespace malloc_internal
}  // namespace tessera

#endif  // TESSERA_ALLOC_MALLOC_INTERNAL_SIZE_CLASSES_H_
