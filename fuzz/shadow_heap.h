// Copyright 2026 The Tessera Authors.
//
// -----------------------------------------------------------------------------
// File: shadow_heap.h
// -----------------------------------------------------------------------------
//
// The reference model every allocator harness checks an allocator against.
//
// `ShadowHeap` holds the blocks the harness believes are live, each with a
// unique id, and proves on every insertion that the new block
//   1. is aligned as the caller asked,
//   2. overlaps no other live block (an interval map keyed by start address),
//   3. lies inside one of the allocator's regions, when the harness declared
//      regions (arenas, pools); system allocators declare none.
// It also sums the bytes the caller asked for, which is what every
// allocator's `stats().bytes_in_use` must equal, and remembers the last few
// freed blocks so a harness can attempt a double free of one that is not
// live again.
//
// The block pattern: each live block is filled with bytes derived from its id
// and offset (`FillPattern`), and verified (`CheckPattern`) before it is freed
// or reallocated. A block handed out twice, or overlapping another, or moved
// without its contents, shows up as a pattern mismatch naming both offsets.
// The pattern changes with the offset, so a block shifted by any number of
// bytes is caught too.
//
// Zero-byte blocks occupy one byte in the interval map: the allocator
// contract says they are unique, non-null pointers.
//
// Every violation goes through TESSERA_FUZZ_CHECK, i.e. aborts with a message.
// Complexity: O(log n) per insertion or removal, O(bytes) per pattern call.

#ifndef TESSERA_FUZZ_SHADOW_HEAP_H_
#define TESSERA_FUZZ_SHADOW_HEAP_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <map>
#include <utility>
#include <vector>

#include "fuzz/fuzz_check.h"

// The pattern loops run over megabytes per input; coverage instrumentation
// of their compares would make them the fuzzer's main cost and tells the
// fuzzer nothing about the allocator.
#if defined(__clang__)
#define TESSERA_FUZZ_NO_COVERAGE __attribute__((no_sanitize("coverage")))
#else
#define TESSERA_FUZZ_NO_COVERAGE
#endif

namespace tessera {
namespace fuzzing {

// The pattern is defined by 64-bit words so that filling and checking run a
// word at a time (blocks go up to megabytes, and the fuzzers run under ASan):
// word k of block `id` is Mix(id) + k * an odd constant, stored little-endian
// at offset 8k of the block (offsets, not addresses: any alignment works).
inline uint64_t PatternWord(uint64_t id, size_t word) {
  uint64_t h = (id + 1) * 0x9E3779B97F4A7C15ULL;
  h ^= h >> 29;
  return h + static_cast<uint64_t>(word) * 0xD6E8FEB86659FD93ULL;
}

// The pattern byte at `offset` of the block with id `id`.
inline uint8_t PatternByte(uint64_t id, size_t offset) {
  return static_cast<uint8_t>(PatternWord(id, offset >> 3) >>
                              ((offset & 7) * 8));
}

// Writes the pattern of `id` into bytes [from, to) of the block at `ptr`.
TESSERA_FUZZ_NO_COVERAGE inline void FillPattern(void* ptr, uint64_t id, size_t from, size_t to) {
  uint8_t* bytes = static_cast<uint8_t*>(ptr);
  size_t i = from;
  for (; i < to && (i & 7) != 0; ++i) bytes[i] = PatternByte(id, i);
  for (; i + 8 <= to; i += 8) {
    const uint64_t word = PatternWord(id, i >> 3);
    std::memcpy(bytes + i, &word, 8);  // x86-64: little-endian
  }
  for (; i < to; ++i) bytes[i] = PatternByte(id, i);
}

// Aborts unless bytes [from, to) of the block at `ptr` hold the pattern of
// `id`. `what` names the moment of the check in the message.
TESSERA_FUZZ_NO_COVERAGE inline void CheckPattern(const void* ptr, uint64_t id, size_t from, size_t to,
                         const char* what) {
  const uint8_t* bytes = static_cast<const uint8_t*>(ptr);
  const auto check_byte = [&](size_t i) {
    TESSERA_FUZZ_CHECK(bytes[i] == PatternByte(id, i),
                       "%s: block %llu at %p: byte %zu is 0x%02x, expected "
                       "0x%02x (overwritten by another block, or not moved "
                       "with its contents)",
                       what, static_cast<unsigned long long>(id), ptr, i,
                       bytes[i], PatternByte(id, i));
  };
  size_t i = from;
  for (; i < to && (i & 7) != 0; ++i) check_byte(i);
  // Whole words; on a mismatch the bytewise loop names the first bad byte.
  for (; i + 8 <= to; i += 8) {
    uint64_t word;
    std::memcpy(&word, bytes + i, 8);
    if (word != PatternWord(id, i >> 3)) break;
  }
  for (; i < to; ++i) check_byte(i);
}

// Aborts unless bytes [from, to) at `ptr` are zero.
TESSERA_FUZZ_NO_COVERAGE inline void CheckZero(const void* ptr, size_t from, size_t to,
                      const char* what) {
  const uint8_t* bytes = static_cast<const uint8_t*>(ptr);
  size_t i = from;
  for (; i + 8 <= to; i += 8) {
    uint64_t word;
    std::memcpy(&word, bytes + i, 8);
    if (word != 0) break;
  }
  for (; i < to; ++i) {
    TESSERA_FUZZ_CHECK(bytes[i] == 0, "%s: %p: byte %zu is 0x%02x, not zero",
                       what, ptr, i, bytes[i]);
  }
}

inline bool IsAligned(const void* ptr, size_t alignment) {
  return (reinterpret_cast<uintptr_t>(ptr) & (alignment - 1)) == 0;
}

class ShadowHeap {
 public:
  struct Block {
    uint64_t id;
    void* ptr;
    size_t bytes;
    size_t alignment;  // as requested (what Deallocate must be told)
    int tag;           // the harness's own note (e.g. which API made it)
  };

  // Declares [begin, end) as memory the allocator may hand out. Once any
  // region is declared, every block must lie inside one.
  void AddRegion(const void* begin, const void* end) {
    regions_.emplace_back(reinterpret_cast<uintptr_t>(begin),
                          reinterpret_cast<uintptr_t>(end));
  }

  // Checks properties 1-3 for a new block that must be aligned to
  // `guaranteed_alignment` (the allocator's promise, which may exceed what
  // was requested), records it, and returns its index in blocks().
  size_t Add(void* ptr, size_t bytes, size_t alignment,
             size_t guaranteed_alignment, int tag = 0) {
    CheckPlacement(ptr, bytes, guaranteed_alignment);
    const uint64_t id = next_id_++;
    intervals_.emplace(reinterpret_cast<uintptr_t>(ptr), Extent(bytes));
    blocks_.push_back(Block{id, ptr, bytes, alignment, tag});
    bytes_in_use_ += bytes;
    return blocks_.size() - 1;
  }

  // Forgets block `index` (swap-remove: indices of others may change) and
  // remembers it as recently freed.
  Block Remove(size_t index) {
    Block block = blocks_[index];
    auto it = intervals_.find(reinterpret_cast<uintptr_t>(block.ptr));
    TESSERA_FUZZ_CHECK(it != intervals_.end(), "shadow lost block %p",
                       block.ptr);
    intervals_.erase(it);
    blocks_[index] = blocks_.back();
    blocks_.pop_back();
    bytes_in_use_ -= block.bytes;
    recently_freed_[freed_cursor_++ % kRecentlyFreed] = block;
    if (freed_count_ < kRecentlyFreed) ++freed_count_;
    return block;
  }

  // Block `index` now lives at `ptr` with `bytes` (a reallocation). It keeps
  // its id, so its pattern must have moved with it.
  void Move(size_t index, void* ptr, size_t bytes,
            size_t guaranteed_alignment) {
    Block& block = blocks_[index];
    intervals_.erase(reinterpret_cast<uintptr_t>(block.ptr));
    CheckPlacement(ptr, bytes, guaranteed_alignment);
    intervals_.emplace(reinterpret_cast<uintptr_t>(ptr), Extent(bytes));
    bytes_in_use_ += bytes - block.bytes;  // modular: exact either way
    block.ptr = ptr;
    block.bytes = bytes;
  }

  // Whether some live block starts exactly at `ptr`.
  bool IsLiveStart(const void* ptr) const {
    return intervals_.count(reinterpret_cast<uintptr_t>(ptr)) != 0;
  }

  // Whether `ptr` falls inside (or at the start of) some live block.
  bool IsInsideLiveBlock(const void* ptr) const {
    const uintptr_t p = reinterpret_cast<uintptr_t>(ptr);
    auto it = intervals_.upper_bound(p);
    if (it == intervals_.begin()) return false;
    --it;
    return p < it->first + it->second;
  }

  // A recently freed block whose address is not live again, if any; `pick`
  // chooses among them.
  bool PickRecentlyFreed(size_t pick, Block* out) const {
    for (size_t n = 0; n < freed_count_; ++n) {
      const Block& block = recently_freed_[(pick + n) % freed_count_];
      if (!IsInsideLiveBlock(block.ptr)) {
        *out = block;
        return true;
      }
    }
    return false;
  }

  const std::vector<Block>& blocks() const { return blocks_; }
  std::vector<Block>& blocks() { return blocks_; }
  size_t size() const { return blocks_.size(); }
  bool empty() const { return blocks_.empty(); }
  uint64_t bytes_in_use() const { return bytes_in_use_; }

 private:
  static constexpr size_t kRecentlyFreed = 16;

  static size_t Extent(size_t bytes) { return bytes == 0 ? 1 : bytes; }

  void CheckPlacement(void* ptr, size_t bytes, size_t alignment) const {
    TESSERA_FUZZ_CHECK(ptr != nullptr, "null block recorded");
    TESSERA_FUZZ_CHECK(IsAligned(ptr, alignment),
                       "block %p (%zu bytes) is not aligned to %zu", ptr,
                       bytes, alignment);
    const uintptr_t begin = reinterpret_cast<uintptr_t>(ptr);
    const size_t extent = Extent(bytes);
    TESSERA_FUZZ_CHECK(begin + extent > begin,
                       "block %p + %zu bytes wraps the address space", ptr,
                       bytes);
    const uintptr_t end = begin + extent;
    auto next = intervals_.lower_bound(begin);
    if (next != intervals_.end()) {
      TESSERA_FUZZ_CHECK(next->first >= end,
                         "block [%p, +%zu) overlaps live block at %p", ptr,
                         bytes, reinterpret_cast<void*>(next->first));
    }
    if (next != intervals_.begin()) {
      auto prev = std::prev(next);
      TESSERA_FUZZ_CHECK(prev->first + prev->second <= begin,
                         "block [%p, +%zu) overlaps live block [%p, +%zu)",
                         ptr, bytes, reinterpret_cast<void*>(prev->first),
                         prev->second);
    }
    if (!regions_.empty()) {
      bool inside = false;
      for (const auto& region : regions_) {
        if (begin >= region.first && end <= region.second) inside = true;
      }
      TESSERA_FUZZ_CHECK(inside,
                         "block [%p, +%zu) lies outside every region of the "
                         "allocator",
                         ptr, bytes);
    }
  }

  std::vector<Block> blocks_;
  std::map<uintptr_t, size_t> intervals_;  // start -> extent of live blocks
  std::vector<std::pair<uintptr_t, uintptr_t>> regions_;
  Block recently_freed_[kRecentlyFreed] = {};
  size_t freed_cursor_ = 0;
  size_t freed_count_ = 0;
  uint64_t next_id_ = 0;
  uint64_t bytes_in_use_ = 0;
};

}  // namespace fuzzing
}  // namespace tessera

#endif  // TESSERA_FUZZ_SHADOW_HEAP_H_
