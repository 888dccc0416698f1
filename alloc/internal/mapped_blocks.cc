// Copyright 2026 The Tessera Authors.

#include "alloc/internal/mapped_blocks.h"

#include <sys/mman.h>

#include <cstring>
#include <utility>

#include "absl/strings/str_format.h"

namespace tessera {
namespace internal {
namespace {

constexpr size_t kPage = 4096;

size_t RoundUp(size_t n, size_t unit) { return (n + unit - 1) & ~(unit - 1); }

// The capacity of a block for `bytes`: whole 2 MiB units, at least kMinBytes;
// 0 if that overflows.
size_t CapacityFor(size_t bytes) {
  if (bytes > SIZE_MAX - 2 * MappedBlocks::kAlignment) return 0;
  return RoundUp(bytes < MappedBlocks::kMinBytes ? MappedBlocks::kMinBytes
                                                 : bytes,
                 MappedBlocks::kAlignment);
}

// Maps [block - 4 KiB, block + capacity) with `block` on a 2 MiB boundary
// (one mapping of capacity + 2 MiB, trimmed); returns `block`, or nullptr.
char* MapAligned(size_t capacity, int prot, int extra_flags) {
  const size_t map_bytes = capacity + MappedBlocks::kAlignment;
  void* m = mmap(nullptr, map_bytes, prot,
                 MAP_PRIVATE | MAP_ANONYMOUS | extra_flags, -1, 0);
  if (m == MAP_FAILED) return nullptr;
  char* const base = static_cast<char*>(m);
  char* const block = reinterpret_cast<char*>(RoundUp(
      reinterpret_cast<uintptr_t>(base) + kPage, MappedBlocks::kAlignment));
  const size_t lead = static_cast<size_t>(block - kPage - base);
  if (lead != 0) munmap(base, lead);
  char* const end = block + capacity;
  const size_t trail = static_cast<size_t>(base + map_bytes - end);
  if (trail != 0) munmap(end, trail);
  return block;
}

}  // namespace

MappedBlocks::MappedBlocks(bool huge_pages, bool cache)
    : huge_pages_(huge_pages), cache_(cache) {
  // Free pushes onto it under the lock, where it must not allocate.
  cached_.reserve(kMaxCachedBlocks + 1);
}

MappedBlocks::~MappedBlocks() { ReleaseCached(); }

void MappedBlocks::Unmap(char* block, size_t capacity) noexcept {
  munmap(block - kPage, capacity + kPage);
}

void* MappedBlocks::Allocate(size_t bytes, bool zeroed) noexcept {
  const size_t capacity = CapacityFor(bytes);
  if (capacity == 0) return nullptr;
  char* reused = nullptr;
  size_t reused_capacity = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    // The newest cached block that fits without wasting more than half.
    for (size_t i = cached_.size(); i-- > 0;) {
      const auto [block, block_capacity] = cached_[i];
      if (block_capacity < capacity || block_capacity / 2 > bytes) continue;
      entries_.find(reinterpret_cast<uintptr_t>(block))->second.cached = false;
      reused = block;
      reused_capacity = block_capacity;
      cached_.erase(cached_.begin() + static_cast<ptrdiff_t>(i));
      cached_bytes_ -= block_capacity;
      ++live_;
      break;
    }
  }
  if (reused != nullptr) {
    if (zeroed) {
      // Whole 2 MiB units from a 2 MiB boundary: no huge page is split, and
      // units never touched since the last time cost only the page walk.
      const size_t span = RoundUp(bytes, kAlignment);
      if (madvise(reused, span <= reused_capacity ? span : reused_capacity,
                  MADV_DONTNEED) != 0) {
        std::memset(reused, 0, bytes);
      }
    }
    return reused;
  }
  char* const block = MapAligned(capacity, PROT_READ | PROT_WRITE, 0);
  if (block == nullptr) return nullptr;
  // Advice only: a kernel without transparent huge pages says EINVAL. The
  // page below is advised too (it is never part of a huge page), so that the
  // mapping stays one area: mremap (Resize) moves only single areas.
  if (huge_pages_) madvise(block - kPage, capacity + kPage, MADV_HUGEPAGE);
  {
    std::lock_guard<std::mutex> lock(mu_);
    // The table is the one thing here that uses the heap: out of memory
    // there gives the mapping back and says no (the caller falls back).
    try {
      entries_[reinterpret_cast<uintptr_t>(block)] = Entry{capacity, false};
    } catch (...) {
      Unmap(block, capacity);
      return nullptr;
    }
    ++live_;
  }
  return block;  // fresh anonymous pages: zero whether or not asked
}

MappedBlocks::State MappedBlocks::Find(const void* ptr,
                                       size_t* capacity) const noexcept {
  if (!MayBeMapped(ptr)) return State::kNone;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = entries_.find(reinterpret_cast<uintptr_t>(ptr));
  if (it == entries_.end()) return State::kNone;
  if (capacity != nullptr) *capacity = it->second.capacity;
  return it->second.cached ? State::kCached : State::kLive;
}

int MappedBlocks::EvictLocked(std::pair<char*, size_t>* evicted) {
  int n = 0;
  while (!cached_.empty() &&
         (cached_.size() > static_cast<size_t>(kMaxCachedBlocks) ||
          cached_bytes_ > kMaxCachedBytes)) {
    const auto [oldest, capacity] = cached_.front();
    cached_.erase(cached_.begin());
    cached_bytes_ -= capacity;
    evicted[n++] = {oldest, capacity};
    entries_.erase(reinterpret_cast<uintptr_t>(oldest));
  }
  return n;
}

MappedBlocks::State MappedBlocks::Free(void* ptr) noexcept {
  if (!MappedBlocks::MayBeMapped(ptr)) return State::kNone;
  // At most every cached block and this one; no heap use under the lock.
  std::pair<char*, size_t> unmap[kMaxCachedBlocks + 1];
  int n = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = entries_.find(reinterpret_cast<uintptr_t>(ptr));
    if (it == entries_.end()) return State::kNone;
    if (it->second.cached) return State::kCached;
    --live_;
    char* block = static_cast<char*>(ptr);
    if (cache_ && it->second.capacity <= kMaxCachedBytes) {
      it->second.cached = true;
      cached_.emplace_back(block, it->second.capacity);  // reserved
      cached_bytes_ += it->second.capacity;
      n = EvictLocked(unmap);
    } else {
      unmap[n++] = {block, it->second.capacity};
      entries_.erase(it);
    }
  }
  for (int i = 0; i < n; ++i) Unmap(unmap[i].first, unmap[i].second);
  return State::kLive;
}

void* MappedBlocks::Resize(void* ptr, size_t bytes) noexcept {
  const size_t capacity = CapacityFor(bytes);
  if (!MayBeMapped(ptr) || capacity == 0) return nullptr;
  char* const block = static_cast<char*>(ptr);
  // The lock is held throughout: once mremap has moved the block, its old
  // address is free for any mapping, and a block another thread maps there
  // must not meet this block's entry.
  std::lock_guard<std::mutex> lock(mu_);
  auto it = entries_.find(reinterpret_cast<uintptr_t>(ptr));
  if (it == entries_.end() || it->second.cached) return nullptr;
  const size_t old_capacity = it->second.capacity;
  if (capacity <= old_capacity) {
    // Shrink in place: the tail goes back to the kernel.
    if (capacity < old_capacity) {
      munmap(block + capacity, old_capacity - capacity);
      it->second.capacity = capacity;
    }
    return ptr;
  }
  // Grow: reserve an aligned range, then move the block's pages onto it
  // (page table entries move, no byte is copied) and let it grow in place;
  // the area keeps its huge-page advice.
  char* const target = MapAligned(capacity, PROT_NONE, MAP_NORESERVE);
  if (target == nullptr) return nullptr;
  // The new entry first (it may need the heap): nothing else can be at
  // `target`, inside the reservation.
  try {
    entries_[reinterpret_cast<uintptr_t>(target)] = Entry{capacity, false};
  } catch (...) {
    Unmap(target, capacity);
    return nullptr;
  }
  void* moved = mremap(block - kPage, old_capacity + kPage, capacity + kPage,
                       MREMAP_MAYMOVE | MREMAP_FIXED, target - kPage);
  if (moved == MAP_FAILED) {
    entries_.erase(reinterpret_cast<uintptr_t>(target));
    Unmap(target, capacity);
    return nullptr;
  }
  entries_.erase(reinterpret_cast<uintptr_t>(ptr));
  return target;
}

size_t MappedBlocks::ReleaseCached() noexcept {
  std::pair<char*, size_t> unmap[kMaxCachedBlocks + 1];
  int n = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [block, capacity] : cached_) {
      unmap[n++] = {block, capacity};
      entries_.erase(reinterpret_cast<uintptr_t>(block));
    }
    cached_.clear();
    cached_bytes_ = 0;
  }
  size_t released = 0;
  for (int i = 0; i < n; ++i) {
    Unmap(unmap[i].first, unmap[i].second);
    released += unmap[i].second;
  }
  return released;
}

size_t MappedBlocks::live_blocks() const {
  std::lock_guard<std::mutex> lock(mu_);
  return live_;
}

size_t MappedBlocks::cached_blocks() const {
  std::lock_guard<std::mutex> lock(mu_);
  return cached_.size();
}

size_t MappedBlocks::cached_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return cached_bytes_;
}

absl::Status MappedBlocks::CheckIntegrity(uint64_t live_allocations) const {
  std::lock_guard<std::mutex> lock(mu_);
  size_t marked = 0, live = 0, marked_bytes = 0;
  for (const auto& [address, entry] : entries_) {
    if ((address & (kAlignment - 1)) != 0 || entry.capacity == 0 ||
        (entry.capacity & (kAlignment - 1)) != 0) {
      return absl::InternalError(absl::StrFormat(
          "mapped blocks: invariant 1 (2 MiB-aligned, whole 2 MiB units) "
          "violated: block %p of capacity %u",
          reinterpret_cast<void*>(address), entry.capacity));
    }
    if (entry.cached) {
      ++marked;
      marked_bytes += entry.capacity;
    } else {
      ++live;
    }
  }
  bool listed_once = true;
  for (size_t i = 0; i < cached_.size() && listed_once; ++i) {
    auto it = entries_.find(reinterpret_cast<uintptr_t>(cached_[i].first));
    listed_once = it != entries_.end() && it->second.cached &&
                  it->second.capacity == cached_[i].second;
    for (size_t j = 0; j < i && listed_once; ++j) {
      listed_once = cached_[j].first != cached_[i].first;
    }
  }
  if (!listed_once || marked != cached_.size() ||
      marked_bytes != cached_bytes_ ||
      cached_.size() > static_cast<size_t>(kMaxCachedBlocks) ||
      cached_bytes_ > kMaxCachedBytes) {
    return absl::InternalError(absl::StrFormat(
        "mapped blocks: invariant 2 (the cache list is the cached blocks, "
        "within bounds) violated: %u listed (%u bytes counted), %u marked "
        "cached (%u bytes)%s",
        cached_.size(), cached_bytes_, marked, marked_bytes,
        listed_once ? ""
                    : ", a listed block is not marked, has another capacity "
                      "or is listed twice"));
  }
  if (live != live_ || live > live_allocations) {
    return absl::InternalError(absl::StrFormat(
        "mapped blocks: invariant 3 (live blocks within the owner's count) "
        "violated: %u live (%u counted), owner has %u live allocations",
        live, live_, live_allocations));
  }
  return absl::OkStatus();
}

}  // namespace internal
}  // namespace tessera
