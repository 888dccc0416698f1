// Copyright 2026 The Tessera Authors.

#include "alloc/pool/size_class_pool.h"

#include <cstring>
#include <utility>

#include "absl/strings/str_format.h"
#include "alloc/system/system_allocator.h"

namespace tessera {
namespace {

constexpr size_t kClassSizes[SizeClassPool::kNumClasses] = {
    16,  32,  48,  64,  80,  96,  112, 128, 160, 192,
    224, 256, 320, 384, 448, 512, 640, 768, 896, 1024};

constexpr size_t LowestSetBit(size_t value) { return value & (~value + 1); }

}  // namespace

// Generated from kClassSizes: entry g is the first class holding 16 * g bytes.
const uint8_t SizeClassPool::kClassOfGranule[kMaxSmallSize / 16 + 1] = {
    0,  0,  1,  2,  3,  4,  5,  6,  7,  8,  8,  9,  9,  10, 10, 11, 11,
    12, 12, 12, 12, 13, 13, 13, 13, 14, 14, 14, 14, 15, 15, 15, 15, 16,
    16, 16, 16, 16, 16, 16, 16, 17, 17, 17, 17, 17, 17, 17, 17, 18, 18,
    18, 18, 18, 18, 18, 18, 19, 19, 19, 19, 19, 19, 19, 19};

int SizeClassPool::ClassFor(size_t bytes, size_t alignment) {
  if (bytes > kMaxSmallSize) return -1;
  int size_class = kClassOfGranule[(bytes + 15) >> 4];
  if (alignment <= kDefaultAlignment) return size_class;
  for (; size_class < kNumClasses; ++size_class) {
    if (ClassAlignment(size_class) >= alignment) return size_class;
  }
  return -1;
}

size_t SizeClassPool::ClassSize(int size_class) {
  return kClassSizes[size_class];
}

size_t SizeClassPool::ClassAlignment(int size_class) {
  return LowestSetBit(kClassSizes[size_class]);
}

absl::StatusOr<std::unique_ptr<SizeClassPool>> SizeClassPool::Create(
    const SizeClassPoolOptions& options) {
  const size_t block = options.block_bytes;
  if (block < 4096 || block > kMaxBlockBytes || (block & (block - 1)) != 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "size_class_pool: block_bytes %u is not a power of two from 4096 to "
        "%u",
        block, kMaxBlockBytes));
  }
  std::unique_ptr<SizeClassPool> pool(new SizeClassPool(options));
  for (int c = 0; c < kNumClasses; ++c) {
    StackedPoolOptions class_options;
    class_options.cell_size = kClassSizes[c];
    class_options.alignment = ClassAlignment(c);
    // Half a block of cells: StackedPool rounds the block up to exactly
    // `block_bytes` (header and bitmap included) and fills it.
    class_options.cells_per_block = block / 2 / kClassSizes[c];
    class_options.initial_blocks = 0;  // classes never used cost nothing
    class_options.block_source = options.block_source;
    class_options.check_returns = options.check_returns;
    class_options.name = absl::StrFormat("size_class_pool[%u]", kClassSizes[c]);
    auto class_pool = StackedPool::Create(class_options);
    if (!class_pool.ok()) return class_pool.status();
    if (options.keep_idle_blocks != 0) {
      // The threshold depends on the real cells per block: rebuild once.
      class_options.trim_idle_cells_above =
          options.keep_idle_blocks * (*class_pool)->cells_per_block();
      class_pool = StackedPool::Create(class_options);
      if (!class_pool.ok()) return class_pool.status();
    }
    pool->owned_pools_[c] = std::move(*class_pool);
    pool->pools_[c] = pool->owned_pools_[c].get();
  }
  return pool;
}

SizeClassPool::SizeClassPool(const SizeClassPoolOptions& options)
    : Allocator("size_class_pool"),
      upstream_(options.upstream != nullptr ? options.upstream
                                            : &GlobalMallocAllocator()),
      checks_(options.check_returns) {}

SizeClassPool::~SizeClassPool() = default;

void* SizeClassPool::AllocateUnrecorded(size_t bytes,
                                        size_t alignment) noexcept {
  const int size_class = ClassFor(bytes, alignment);
  if (size_class >= 0) return pools_[size_class]->Take();
  void* block = upstream_->Allocate(bytes, alignment);
  if (block != nullptr) ++upstream_takes_;
  return block;
}

void SizeClassPool::FreeUnrecorded(void* ptr, size_t bytes,
                                   size_t alignment) noexcept {
  const int size_class = ClassFor(bytes, alignment);
  if (size_class >= 0) {
    pools_[size_class]->Return(ptr);
  } else {
    upstream_->Deallocate(ptr, bytes, alignment);
    ++upstream_frees_;
  }
}

void* SizeClassPool::AllocateSlow(size_t bytes, size_t alignment) noexcept {
  void* ptr = AllocateUnrecorded(bytes, alignment);
  if (ptr == nullptr) return CountFailure();
  RecordBytes(bytes);
  return ptr;
}

absl::Status SizeClassPool::ValidateCell(int size_class, const void* ptr,
                                         size_t bytes,
                                         ContractViolation* violation) const {
  absl::Status status = pools_[size_class]->ValidateReturn(ptr, violation);
  if (status.ok() || *violation != ContractViolation::kForeignPointer) {
    return status;
  }
  // Foreign to this class: if another class owns it, the size was wrong.
  for (int c = 0; c < kNumClasses; ++c) {
    if (c != size_class && pools_[c]->Owns(ptr)) {
      *violation = ContractViolation::kSizeMismatch;
      return absl::FailedPreconditionError(absl::StrFormat(
          "%p is a %u-byte cell but was freed as %u bytes (the %u-byte class)",
          ptr, kClassSizes[c], bytes, kClassSizes[size_class]));
    }
  }
  return status;
}

void SizeClassPool::DeallocateSlow(void* ptr, size_t bytes,
                                   size_t alignment) noexcept {
  const int size_class = ClassFor(bytes, alignment);
  if (checks_ && size_class >= 0) {
    ContractViolation violation;
    absl::Status status = ValidateCell(size_class, ptr, bytes, &violation);
    if (!status.ok()) {
      ReportContractViolation(name(), violation, ptr, status.message());
      return;
    }
  }
  FreeUnrecorded(ptr, bytes, alignment);
  bytes_in_use_ -= bytes;
}

absl::Status SizeClassPool::CheckOwnership(const void* ptr, size_t bytes,
                                           size_t alignment) const {
  const int size_class = ClassFor(bytes, alignment);
  if (size_class < 0) return absl::OkStatus();  // upstream's to judge
  ContractViolation violation;
  absl::Status status = ValidateCell(size_class, ptr, bytes, &violation);
  if (status.ok()) return status;
  return absl::FailedPreconditionError(
      absl::StrFormat("%s: %s", name(), status.message()));
}

void* SizeClassPool::DoReallocate(void* ptr, size_t old_bytes,
                                  size_t new_bytes, size_t alignment) noexcept {
  const int old_class = ClassFor(old_bytes, alignment);
  if (checks_ && old_class >= 0) {
    ContractViolation violation;
    absl::Status status = ValidateCell(old_class, ptr, old_bytes, &violation);
    if (!status.ok()) {
      ReportContractViolation(name(), violation, ptr, status.message());
      return CountFailure();
    }
  }
  const int new_class = ClassFor(new_bytes, alignment);
  if (old_class >= 0 && old_class == new_class) {
    // Same cell fits: nothing moves.
    NoteReallocation(old_bytes, new_bytes);
    return ptr;
  }
  if (old_class < 0 && new_class < 0) {
    void* block = upstream_->Reallocate(ptr, old_bytes, new_bytes, alignment);
    if (block == nullptr) return CountFailure();
    NoteReallocation(old_bytes, new_bytes);
    return block;
  }
  void* fresh = AllocateUnrecorded(new_bytes, alignment);
  if (fresh == nullptr) return CountFailure();
  std::memcpy(fresh, ptr, old_bytes < new_bytes ? old_bytes : new_bytes);
  FreeUnrecorded(ptr, old_bytes, alignment);
  ++realloc_takes_;
  ++realloc_frees_;
  NoteReallocation(old_bytes, new_bytes);
  return fresh;
}

void SizeClassPool::NoteReallocation(size_t old_bytes,
                                     size_t new_bytes) noexcept {
  ++reallocations_;
  bytes_in_use_ -= old_bytes;
  RecordBytes(new_bytes);
}

AllocatorStats SizeClassPool::stats() const {
  AllocatorStats s;
  uint64_t takes = 0, returns = 0;
  for (const StackedPool* pool : pools_) {
    const StackedPoolStats c = pool->stats();
    takes += c.takes;
    returns += c.returns;
  }
  s.allocations = takes + upstream_takes_ - realloc_takes_;
  s.deallocations = returns + upstream_frees_ - realloc_frees_;
  s.reallocations = reallocations_;
  s.failed_requests = failures_;
  s.bytes_in_use = bytes_in_use_;
  s.peak_bytes_in_use = peak_bytes_;
  return s;
}

size_t SizeClassPool::Trim() {
  size_t released = 0;
  for (StackedPool* pool : pools_) released += pool->Trim();
  return released;
}

absl::Status SizeClassPool::CheckIntegrity() const {
  uint64_t cells = 0;
  for (int c = 0; c < kNumClasses; ++c) {
    absl::Status status = pools_[c]->CheckIntegrity();
    if (!status.ok()) {
      return absl::InternalError(absl::StrFormat(
          "%s: invariant 1 (class pools are sound) violated in the %u-byte "
          "class: %s",
          name(), kClassSizes[c], status.message()));
    }
    cells += pools_[c]->stats().cells_in_use;
  }
  const AllocatorStats s = stats();
  const uint64_t upstream_live = upstream_takes_ - upstream_frees_;
  if (cells + upstream_live != s.live_allocations()) {
    return absl::InternalError(absl::StrFormat(
        "%s: invariant 2 (cells in use + upstream blocks = live allocations) "
        "violated: %u + %u != %u",
        name(), cells, upstream_live, s.live_allocations()));
  }
  if (s.live_allocations() == 0 && s.bytes_in_use != 0) {
    return absl::InternalError(absl::StrFormat(
        "%s: invariant 3 (nothing live, no bytes in use) violated: %u bytes",
        name(), s.bytes_in_use));
  }
  return absl::OkStatus();
}

}  // namespace tessera
