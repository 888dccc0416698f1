// Copyright 2026 The Tessera Authors.
//
// -----------------------------------------------------------------------------
// File: stacked_pool.h
// -----------------------------------------------------------------------------
//
// `StackedPool` hands out cells of one fixed size and alignment, carved from
// blocks it reserves in advance. It is the single-threaded core of the pool
// package: `SizeClassPool` keeps one per size class, and `ConcurrentPool` puts
// per-thread caches in front of one.
//
// It descends from NumSharp's `StackedMemoryPool` and fixes what that one got
// wrong: the reservation is what was asked for, `Return` finds the cell's
// block by masking the address (blocks are aligned to their power-of-two
// size) instead of scanning a list, a double return is caught in O(1) by a
// per-block bitmap, and surplus blocks are trimmed on `Return` or on demand,
// never by a timer thread.
//
// Layout. A block is `block_bytes()` bytes (a power of two) aligned to its own
// size. It starts with a header (free stack, bump pointer, cell count, list
// links, then one bit per cell), followed by `cells_per_block()` cells of
// `stride()` bytes from the first `alignment`-aligned offset. There is no
// per-cell header: an idle cell's first 8 bytes hold the link of its block's
// intrusive free stack. Cells never carved yet sit above the bump pointer, so
// a new block costs O(1) and touches only its header.
//
// Complexity: `Take` and `Return` are O(1): with return checks off, a pop or
// push on a 32-cell array (the magazine) in front of the blocks, else a pop
// or push on the current block's stack.
// Growing maps one block. `Trim` is O(blocks). `CheckIntegrity` is
// O(blocks + cells).
//
// Invariants (checked by CheckIntegrity, numbered in its messages):
//   1. Every block is aligned to `block_bytes()` and registered in the block
//      table, and the table holds exactly the blocks of the block list.
//   2. In every block, the cells in use, the cells on its free stack and the
//      cells above its bump pointer add up to `cells_per_block()`; every free
//      stack entry is the start of a carved cell of that block, once.
//   3. A block is on the available list exactly when it has an idle cell.
//   4. The pool's counters agree with the blocks: cells in use in blocks
//      equal the sum over blocks, and reserved = blocks * cells_per_block().
//   5. With return checks on, each block's bitmap marks exactly its cells in
//      use.
//   6. Overflow cells exist only under `OverflowPolicy::kUpstream`, and the
//      overflow count equals the number of tracked overflow cells.
//   7. The magazine (see kMagazineCells) is empty with return checks on, and
//      otherwise holds distinct carved cells of registered blocks, none of
//      them on a free stack.
//
// Bad input:
//   * Options (`Create`): a cell size of 0 or not a multiple of 8, an alignment
//     that is not a power of two or above 4096, a reserve count
//     (`cells_per_block`) of 0 or one whose block would overflow (more than
//     1 GiB), `kUpstream` without an upstream allocator, or a high-water
//     threshold below one block's cells: InvalidArgument naming the value.
//   * Exhaustion under `kFail` (or when the block source or upstream is out
//     of memory): `Take` returns nullptr and counts a failure; `TakeChecked`
//     returns ResourceExhausted.
//   * A double return, a pointer from another pool, an interior or
//     misaligned pointer: with return checks on, `Return` reports it through
//     `ReportContractViolation` (kDoubleFree or kForeignPointer) and leaves
//     the pool untouched; `ReturnChecked` returns FailedPrecondition instead.
//     Return checks are on by default in debug and sanitizer builds
//     (`kCheckReturnsByDefault`) and can be switched on in release builds
//     (`StackedPoolOptions::check_returns`): they cost one hash lookup and one
//     bit test per `Return`. Without them such a `Return` is undefined, except
//     that `ReturnChecked` still rejects foreign, interior and misaligned
//     pointers (but cannot tell a double return).
//   * Returning a cell after the pool is destroyed is undefined. Debug builds
//     catch it where the pool's storage is still readable: the destructor
//     marks the pool dead and a checked `Return` reports kForeignPointer.
//
// Not thread-safe: one thread at a time (see concurrent_pool.h).

#ifndef TESSERA_ALLOC_POOL_STACKED_POOL_H_
#define TESSERA_ALLOC_POOL_STACKED_POOL_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/base/config.h"
#include "absl/base/optimization.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "alloc/allocator.h"
#include "alloc/internal/dcheck.h"

#if defined(ABSL_HAVE_ADDRESS_SANITIZER)
#include <sanitizer/asan_interface.h>
#endif

namespace tessera {

namespace pool_internal {
// Reaches into the pools' private state to corrupt it on purpose, so that
// pool_integrity_test.cc can show CheckIntegrity names each broken invariant.
class IntegrityTestPeer;
}  // namespace pool_internal

#if !defined(NDEBUG) || defined(TESSERA_SANITIZER_BUILD)
inline constexpr bool kCheckReturnsByDefault = true;
#else
inline constexpr bool kCheckReturnsByDefault = false;
#endif

// What `Take` does when every reserved cell is in use.
enum class OverflowPolicy {
  kGrow,      // reserve another block (the default)
  kUpstream,  // allocate the cell from `upstream`, tracked until returned
  kFail,      // return nullptr and count a failure
};

// The largest cell alignment a StackedPool accepts: one page.
inline constexpr size_t kMaxCellAlignment = 4096;
// The largest block a StackedPool reserves at once.
inline constexpr size_t kMaxBlockBytes = size_t{1} << 30;

struct StackedPoolOptions {
  // Bytes per cell: a positive multiple of 8 (an idle cell holds a link).
  size_t cell_size = 16;
  // Alignment of every cell: a power of two up to kMaxCellAlignment. Cells
  // are `stride = round_up(cell_size, alignment)` bytes apart.
  size_t alignment = 16;
  // Reserve count: cells per block. The block is rounded up to a power of two
  // and filled, so `cells_per_block()` may be larger than asked.
  size_t cells_per_block = 256;
  // Blocks reserved by `Create`. Under kUpstream and kFail this is the whole
  // reservation; 0 is allowed (everything then overflows or fails).
  size_t initial_blocks = 1;
  OverflowPolicy overflow = OverflowPolicy::kGrow;
  // Where overflow cells come from under kUpstream (required then). Not owned.
  Allocator* upstream = nullptr;
  // Where blocks come from (allocated with alignment = block size); nullptr
  // maps them with mmap. Not owned; must outlive the pool.
  Allocator* block_source = nullptr;
  // High-water trim: when a `Return` leaves a block wholly idle while more
  // than this many cells are idle, the block is released at once. 0 turns
  // the policy off; otherwise it must be at least `cells_per_block()`, so a
  // release always leaves an idle cell behind (no grow/release ping-pong).
  size_t trim_idle_cells_above = 0;
  // Detect double returns and foreign, interior or misaligned pointers.
  bool check_returns = kCheckReturnsByDefault;
  // Name used in error messages and violation reports.
  std::string name = "stacked_pool";
};

struct StackedPoolStats {
  uint64_t blocks = 0;           // blocks currently reserved
  uint64_t cells_reserved = 0;   // blocks * cells_per_block
  uint64_t cells_available = 0;  // idle cells in blocks
  uint64_t cells_in_use = 0;     // cells handed out, from blocks or upstream
  // High-water mark of cells out of the blocks (with return checks off this
  // may include up to kMagazineCells idle cells of the magazine).
  uint64_t peak_cells_in_use = 0;
  uint64_t takes = 0;            // successful Take calls
  uint64_t hits = 0;             // Takes served by an already-reserved cell
  uint64_t grows = 0;            // blocks added after Create (kGrow)
  uint64_t overflows = 0;        // Takes served by upstream (kUpstream)
  uint64_t overflow_cells_in_use = 0;
  uint64_t failures = 0;         // Takes that returned nullptr
  uint64_t returns = 0;          // successful Return calls
  uint64_t trims = 0;            // blocks released (Trim or high-water)
};

class StackedPool {
 public:
  // Validates `options` (see "Bad input") and reserves `initial_blocks`.
  static absl::StatusOr<std::unique_ptr<StackedPool>> Create(
      const StackedPoolOptions& options);

  // Releases every block. Cells still in use become invalid; overflow cells
  // still in use are given back to upstream.
  ~StackedPool();

  StackedPool(const StackedPool&) = delete;
  StackedPool& operator=(const StackedPool&) = delete;

  // Returns an uninitialised cell, or nullptr (counted) when the overflow
  // policy cannot provide one. O(1).
  void* Take() noexcept {
    // The magazine is only ever filled with return checks off.
    if (ABSL_PREDICT_TRUE(magazine_count_ != 0)) {
      ++hits_;
      void* cell = magazine_[--magazine_count_];
      UnpoisonCell(cell);
      return cell;
    }
    Block* block = available_head_;
    if (ABSL_PREDICT_TRUE(block != nullptr && !checks_)) {
      void* cell = PopFrom(block);
      ++hits_;
      NoteTaken();
      return cell;
    }
    return TakeSlow();
  }

  // Gives back a cell from `Take`. O(1). See "Bad input" for what is checked.
  void Return(void* cell) noexcept {
    if (ABSL_PREDICT_TRUE(!slow_return_)) {
      ++returns_;
      if (ABSL_PREDICT_TRUE(magazine_count_ < kMagazineCells)) {
        PoisonCell(cell);
        magazine_[magazine_count_++] = cell;
        return;
      }
      PushTo(BlockOf(cell), cell);
      return;
    }
    ReturnSlow(cell);
  }

  // Like Take, with ResourceExhausted naming the policy on failure.
  absl::StatusOr<void*> TakeChecked();
  // Validates `cell` whatever `check_returns` says (see "Bad input"), returns
  // FailedPrecondition naming it and leaves the pool untouched if it is bad,
  // otherwise returns it.
  absl::Status ReturnChecked(void* cell);

  // Why `cell` cannot be returned now (OK if it can), and which violation
  // that is. Detects double returns only with return checks on.
  absl::Status ValidateReturn(const void* cell,
                              ContractViolation* violation) const;

  // Whether `ptr` is the start of a cell of this pool (idle or in use) or a
  // live overflow cell.
  bool Owns(const void* ptr) const;

  // Takes up to `n` cells into `out`; returns how many (fewer only when the
  // overflow policy runs out; a failure is counted only if none). For
  // per-thread caches.
  size_t TakeBatch(void** out, size_t n) noexcept;
  // Returns `n` cells, each as by Return.
  void ReturnBatch(void* const* cells, size_t n) noexcept;

  // Empties the magazine into the blocks, then releases every wholly idle
  // block; returns how many blocks this call released (including any the
  // high-water policy released while the magazine emptied). O(blocks).
  size_t Trim();

  // With return checks off, the last returned cells (up to this many) wait
  // in a small array, the magazine, and are the first taken again: an array
  // push and pop are cheaper than the block's free stack (no pointer chase
  // through the cell). They count as idle in stats(); their blocks count
  // them as in use until the magazine overflows or Trim() empties it.
  static constexpr uint32_t kMagazineCells = 32;

  StackedPoolStats stats() const;
  absl::Status CheckIntegrity() const;

  const std::string& name() const { return options_.name; }
  size_t cell_size() const { return options_.cell_size; }
  size_t alignment() const { return options_.alignment; }
  size_t stride() const { return stride_; }
  size_t cells_per_block() const { return capacity_; }
  size_t block_bytes() const { return block_bytes_; }
  bool checks_returns() const { return checks_; }

 private:
  friend class pool_internal::IntegrityTestPeer;

  // An idle cell: its first word links the block's free stack.
  struct FreeCell {
    FreeCell* next;
  };
  // The header at the start of every block; the bitmap follows it.
  struct Block {
    FreeCell* free;      // top of this block's stack of returned cells
    char* bump;          // first never-carved cell; cells_end when all carved
    uint32_t used;       // cells handed out from this block
    bool available;      // on the available list (used < capacity)
    Block* prev;         // all-blocks list
    Block* next;
    Block* avail_prev;   // available list: blocks with an idle cell
    Block* avail_next;
    uint64_t* bitmap() { return reinterpret_cast<uint64_t*>(this + 1); }
    const uint64_t* bitmap() const {
      return reinterpret_cast<const uint64_t*>(this + 1);
    }
  };

  StackedPool(const StackedPoolOptions& options, size_t stride,
              size_t block_bytes, size_t cells_offset, size_t capacity,
              size_t bitmap_words);

  Block* BlockOf(const void* cell) const {
    return reinterpret_cast<Block*>(reinterpret_cast<uintptr_t>(cell) &
                                    ~(block_bytes_ - 1));
  }
  char* CellsBegin(const Block* block) const {
    return reinterpret_cast<char*>(const_cast<Block*>(block)) + cells_offset_;
  }
  char* CellsEnd(const Block* block) const {
    return CellsBegin(block) + capacity_ * stride_;
  }
  // Exact cell index of an offset below 2^32 (Lemire's fastdiv: one multiply
  // instead of a divide).
  uint32_t CellIndex(const Block* block, const void* cell) const {
    const uint64_t offset = static_cast<uint64_t>(
        static_cast<const char*>(cell) - CellsBegin(block));
    return static_cast<uint32_t>(
        (static_cast<unsigned __int128>(div_magic_) * offset) >> 64);
  }

  // Pops a cell from `block`, which must be available.
  void* PopFrom(Block* block) noexcept {
    TESSERA_DCHECK(block->available && block->used < capacity_,
                   "a block cells are taken from should have an idle cell");
    void* cell;
    if (block->free != nullptr) {
      cell = block->free;
      block->free = block->free->next;
    } else {
      cell = block->bump;
      block->bump += stride_;
    }
    if (++block->used == capacity_) UnlinkAvailable(block);
    UnpoisonCell(cell);
    return cell;
  }
  void NoteTaken() noexcept {
    ++block_cells_in_use_;
    UpdatePeak();
  }
  void UpdatePeak() noexcept {
    const uint64_t in_use = block_cells_in_use_ + overflow_cells_.size();
    if (in_use > peak_cells_in_use_) peak_cells_in_use_ = in_use;
  }
  // Pushes a validated cell back on its block's stack (not counted as a
  // return: callers count).
  void PushTo(Block* block, void* cell) noexcept {
    TESSERA_DCHECK(block->used != 0,
                   "a block a cell is pushed back to should have a cell in use");
    auto* free_cell = static_cast<FreeCell*>(cell);
    free_cell->next = block->free;
    block->free = free_cell;
    PoisonCell(cell);
    if (block->used-- == capacity_) LinkAvailable(block);
    --block_cells_in_use_;
    if (ABSL_PREDICT_FALSE(block->used == 0) && trim_above_ != 0) {
      MaybeTrimOnReturn(block);
    }
  }
  void FlushMagazine() noexcept;

  void* TakeSlow() noexcept;
  void ReturnSlow(void* cell) noexcept;
  void MaybeTrimOnReturn(Block* block) noexcept;
  Block* AddBlock() noexcept;
  void ReleaseBlock(Block* block) noexcept;
  void LinkAvailable(Block* block) noexcept;
  void UnlinkAvailable(Block* block) noexcept;
  void UpdateSlowReturn() noexcept {
    slow_return_ = checks_ || !overflow_cells_.empty() || dead_;
  }
  // ASan: an idle cell is off limits except its link word. Inline no-ops
  // otherwise (an out-of-line call here cost a third of W3's time).
  void PoisonCell(void* cell) noexcept {
#if defined(ABSL_HAVE_ADDRESS_SANITIZER)
    if (stride_ > sizeof(FreeCell)) {
      ASAN_POISON_MEMORY_REGION(static_cast<char*>(cell) + sizeof(FreeCell),
                                stride_ - sizeof(FreeCell));
    }
#else
    (void)cell;
#endif
  }
  void UnpoisonCell(void* cell) noexcept {
#if defined(ABSL_HAVE_ADDRESS_SANITIZER)
    ASAN_UNPOISON_MEMORY_REGION(cell, stride_);
#else
    (void)cell;
#endif
  }

  const StackedPoolOptions options_;
  const size_t stride_;
  const size_t block_bytes_;
  const size_t cells_offset_;
  const uint32_t capacity_;
  internal::ExpensiveCheckCountdown return_countdown_;
  const size_t bitmap_words_;
  const uint64_t div_magic_;
  const bool checks_;
  const size_t trim_above_;

  Block* available_head_ = nullptr;
  Block* blocks_head_ = nullptr;
  // Return must take the slow path: checks on, overflow cells live, or dead.
  bool slow_return_ = false;
  // Set by the destructor; read by a checked Return on a destroyed pool.
  bool dead_ = false;
  uint64_t magic_;

  uint32_t magazine_count_ = 0;
  void* magazine_[kMagazineCells];

  size_t block_count_ = 0;
  // Cells out of the blocks' free stacks: held by clients or in the magazine.
  uint64_t block_cells_in_use_ = 0;
  uint64_t peak_cells_in_use_ = 0;
  uint64_t hits_ = 0;
  uint64_t returns_ = 0;
  uint64_t grows_ = 0;
  uint64_t overflows_ = 0;
  uint64_t failures_ = 0;
  uint64_t trims_ = 0;
  uint64_t overflow_returns_ = 0;

  // Block base addresses, to tell our blocks from foreign memory without
  // reading it.
  absl::flat_hash_set<uintptr_t> block_table_;
  // Live overflow cells (kUpstream).
  absl::flat_hash_set<void*> overflow_cells_;
};

}  // namespace tessera

#endif  // TESSERA_ALLOC_POOL_STACKED_POOL_H_
