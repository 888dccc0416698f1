// Copyright 2026 The Tessera Authors.

#include "alloc/system/system_allocator.h"

#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "absl/strings/str_format.h"
#include "alloc/internal/mapped_blocks.h"
#include "alloc/internal/zero_memory.h"

namespace tessera {
namespace {

// ---------------------------------------------------------------------------
// Block headers
//
// A block whose alignment exceeds malloc's 16 bytes is carved out of a larger
// malloc'ed chunk and has a 16-byte header just below it:
//
//   raw (from malloc)    header (16 B)         block (aligned)
//   |..... padding .....|  raw  |   tag    |  payload ...
//
// `tag` packs a 48-bit check of (raw, block) with the block's size class (see
// the thread cache below) and a "cached" flag. A pointer whose header does not
// check out is not one of ours (or was freed and overwritten by glibc) and is
// reported instead of being handed to free().
// ---------------------------------------------------------------------------

struct BlockHeader {
  void* raw;      // What malloc returned; what free() gets.
  uint64_t tag;   // [63] cached, [62:48] size class, [47:0] check.
};
static_assert(sizeof(BlockHeader) == kDefaultAlignment,
              "the header must fit in malloc's own alignment slack");

constexpr uint64_t kHeaderCookie = 0x7e55e7a5a11c0c8dULL;
constexpr int kSizeClassShift = 48;
constexpr uint64_t kCheckMask = (uint64_t{1} << kSizeClassShift) - 1;
constexpr uint64_t kCachedFlag = uint64_t{1} << 63;

inline __attribute__((always_inline)) uint64_t HeaderTag(const void* raw, const void* block, uint32_t size_class) {
  const uint64_t check = (reinterpret_cast<uintptr_t>(raw) ^
                          reinterpret_cast<uintptr_t>(block) ^ kHeaderCookie) &
                         kCheckMask;
  return check | (uint64_t{size_class} << kSizeClassShift);
}

inline __attribute__((always_inline)) BlockHeader* HeaderOf(void* block) {
  return reinterpret_cast<BlockHeader*>(block) - 1;
}

// What a valid header says about its block.
struct DecodedHeader {
  void* raw = nullptr;  // nullptr: not a header this allocator wrote
  uint32_t size_class = 0;
  bool cached = false;  // the block sits in a thread cache: already freed
};

inline __attribute__((always_inline)) DecodedHeader DecodeHeader(void* block) {
  const BlockHeader* header = HeaderOf(block);
  const uint64_t tag = header->tag;
  const uint32_t size_class =
      static_cast<uint32_t>((tag & ~kCachedFlag) >> kSizeClassShift);
  DecodedHeader decoded;
  if ((tag & ~kCachedFlag) != HeaderTag(header->raw, block, size_class)) {
    return decoded;
  }
  decoded.raw = header->raw;
  decoded.size_class = size_class;
  decoded.cached = (tag & kCachedFlag) != 0;
  return decoded;
}

// Where the aligned block sits inside a raw allocation of bytes + alignment:
// at least one header above `raw`, at most `alignment` above it (raw is
// 16-aligned, so align_up(raw + 16) - raw <= alignment).
char* AlignedBlockIn(void* raw, size_t alignment) {
  const uintptr_t start = reinterpret_cast<uintptr_t>(raw) + sizeof(BlockHeader);
  return reinterpret_cast<char*>((start + alignment - 1) & ~(alignment - 1));
}

void WriteHeader(void* raw, void* block, uint32_t size_class) {
  *HeaderOf(block) = BlockHeader{raw, HeaderTag(raw, block, size_class)};
}

char* PlaceBlock(void* raw, size_t alignment, uint32_t size_class) {
  char* block = AlignedBlockIn(raw, alignment);
  WriteHeader(raw, block, size_class);
  return block;
}

// ---------------------------------------------------------------------------
// Thread cache
//
// glibc's memalign path costs 5x a malloc round trip, and over-allocating by
// the alignment pushes a 1 KiB request out of glibc's own thread cache
// (tcache stops at 1032 bytes): both would make aligned allocation several
// times dearer than malloc. So small aligned blocks (<= 1 KiB, alignment
// 32..256) are kept, after free, in a small per-thread cache of free lists
// (16 blocks per size and alignment class), as glibc's tcache does for plain
// malloc. Cached blocks remain glibc memory with a valid header, marked
// "cached" so that a second free is still caught. Any allocator instance with
// the same alignment class may reuse them; a thread's cache is returned to
// glibc when the thread exits.
//
// Off in sanitizer builds: a cache would hide use-after-free from ASan.
// ---------------------------------------------------------------------------

constexpr bool kThreadCacheEnabled = kSystemThreadCacheEnabled;

constexpr size_t kCacheGranule = 16;
constexpr size_t kMaxCachedBytes = 1024;
constexpr uint32_t kCachedSizeClasses = kMaxCachedBytes / kCacheGranule;
constexpr size_t kMinCachedAlignment = 32;
constexpr size_t kMaxCachedAlignment = 256;
constexpr int kCachedAlignmentClasses = 4;  // 32, 64, 128, 256
constexpr uint32_t kMaxBlocksPerList = 16;

// Size class of a header block: 1..64 for requests up to 1 KiB at a cached
// alignment (the block then has class * 16 usable bytes), 0 otherwise.
inline __attribute__((always_inline)) uint32_t SizeClassOf(size_t request, size_t alignment) {
  if (!kThreadCacheEnabled || request > kMaxCachedBytes ||
      alignment < kMinCachedAlignment || alignment > kMaxCachedAlignment) {
    return 0;
  }
  return static_cast<uint32_t>((request + kCacheGranule - 1) / kCacheGranule);
}

size_t UsableBytes(size_t request, uint32_t size_class) {
  return size_class != 0 ? size_class * kCacheGranule : request;
}

int AlignmentIndex(size_t alignment) {
  return __builtin_ctzll(alignment) - 5;  // 32 -> 0 ... 256 -> 3
}

// A LIFO of freed header blocks, linked through their first word. Pushed
// blocks are marked "cached" in their header, so a second free is caught.
struct FreeList {
  void* head;
  uint32_t count;

  // Requires a non-empty list.
  void* Pop() {
    void* block = head;
    head = *static_cast<void**>(block);
    --count;
    HeaderOf(block)->tag &= ~kCachedFlag;
    return block;
  }
  void Push(void* block) {
    HeaderOf(block)->tag |= kCachedFlag;
    *static_cast<void**>(block) = head;
    head = block;
    ++count;
  }
};

// Larger header blocks (above 1 KiB) are kept too, a few per thread, so that
// a buffer freed and allocated again in a loop (a tensor temporary, an I/O
// buffer) neither goes back through glibc's bins nor pays a second
// madvise(MADV_HUGEPAGE) system call: glibc's own malloc of such a block is a
// few instructions once its heap has grown, and an aligned allocator that
// did more would cost several times as much. Bounded per thread by
// kBigCacheEntries blocks and kMaxBigCacheBytes bytes; a block is reused only
// for a request of at least half its capacity.
constexpr int kBigCacheEntries = 4;
constexpr size_t kMaxBigCacheBytes = size_t{64} << 20;

// Plain blocks (malloc's own, no header: MallocAllocator at 16-byte
// alignment) from this size up share the big cache. glibc serves them from
// its bins or top chunk and clears a calloc of one with a memset of cold
// memory; a block just freed by this thread is still in its caches (zeros
// of 1e5 floats, a 400 KB calloc: 5.3 us a call from glibc, 2.9 us as a
// memset of the cached block, 2026-12-06). With no header to flag it, a
// cached plain block carries a mark in its first bytes (HasPlainFreeMark).
constexpr size_t kMinPlainCachedBytes = size_t{64} << 10;

// Whether a request or free of `bytes` at `effective` alignment goes through
// the plain entries of the big cache: a malloc block (16-byte alignment) big
// enough, from an allocator that does not zero every block.
bool UsesPlainCache(bool zero_every_block, size_t effective, size_t bytes) {
  return kThreadCacheEnabled && !zero_every_block &&
         effective <= kDefaultAlignment && bytes >= kMinPlainCachedBytes;
}

// Only requests below 4 MiB look in the big cache (larger ones are mapped
// blocks, internal/mapped_blocks.h), and a block serves requests of at least
// half its capacity: a block of 8 MiB or more (a buffer grown there by
// realloc) would never be taken again, so it is not kept.
constexpr size_t kMaxBigCachedBlockBytes =
    2 * internal::MappedBlocks::kMinBytes;

struct BigCacheEntry {
  void* block;
  size_t capacity;  // usable bytes from `block` to the end of glibc's chunk
  bool plain;       // malloc's block itself, no header
};

struct ThreadCache {
  FreeList lists[kCachedAlignmentClasses][kCachedSizeClasses + 1];
  BigCacheEntry big[kBigCacheEntries];  // oldest first
  int big_count;
  size_t big_bytes;
};

// Plain data, zero-initialised: no TLS guard on the hot path.
thread_local ThreadCache tls_cache;
// 0: no flusher registered yet; 1: active; 2: thread exiting, do not cache.
thread_local int tls_cache_state = 0;

// A cached plain block has no header to flag it, so its first 16 bytes hold
// this mark while it is cached: a second free of it, on any thread, finds
// the mark (a false alarm needs user data equal to the magic and the
// block's address xor a cookie).
constexpr uint64_t kPlainFreeMagic = 0x314e4c5045455246ULL;  // "FREEPLN1"

bool HasPlainFreeMark(const void* block) {
  const uint64_t* words = static_cast<const uint64_t*>(block);
  return words[0] == kPlainFreeMagic &&
         words[1] == (reinterpret_cast<uintptr_t>(block) ^ kHeaderCookie);
}

void SetPlainFreeMark(void* block, bool on) {
  // Volatile: the clear before free() is otherwise a dead store the compiler
  // drops, and a block glibc merges into its top chunk then comes back from
  // malloc still marked (a false double free, seen in the opt build).
  volatile uint64_t* words = static_cast<volatile uint64_t*>(block);
  words[0] = on ? kPlainFreeMagic : 0;
  words[1] = on ? reinterpret_cast<uintptr_t>(block) ^ kHeaderCookie : 0;
}

// Returns a big cached block to glibc.
void FreeBigCached(const BigCacheEntry& entry) {
  if (entry.plain) {
    SetPlainFreeMark(entry.block, false);  // glibc may hand it out as is
    std::free(entry.block);
  } else {
    std::free(HeaderOf(entry.block)->raw);
  }
}

void FlushThreadCache() {
  for (auto& by_alignment : tls_cache.lists) {
    for (FreeList& list : by_alignment) {
      while (list.head != nullptr) {
        void* block = list.head;
        list.head = *static_cast<void**>(block);
        std::free(HeaderOf(block)->raw);
      }
      list.count = 0;
    }
  }
  for (int i = 0; i < tls_cache.big_count; ++i) FreeBigCached(tls_cache.big[i]);
  tls_cache.big_count = 0;
  tls_cache.big_bytes = 0;
}

struct ThreadCacheFlusher {
  ~ThreadCacheFlusher() {
    FlushThreadCache();
    tls_cache_state = 2;
  }
};

void RegisterFlusher() {
  static thread_local ThreadCacheFlusher flusher;
  (void)flusher;
  tls_cache_state = 1;
}

// Takes a cached block of this class, or nullptr.
inline __attribute__((always_inline)) void* PopCached(size_t alignment, uint32_t size_class) {
  FreeList& list = tls_cache.lists[AlignmentIndex(alignment)][size_class];
  return list.head != nullptr ? list.Pop() : nullptr;
}

// Whether this thread's cache takes blocks: registers its flusher on first
// use; false once the thread is exiting.
inline __attribute__((always_inline)) bool ThreadCacheOpen() {
  if (__builtin_expect(tls_cache_state != 1, 0)) {
    if (tls_cache_state == 2) return false;
    RegisterFlusher();
  }
  return true;
}

// Keeps a freed block for reuse; false if the cache is full or closing.
inline __attribute__((always_inline)) bool PushCached(void* block, size_t alignment, uint32_t size_class) {
  if (!ThreadCacheOpen()) return false;
  if (size_class > kCachedSizeClasses) return false;  // not a class we made
  FreeList& list = tls_cache.lists[AlignmentIndex(alignment)][size_class];
  if (list.count >= kMaxBlocksPerList) return false;
  list.Push(block);
  return true;
}

// Drops entry `i` of the big-block cache, keeping the others oldest first.
void RemoveBigCached(ThreadCache& cache, int i) {
  cache.big_bytes -= cache.big[i].capacity;
  for (int j = i + 1; j < cache.big_count; ++j) cache.big[j - 1] = cache.big[j];
  --cache.big_count;
}

// Frees the oldest big blocks until `capacity` more bytes fit.
void MakeRoomInBigCache(ThreadCache& cache, size_t capacity) {
  while (cache.big_count == kBigCacheEntries ||
         cache.big_bytes + capacity > kMaxBigCacheBytes) {
    FreeBigCached(cache.big[0]);
    RemoveBigCached(cache, 0);
  }
}

// Takes the most recently cached big block (`plain` or with a header) that
// holds `request` bytes at `alignment` without wasting more than half of it,
// or nullptr.
void* PopBigCached(size_t request, size_t alignment, bool plain = false) {
  ThreadCache& cache = tls_cache;
  for (int i = cache.big_count - 1; i >= 0; --i) {
    const BigCacheEntry entry = cache.big[i];
    if (entry.plain != plain || entry.capacity < request ||
        entry.capacity / 2 > request ||
        (reinterpret_cast<uintptr_t>(entry.block) & (alignment - 1)) != 0) {
      continue;
    }
    RemoveBigCached(cache, i);
    if (plain) {
      SetPlainFreeMark(entry.block, false);
    } else {
      HeaderOf(entry.block)->tag &= ~kCachedFlag;
    }
    return entry.block;
  }
  return nullptr;
}

enum class PlainPush { kCached, kNotCached, kAlreadyCached };

// Keeps a freed plain block for reuse (see kMinPlainCachedBytes).
PlainPush PushPlainBigCached(void* block) {
  if (!kThreadCacheEnabled || !ThreadCacheOpen()) return PlainPush::kNotCached;
  // Cached by this thread or another one (the mark), or not yet.
  if (HasPlainFreeMark(block)) return PlainPush::kAlreadyCached;
  ThreadCache& cache = tls_cache;
  // glibc's record of the chunk, not the caller's claimed size.
  const size_t capacity = malloc_usable_size(block);
  if (capacity < kMinPlainCachedBytes || capacity >= kMaxBigCachedBlockBytes) {
    return PlainPush::kNotCached;
  }
  MakeRoomInBigCache(cache, capacity);
  SetPlainFreeMark(block, true);
  cache.big[cache.big_count++] = BigCacheEntry{block, capacity, true};
  cache.big_bytes += capacity;
  return PlainPush::kCached;
}

// Keeps a freed big block (header already checked) for reuse, evicting the
// oldest ones to stay within the bounds; false if it is not cached.
bool PushBigCached(void* block, void* raw) {
  if (!kThreadCacheEnabled || !ThreadCacheOpen()) return false;
  // glibc's own record of the chunk, not the caller's claimed size: a wrong
  // `bytes` in Deallocate must not turn into an overflow at the next reuse.
  const size_t capacity = malloc_usable_size(raw) -
                          static_cast<size_t>(static_cast<char*>(block) -
                                              static_cast<char*>(raw));
  if (capacity >= kMaxBigCachedBlockBytes) return false;
  ThreadCache& cache = tls_cache;
  MakeRoomInBigCache(cache, capacity);
  HeaderOf(block)->tag |= kCachedFlag;
  cache.big[cache.big_count++] = BigCacheEntry{block, capacity, false};
  cache.big_bytes += capacity;
  return true;
}

size_t NextPowerOfTwoAlignment(size_t value) {
  size_t alignment = kDefaultAlignment;
  while (alignment < value && alignment < kMaxAlignment) alignment <<= 1;
  return alignment;
}

}  // namespace

SystemThreadCacheUsage CallingThreadCacheUsage() {
  SystemThreadCacheUsage usage;
  for (const auto& by_alignment : tls_cache.lists) {
    for (uint32_t size_class = 0; size_class <= kCachedSizeClasses;
         ++size_class) {
      usage.blocks += by_alignment[size_class].count;
      usage.bytes += by_alignment[size_class].count * size_class * kCacheGranule;
    }
  }
  usage.blocks += static_cast<size_t>(tls_cache.big_count);
  usage.bytes += tls_cache.big_bytes;
  return usage;
}

void ReleaseCallingThreadCache() { FlushThreadCache(); }

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
      mapped_(options.huge_pages, kThreadCacheEnabled),
      registry_(options.track_live_blocks
                    ? std::make_unique<internal::LiveBlockRegistry>()
                    : nullptr),
      cache_alignment_index_(
          kThreadCacheEnabled && registry_ == nullptr && !zero_every_block &&
                  UsesHeader(min_alignment) &&
                  min_alignment >= kMinCachedAlignment &&
                  min_alignment <= kMaxCachedAlignment
              ? AlignmentIndex(min_alignment)
              : -1) {}

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

// The hot path, a leaf kept small enough to inline: a thread-cache hit for
// aligned blocks. Small unaligned requests go straight to malloc
// (AllocateFromMalloc); everything else (cache miss, calloc, memalign, huge
// pages, the debug registry) is AllocateSlow.
inline void* SystemAllocator::AllocateImpl(size_t bytes, size_t alignment,
                                           bool zero) noexcept {
  // The common case first: a small request at the allocator's own alignment,
  // whose free list was picked at construction.
  if (!zero && cache_alignment_index_ >= 0 && alignment <= min_alignment_ &&
      bytes - 1 < kMaxCachedBytes) {
    FreeList& list = tls_cache.lists[cache_alignment_index_]
                                    [(bytes + kCacheGranule - 1) / kCacheGranule];
    auto* slot = stats_.OwnSlotOrNull();
    if (list.head != nullptr && slot != nullptr) {
      internal::ConcurrentStatsRecorder::RecordAllocationIn(*slot, bytes);
      return list.Pop();
    }
  }
  if (__builtin_expect(registry_ == nullptr && !zero, 1) &&
      EffectiveAlignment(alignment) <= kDefaultAlignment) {
    return AllocateFromMalloc(bytes, alignment);
  }
  return AllocateSlow(bytes, alignment, zero);
}

void* SystemAllocator::AllocateFromMalloc(size_t bytes,
                                          size_t alignment) noexcept {
  const size_t request = bytes == 0 ? 1 : bytes;
  if (request < options_.huge_page_threshold &&
      request < internal::MappedBlocks::kMinBytes) {
    void* block = nullptr;
    if (UsesPlainCache(zero_every_block_, kDefaultAlignment, request)) {
      block = PopBigCached(request, kDefaultAlignment, /*plain=*/true);
    }
    if (block != nullptr || (block = std::malloc(request)) != nullptr) {
      stats_.RecordAllocation(bytes);
      return block;
    }
  }
  return AllocateSlow(bytes, alignment, /*zero=*/false);
}

void* SystemAllocator::AllocateSlow(size_t bytes, size_t alignment,
                                    bool zero) noexcept {
  const size_t request = bytes == 0 ? 1 : bytes;  // a unique minimal block
  if (request > max_allocation_size()) return CountFailure();
  void* block = AllocateBlock(request, EffectiveAlignment(alignment), zero);
  if (block == nullptr) return CountFailure();
  if (registry_) registry_->Insert(block, bytes, alignment);
  stats_.RecordAllocation(bytes);
  return block;
}

void* SystemAllocator::AllocateBlock(size_t request, size_t effective,
                                     bool zero) noexcept {
  // Not in sanitizer builds: there glibc's blocks are what ASan watches.
  if (kThreadCacheEnabled && request >= internal::MappedBlocks::kMinBytes &&
      effective <= internal::MappedBlocks::kAlignment) {
    if (void* mapped = mapped_.Allocate(request, zero)) return mapped;
    // No mapping (or no room in its table): glibc's block, found as one.
  }
  void* block = nullptr;
  if (effective <= kDefaultAlignment) {
    if (UsesPlainCache(zero_every_block_, effective, request)) {
      block = PopBigCached(request, kDefaultAlignment, /*plain=*/true);
      if (block != nullptr && zero) std::memset(block, 0, request);
    }
    if (block == nullptr) {
      block = zero ? std::calloc(1, request) : std::malloc(request);
    }
  } else if (UsesHeader(effective)) {
    const uint32_t size_class = SizeClassOf(request, effective);
    if (size_class != 0) {
      block = PopCached(effective, size_class);
      if (block != nullptr && zero) std::memset(block, 0, request);
    } else if (kThreadCacheEnabled) {
      // A zeroed request below the crossover (alloc/internal/zero_memory.h)
      // reuses a cached big block too: a memset of it, still in cache, costs
      // less than calloc's block, which glibc clears or faults in afresh
      // (zeros 1e5: 1.44x NumPy with calloc, 1.0x so). Requests above it are
      // mapped blocks (internal/mapped_blocks.h) and never get here.
      block = PopBigCached(request, effective);
      if (block != nullptr && zero) std::memset(block, 0, request);
    }
    if (block == nullptr) {
      const size_t raw_bytes = UsableBytes(request, size_class) + effective;
      void* raw = zero ? std::calloc(1, raw_bytes) : std::malloc(raw_bytes);
      if (raw != nullptr) {
        block = PlaceBlock(raw, effective, size_class);
        MaybeAdviseHugePages(block, request);
      }
    }
  } else {
    if (posix_memalign(&block, effective, request) != 0) block = nullptr;
    if (block != nullptr && zero) std::memset(block, 0, request);
  }
  // Header blocks were advised when they were first carved (a cached one
  // keeps its advice); the others are fresh from glibc.
  if (block != nullptr && !UsesHeader(effective)) {
    MaybeAdviseHugePages(block, request);
  }
  return block;
}

void* SystemAllocator::DoAllocate(size_t bytes, size_t alignment) noexcept {
  return AllocateImpl(bytes, alignment, zero_every_block_);
}

void* SystemAllocator::DoAllocateZeroed(size_t bytes,
                                        size_t alignment) noexcept {
  return AllocateImpl(bytes, alignment, /*zero=*/true);
}

absl::Status SystemAllocator::CheckBlock(const void* ptr, size_t bytes,
                                         size_t alignment,
                                         ContractViolation* violation) const {
  if (registry_) {
    absl::Status status = registry_->Check(ptr, bytes, alignment, violation);
    if (!status.ok()) {
      return absl::FailedPreconditionError(
          absl::StrFormat("%s: %s", name(), status.message()));
    }
    return absl::OkStatus();
  }
  if (internal::MappedBlocks::MayBeMapped(ptr)) {
    switch (mapped_.Find(ptr)) {
      case internal::MappedBlocks::State::kLive:
        return absl::OkStatus();
      case internal::MappedBlocks::State::kCached:
        *violation = ContractViolation::kDoubleFree;
        return absl::FailedPreconditionError(absl::StrFormat(
            "%s: %p was already freed (double free of a mapped block)",
            name(), ptr));
      case internal::MappedBlocks::State::kNone:
        break;
    }
  }
  const size_t effective = EffectiveAlignment(alignment);
  if (!UsesHeader(effective)) {
    // Only a plain big block a thread cached after freeing it can be told.
    if (UsesPlainCache(zero_every_block_, effective, bytes) &&
        HasPlainFreeMark(ptr)) {
      *violation = ContractViolation::kDoubleFree;
      return absl::FailedPreconditionError(absl::StrFormat(
          "%s: %p was already freed (it is in a thread cache)", name(), ptr));
    }
    return absl::OkStatus();  // cannot tell
  }
  *violation = ContractViolation::kForeignPointer;
  if ((reinterpret_cast<uintptr_t>(ptr) & (effective - 1)) != 0) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "%s: %p is not aligned to %u, so it is not one of its blocks", name(),
        ptr, effective));
  }
  const DecodedHeader header = DecodeHeader(const_cast<void*>(ptr));
  if (header.raw == nullptr) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "%s: %p has no valid block header: foreign pointer or double free",
        name(), ptr));
  }
  if (header.cached) {
    *violation = ContractViolation::kDoubleFree;
    return absl::FailedPreconditionError(
        absl::StrFormat("%s: %p was already freed (double free)", name(), ptr));
  }
  return absl::OkStatus();
}

absl::Status SystemAllocator::CheckOwnership(const void* ptr, size_t bytes,
                                             size_t alignment) const {
  ContractViolation violation;
  return CheckBlock(ptr, bytes, alignment, &violation);
}

bool SystemAllocator::EraseFromRegistry(void* ptr, size_t bytes,
                                        size_t alignment) noexcept {
  ContractViolation violation;
  absl::Status status = registry_->Erase(ptr, bytes, alignment, &violation);
  if (status.ok()) return true;
  ReportContractViolation(name(), violation, ptr, status.message());
  return false;
}

void SystemAllocator::ReportBadHeader(void* ptr, bool cached) const noexcept {
  ReportContractViolation(
      name(),
      cached ? ContractViolation::kDoubleFree
             : ContractViolation::kForeignPointer,
      ptr,
      cached ? "the block is already free (in the thread cache)"
             : "no valid block header below the pointer");
}

// The hot path, a leaf: a valid, live small header block goes back to the
// thread cache. Anything else (no header, a full list, a bad header to
// report, the registry) is DeallocateSlow, which repeats the checks.
void SystemAllocator::DoDeallocate(void* ptr, size_t bytes,
                                   size_t alignment) noexcept {
  if (cache_alignment_index_ >= 0 && alignment <= min_alignment_ &&
      (reinterpret_cast<uintptr_t>(ptr) & (min_alignment_ - 1)) == 0) {
    const BlockHeader* header = HeaderOf(ptr);
    const uint64_t tag = header->tag;  // cached flag set: not equal below
    const uint32_t size_class =
        static_cast<uint32_t>(tag >> kSizeClassShift) & 0x7fff;
    if (size_class - 1 < kCachedSizeClasses &&
        tag == HeaderTag(header->raw, ptr, size_class) &&
        tls_cache_state == 1) {
      FreeList& list = tls_cache.lists[cache_alignment_index_][size_class];
      auto* slot = stats_.OwnSlotOrNull();
      if (list.count < kMaxBlocksPerList && slot != nullptr) {
        internal::ConcurrentStatsRecorder::RecordDeallocationIn(*slot, bytes);
        list.Push(ptr);
        return;
      }
    }
  }
  DeallocateSlow(ptr, bytes, alignment);
}

void SystemAllocator::DeallocateSlow(void* ptr, size_t bytes,
                                     size_t alignment) noexcept {
  if (__builtin_expect(registry_ != nullptr, 0) &&
      !EraseFromRegistry(ptr, bytes, alignment)) {
    return;  // reported; never hand a bad pointer to free()
  }
  // A mapped block (2 MiB-aligned, which no glibc block is) is found by its
  // address, whatever `bytes` says.
  if (internal::MappedBlocks::MayBeMapped(ptr)) {
    switch (mapped_.Free(ptr)) {
      case internal::MappedBlocks::State::kLive:
        stats_.RecordDeallocation(bytes);
        return;
      case internal::MappedBlocks::State::kCached:
        ReportContractViolation(name(), ContractViolation::kDoubleFree, ptr,
                                "the mapped block is already free (cached)");
        return;
      case internal::MappedBlocks::State::kNone:
        break;
    }
  }
  const size_t effective = EffectiveAlignment(alignment);
  if (!UsesHeader(effective)) {
    if (UsesPlainCache(zero_every_block_, effective, bytes)) {
      switch (PushPlainBigCached(ptr)) {
        case PlainPush::kCached:
          stats_.RecordDeallocation(bytes);
          return;
        case PlainPush::kAlreadyCached:
          ReportContractViolation(
              name(), ContractViolation::kDoubleFree, ptr,
              "the block is already free (in the thread cache)");
          return;
        case PlainPush::kNotCached:
          break;
      }
    }
    stats_.RecordDeallocation(bytes);
    std::free(ptr);
    return;
  }
  // The header is checked in every build: it is what stands between a
  // foreign pointer and glibc's free().
  const DecodedHeader header =
      (reinterpret_cast<uintptr_t>(ptr) & (effective - 1)) == 0
          ? DecodeHeader(ptr)
          : DecodedHeader{};
  if (__builtin_expect(header.raw == nullptr || header.cached, 0)) {
    ReportBadHeader(ptr, header.cached);
    return;
  }
  stats_.RecordDeallocation(bytes);
  // A zeroing allocator never takes big blocks from the cache (calloc's fresh
  // pages are already zero), so it must not fill it either: its blocks would
  // only hold memory that its next calloc then faults in afresh.
  if (header.size_class != 0
          ? PushCached(ptr, effective, header.size_class)
          : !zero_every_block_ && PushBigCached(ptr, header.raw)) {
    return;
  }
  std::free(header.raw);
}

void* SystemAllocator::DoReallocate(void* ptr, size_t old_bytes,
                                    size_t new_bytes,
                                    size_t alignment) noexcept {
  const size_t effective = EffectiveAlignment(alignment);
  const size_t request = new_bytes == 0 ? 1 : new_bytes;
  if (request > max_allocation_size()) return CountFailure();
  ContractViolation violation;
  if (absl::Status status = CheckBlock(ptr, old_bytes, alignment, &violation);
      !status.ok()) {
    ReportContractViolation(name(), violation, ptr, status.message());
    return CountFailure();
  }
  void* block = nullptr;
  size_t capacity = 0;
  bool advise = true;
  if (internal::MappedBlocks::MayBeMapped(ptr) &&
      mapped_.Find(ptr, &capacity) == internal::MappedBlocks::State::kLive) {
    advise = false;  // mapped blocks were advised when mapped
    if (request <= capacity && request > capacity / 2) {
      block = ptr;  // fits, and wastes at most half: stays
    } else {
      if (request >= internal::MappedBlocks::kMinBytes) {
        block = mapped_.Resize(ptr, request);  // pages moved, not copied
      }
      if (block == nullptr) {  // small now, or no mremap: copy
        block = AllocateBlock(request, effective, /*zero=*/false);
        if (block != nullptr) {
          const size_t keep = std::min(std::min(old_bytes, capacity), request);
          std::memcpy(block, ptr, keep);
          mapped_.Free(ptr);
        }
      }
    }
  } else if (effective <= kDefaultAlignment) {
    block = std::realloc(ptr, request);
  } else if (UsesHeader(effective)) {
    const DecodedHeader header = DecodeHeader(ptr);
    const size_t old_offset =
        static_cast<char*>(ptr) - static_cast<char*>(header.raw);
    const size_t old_usable = UsableBytes(old_bytes, header.size_class);
    const uint32_t size_class = SizeClassOf(request, effective);
    if (size_class != 0 && size_class == header.size_class) {
      block = ptr;  // still fits its size class: nothing to move
    } else {
      void* fresh_raw = std::realloc(
          header.raw, UsableBytes(request, size_class) + effective);
      if (fresh_raw != nullptr) {
        char* moved_to = static_cast<char*>(fresh_raw) + old_offset;
        char* placed = AlignedBlockIn(fresh_raw, effective);
        // realloc kept the bytes at the old offset; slide them to the new one
        // before writing the header, which may overlap where they were.
        if (moved_to != placed) {
          const size_t keep = std::min(std::min(old_bytes, old_usable), request);
          std::memmove(placed, moved_to, keep);
        }
        WriteHeader(fresh_raw, placed, size_class);
        block = placed;
      }
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
  if (advise) MaybeAdviseHugePages(block, request);
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
  if (absl::Status mapped = mapped_.CheckIntegrity(s.live_allocations());
      !mapped.ok()) {
    return absl::InternalError(absl::StrFormat(
        "%s: invariant 3 (mapped blocks) violated: %s", name(),
        mapped.message()));
  }
  return absl::OkStatus();
}

size_t SystemAllocator::ReleaseCachedMappings() {
  return mapped_.ReleaseCached();
}

size_t SystemAllocator::cached_mapping_bytes() const {
  return mapped_.cached_bytes();
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
