// Copyright 2026 The Tessera Authors.

#include "alloc/pool/buffer_cache.h"

#include <algorithm>
#include <cstring>

#include "absl/base/config.h"
#include "absl/numeric/bits.h"
#include "absl/strings/str_format.h"
#include "alloc/internal/dcheck.h"
#include "alloc/internal/zero_memory.h"
#include "alloc/pool/internal/os_pages.h"

#if defined(ABSL_HAVE_ADDRESS_SANITIZER)
#include <sanitizer/asan_interface.h>
#define TESSERA_POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define TESSERA_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define TESSERA_POISON(p, n) ((void)(p), (void)(n))
#define TESSERA_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

namespace tessera {

absl::StatusOr<std::unique_ptr<BufferCache>> BufferCache::Create(
    const BufferCacheOptions& options) {
  if (options.min_buffer_bytes < pool_internal::PageSize()) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "buffer_cache: min_buffer_bytes %u is below one page (%u bytes)",
        options.min_buffer_bytes, pool_internal::PageSize()));
  }
  return std::unique_ptr<BufferCache>(new BufferCache(options));
}

BufferCache::BufferCache(const BufferCacheOptions& options)
    : Allocator("buffer_cache"),
      options_(options),
      upstream_(options.upstream != nullptr ? options.upstream
                                            : &GlobalMallocAllocator()) {}

BufferCache::~BufferCache() {
  Release();
  // Live buffers are the caller's bug; unmapping them here would turn a leak
  // into a use-after-free, so they are left mapped.
}

size_t BufferCache::ClassBytes(size_t bytes) {
  // (2^(k-1), 2^k] rounds up to a multiple of 2^(k-3): 5/8, 6/8, 7/8 or 8/8
  // of 2^k. Page multiples from 64 KiB up (2^(k-3) >= 8 KiB).
  const int k = absl::bit_width(bytes - 1);
  const size_t granule = size_t{1} << (k >= 3 ? k - 3 : 0);
  size_t rounded = (bytes + granule - 1) & ~(granule - 1);
  const size_t page = pool_internal::PageSize();
  return (rounded + page - 1) & ~(page - 1);
}

size_t BufferCache::MapAlignment(size_t class_bytes, size_t alignment) const {
  size_t result = std::max(alignment, pool_internal::PageSize());
  if (options_.huge_pages && class_bytes >= pool_internal::kHugePageSize) {
    result = std::max(result, pool_internal::kHugePageSize);
  }
  return result;
}

void* BufferCache::TakeCached(size_t class_bytes, size_t alignment) {
  // Newest first: its pages are the most likely to still be in cache.
  for (size_t i = cached_.size(); i-- > 0;) {
    const CachedBuffer& c = cached_[i];
    if (c.class_bytes == class_bytes &&
        (reinterpret_cast<uintptr_t>(c.ptr) & (alignment - 1)) == 0) {
      void* ptr = c.ptr;
      cached_.erase(cached_.begin() + static_cast<ptrdiff_t>(i));
      cached_bytes_ -= class_bytes;
      TESSERA_UNPOISON(ptr, class_bytes);
      return ptr;
    }
  }
  return nullptr;
}

void* BufferCache::AllocateLarge(size_t bytes, size_t alignment,
                                 bool zero) noexcept {
  if (bytes > kMaxBufferBytes) return nullptr;
  const size_t class_bytes = ClassBytes(bytes);
  void* ptr;
  {
    std::lock_guard<std::mutex> lock(mu_);
    ptr = TakeCached(class_bytes, alignment);
    if (ptr != nullptr) {
      ++hits_;
      live_[ptr] = LiveBuffer{bytes, alignment, class_bytes};
      live_mapped_bytes_ += class_bytes;
    }
  }
  if (ptr != nullptr) {
    // A fresh mapping reads as zero; a reused one must be cleared: above the
    // crossover by giving its whole huge pages back (internal/zero_memory.h).
    if (zero) {
      internal::ZeroMemory(ptr, bytes,
                           options_.huge_pages
                               ? internal::ZeroPages::kAnonymousHuge
                               : internal::ZeroPages::kMemsetOnly);
    }
    return ptr;
  }
  // Map outside the lock: mmap can take a while and needs no shared state.
  ptr = pool_internal::MapAligned(class_bytes,
                                  MapAlignment(class_bytes, alignment));
  if (ptr == nullptr) return nullptr;
  if (options_.huge_pages) pool_internal::AdviseHugePages(ptr, class_bytes);
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++misses_;
    live_[ptr] = LiveBuffer{bytes, alignment, class_bytes};
    live_mapped_bytes_ += class_bytes;
  }
  return ptr;
}

void* BufferCache::AllocateUnrecorded(size_t bytes, size_t alignment,
                                      bool zero) noexcept {
  if (bytes >= options_.min_buffer_bytes) {
    return AllocateLarge(bytes, alignment, zero);
  }
  void* ptr = zero ? upstream_->AllocateZeroed(bytes, alignment)
                   : upstream_->Allocate(bytes, alignment);
  if (ptr != nullptr) upstream_live_.fetch_add(1, std::memory_order_relaxed);
  return ptr;
}

void* BufferCache::DoAllocate(size_t bytes, size_t alignment) noexcept {
  void* ptr = AllocateUnrecorded(bytes, alignment, /*zero=*/false);
  if (ptr == nullptr) return CountFailure();
  stats_.RecordAllocation(bytes);
  return ptr;
}

void* BufferCache::DoAllocateZeroed(size_t bytes, size_t alignment) noexcept {
  void* ptr = AllocateUnrecorded(bytes, alignment, /*zero=*/true);
  if (ptr == nullptr) return CountFailure();
  stats_.RecordAllocation(bytes);
  return ptr;
}

absl::Status BufferCache::CheckLiveLocked(const void* ptr, size_t bytes,
                                          size_t alignment,
                                          ContractViolation* violation) const {
  auto it = live_.find(const_cast<void*>(ptr));
  if (it == live_.end()) {
    for (const CachedBuffer& c : cached_) {
      if (c.ptr == ptr) {
        *violation = ContractViolation::kDoubleFree;
        return absl::FailedPreconditionError(absl::StrFormat(
            "%s: buffer %p was already freed (double free)", name(), ptr));
      }
    }
    *violation = ContractViolation::kForeignPointer;
    return absl::FailedPreconditionError(absl::StrFormat(
        "%s: %p is not a live buffer of this cache (foreign pointer, or freed "
        "and since unmapped)",
        name(), ptr));
  }
  if (it->second.bytes != bytes || it->second.alignment != alignment) {
    *violation = ContractViolation::kSizeMismatch;
    return absl::FailedPreconditionError(absl::StrFormat(
        "%s: buffer %p was allocated as %u bytes aligned to %u but freed as "
        "%u bytes aligned to %u",
        name(), ptr, it->second.bytes, it->second.alignment, bytes,
        alignment));
  }
  return absl::OkStatus();
}

absl::Status BufferCache::CheckOwnership(const void* ptr, size_t bytes,
                                         size_t alignment) const {
  if (bytes < options_.min_buffer_bytes) return absl::OkStatus();
  std::lock_guard<std::mutex> lock(mu_);
  ContractViolation violation;
  return CheckLiveLocked(ptr, bytes, alignment, &violation);
}

size_t BufferCache::CachedInClassLocked(size_t class_bytes) const {
  size_t count = 0;
  for (const CachedBuffer& c : cached_) count += c.class_bytes == class_bytes;
  return count;
}

void BufferCache::EvictOldestLocked() {
  TESSERA_DCHECK(!cached_.empty(),
                 "an eviction should find a cached buffer to evict");
  const CachedBuffer oldest = cached_.front();
  TESSERA_DCHECK(cached_bytes_ >= oldest.class_bytes,
                 "the cached bytes should include every cached buffer");
  cached_.erase(cached_.begin());
  cached_bytes_ -= oldest.class_bytes;
  ++evictions_;
  // Unpoisoned first: a later mapping may reuse the addresses.
  TESSERA_UNPOISON(oldest.ptr, oldest.class_bytes);
  pool_internal::Unmap(oldest.ptr, oldest.class_bytes);
}

bool BufferCache::FreeUnrecorded(void* ptr, size_t bytes,
                                 size_t alignment) noexcept {
  if (bytes < options_.min_buffer_bytes) {
    upstream_->Deallocate(ptr, bytes, alignment);
    upstream_live_.fetch_sub(1, std::memory_order_relaxed);
    return true;
  }
  std::unique_lock<std::mutex> lock(mu_);
  ContractViolation violation;
  absl::Status status = CheckLiveLocked(ptr, bytes, alignment, &violation);
  if (!status.ok()) {
    lock.unlock();  // the handler may call back into this cache
    ReportContractViolation(name(), violation, ptr, status.message());
    return false;
  }
  auto it = live_.find(ptr);
  const size_t class_bytes = it->second.class_bytes;
  live_.erase(it);
  live_mapped_bytes_ -= class_bytes;
  if (class_bytes > options_.budget_bytes ||
      CachedInClassLocked(class_bytes) >= options_.max_buffers_per_class) {
    ++evictions_;
    pool_internal::Unmap(ptr, class_bytes);
    return true;
  }
  while (cached_bytes_ + class_bytes > options_.budget_bytes) {
    EvictOldestLocked();
  }
  cached_.push_back(CachedBuffer{ptr, class_bytes});
  cached_bytes_ += class_bytes;
  TESSERA_DCHECK(cached_bytes_ <= options_.budget_bytes,
                 "the cache should stay within its byte budget");
  // Under ASan an idle buffer is poisoned, so a stale read or write through
  // a pointer to a freed buffer is reported even though it stays mapped.
  TESSERA_POISON(ptr, class_bytes);
  return true;
}

void BufferCache::DoDeallocate(void* ptr, size_t bytes,
                               size_t alignment) noexcept {
  if (FreeUnrecorded(ptr, bytes, alignment)) stats_.RecordDeallocation(bytes);
}

void* BufferCache::DoReallocate(void* ptr, size_t old_bytes, size_t new_bytes,
                                size_t alignment) noexcept {
  if (old_bytes >= options_.min_buffer_bytes) {
    std::unique_lock<std::mutex> lock(mu_);
    ContractViolation violation;
    absl::Status status =
        CheckLiveLocked(ptr, old_bytes, alignment, &violation);
    if (!status.ok()) {
      lock.unlock();
      ReportContractViolation(name(), violation, ptr, status.message());
      return CountFailure();
    }
    if (new_bytes >= options_.min_buffer_bytes &&
        new_bytes <= kMaxBufferBytes &&
        ClassBytes(new_bytes) == ClassBytes(old_bytes)) {
      // The mapping fits the new size: only the recorded size changes.
      live_[ptr].bytes = new_bytes;
      lock.unlock();
      stats_.RecordReallocation(old_bytes, new_bytes);
      return ptr;
    }
  }
  void* fresh = AllocateUnrecorded(new_bytes, alignment, /*zero=*/false);
  if (fresh == nullptr) return CountFailure();
  std::memcpy(fresh, ptr, std::min(old_bytes, new_bytes));
  FreeUnrecorded(ptr, old_bytes, alignment);
  stats_.RecordReallocation(old_bytes, new_bytes);
  return fresh;
}

size_t BufferCache::Release() {
  std::lock_guard<std::mutex> lock(mu_);
  size_t bytes = 0;
  for (const CachedBuffer& c : cached_) {
    TESSERA_UNPOISON(c.ptr, c.class_bytes);
    pool_internal::Unmap(c.ptr, c.class_bytes);
    bytes += c.class_bytes;
    ++released_;
  }
  cached_.clear();
  cached_bytes_ = 0;
  return bytes;
}

BufferCacheStats BufferCache::cache_stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  BufferCacheStats s;
  s.hits = hits_;
  s.misses = misses_;
  s.evictions = evictions_;
  s.released = released_;
  s.cached_buffers = cached_.size();
  s.cached_bytes = cached_bytes_;
  s.live_buffers = live_.size();
  s.mapped_bytes = live_mapped_bytes_ + cached_bytes_;
  return s;
}

absl::Status BufferCache::CheckIntegrity() const {
  const AllocatorStats s = stats();
  std::lock_guard<std::mutex> lock(mu_);
  auto violated = [this](int number, const std::string& what) {
    return absl::InternalError(absl::StrFormat("%s: invariant %d violated: %s",
                                               name(), number, what));
  };
  uint64_t sum = 0;
  absl::flat_hash_map<size_t, size_t> per_class;
  absl::flat_hash_map<void*, int> seen;
  for (const CachedBuffer& c : cached_) {
    sum += c.class_bytes;
    if (++per_class[c.class_bytes] > options_.max_buffers_per_class) {
      return violated(3, absl::StrFormat("class %u holds more than %u buffers",
                                         c.class_bytes,
                                         options_.max_buffers_per_class));
    }
    if (live_.contains(c.ptr) || ++seen[c.ptr] > 1) {
      return violated(2, absl::StrFormat("buffer %p is cached twice or both "
                                         "cached and live",
                                         c.ptr));
    }
  }
  if (sum != cached_bytes_ || sum > options_.budget_bytes) {
    return violated(1, absl::StrFormat("cached buffers sum to %u bytes, the "
                                       "counter says %u, the budget is %u",
                                       sum, cached_bytes_,
                                       options_.budget_bytes));
  }
  uint64_t live_mapped = 0;
  for (const auto& [ptr, buffer] : live_) live_mapped += buffer.class_bytes;
  const uint64_t upstream_live = upstream_live_.load(std::memory_order_relaxed);
  if (live_.size() + upstream_live != s.live_allocations() ||
      live_mapped != live_mapped_bytes_) {
    return violated(4, absl::StrFormat("%u live buffers + %u upstream blocks "
                                       "!= %u live allocations",
                                       live_.size(), upstream_live,
                                       s.live_allocations()));
  }
  if (s.live_allocations() == 0 && s.bytes_in_use != 0) {
    return violated(5, absl::StrFormat("nothing live but %u bytes in use",
                                       s.bytes_in_use));
  }
  return absl::OkStatus();
}

}  // namespace tessera
