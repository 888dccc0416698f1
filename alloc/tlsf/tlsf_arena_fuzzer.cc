// Copyright 2026 The Tessera Authors.
//
// -----------------------------------------------------------------------------
// File: tlsf_arena_fuzzer.cc
// -----------------------------------------------------------------------------
//
// Fuzzes TlsfArena against the shadow model of fuzz/shadow_heap.h, following
// the rule in fuzz/README.md: the seed allocator this arena replaces handed
// out overlapping blocks after a split, put one free block in two buckets,
// accepted double frees and leaked metadata nodes.
//
// Input: two configuration bytes (granularity, arena size and alignment,
// growth, caller memory or mapped, quick-cache depth), then ops, each an opcode byte and its
// operands (see `Op`; fuzz/make_seed.py spells the seeds).
//
// Properties checked:
//   * every block (handle or pointer API) is aligned to max(requested,
//     granularity), lies inside the arena's regions (`Contains` of its first
//     and last byte), overlaps no live block, and keeps the pattern of its id
//     over its whole usable size until freed; reallocation keeps the prefix;
//   * CheckIntegrity() is OK after every op; AllocatorStats equal the model
//     (allocations, frees, reallocations, failures, usable bytes in use,
//     peak) and TlsfStats agree (live blocks, bytes in use, metadata nodes in
//     use = live + free blocks, no pending block after Collect);
//   * misuse is rejected and changes nothing: double free (checked, hot,
//     by pointer), foreign, interior and empty handles/pointers, a handle of
//     another arena, bad sizes and alignments;
//   * Collect with page release leaves every live block intact;
//   * at the end, after freeing everything and Collect: one free block per
//     region, metadata back to one node per region, and every byte mapped
//     from the system (or lent by the caller) given back on destruction.
// Under ASan the arena poisons its free blocks (TlsfArena::PoisonFree), so a
// stale read anywhere would be reported.

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "alloc/allocator.h"
#include "alloc/tlsf/tlsf_arena.h"
#include "fuzz/byte_reader.h"
#include "fuzz/allocator_checks.h"
#include "fuzz/fuzz_check.h"
#include "fuzz/shadow_heap.h"

namespace tessera {
namespace {

using fuzzing::ByteReader;
using fuzzing::CheckPattern;
using fuzzing::FillPattern;
using fuzzing::ShadowHeap;

constexpr size_t kMaxOps = 1024;
constexpr size_t kMaxLiveBlocks = 512;
constexpr int kMaxExtraRegions = 6;

// ---- Contract violations are recorded while a program runs. ----

using fuzzing::g_violations;
using fuzzing::RecordViolation;

// ---- System memory that counts what it maps, to prove it all comes back. ----

struct MemoryLedger {
  int64_t mapped_bytes = 0;
  int64_t maps = 0;
  int64_t unmaps = 0;
};

void* CountingMap(size_t bytes, void* context) {
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return nullptr;
  auto* ledger = static_cast<MemoryLedger*>(context);
  ledger->mapped_bytes += static_cast<int64_t>(bytes);
  ++ledger->maps;
  return p;
}

void CountingUnmap(void* ptr, size_t bytes, void* context) {
  auto* ledger = static_cast<MemoryLedger*>(context);
  ledger->mapped_bytes -= static_cast<int64_t>(bytes);
  ++ledger->unmaps;
  munmap(ptr, bytes);
}

enum class Op : uint8_t {
  kAlloc,
  kTryAlloc,
  kAllocate,  // Allocator interface (pointer)
  kFreeHandle,
  kTryFree,
  kFreePointer,
  kDeallocate,
  kRealloc,
  kReallocate,  // Allocator interface
  kCollect,
  kAddRegion,
  kDoubleFree,
  kForeign,
  kBadRequest,
  kHandleOf,
  kVerifyAll,
  kNumOps,
};

// How a live block is held: by handle (seed API) or by pointer (Allocator).
enum Tag { kByHandle = 0, kByPointer = 1 };

alignas(4096) uint8_t g_foreign[8192];

class Harness {
 public:
  explicit Harness(ByteReader& in) : in_(in) {}

  void Run() {
    if (!MakeArena()) return;
    fuzzing::RunHarnessProgram<Op>(in_, kMaxOps, *this);
    FreeEverything();
    arena_.reset();
    TESSERA_FUZZ_CHECK(ledger_.mapped_bytes == 0 && ledger_.maps == ledger_.unmaps,
                       "arena destroyed with %lld bytes (%lld maps, %lld "
                       "unmaps) still mapped",
                       static_cast<long long>(ledger_.mapped_bytes),
                       static_cast<long long>(ledger_.maps),
                       static_cast<long long>(ledger_.unmaps));
    TESSERA_FUZZ_CHECK(lent_ == nullptr || released_,
                       "caller memory was not given back on destruction");
    std::free(lent_);
    for (void* region : lent_regions_) std::free(region);
  }

  // The rest is public for fuzzing::RunHarnessProgram.

  // ---- Setup. ----

  bool MakeArena() {
    const uint8_t a = in_.ConsumeByte();
    const uint8_t b = in_.ConsumeByte();
    TlsfArenaOptions options;
    options.granularity = size_t{16} << ((a & 3) * 2);           // 16..1024
    options.arena_alignment = options.granularity << ((a >> 2) & 1);
    options.arena_bytes = size_t{256} << 10 << ((a >> 3) & 3);   // 256K..2M
    options.max_block_size = options.arena_bytes / (1 + ((a >> 5) & 3));
    options.grow = (b & 1) != 0;
    grow_ = options.grow;
    options.growth_region_bytes = size_t{128} << 10 << ((b >> 1) & 3);
    // The quick cache (on by default): freed small blocks held unmerged for
    // reuse, bounded per size and in bytes (a 4 KiB limit binds here; the
    // default 4 MiB never does in these small arenas).
    static const uint32_t kQuickDepths[] = {
        0, 1, 16, TlsfArenaOptions{}.quick_cache_depth};
    options.quick_cache_depth = kQuickDepths[(b >> 4) & 3];
    if ((b & 0x40) != 0) options.quick_cache_bytes = 4096;
    options.system_memory =
        SystemMemory{&CountingMap, &CountingUnmap, &ledger_};
    granule_ = options.granularity;
    absl::StatusOr<std::unique_ptr<TlsfArena>> arena;
    if ((b & 0x08) != 0) {
      // Caller memory, handed back through the release callback.
      lent_bytes_ = options.arena_bytes;
      lent_ = std::aligned_alloc(4096, lent_bytes_);
      arena = TlsfArena::CreateOver(
          lent_, lent_bytes_,
          [this](void* memory, size_t bytes) {
            TESSERA_FUZZ_CHECK(memory == lent_ && bytes == lent_bytes_,
                               "released %p/%zu, lent %p/%zu", memory, bytes,
                               lent_, lent_bytes_);
            released_ = true;
          },
          options);
    } else {
      arena = TlsfArena::Create(options);
    }
    TESSERA_FUZZ_CHECK(arena.ok(), "arena creation failed: %s",
                       arena.status().ToString().c_str());
    arena_ = *std::move(arena);
    TESSERA_FUZZ_CHECK(arena_->granularity() == granule_, "granularity %zu",
                       arena_->granularity());
    max_block_ = arena_->max_allocation_size();
    regions_ = 1;
    CheckModel("fresh arena");
    return true;
  }

  // ---- Operand decoding. ----

  size_t DecodeSize() {
    const int size_class = in_.ConsumeIntegralInRange<int>(0, 7);
    if (size_class < 4) return in_.ConsumeIntegralInRange<size_t>(0, 256);
    if (size_class < 7) return in_.ConsumeIntegralInRange<size_t>(0, 8192);
    return in_.ConsumeIntegralInRange<size_t>(0, 1 << 18);
  }

  // 0: the granularity (the API's default); else 1 B .. 64 KiB.
  size_t DecodeAlignment() {
    const int shift = in_.ConsumeIntegralInRange<int>(0, 17);
    return shift == 0 ? 0 : size_t{1} << (shift - 1);
  }

  int DecodeWindow() { return in_.ConsumeIntegralInRange<int>(0, 4); }

  size_t PickBlock() {
    return in_.ConsumeIntegralInRange<size_t>(0, 255) % shadow_.size();
  }

  size_t Guaranteed(size_t alignment) const {
    return alignment > granule_ ? alignment : granule_;
  }

  // ---- The model. ----

  void CheckModel(const char* when) {
    stats_.Check(*arena_, shadow_, when);
    const TlsfStats t = arena_->Stats();
    // A growing arena adds regions on its own, never removes one.
    if (grow_ && t.regions > static_cast<uint64_t>(regions_)) {
      regions_ = static_cast<int>(t.regions);
    }
    TESSERA_FUZZ_CHECK(t.live_blocks == shadow_.size() &&
                           t.bytes_in_use == shadow_.bytes_in_use() &&
                           t.regions == static_cast<uint64_t>(regions_),
                       "%s: TlsfStats live %llu bytes %llu regions %llu, "
                       "model %zu / %llu / %d",
                       when, static_cast<unsigned long long>(t.live_blocks),
                       static_cast<unsigned long long>(t.bytes_in_use),
                       static_cast<unsigned long long>(t.regions),
                       shadow_.size(),
                       static_cast<unsigned long long>(shadow_.bytes_in_use()),
                       regions_);
    // Metadata stays proportional to the blocks: one node per block.
    TESSERA_FUZZ_CHECK(
        t.metadata_nodes_in_use ==
                t.live_blocks + t.free_blocks + t.cached_blocks &&
            t.metadata_nodes_carved >= t.metadata_nodes_in_use,
        "%s: %llu metadata nodes in use for %llu live + %llu free + %llu "
        "cached blocks",
        when, static_cast<unsigned long long>(t.metadata_nodes_in_use),
        static_cast<unsigned long long>(t.live_blocks),
        static_cast<unsigned long long>(t.free_blocks),
        static_cast<unsigned long long>(t.cached_blocks));
    TESSERA_FUZZ_CHECK(g_violations.count == violations_,
                       "%s: %d contract violations reported, expected %d",
                       when, g_violations.count, violations_);
    // The largest free block is exact: the largest free block of a walk of
    // the address chains.
    uint64_t largest = 0;
    arena_->WalkBlocks(nullptr, [&largest](const TlsfBlockInfo& block) {
      if (block.state == TlsfBlockInfo::State::kFree && block.size > largest) {
        largest = block.size;
      }
    });
    TESSERA_FUZZ_CHECK(t.largest_free_block == largest,
                       "%s: largest free block %llu, the address chains say "
                       "%llu",
                       when,
                       static_cast<unsigned long long>(t.largest_free_block),
                       static_cast<unsigned long long>(largest));
  }

  void CheckInside(const void* ptr, size_t bytes, const char* what) const {
    const char* p = static_cast<const char*>(ptr);
    TESSERA_FUZZ_CHECK(arena_->Contains(p) && arena_->Contains(p + bytes - 1),
                       "%s: block [%p, +%zu) is not inside the arena", what,
                       ptr, bytes);
  }

  // A block the arena just handed out: usable size at least the request,
  // inside the arena, placed, then patterned over its whole usable size.
  void Adopt(void* ptr, size_t usable, size_t requested, size_t alignment,
             int tag, const char* what) {
    TESSERA_FUZZ_CHECK(usable >= requested && usable % granule_ == 0 &&
                           usable > 0,
                       "%s: usable size %zu for a request of %zu", what,
                       usable, requested);
    CheckInside(ptr, usable, what);
    const size_t index =
        shadow_.Add(ptr, usable, alignment, Guaranteed(alignment), tag);
    FillPattern(ptr, shadow_.blocks()[index].id, 0, usable);
    stats_.NoteAllocation(shadow_);
  }

  Handle HandleFor(const ShadowHeap::Block& block) {
    absl::StatusOr<Handle> handle = arena_->HandleOf(block.ptr);
    TESSERA_FUZZ_CHECK(handle.ok() && handle->address() == block.ptr &&
                           handle->size() == block.bytes,
                       "HandleOf(%p) of a live %zu-byte block: %s", block.ptr,
                       block.bytes, handle.status().ToString().c_str());
    return *handle;
  }

  void CheckIntact(const ShadowHeap::Block& block, const char* what) {
    CheckPattern(block.ptr, block.id, 0, block.bytes, what);
  }

  void ExpectRejected(const absl::Status& status, const char* what) {
    TESSERA_FUZZ_CHECK(absl::IsFailedPrecondition(status) ||
                           absl::IsInvalidArgument(status),
                       "%s: expected a rejection, got %s", what,
                       status.ToString().c_str());
    ++stats_.failed_requests;
  }

  void ExpectViolation(int before, const void* ptr, const char* what) {
    TESSERA_FUZZ_CHECK(g_violations.count == before + 1 &&
                           g_violations.last_ptr == ptr,
                       "%s of %p: %d violations reported (last of %p), "
                       "expected 1",
                       what, ptr, g_violations.count - before,
                       g_violations.last_ptr);
    ++violations_;
  }

  // ---- Good operations. ----

  void Allocate(Op op) {
    const size_t size = DecodeSize();
    const size_t alignment = DecodeAlignment();
    if (shadow_.size() >= kMaxLiveBlocks) return;
    const bool fits = size <= max_block_;
    switch (op) {
      case Op::kAlloc: {
        absl::StatusOr<Handle> h = arena_->Alloc(size, alignment);
        if (!fits) {
          ExpectRejected(h.status(), "Alloc above the max block size");
          return;
        }
        if (!h.ok()) {
          TESSERA_FUZZ_CHECK(absl::IsResourceExhausted(h.status()),
                             "Alloc(%zu, %zu): %s", size, alignment,
                             h.status().ToString().c_str());
          ++stats_.failed_requests;
          return;
        }
        Adopt(h->address(), h->size(), size, alignment, kByHandle, "Alloc");
        break;
      }
      case Op::kTryAlloc: {
        Handle h;
        if (!arena_->TryAlloc(size, &h, alignment)) {
          TESSERA_FUZZ_CHECK(h.empty(), "failed TryAlloc filled its handle");
          ++stats_.failed_requests;
          return;
        }
        TESSERA_FUZZ_CHECK(fits, "TryAlloc above the max block size");
        Adopt(h.address(), h.size(), size, alignment, kByHandle, "TryAlloc");
        break;
      }
      default: {
        const size_t a = alignment == 0 ? kDefaultAlignment : alignment;
        void* ptr = arena_->Allocate(size, a);
        if (ptr == nullptr) {
          ++stats_.failed_requests;
          return;
        }
        TESSERA_FUZZ_CHECK(fits, "Allocate above the max block size");
        absl::StatusOr<Handle> h = arena_->HandleOf(ptr);
        TESSERA_FUZZ_CHECK(h.ok(), "HandleOf a fresh block: %s",
                           h.status().ToString().c_str());
        Adopt(ptr, h->size(), size, a, kByPointer, "Allocate");
      }
    }
  }

  void Free(size_t index, int how) {
    const ShadowHeap::Block block = shadow_.blocks()[index];
    CheckIntact(block, "before free");
    // Remembered for double frees by handle.
    freed_handles_[freed_cursor_++ % kFreedHandles] = HandleFor(block);
    const int window = DecodeWindow();
    switch (how) {
      case 0: {
        const absl::Status s = arena_->Free(HandleFor(block), window);
        TESSERA_FUZZ_CHECK(s.ok(), "Free(handle): %s", s.ToString().c_str());
        break;
      }
      case 1:
        TESSERA_FUZZ_CHECK(arena_->TryFree(HandleFor(block), window),
                           "TryFree of a live block failed");
        break;
      case 2: {
        const absl::Status s = arena_->Free(block.ptr, window);
        TESSERA_FUZZ_CHECK(s.ok(), "Free(ptr): %s", s.ToString().c_str());
        break;
      }
      case 3:
        arena_->Deallocate(block.ptr, block.bytes, block.alignment == 0
                                                       ? kDefaultAlignment
                                                       : block.alignment);
        break;
      default: {
        const absl::Status s = arena_->DeallocateChecked(
            block.ptr, block.bytes,
            block.alignment == 0 ? kDefaultAlignment : block.alignment);
        TESSERA_FUZZ_CHECK(s.ok(), "DeallocateChecked: %s",
                           s.ToString().c_str());
      }
    }
    shadow_.Remove(index);
    ++stats_.deallocations;
  }

  void Reallocate(bool by_handle) {
    if (shadow_.empty()) return;
    const size_t index = PickBlock();
    const size_t new_size = DecodeSize();
    const ShadowHeap::Block block = shadow_.blocks()[index];
    CheckIntact(block, "before reallocation");
    void* fresh = nullptr;
    size_t usable = 0;
    if (by_handle) {
      absl::StatusOr<Handle> h =
          arena_->Realloc(HandleFor(block), new_size, block.alignment);
      if (!h.ok()) {
        TESSERA_FUZZ_CHECK(new_size > max_block_
                               ? absl::IsInvalidArgument(h.status())
                               : absl::IsResourceExhausted(h.status()),
                           "Realloc to %zu: %s", new_size,
                           h.status().ToString().c_str());
        ++stats_.failed_requests;
        CheckIntact(block, "after a failed reallocation");
        return;
      }
      fresh = h->address();
      usable = h->size();
    } else {
      const size_t a =
          block.alignment == 0 ? kDefaultAlignment : block.alignment;
      fresh = arena_->Reallocate(block.ptr, block.bytes, new_size, a);
      if (fresh == nullptr) {
        ++stats_.failed_requests;
        CheckIntact(block, "after a failed reallocation");
        return;
      }
      absl::StatusOr<Handle> h = arena_->HandleOf(fresh);
      TESSERA_FUZZ_CHECK(h.ok(), "HandleOf a reallocated block: %s",
                         h.status().ToString().c_str());
      usable = h->size();
    }
    TESSERA_FUZZ_CHECK(new_size <= max_block_ && usable >= new_size,
                       "reallocation to %zu gave %zu usable bytes", new_size,
                       usable);
    const size_t kept = block.bytes < usable ? block.bytes : usable;
    CheckPattern(fresh, block.id, 0, kept, "after reallocation");
    CheckInside(fresh, usable, "reallocation");
    shadow_.Move(index, fresh, usable, Guaranteed(block.alignment));
    FillPattern(fresh, block.id, kept, usable);
    stats_.NoteReallocation(shadow_);
  }

  void Collect() {
    CollectOptions options;
    options.release_pages = in_.ConsumeBool();
    options.release_threshold = size_t{4096} << in_.ConsumeIntegralInRange<int>(0, 6);
    arena_->Collect(options);
    TESSERA_FUZZ_CHECK(arena_->Stats().pending_free_blocks == 0 &&
                           arena_->Stats().cached_blocks == 0,
                       "pending or cached free blocks left after Collect");
    // Released pages must never belong to a live block.
    VerifyAll();
  }

  void AddRegion() {
    if (regions_ > kMaxExtraRegions) return;
    const size_t bytes = size_t{64} << 10 << in_.ConsumeIntegralInRange<int>(0, 2);
    absl::Status s;
    if (in_.ConsumeBool()) {
      s = arena_->AddSystemRegion(bytes);
    } else {
      void* memory = std::aligned_alloc(4096, bytes);
      lent_regions_.push_back(memory);
      s = arena_->AddRegion(memory, bytes, nullptr);
    }
    TESSERA_FUZZ_CHECK(s.ok(), "adding a %zu-byte region: %s", bytes,
                       s.ToString().c_str());
    ++regions_;
  }

  // ---- Misuse. ----

  void DoubleFree() {
    ShadowHeap::Block freed;
    if (!shadow_.PickRecentlyFreed(in_.ConsumeByte(), &freed)) return;
    const int before = g_violations.count;
    const int variant = in_.ConsumeIntegralInRange<int>(0, 4);
    if (variant >= 3) {
      // By handle: any remembered handle whose address is not live again
      // (a handle of a reused address cannot be told from the new block's).
      const size_t n = freed_cursor_ < kFreedHandles ? freed_cursor_
                                                     : kFreedHandles;
      const Handle* stale = nullptr;
      for (size_t k = 0; k < n && stale == nullptr; ++k) {
        const Handle& h = freed_handles_[(freed.id + k) % n];
        if (!shadow_.IsInsideLiveBlock(h.address())) stale = &h;
      }
      if (stale == nullptr) return;
      if (variant == 3) {
        ExpectRejected(arena_->Free(*stale), "Free of a freed handle");
      } else {
        TESSERA_FUZZ_CHECK(!arena_->TryFree(*stale),
                           "TryFree of a freed handle succeeded");
        ExpectViolation(before, stale->address(), "TryFree of a freed handle");
        ++stats_.failed_requests;
      }
      return;
    }
    switch (variant) {
      case 0:
        ExpectRejected(arena_->Free(freed.ptr, DecodeWindow()),
                       "Free(ptr) of a freed block");
        break;
      case 1:
        arena_->Deallocate(freed.ptr, freed.bytes);
        ExpectViolation(before, freed.ptr, "Deallocate of a freed block");
        ++stats_.failed_requests;
        break;
      case 2:
        ExpectRejected(arena_->DeallocateChecked(freed.ptr, freed.bytes),
                       "DeallocateChecked of a freed block");
        break;
    }
  }

  void Foreign() {
    const int kind = in_.ConsumeIntegralInRange<int>(0, 4);
    const int before = g_violations.count;
    void* ptr = g_foreign + 4096;
    const ShadowHeap::Block* block = nullptr;
    if (kind == 1 && !shadow_.empty()) {
      block = &shadow_.blocks()[PickBlock()];
      if (block->bytes < 2) return;
      ptr = static_cast<char*>(block->ptr) +
            1 + in_.ConsumeIntegralInRange<size_t>(0, 4095) % (block->bytes - 1);
    }
    switch (kind) {
      case 0:
      case 1:
        if (in_.ConsumeBool()) {
          ExpectRejected(arena_->Free(ptr), "Free of a foreign pointer");
          TESSERA_FUZZ_CHECK(!arena_->HandleOf(ptr).ok(),
                             "HandleOf a foreign pointer succeeded");
        } else {
          arena_->Deallocate(ptr, 64);
          ExpectViolation(before, ptr, "Deallocate of a foreign pointer");
          ++stats_.failed_requests;
        }
        break;
      case 2:
        ExpectRejected(arena_->Free(Handle()), "Free of an empty handle");
        break;
      case 3:
        TESSERA_FUZZ_CHECK(!arena_->TryFree(Handle()),
                           "TryFree of an empty handle succeeded");
        ExpectViolation(before, nullptr, "TryFree of an empty handle");
        ++stats_.failed_requests;
        break;
      case 4: {
        // A live handle of another arena.
        TlsfArenaOptions options;
        options.arena_bytes = 64 << 10;
        options.max_block_size = 16 << 10;
        options.system_memory =
            SystemMemory{&CountingMap, &CountingUnmap, &ledger_};
        absl::StatusOr<std::unique_ptr<TlsfArena>> other =
            TlsfArena::Create(options);
        TESSERA_FUZZ_CHECK(other.ok(), "second arena: %s",
                           other.status().ToString().c_str());
        absl::StatusOr<Handle> h = (*other)->Alloc(64);
        TESSERA_FUZZ_CHECK(h.ok(), "second arena Alloc");
        ExpectRejected(arena_->Free(*h), "Free of another arena's handle");
        TESSERA_FUZZ_CHECK(!arena_->Realloc(*h, 128).ok(),
                           "Realloc of another arena's handle succeeded");
        ++stats_.failed_requests;
        TESSERA_FUZZ_CHECK((*other)->Free(*h).ok(), "second arena Free");
        break;
      }
    }
    if (block != nullptr) CheckIntact(*block, "after a foreign pointer");
  }

  void BadRequest() {
    static constexpr size_t kBadAlignments[] = {3, 24, 100,
                                                kMaxArenaAlignment << 1,
                                                SIZE_MAX};
    const size_t sizes[] = {max_block_ + 1, SIZE_MAX, SIZE_MAX - 7,
                            static_cast<size_t>(PTRDIFF_MAX)};
    const bool bad_alignment = in_.ConsumeBool();
    const size_t alignment =
        bad_alignment ? in_.PickValueInArray(kBadAlignments) : 0;
    const size_t size = bad_alignment ? DecodeSize() : in_.PickValueInArray(sizes);
    const int variant = in_.ConsumeIntegralInRange<int>(0, 4);
    switch (variant) {
      case 0:
        ExpectRejected(arena_->Alloc(size, alignment).status(),
                       "Alloc with a bad size or alignment");
        break;
      case 1: {
        Handle h;
        TESSERA_FUZZ_CHECK(!arena_->TryAlloc(size, &h, alignment),
                           "TryAlloc(%zu, %zu) succeeded", size, alignment);
        ++stats_.failed_requests;
        break;
      }
      case 2: {
        absl::StatusOr<void*> p = arena_->AllocateChecked(
            size, alignment == 0 ? kDefaultAlignment : alignment);
        TESSERA_FUZZ_CHECK(!p.ok(), "AllocateChecked(%zu, %zu) succeeded",
                           size, alignment);
        ++stats_.failed_requests;
        break;
      }
      case 3:
      case 4: {
        if (shadow_.empty()) return;
        const ShadowHeap::Block& block = shadow_.blocks()[PickBlock()];
        if (variant == 3) {
          ExpectRejected(
              arena_->Realloc(HandleFor(block), size, alignment).status(),
              "Realloc with a bad size or alignment");
        } else {
          TESSERA_FUZZ_CHECK(
              arena_->Reallocate(block.ptr, block.bytes, size,
                                 alignment == 0 ? kDefaultAlignment
                                                : alignment) == nullptr,
              "Reallocate to %zu/%zu succeeded", size, alignment);
          ++stats_.failed_requests;
        }
        CheckIntact(block, "after a rejected reallocation");
        break;
      }
    }
  }

  void VerifyAll() {
    for (const ShadowHeap::Block& block : shadow_.blocks()) {
      CheckIntact(block, "verify all");
    }
  }

  void FreeEverything() {
    while (!shadow_.empty()) {
      Free(shadow_.size() - 1, static_cast<int>(shadow_.size() % 5));
      CheckModel("freeing everything");
    }
    arena_->Collect();
    CheckModel("after the final Collect");
    const TlsfStats t = arena_->Stats();
    TESSERA_FUZZ_CHECK(t.free_blocks == static_cast<uint64_t>(regions_) &&
                           t.pending_free_blocks == 0 &&
                           t.cached_blocks == 0 &&
                           t.metadata_nodes_in_use ==
                               static_cast<uint64_t>(regions_),
                       "empty arena: %llu free blocks, %llu pending, %llu "
                       "nodes in use for %d regions",
                       static_cast<unsigned long long>(t.free_blocks),
                       static_cast<unsigned long long>(t.pending_free_blocks),
                       static_cast<unsigned long long>(t.metadata_nodes_in_use),
                       regions_);
    if (regions_ == 1) {
      TESSERA_FUZZ_CHECK(t.largest_free_block == t.free_bytes,
                         "empty arena is fragmented: largest %llu of %llu",
                         static_cast<unsigned long long>(t.largest_free_block),
                         static_cast<unsigned long long>(t.free_bytes));
    }
  }

  void Step(Op op) {
    switch (op) {
      case Op::kAlloc:
      case Op::kTryAlloc:
      case Op::kAllocate:
        Allocate(op);
        break;
      case Op::kFreeHandle:
      case Op::kTryFree:
      case Op::kFreePointer:
      case Op::kDeallocate: {
        if (shadow_.empty()) break;
        const size_t index = PickBlock();
        int how = static_cast<int>(op) - static_cast<int>(Op::kFreeHandle);
        if (how == 3 && in_.ConsumeBool()) how = 4;  // DeallocateChecked
        Free(index, how);
        break;
      }
      case Op::kRealloc:
        Reallocate(/*by_handle=*/true);
        break;
      case Op::kReallocate:
        Reallocate(/*by_handle=*/false);
        break;
      case Op::kCollect:
        Collect();
        break;
      case Op::kAddRegion:
        AddRegion();
        break;
      case Op::kDoubleFree:
        DoubleFree();
        break;
      case Op::kForeign:
        Foreign();
        break;
      case Op::kBadRequest:
        BadRequest();
        break;
      case Op::kHandleOf:
        if (!shadow_.empty()) HandleFor(shadow_.blocks()[PickBlock()]);
        break;
      case Op::kVerifyAll:
      case Op::kNumOps:
        VerifyAll();
        break;
    }
  }

 private:
  ByteReader& in_;
  MemoryLedger ledger_;
  std::unique_ptr<TlsfArena> arena_;
  size_t granule_ = 0;
  bool grow_ = false;
  size_t max_block_ = 0;
  int regions_ = 0;
  void* lent_ = nullptr;
  size_t lent_bytes_ = 0;
  bool released_ = false;
  std::vector<void*> lent_regions_;
  static constexpr size_t kFreedHandles = 16;
  Handle freed_handles_[kFreedHandles];
  size_t freed_cursor_ = 0;
  ShadowHeap shadow_;
  fuzzing::StatsModel stats_;  // bytes in use come from the shadow heap
  int violations_ = 0;
};

}  // namespace
}  // namespace tessera

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return tessera::fuzzing::RunAllocatorHarness<tessera::Harness>(data, size);
}
