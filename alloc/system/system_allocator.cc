// Copyright 2026 The Tessera Authors.

#include "alloc/system/system_allocator.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "absl/strings/str_format.h"

namespace tessera {
namespace {

// The header `AlignedAllocator` keeps in the 16 bytes below each block whose
// alignment exceeds 16. `check` ties the header to both addresses, so a
// pointer whose header is anything else (a foreign pointer, or a block whose
// header glibc already overwrote with its free-list links) is rejected.
struct BlockHeader {
  void* raw;        // What malloc returned; what free() gets.
  uintptr_t check;  // raw ^ block ^ kHeaderCookie.
};
static_assert(sizeof(BlockHeader) == kDefaultAlignment,
              "the header must fit in malloc's own alignment slack");

constexpr uintptr_t kHeaderCookie = 0x7e55e7a5a11c0c8dULL;

uintptr_t HeaderCheck(const void* raw, const void* block) {
  return reinterpret_cast<uintptr_t>(raw) ^
         reinterpret_cast<uintptr_t>(block) ^ kHeaderCookie;
}

BlockHeader* HeaderOf(void* block) {
  return reinterpret_cast<BlockHeader*>(block) - 1;
}

// Where the aligned block sits inside a raw allocation of bytes + alignment:
// at least one header above `raw`, at most `alignment` above it (raw is
// 16-aligned, so align_up(raw + 16) - raw <= alignment).
char* PlaceBlock(void* raw, size_t alignment) {
  const uintptr_t start = reinterpret_cast<uintptr_t>(raw) + sizeof(BlockHeader);
  return reinterpret_cast<char*>((start + alignment - 1) & ~(alignment - 1));
}

size_t NextPowerOfTwoAlignment(size_t value) {
  size_t alignment = kDefaultAlignment;
  while (alignment < value && alignment < kMaxAlignment) alignment <<= 1;
  return alignment;
}

}  // namespace

bool HugePagesEnabledByDefault() {
  const char* env = std::getenv("TESSERA_HUGE_PAGES");
  return env == nullptr || std::strcmp(env, "0") != 0;
}

SystemAllocator::SystemAllocator(absl::string_view name, size_t min_alignment,
                                 AlignedPath aligned_path,
                                 bool zero_every_block,
                                 const SystemAllocatorOptions& options)
    : Allocator(name),
      min_alignment_(min_alignment),
      aligned_path_(aligned_path),
      zero_every_block_(zero_every_block),
      options_(options),
      registry_(options.track_live_blocks
                    ? std::make_unique<internal::LiveBlockRegistry>()
                    : nullptr) {}

size_t SystemAllocator::max_allocation_size() const {
  // glibc refuses anything above PTRDIFF_MAX; keep room for the alignment.
  return static_cast<size_t>(PTRDIFF_MAX) - kMaxAlignment;
}

void SystemAllocator::MaybeAdviseHugePages(void* ptr,
                                           size_t bytes) const noexcept {
  if (!options_.huge_pages || bytes < options_.huge_page_threshold) return;
  static const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(ptr) + page - 1) & ~(page - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(ptr) + bytes) & ~(page - 1);
  // Advice only: a kernel without THP says EINVAL, and that is fine.
  if (end > begin) {
    madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
  }
}

void* SystemAllocator::AllocateImpl(size_t bytes, size_t alignment,
                                    bool zero) noexcept {
  const size_t effective = EffectiveAlignment(alignment);
  const size_t request = bytes == 0 ? 1 : bytes;  // a unique minimal block
  if (request > max_allocation_size()) return CountFailure();
  void* block = nullptr;
  if (effective <= kDefaultAlignment) {
    block = zero ? std::calloc(1, request) : std::malloc(request);
  } else if (UsesHeader(effective)) {
    void* raw = zero ? std::calloc(1, request + effective)
                     : std::malloc(request + effective);
    if (raw != nullptr) {
      char* placed = PlaceBlock(raw, effective);
      *HeaderOf(placed) = BlockHeader{raw, HeaderCheck(raw, placed)};
      block = placed;
    }
  } else {
    if (posix_memalign(&block, effective, request) != 0) block = nullptr;
    if (block != nullptr && zero) std::memset(block, 0, request);
  }
  if (block == nullptr) return CountFailure();
  MaybeAdviseHugePages(block, request);
  if (registry_) registry_->Insert(block, bytes, alignment);
  stats_.RecordAllocation(bytes);
  return block;
}

void* SystemAllocator::DoAllocate(size_t bytes, size_t alignment) noexcept {
  return AllocateImpl(bytes, alignment, zero_every_block_);
}

void* SystemAllocator::DoAllocateZeroed(size_t bytes,
                                        size_t alignment) noexcept {
  return AllocateImpl(bytes, alignment, /*zero=*/true);
}

void* SystemAllocator::RawPointer(void* ptr,
                                  size_t effective_alignment) const noexcept {
  if (!UsesHeader(effective_alignment)) return ptr;
  if ((reinterpret_cast<uintptr_t>(ptr) & (effective_alignment - 1)) != 0) {
    return nullptr;  // not even aligned as this block would be
  }
  const BlockHeader* header = HeaderOf(ptr);
  if (header->check != HeaderCheck(header->raw, ptr)) return nullptr;
  return header->raw;
}

absl::Status SystemAllocator::CheckOwnership(const void* ptr, size_t bytes,
                                             size_t alignment) const {
  if (registry_) {
    ContractViolation violation;
    absl::Status status = registry_->Check(ptr, bytes, alignment, &violation);
    if (!status.ok()) {
      return absl::FailedPreconditionError(
          absl::StrFormat("%s: %s", name(), status.message()));
    }
    return absl::OkStatus();
  }
  if (RawPointer(const_cast<void*>(ptr), EffectiveAlignment(alignment)) ==
      nullptr) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "%s: %p has no valid block header: foreign pointer or double free",
        name(), ptr));
  }
  return absl::OkStatus();
}

void SystemAllocator::DoDeallocate(void* ptr, size_t bytes,
                                   size_t alignment) noexcept {
  if (registry_) {
    ContractViolation violation;
    absl::Status status = registry_->Erase(ptr, bytes, alignment, &violation);
    if (!status.ok()) {
      ReportContractViolation(name(), violation, ptr, status.message());
      return;  // never hand a bad pointer to free()
    }
  }
  void* raw = RawPointer(ptr, EffectiveAlignment(alignment));
  if (raw == nullptr) {
    ReportContractViolation(name(), ContractViolation::kForeignPointer, ptr,
                            "no valid block header below the pointer");
    return;
  }
  stats_.RecordDeallocation(bytes);
  std::free(raw);
}

void* SystemAllocator::DoReallocate(void* ptr, size_t old_bytes,
                                    size_t new_bytes,
                                    size_t alignment) noexcept {
  const size_t effective = EffectiveAlignment(alignment);
  const size_t request = new_bytes == 0 ? 1 : new_bytes;
  if (request > max_allocation_size()) return CountFailure();
  if (registry_) {
    ContractViolation violation;
    absl::Status status =
        registry_->Check(ptr, old_bytes, alignment, &violation);
    if (!status.ok()) {
      ReportContractViolation(name(), violation, ptr, status.message());
      return CountFailure();
    }
  }
  void* block = nullptr;
  if (effective <= kDefaultAlignment) {
    block = std::realloc(ptr, request);
  } else if (UsesHeader(effective)) {
    void* raw = RawPointer(ptr, effective);
    if (raw == nullptr) {
      ReportContractViolation(name(), ContractViolation::kForeignPointer, ptr,
                              "no valid block header below the pointer");
      return CountFailure();
    }
    const size_t old_offset = static_cast<char*>(ptr) - static_cast<char*>(raw);
    void* fresh_raw = std::realloc(raw, request + effective);
    if (fresh_raw != nullptr) {
      char* placed = PlaceBlock(fresh_raw, effective);
      char* moved_to = static_cast<char*>(fresh_raw) + old_offset;
      // realloc kept the bytes at the old offset; slide them to the new one.
      if (moved_to != placed) {
        std::memmove(placed, moved_to, old_bytes < request ? old_bytes : request);
      }
      *HeaderOf(placed) = BlockHeader{fresh_raw, HeaderCheck(fresh_raw, placed)};
      block = placed;
    }
  } else {
    // posix_memalign blocks cannot be realloc'ed with their alignment kept.
    if (posix_memalign(&block, effective, request) != 0) block = nullptr;
    if (block != nullptr) {
      std::memcpy(block, ptr, old_bytes < request ? old_bytes : request);
      std::free(ptr);
    }
  }
  if (block == nullptr) return CountFailure();
  if (zero_every_block_ && new_bytes > old_bytes) {
    std::memset(static_cast<char*>(block) + old_bytes, 0, new_bytes - old_bytes);
  }
  MaybeAdviseHugePages(block, request);
  if (registry_) registry_->Move(ptr, block, new_bytes, alignment);
  stats_.RecordReallocation(old_bytes, new_bytes);
  return block;
}

absl::Status SystemAllocator::CheckIntegrity() const {
  const AllocatorStats s = stats();
  if (registry_ && registry_->live_blocks() != s.live_allocations()) {
    return absl::InternalError(absl::StrFormat(
        "%s: invariant 1 (registry matches live count) violated: registry "
        "holds %u blocks, stats say %u",
        name(), registry_->live_blocks(), s.live_allocations()));
  }
  if (s.live_allocations() == 0 && s.bytes_in_use != 0) {
    return absl::InternalError(absl::StrFormat(
        "%s: invariant 2 (no live block, no bytes in use) violated: %u bytes "
        "in use",
        name(), s.bytes_in_use));
  }
  return absl::OkStatus();
}

AlignedAllocator::AlignedAllocator(size_t min_alignment,
                                   const SystemAllocatorOptions& options)
    : SystemAllocator(absl::StrFormat("aligned%u",
                                      NextPowerOfTwoAlignment(min_alignment)),
                      NextPowerOfTwoAlignment(min_alignment),
                      AlignedPath::kHeader, false, options) {}

absl::StatusOr<std::unique_ptr<AlignedAllocator>> AlignedAllocator::Create(
    size_t min_alignment, const SystemAllocatorOptions& options) {
  if (!IsValidAlignment(min_alignment)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "AlignedAllocator: min_alignment %u is not a power of two no larger "
        "than %u",
        min_alignment, kMaxAlignment));
  }
  return std::make_unique<AlignedAllocator>(min_alignment, options);
}

ZeroedAllocator::ZeroedAllocator(size_t min_alignment,
                                 const SystemAllocatorOptions& options)
    : SystemAllocator("zeroed", NextPowerOfTwoAlignment(min_alignment),
                      AlignedPath::kHeader, true, options) {}

MallocAllocator& GlobalMallocAllocator() {
  static MallocAllocator* const allocator = new MallocAllocator;
  return *allocator;
}

}  // namespace tessera
