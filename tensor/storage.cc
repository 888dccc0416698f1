// Copyright 2026 The Tessera Authors.

#include "tensor/storage.h"

#include <cstdlib>
#include <new>

#include "absl/strings/str_format.h"
#include "alloc/default_allocator.h"
#include "alloc/pool/buffer_cache.h"
#include "alloc/system/system_allocator.h"
#include "tensor/internal/small_block_cache.h"
#include "tensor/kernels/fill.h"

namespace tessera {

static_assert(sizeof(Storage) <= Storage::kHeaderBytes,
              "the header must fit in front of the data");
static_assert(Storage::kHeaderBytes % Storage::kLargeAlignment == 0,
              "data after the header must keep the block's alignment");

namespace {

BufferCache& Cache() {
  static BufferCache* cache = [] {
    BufferCacheOptions options;
    options.upstream = &GlobalMallocAllocator();
    options.min_buffer_bytes = kCachedMinBytes;
    if (const char* env = std::getenv("TESSERA_TENSOR_CACHE_MB")) {
      char* end = nullptr;
      const unsigned long long mb = std::strtoull(env, &end, 10);
      if (end != env && *end == '\0' && mb < (size_t{1} << 30)) {
        options.budget_bytes = static_cast<size_t>(mb) << 20;
      }
    }
    // Never destroyed: tensors in static objects may outlive any static
    // destructor order.
    return BufferCache::Create(options)->release();
  }();
  return *cache;
}

internal::SmallBlockCache& SmallCache() {
  // Never destroyed, like Cache(); threads return their blocks as they exit.
  static internal::SmallBlockCache* cache =
      new internal::SmallBlockCache(GlobalMallocAllocator(),
                                    &kernels::ZeroBytes);
  return *cache;
}

// The largest data size whose storage block (header and cache-line spare
// included, see Storage::Allocate) the small block cache serves.
constexpr size_t kSmallCachedMaxBytes =
    internal::SmallBlockCache::kMaxBlockBytes - Storage::kHeaderBytes -
    (Storage::kLargeAlignment - kDefaultAlignment);

}  // namespace

Allocator& TensorBufferCache() { return Cache(); }

Allocator& TensorSmallBlockCache() { return SmallCache(); }

size_t ReleaseTensorBufferCache() {
  // The buffers the cache gives back land in the malloc allocator, which
  // keeps its last freed blocks of 4 MiB and more mapped: unmap those too.
  const size_t released = Cache().Release() + SmallCache().ReleaseCallingThread();
  return released + GlobalMallocAllocator().ReleaseCachedMappings();
}

Allocator& StorageAllocatorFor(Allocator* allocator, size_t bytes,
                               bool zeroed) {
  if (allocator != nullptr) return *allocator;
  Allocator& fallback = DefaultAllocator();
  if (&fallback != &GlobalMallocAllocator()) return fallback;
  if (bytes <= kSmallCachedMaxBytes) return SmallCache();
  if (zeroed || bytes < kCachedMinBytes) return fallback;
  return Cache();
}

absl::StatusOr<StorageRef> Storage::Allocate(size_t bytes,
                                             Allocator& allocator,
                                             bool zeroed) {
  const bool large = bytes >= kLargeBytes;
  // Spare bytes to move large data up to the next cache line.
  const size_t spare = large ? kLargeAlignment - kDefaultAlignment : 0;
  if (bytes > SIZE_MAX - kHeaderBytes - spare) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "storage of %u bytes overflows size_t with its %u-byte header", bytes,
        kHeaderBytes));
  }
  if (zeroed && bytes >= kSeparateHeaderZeroedBytes) {
    const size_t data_block_bytes = bytes + spare;
    void* data_block =
        allocator.AllocateZeroed(data_block_bytes, kDefaultAlignment);
    if (data_block == nullptr) {
      return absl::ResourceExhaustedError(absl::StrFormat(
          "allocator \"%s\" could not provide %u bytes for tensor storage",
          allocator.name(), bytes));
    }
    void* header = allocator.Allocate(sizeof(Storage), kDefaultAlignment);
    if (header == nullptr) {
      allocator.Deallocate(data_block, data_block_bytes, kDefaultAlignment);
      return absl::ResourceExhaustedError(absl::StrFormat(
          "allocator \"%s\" could not provide the %u-byte header of %u bytes "
          "of tensor storage",
          allocator.name(), sizeof(Storage), bytes));
    }
    char* data = reinterpret_cast<char*>(
        (reinterpret_cast<uintptr_t>(data_block) + kLargeAlignment - 1) &
        ~(kLargeAlignment - 1));
    Storage* storage = new (header) Storage(
        data, bytes, &allocator, sizeof(Storage), kDefaultAlignment, false);
    storage->separate_block_ = data_block;
    storage->separate_block_bytes_ = data_block_bytes;
    return StorageRef(storage);
  }
  const size_t block_bytes = bytes + kHeaderBytes + spare;
  const size_t alignment = kDefaultAlignment;
  void* block = zeroed ? allocator.AllocateZeroed(block_bytes, alignment)
                       : allocator.Allocate(block_bytes, alignment);
  if (block == nullptr) {
    return absl::ResourceExhaustedError(absl::StrFormat(
        "allocator \"%s\" could not provide %u bytes for tensor storage",
        allocator.name(), bytes));
  }
  uintptr_t data_address = reinterpret_cast<uintptr_t>(block) + kHeaderBytes;
  if (large) {
    data_address = (data_address + kLargeAlignment - 1) & ~(kLargeAlignment - 1);
  }
  char* data = reinterpret_cast<char*>(data_address);
  Storage* storage =
      new (block) Storage(data, bytes, &allocator, block_bytes, alignment, false);
  return StorageRef(storage);
}

absl::StatusOr<StorageRef> Storage::Wrap(void* data, size_t bytes,
                                         std::function<void(void*)> release,
                                         Allocator& header_allocator) {
  void* block = header_allocator.Allocate(sizeof(Storage), alignof(Storage));
  if (block == nullptr) {
    return absl::ResourceExhaustedError(absl::StrFormat(
        "allocator \"%s\" could not provide the %u-byte header to wrap %u "
        "bytes at %p",
        header_allocator.name(), sizeof(Storage), bytes, data));
  }
  Storage* storage =
      new (block) Storage(data, bytes, &header_allocator, sizeof(Storage),
                          alignof(Storage), true);
  storage->release_ = std::move(release);
  return StorageRef(storage);
}

void Storage::Unref() {
  if (refs_.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  Allocator* allocator = allocator_;
  const size_t block_bytes = block_bytes_;
  const size_t alignment = alignment_;
  if (wrapped_ && release_) release_(data_);
  if (separate_block_ != nullptr) {
    allocator->Deallocate(separate_block_, separate_block_bytes_,
                          kDefaultAlignment);
  }
  this->~Storage();
  allocator->Deallocate(this, block_bytes, alignment);
}

}  // namespace tessera
