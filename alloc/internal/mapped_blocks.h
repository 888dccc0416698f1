// Copyright 2026 The Tessera Authors.
//
// -----------------------------------------------------------------------------
// File: internal/mapped_blocks.h
// -----------------------------------------------------------------------------
//
// MappedBlocks: the blocks of 4 MiB and more of the system allocators
// (alloc/system), each mapped on its own, 2 MiB-aligned, with the last few
// freed mappings kept for reuse.
//
// Why: glibc maps a block that large afresh on every malloc and unmaps it on
// every free. On these VMs a fresh mapping costs far more than its two
// system calls: its first touch (glibc's chunk header, or any write) builds
// the page tables of a new region and faults 36-63 us, and the munmap frees
// them again (18-21 us; measured with mmap, one write and munmap of 40 MB in
// a loop, 2026-12-06). NumPy's `np.zeros(10**7)` is exactly that calloc and
// reads 22-96 us depending on whether its mapping lands next to page tables
// that already exist. A kept mapping has its page tables, and since its
// blocks start on a 2 MiB boundary and span whole 2 MiB units, a zeroed reuse
// gives every unit back with one MADV_DONTNEED without splitting a huge page
// (nothing of the block is written by the allocator: no header, no memset),
// and an unzeroed reuse costs no system call at all.
//
// Layout: [block - 4 KiB, block + capacity) is mapped, capacity a multiple
// of 2 MiB. The page below the block is never written: the system
// allocators read a header just below every block they are handed back, and
// there it reads as zero, which no valid header is.
//
// Bounds: at most kMaxCachedBlocks mappings of kMaxCachedBytes in all stay
// cached (oldest unmapped first); a cached block is reused for a request of
// at least half its capacity. Memory a freed block held stays resident until
// it is reused, evicted or ReleaseCached() is called. Without the cache
// (`cache = false`, sanitizer builds) every free unmaps, so a use after free
// faults.
//
// Thread-safe: one mutex per instance; blocks this large cost a system call
// or a page walk anyway. The table of blocks uses the heap; if it cannot
// grow, Allocate and Resize say no (nullptr) and change nothing.
//
// Invariants (CheckIntegrity):
//   1. Every block is 2 MiB-aligned and its capacity a non-zero multiple of
//      2 MiB.
//   2. The cache list holds exactly the blocks marked cached, each once with
//      its capacity, at most kMaxCachedBlocks of them and kMaxCachedBytes in
//      all.
//   3. The live blocks are at most `live_allocations` (the owner's count).

#ifndef TESSERA_ALLOC_INTERNAL_MAPPED_BLOCKS_H_
#define TESSERA_ALLOC_INTERNAL_MAPPED_BLOCKS_H_

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"

namespace tessera {
namespace internal {

class MappedBlocks {
 public:
  // Requests of this size or more are mapped (the crossover of
  // zero_memory.h, and NumPy's huge-page threshold).
  static constexpr size_t kMinBytes = size_t{4} << 20;
  // Every block's alignment and the unit of its capacity: a huge page.
  static constexpr size_t kAlignment = size_t{2} << 20;
  static constexpr int kMaxCachedBlocks = 4;
  static constexpr size_t kMaxCachedBytes = size_t{128} << 20;

  // `huge_pages`: advise each mapping MADV_HUGEPAGE. `cache`: keep freed
  // mappings (see above).
  MappedBlocks(bool huge_pages, bool cache);
  // Unmaps the cached blocks. Live blocks stay mapped: their owner may still
  // use them (freeing them through a destroyed allocator is its bug).
  ~MappedBlocks();
  MappedBlocks(const MappedBlocks&) = delete;
  MappedBlocks& operator=(const MappedBlocks&) = delete;

  // Whether `ptr` may be one of these blocks: the cheap test before Find.
  static bool MayBeMapped(const void* ptr) {
    return (reinterpret_cast<uintptr_t>(ptr) & (kAlignment - 1)) == 0 &&
           ptr != nullptr;
  }

  // A block of at least `bytes` (>= kMinBytes), reading as zero if `zeroed`;
  // nullptr if the kernel refuses the mapping.
  void* Allocate(size_t bytes, bool zeroed) noexcept;

  enum class State { kNone, kLive, kCached };
  // What `ptr` is here; `*capacity` gets a block's capacity when not kNone.
  State Find(const void* ptr, size_t* capacity = nullptr) const noexcept;

  // Frees a live block: kLive if it was one (now cached or unmapped); kCached
  // if it was already free (a double free, nothing done); kNone if it is not
  // a block of this instance (nothing done).
  State Free(void* ptr) noexcept;

  // Gives live block `ptr` a capacity for `bytes` (>= kMinBytes) keeping its
  // contents: shrinks in place, grows by moving its pages (mremap, no copy)
  // to a new 2 MiB boundary. Returns the block's address afterwards, or
  // nullptr (nothing changed) if `ptr` is not a live block or the kernel
  // refuses.
  void* Resize(void* ptr, size_t bytes) noexcept;

  // Unmaps every cached block; returns their capacity in bytes.
  size_t ReleaseCached() noexcept;

  size_t live_blocks() const;
  size_t cached_blocks() const;
  size_t cached_bytes() const;

  // The invariants above, with `live_allocations` the owning allocator's
  // count of live blocks (all kinds).
  absl::Status CheckIntegrity(uint64_t live_allocations) const;

 private:
  struct Entry {
    size_t capacity;
    bool cached;
  };
  static void Unmap(char* block, size_t capacity) noexcept;
  // Requires mu_. Takes the cached blocks beyond the bounds out of the
  // tables, oldest first, into `evicted` (room for kMaxCachedBlocks + 1);
  // returns how many. The caller unmaps them after unlocking.
  int EvictLocked(std::pair<char*, size_t>* evicted);

  const bool huge_pages_;
  const bool cache_;
  mutable std::mutex mu_;
  absl::flat_hash_map<uintptr_t, Entry> entries_;  // guarded by mu_
  // Oldest first, with their capacities (so Allocate picks one without a
  // lookup per candidate); mu_.
  std::vector<std::pair<char*, size_t>> cached_;
  size_t cached_bytes_ = 0;                        // mu_
  size_t live_ = 0;                                // mu_
};

}  // namespace internal
}  // namespace tessera

#endif  // TESSERA_ALLOC_INTERNAL_MAPPED_BLOCKS_H_
