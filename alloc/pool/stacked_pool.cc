// Copyright 2026 The Tessera Authors.

#include "alloc/pool/stacked_pool.h"

#include <cstring>
#include <new>
#include <utility>

#include "absl/base/config.h"
#include "absl/numeric/bits.h"
#include "absl/strings/str_format.h"
#include "alloc/pool/internal/os_pages.h"

#if defined(ABSL_HAVE_ADDRESS_SANITIZER)
#include <sanitizer/asan_interface.h>
#endif

namespace tessera {
namespace {

constexpr uint64_t kLiveMagic = 0x5374616b506f6f6cULL;  // "StakPool"
constexpr uint64_t kDeadMagic = 0xdeadb10cdeadb10cULL;

const char* PolicyName(OverflowPolicy policy) {
  switch (policy) {
    case OverflowPolicy::kGrow:
      return "grow";
    case OverflowPolicy::kUpstream:
      return "upstream";
    case OverflowPolicy::kFail:
      return "fail";
  }
  return "unknown";
}

size_t RoundUp(size_t value, size_t alignment) {
  return (value + alignment - 1) & ~(alignment - 1);
}

}  // namespace

absl::StatusOr<std::unique_ptr<StackedPool>> StackedPool::Create(
    const StackedPoolOptions& options) {
  const std::string& name = options.name;
  if (options.cell_size == 0 || options.cell_size % 8 != 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: cell size %u is not a positive multiple of 8", name,
        options.cell_size));
  }
  if (options.alignment == 0 ||
      (options.alignment & (options.alignment - 1)) != 0 ||
      options.alignment > kMaxCellAlignment) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: alignment %u is not a power of two up to %u", name,
        options.alignment, kMaxCellAlignment));
  }
  if (options.cells_per_block == 0) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: reserve count (cells_per_block) is 0", name));
  }
  if (options.cell_size > kMaxBlockBytes) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: cell size %u exceeds the largest block (%u bytes)", name,
        options.cell_size, kMaxBlockBytes));
  }
  const size_t stride = RoundUp(options.cell_size, options.alignment);
  // Every quantity below is checked against kMaxBlockBytes before it is
  // multiplied, so none of the arithmetic can wrap.
  if (options.cells_per_block > kMaxBlockBytes / stride) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: reserve count %u of %u-byte cells overflows a block (at most %u "
        "bytes)",
        name, options.cells_per_block, stride, kMaxBlockBytes));
  }
  // Find the smallest power-of-two block holding the header, a bitmap sized
  // for the most cells the block could hold, and the requested cells.
  size_t block_bytes = absl::bit_ceil(
      sizeof(Block) + options.cells_per_block * stride + options.alignment);
  // mmap hands out whole pages: fill them rather than waste them.
  if (options.block_source == nullptr &&
      block_bytes < pool_internal::PageSize()) {
    block_bytes = pool_internal::PageSize();
  }
  size_t capacity = 0, cells_offset = 0, bitmap_words = 0;
  for (;; block_bytes <<= 1) {
    if (block_bytes > kMaxBlockBytes) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s: reserve count %u of %u-byte cells overflows a block (at most "
          "%u bytes)",
          name, options.cells_per_block, stride, kMaxBlockBytes));
    }
    bitmap_words = (block_bytes / stride + 63) / 64;
    cells_offset = RoundUp(sizeof(Block) + bitmap_words * 8, options.alignment);
    if (cells_offset >= block_bytes) continue;
    capacity = (block_bytes - cells_offset) / stride;
    if (capacity >= options.cells_per_block) break;
  }
  if (options.overflow == OverflowPolicy::kUpstream &&
      options.upstream == nullptr) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: overflow policy 'upstream' needs an upstream allocator", name));
  }
  if (options.trim_idle_cells_above != 0 &&
      options.trim_idle_cells_above < capacity) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: high-water trim threshold %u is below one block's %u cells",
        name, options.trim_idle_cells_above, capacity));
  }
  std::unique_ptr<StackedPool> pool(new StackedPool(
      options, stride, block_bytes, cells_offset, capacity, bitmap_words));
  for (size_t i = 0; i < options.initial_blocks; ++i) {
    if (pool->AddBlock() == nullptr) {
      return absl::ResourceExhaustedError(absl::StrFormat(
          "%s: out of memory reserving block %u of %u (%u bytes each)", name,
          i + 1, options.initial_blocks, block_bytes));
    }
  }
  return pool;
}

StackedPool::StackedPool(const StackedPoolOptions& options, size_t stride,
                         size_t block_bytes, size_t cells_offset,
                         size_t capacity, size_t bitmap_words)
    : options_(options),
      stride_(stride),
      block_bytes_(block_bytes),
      cells_offset_(cells_offset),
      capacity_(static_cast<uint32_t>(capacity)),
      bitmap_words_(bitmap_words),
      div_magic_(UINT64_MAX / stride + 1),
      checks_(options.check_returns),
      trim_above_(options.trim_idle_cells_above),
      magic_(kLiveMagic) {
  UpdateSlowReturn();
}

StackedPool::~StackedPool() {
  for (void* cell : overflow_cells_) {
    options_.upstream->Deallocate(cell, options_.cell_size,
                                  options_.alignment);
  }
  overflow_cells_.clear();
  while (blocks_head_ != nullptr) ReleaseBlock(blocks_head_);
  // Volatile stores: the compiler may not drop them as dead after the
  // object's lifetime, so a Return through a dangling pointer sees them.
  *const_cast<volatile uint64_t*>(&magic_) = kDeadMagic;
  *const_cast<volatile bool*>(&dead_) = true;
  *const_cast<volatile bool*>(&slow_return_) = true;
}

StackedPool::Block* StackedPool::AddBlock() noexcept {
  void* memory =
      options_.block_source != nullptr
          ? options_.block_source->Allocate(block_bytes_, block_bytes_)
          : pool_internal::MapAligned(block_bytes_, block_bytes_);
  if (memory == nullptr) return nullptr;
  if ((reinterpret_cast<uintptr_t>(memory) & (block_bytes_ - 1)) != 0) {
    // A block source that ignores alignment would break BlockOf.
    options_.block_source->Deallocate(memory, block_bytes_, block_bytes_);
    return nullptr;
  }
  block_table_.insert(reinterpret_cast<uintptr_t>(memory));
  Block* block = new (memory) Block{};
  block->free = nullptr;
  block->bump = CellsBegin(block);
  block->used = 0;
  std::memset(block->bitmap(), 0, bitmap_words_ * sizeof(uint64_t));
#if defined(ABSL_HAVE_ADDRESS_SANITIZER)
  ASAN_POISON_MEMORY_REGION(CellsBegin(block), capacity_ * stride_);
#endif
  block->prev = nullptr;
  block->next = blocks_head_;
  if (blocks_head_ != nullptr) blocks_head_->prev = block;
  blocks_head_ = block;
  ++block_count_;
  LinkAvailable(block);
  return block;
}

void StackedPool::ReleaseBlock(Block* block) noexcept {
  if (block->available) UnlinkAvailable(block);
  if (block->prev != nullptr) block->prev->next = block->next;
  if (block->next != nullptr) block->next->prev = block->prev;
  if (blocks_head_ == block) blocks_head_ = block->next;
  --block_count_;
  block_table_.erase(reinterpret_cast<uintptr_t>(block));
#if defined(ABSL_HAVE_ADDRESS_SANITIZER)
  ASAN_UNPOISON_MEMORY_REGION(block, block_bytes_);
#endif
  if (options_.block_source != nullptr) {
    options_.block_source->Deallocate(block, block_bytes_, block_bytes_);
  } else {
    pool_internal::Unmap(block, block_bytes_);
  }
}

void StackedPool::LinkAvailable(Block* block) noexcept {
  TESSERA_DCHECK(!block->available,
                 "a block linked as available should not be on the list yet");
  block->available = true;
  block->avail_prev = nullptr;
  block->avail_next = available_head_;
  if (available_head_ != nullptr) available_head_->avail_prev = block;
  available_head_ = block;
}

void StackedPool::UnlinkAvailable(Block* block) noexcept {
  TESSERA_DCHECK(block->available,
                 "a block unlinked from the available list should be on it");
  block->available = false;
  if (block->avail_prev != nullptr) {
    block->avail_prev->avail_next = block->avail_next;
  } else {
    available_head_ = block->avail_next;
  }
  if (block->avail_next != nullptr) {
    block->avail_next->avail_prev = block->avail_prev;
  }
}

void* StackedPool::TakeSlow() noexcept {
  Block* block = available_head_;
  if (block != nullptr) {
    ++hits_;
  } else {
    switch (options_.overflow) {
      case OverflowPolicy::kGrow:
        block = AddBlock();
        if (block == nullptr) {
          ++failures_;
          return nullptr;
        }
        ++grows_;
        break;
      case OverflowPolicy::kUpstream: {
        void* cell =
            options_.upstream->Allocate(options_.cell_size, options_.alignment);
        if (cell == nullptr) {
          ++failures_;
          return nullptr;
        }
        overflow_cells_.insert(cell);
        ++overflows_;
        UpdateSlowReturn();
        UpdatePeak();
        return cell;
      }
      case OverflowPolicy::kFail:
        ++failures_;
        return nullptr;
    }
  }
  void* cell = PopFrom(block);
  if (checks_) {
    const uint32_t index = CellIndex(block, cell);
    TESSERA_DCHECK(
        (block->bitmap()[index >> 6] & (uint64_t{1} << (index & 63))) == 0,
        "a cell handed out should have been idle");
    block->bitmap()[index >> 6] |= uint64_t{1} << (index & 63);
  }
  NoteTaken();
  return cell;
}

absl::Status StackedPool::ValidateReturn(const void* cell,
                                         ContractViolation* violation) const {
  *violation = ContractViolation::kForeignPointer;
  if (magic_ != kLiveMagic || dead_) {
    // Not name(): the options string died with the pool.
    return absl::FailedPreconditionError(absl::StrFormat(
        "%p returned to a pool that has been destroyed", cell));
  }
  if (cell == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrFormat("%s: null pointer returned", name()));
  }
  if (!overflow_cells_.empty() &&
      overflow_cells_.contains(const_cast<void*>(cell))) {
    return absl::OkStatus();
  }
  const Block* block = BlockOf(cell);
  if (!block_table_.contains(reinterpret_cast<uintptr_t>(block))) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "%s: %p is not inside any block of this pool (foreign pointer)",
        name(), cell));
  }
  const char* p = static_cast<const char*>(cell);
  if (p < CellsBegin(block) || p >= CellsEnd(block)) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "%s: %p lies in a block header or tail, not in a cell", name(), cell));
  }
  const uint32_t index = CellIndex(block, cell);
  const size_t offset = static_cast<size_t>(p - CellsBegin(block)) -
                        static_cast<size_t>(index) * stride_;
  if (offset != 0) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "%s: %p is %u bytes into cell %u of %u bytes (interior or misaligned "
        "pointer)",
        name(), cell, offset, index, stride_));
  }
  if (p >= block->bump) {
    *violation = ContractViolation::kDoubleFree;
    return absl::FailedPreconditionError(absl::StrFormat(
        "%s: %p is cell %u, which was never handed out", name(), cell, index));
  }
  if (checks_ &&
      (block->bitmap()[index >> 6] & (uint64_t{1} << (index & 63))) == 0) {
    *violation = ContractViolation::kDoubleFree;
    return absl::FailedPreconditionError(absl::StrFormat(
        "%s: %p (cell %u) is already idle (double return)", name(), cell,
        index));
  }
  return absl::OkStatus();
}

void StackedPool::ReturnSlow(void* cell) noexcept {
  if (checks_ || dead_) {
    ContractViolation violation;
    absl::Status status = ValidateReturn(cell, &violation);
    if (!status.ok()) {
      ReportContractViolation(dead_ ? "stacked_pool" : name(), violation, cell,
                              status.message());
      return;
    }
  }
  if (!overflow_cells_.empty() && overflow_cells_.erase(cell) != 0) {
    options_.upstream->Deallocate(cell, options_.cell_size, options_.alignment);
    ++overflow_returns_;
    UpdateSlowReturn();
    return;
  }
  Block* block = BlockOf(cell);
  if (checks_) {
    const uint32_t index = CellIndex(block, cell);
    block->bitmap()[index >> 6] &= ~(uint64_t{1} << (index & 63));
  }
  ++returns_;
  PushTo(block, cell);
  // Expensive checks (sanitizer builds, where return checks are on by
  // default and every return comes here): walk the pool every
  // kExpensiveCheckPeriod-th return, so a corruption is caught near its cause.
  if (return_countdown_.Tick()) {
    TESSERA_DCHECK_EXPENSIVE_OK(CheckIntegrity(),
                                "the pool should be intact after a return");
  }
}

void StackedPool::FlushMagazine() noexcept {
  while (magazine_count_ != 0) {
    void* cell = magazine_[--magazine_count_];
    PushTo(BlockOf(cell), cell);
  }
}

absl::StatusOr<void*> StackedPool::TakeChecked() {
  void* cell = Take();
  if (cell == nullptr) {
    return absl::ResourceExhaustedError(absl::StrFormat(
        "%s: no cell available under overflow policy '%s' (%u of %u reserved "
        "cells in use)",
        name(), PolicyName(options_.overflow), block_cells_in_use_,
        block_count_ * capacity_));
  }
  return cell;
}

absl::Status StackedPool::ReturnChecked(void* cell) {
  ContractViolation violation;
  absl::Status status = ValidateReturn(cell, &violation);
  if (!status.ok()) return status;
  Return(cell);
  return absl::OkStatus();
}

bool StackedPool::Owns(const void* ptr) const {
  if (overflow_cells_.contains(const_cast<void*>(ptr))) return true;
  const Block* block = BlockOf(ptr);
  if (!block_table_.contains(reinterpret_cast<uintptr_t>(block))) return false;
  const char* p = static_cast<const char*>(ptr);
  if (p < CellsBegin(block) || p >= CellsEnd(block)) return false;
  return static_cast<size_t>(p - CellsBegin(block)) ==
         static_cast<size_t>(CellIndex(block, ptr)) * stride_;
}

size_t StackedPool::TakeBatch(void** out, size_t n) noexcept {
  size_t taken = 0;
  while (taken < n) {
    void* cell = Take();
    if (cell == nullptr) {
      // A partly filled batch is not a failure for the caller.
      if (taken != 0) --failures_;
      break;
    }
    out[taken++] = cell;
  }
  return taken;
}

void StackedPool::ReturnBatch(void* const* cells, size_t n) noexcept {
  for (size_t i = 0; i < n; ++i) Return(cells[i]);
}

void StackedPool::MaybeTrimOnReturn(Block* block) noexcept {
  const uint64_t idle = block_count_ * capacity_ - block_cells_in_use_;
  if (idle > trim_above_) {
    TESSERA_DCHECK(block->used == 0,
                   "a block trimmed on return should have no cell in use");
    ReleaseBlock(block);
    ++trims_;
  }
}

size_t StackedPool::Trim() {
  const uint64_t blocks_before = block_count_;
  // Emptying the magazine can itself release blocks under the high-water
  // policy (MaybeTrimOnReturn counts those in trims_); they count as released
  // by this call too.
  FlushMagazine();
  size_t released_idle = 0;
  Block* block = blocks_head_;
  while (block != nullptr) {
    Block* next = block->next;
    if (block->used == 0) {
      ReleaseBlock(block);
      ++released_idle;
    }
    block = next;
  }
  trims_ += released_idle;
  TESSERA_DCHECK_EXPENSIVE_OK(CheckIntegrity(),
                              "the pool should be intact after Trim");
  return static_cast<size_t>(blocks_before - block_count_);
}

StackedPoolStats StackedPool::stats() const {
  StackedPoolStats s;
  s.blocks = block_count_;
  s.cells_reserved = block_count_ * capacity_;
  s.cells_available = s.cells_reserved - block_cells_in_use_ + magazine_count_;
  s.cells_in_use =
      block_cells_in_use_ - magazine_count_ + overflow_cells_.size();
  s.peak_cells_in_use = peak_cells_in_use_;
  s.hits = hits_;
  s.grows = grows_;
  s.overflows = overflows_;
  s.takes = hits_ + grows_ + overflows_;
  s.overflow_cells_in_use = overflow_cells_.size();
  s.failures = failures_;
  s.returns = returns_ + overflow_returns_;
  s.trims = trims_;
  return s;
}

absl::Status StackedPool::CheckIntegrity() const {
  auto violated = [this](int number, const std::string& what) {
    return absl::InternalError(absl::StrFormat("%s: invariant %d violated: %s",
                                               name(), number, what));
  };
  if (magazine_count_ > kMagazineCells || (checks_ && magazine_count_ != 0)) {
    return violated(7, absl::StrFormat("magazine holds %u cells", magazine_count_));
  }
  absl::flat_hash_set<const void*> in_magazine;
  for (uint32_t i = 0; i < magazine_count_; ++i) {
    const void* cell = magazine_[i];
    const Block* block = BlockOf(cell);
    if (!in_magazine.insert(cell).second ||
        !block_table_.contains(reinterpret_cast<uintptr_t>(block)) ||
        static_cast<const char*>(cell) < CellsBegin(block) ||
        static_cast<const char*>(cell) >= block->bump ||
        static_cast<size_t>(static_cast<const char*>(cell) -
                            CellsBegin(block)) % stride_ != 0) {
      return violated(7, absl::StrFormat("magazine entry %p is a duplicate or "
                                         "not a carved cell of this pool",
                                         cell));
    }
  }
  size_t listed = 0;
  uint64_t used_sum = 0;
  for (const Block* block = blocks_head_; block != nullptr;
       block = block->next) {
    ++listed;
    if (listed > block_table_.size()) {
      return violated(1, "block list is longer than the block table");
    }
    const uintptr_t base = reinterpret_cast<uintptr_t>(block);
    if ((base & (block_bytes_ - 1)) != 0 || !block_table_.contains(base)) {
      return violated(1, absl::StrFormat("block %p is misaligned or not in "
                                         "the block table",
                                         block));
    }
    if (block->used > capacity_) {
      return violated(2, absl::StrFormat("block %p has %u cells in use of %u",
                                         block, block->used, capacity_));
    }
    const char* begin = CellsBegin(block);
    const char* bump = block->bump;
    if (bump < begin || bump > CellsEnd(block) ||
        static_cast<size_t>(bump - begin) % stride_ != 0) {
      return violated(2, absl::StrFormat("block %p bump pointer %p is off the "
                                         "cell grid",
                                         block, bump));
    }
    const size_t carved = static_cast<size_t>(bump - begin) / stride_;
    size_t free_count = 0;
    for (const FreeCell* cell = block->free; cell != nullptr;
         cell = cell->next) {
      const char* p = reinterpret_cast<const char*>(cell);
      if (++free_count > carved) {
        return violated(2, absl::StrFormat("block %p free stack is longer "
                                           "than its %u carved cells (cycle?)",
                                           block, carved));
      }
      if (p < begin || p >= bump ||
          static_cast<size_t>(p - begin) % stride_ != 0) {
        return violated(2, absl::StrFormat("block %p free stack holds %p, "
                                           "not a carved cell",
                                           block, p));
      }
      if (in_magazine.contains(p)) {
        return violated(7, absl::StrFormat("cell %p is both in the magazine "
                                           "and on a free stack",
                                           p));
      }
      if (checks_) {
        const uint32_t index = CellIndex(block, p);
        if ((block->bitmap()[index >> 6] >> (index & 63)) & 1) {
          return violated(5, absl::StrFormat("idle cell %p is marked in use",
                                             p));
        }
      }
    }
    if (block->used + free_count + (capacity_ - carved) != capacity_) {
      return violated(
          2, absl::StrFormat("block %p: %u in use + %u free + %u uncarved != "
                             "%u cells",
                             block, block->used, free_count,
                             capacity_ - carved, capacity_));
    }
    if (block->available != (block->used < capacity_)) {
      return violated(3, absl::StrFormat("block %p with %u of %u cells in use "
                                         "is %son the available list",
                                         block, block->used, capacity_,
                                         block->available ? "" : "not "));
    }
    if (checks_) {
      size_t marked = 0;
      for (size_t w = 0; w < bitmap_words_; ++w) {
        marked += static_cast<size_t>(absl::popcount(block->bitmap()[w]));
      }
      if (marked != block->used) {
        return violated(5, absl::StrFormat("block %p marks %u cells in use "
                                           "but has %u",
                                           block, marked, block->used));
      }
    }
    used_sum += block->used;
  }
  if (listed != block_table_.size() || listed != block_count_) {
    return violated(1, absl::StrFormat("%u blocks listed, %u in the table, "
                                       "%u counted",
                                       listed, block_table_.size(),
                                       block_count_));
  }
  size_t available_listed = 0;
  for (const Block* block = available_head_; block != nullptr;
       block = block->avail_next) {
    if (++available_listed > listed || !block->available) {
      return violated(3, "available list holds a block not marked available");
    }
  }
  size_t available_marked = 0;
  for (const Block* block = blocks_head_; block != nullptr;
       block = block->next) {
    available_marked += block->available ? 1 : 0;
  }
  if (available_listed != available_marked) {
    return violated(3, absl::StrFormat("%u blocks on the available list, %u "
                                       "marked available",
                                       available_listed, available_marked));
  }
  if (used_sum != block_cells_in_use_) {
    return violated(4, absl::StrFormat("blocks hold %u cells in use, the "
                                       "counter says %u",
                                       used_sum, block_cells_in_use_));
  }
  if (!overflow_cells_.empty() &&
      options_.overflow != OverflowPolicy::kUpstream) {
    return violated(6, "overflow cells exist without the upstream policy");
  }
  if (overflows_ - overflow_returns_ != overflow_cells_.size()) {
    return violated(6, absl::StrFormat("%u overflow cells tracked, counters "
                                       "say %u",
                                       overflow_cells_.size(),
                                       overflows_ - overflow_returns_));
  }
  return absl::OkStatus();
}

}  // namespace tessera
