// Copyright 2026 The Tessera Authors.

#include "tensor/internal/small_block_cache.h"

#include <cstring>

#include "absl/strings/str_format.h"
#include "alloc/system/system_allocator.h"

namespace tessera {
namespace internal {
namespace {

// The calling thread's lists. A freed block's first word links it to the
// next block of its list.
struct ThreadLists {
  const SmallBlockCache* owner = nullptr;
  void* head[SmallBlockCache::kClasses + 1] = {};
  uint32_t count[SmallBlockCache::kClasses + 1] = {};
  size_t bytes = 0;

  ~ThreadLists();
  size_t ReleaseAll();
};

thread_local ThreadLists tls_lists;
// 0: tls_lists not used yet; 1: live; 2: destroyed (thread exiting). Kept
// apart from tls_lists (trivially destructible) so that a free during
// another thread_local's destructor never touches a destroyed object.
thread_local int tls_state = 0;

size_t ThreadLists::ReleaseAll() {
  const size_t released = bytes;
  if (owner == nullptr) return 0;
  for (size_t c = 1; c <= SmallBlockCache::kClasses; ++c) {
    while (head[c] != nullptr) {
      void* block = head[c];
      std::memcpy(&head[c], block, sizeof(void*));
      owner->upstream().Deallocate(block, c * SmallBlockCache::kGranule,
                                   kDefaultAlignment);
    }
    count[c] = 0;
  }
  bytes = 0;
  return released;
}

ThreadLists::~ThreadLists() {
  tls_state = 2;
  ReleaseAll();
}

// The calling thread's lists if they belong to `cache` (claiming them if no
// cache has yet), else nullptr.
ThreadLists* ListsFor(const SmallBlockCache* cache) {
  if (!kSystemThreadCacheEnabled) return nullptr;
  if (__builtin_expect(tls_state != 1, 0)) {
    if (tls_state == 2) return nullptr;
    tls_state = 1;
  }
  ThreadLists& lists = tls_lists;
  if (__builtin_expect(lists.owner != cache, 0)) {
    if (lists.owner != nullptr) return nullptr;
    lists.owner = cache;
  }
  return &lists;
}

}  // namespace

SmallBlockCache::~SmallBlockCache() {
  if (tls_state == 1 && tls_lists.owner == this) {
    tls_lists.ReleaseAll();
    tls_lists.owner = nullptr;
  }
}

bool SmallBlockCache::Cacheable(size_t bytes, size_t alignment) const {
  return bytes - 1 < kMaxBlockBytes && alignment <= kDefaultAlignment;
}

void* SmallBlockCache::Take(size_t bytes, size_t alignment,
                            bool zero) noexcept {
  if (!Cacheable(bytes, alignment)) {
    void* block = zero ? upstream_.AllocateZeroed(bytes, alignment)
                       : upstream_.Allocate(bytes, alignment);
    if (block == nullptr) return CountFailure();
    stats_.RecordAllocation(bytes);
    return block;
  }
  const size_t class_bytes = ClassBytes(bytes);
  const size_t c = class_bytes / kGranule;
  ThreadLists* lists = ListsFor(this);
  void* block = nullptr;
  if (lists != nullptr && lists->head[c] != nullptr) {
    block = lists->head[c];
    std::memcpy(&lists->head[c], block, sizeof(void*));
    --lists->count[c];
    lists->bytes -= class_bytes;
    if (zero) {
      if (clear_ != nullptr) {
        clear_(block, bytes);
      } else {
        std::memset(block, 0, bytes);
      }
    }
  } else {
    block = zero ? upstream_.AllocateZeroed(class_bytes, kDefaultAlignment)
                 : upstream_.Allocate(class_bytes, kDefaultAlignment);
    if (block == nullptr) return CountFailure();
  }
  stats_.RecordAllocation(bytes);
  return block;
}

void* SmallBlockCache::DoAllocate(size_t bytes, size_t alignment) noexcept {
  return Take(bytes, alignment, /*zero=*/false);
}

void* SmallBlockCache::DoAllocateZeroed(size_t bytes,
                                        size_t alignment) noexcept {
  return Take(bytes, alignment, /*zero=*/true);
}

void SmallBlockCache::DoDeallocate(void* ptr, size_t bytes,
                                   size_t alignment) noexcept {
  stats_.RecordDeallocation(bytes);
  if (!Cacheable(bytes, alignment)) {
    upstream_.Deallocate(ptr, bytes, alignment);
    return;
  }
  const size_t class_bytes = ClassBytes(bytes);
  const size_t c = class_bytes / kGranule;
  ThreadLists* lists = ListsFor(this);
  if (lists != nullptr && lists->count[c] < kMaxBlocksPerClass &&
      lists->bytes + class_bytes <= kMaxCachedBytes) {
    std::memcpy(ptr, &lists->head[c], sizeof(void*));
    lists->head[c] = ptr;
    ++lists->count[c];
    lists->bytes += class_bytes;
    return;
  }
  upstream_.Deallocate(ptr, class_bytes, kDefaultAlignment);
}

void* SmallBlockCache::DoReallocate(void* ptr, size_t old_bytes,
                                    size_t new_bytes,
                                    size_t alignment) noexcept {
  // Within the same class the block already fits.
  if (Cacheable(old_bytes, alignment) && Cacheable(new_bytes, alignment) &&
      ClassBytes(old_bytes) == ClassBytes(new_bytes)) {
    stats_.RecordReallocation(old_bytes, new_bytes);
    return ptr;
  }
  void* moved = Take(new_bytes, alignment, /*zero=*/false);
  if (moved == nullptr) return nullptr;  // counted by Take; ptr stays valid
  std::memcpy(moved, ptr, old_bytes < new_bytes ? old_bytes : new_bytes);
  DoDeallocate(ptr, old_bytes, alignment);
  // Recorded as the allocation and deallocation it was.
  return moved;
}

size_t SmallBlockCache::ReleaseCallingThread() {
  if (tls_state != 1 || tls_lists.owner != this) return 0;
  return tls_lists.ReleaseAll();
}

size_t SmallBlockCache::CallingThreadCachedBlocks() const {
  if (tls_state != 1 || tls_lists.owner != this) return 0;
  size_t blocks = 0;
  for (size_t c = 1; c <= kClasses; ++c) blocks += tls_lists.count[c];
  return blocks;
}

size_t SmallBlockCache::CallingThreadCachedBytes() const {
  if (tls_state != 1 || tls_lists.owner != this) return 0;
  return tls_lists.bytes;
}

absl::Status SmallBlockCache::CheckIntegrity() const {
  if (tls_state == 1 && tls_lists.owner == this) {
    size_t bytes = 0;
    for (size_t c = 1; c <= kClasses; ++c) {
      uint32_t length = 0;
      for (void* p = tls_lists.head[c]; p != nullptr;) {
        if (++length > kMaxBlocksPerClass) break;
        std::memcpy(&p, p, sizeof(void*));
      }
      if (length > kMaxBlocksPerClass || length != tls_lists.count[c]) {
        return absl::InternalError(absl::StrFormat(
            "small block cache invariant 1: list of %u-byte blocks has %u "
            "blocks, count says %u (at most %u)",
            c * kGranule, length, tls_lists.count[c], kMaxBlocksPerClass));
      }
      bytes += length * c * kGranule;
    }
    if (bytes != tls_lists.bytes || bytes > kMaxCachedBytes) {
      return absl::InternalError(absl::StrFormat(
          "small block cache invariant 2: lists hold %u bytes, the thread's "
          "total says %u (at most %u)",
          bytes, tls_lists.bytes, kMaxCachedBytes));
    }
  }
  const AllocatorStats s = stats_.stats();
  if (s.bytes_in_use > s.peak_bytes_in_use ||
      s.deallocations > s.allocations) {
    return absl::InternalError(absl::StrFormat(
        "small block cache invariant 3: %u bytes in use (peak %u), %u "
        "deallocations of %u allocations",
        s.bytes_in_use, s.peak_bytes_in_use, s.deallocations, s.allocations));
  }
  return absl::OkStatus();
}

}  // namespace internal
}  // namespace tessera
