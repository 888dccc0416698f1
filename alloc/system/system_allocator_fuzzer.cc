// Copyright 2026 The Tessera Authors.
//
// -----------------------------------------------------------------------------
// File: system_allocator_fuzzer.cc
// -----------------------------------------------------------------------------
//
// Fuzzes MallocAllocator, AlignedAllocator and ZeroedAllocator, and the pmr
// and std adapters over them (alloc/memory_resource.h), against the shadow
// model of fuzz/shadow_heap.h. See fuzz/README.md for the rule every
// allocator harness follows and for the planted-bug experiment.
//
// Input: byte 0 chooses the allocator (kind, minimum alignment, whether it
// tracks live blocks, huge-page threshold); every following op is an opcode
// byte and its operands (see `Op`). A seed reads as the program it encodes.
//
// Properties checked:
//   * every block is non-null, aligned to max(requested, the allocator's
//     minimum, 16), overlaps no live block, and reads as zero when it must
//     (AllocateZeroed, ZeroedAllocator, the grown tail of a ZeroedAllocator
//     reallocation);
//   * every block keeps the pattern of its id until it is freed, and a
//     reallocation carries the first min(old, new) bytes with it;
//   * misuse is rejected and leaves the allocator untouched: bad alignments
//     and overflowing sizes (InvalidArgument/ResourceExhausted or nullptr),
//     double frees, foreign and interior pointers and size mismatches
//     (FailedPrecondition on the checked path, exactly one
//     ReportContractViolation of the right kind on the hot path);
//   * CheckIntegrity() is OK and stats() equals the model after every op;
//   * the adapters (pmr resource, StdAllocator incl. rebinding and the
//     scoped default) allocate through the allocator, throw on failure and
//     give everything back;
//   * after freeing everything, no block is live and no byte in use.
//
// Misuse that the allocator documents it cannot see is not attempted: double
// frees without `track_live_blocks` (the pointer would reach free()), and
// foreign pointers to an untracked MallocAllocator or untracked blocks
// without a header (alignment <= 16).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <memory_resource>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "alloc/allocator.h"
#include "alloc/default_allocator.h"
#include "alloc/memory_resource.h"
#include "alloc/system/system_allocator.h"
#include "fuzz/byte_reader.h"
#include "fuzz/allocator_checks.h"
#include "fuzz/fuzz_check.h"
#include "fuzz/shadow_heap.h"

namespace tessera {
namespace {

using fuzzing::ByteReader;
using fuzzing::CheckPattern;
using fuzzing::CheckZero;
using fuzzing::FillPattern;
using fuzzing::ShadowHeap;

// Bounds that keep one input fast and well inside libFuzzer's RSS limit.
constexpr size_t kMaxOps = 1024;
constexpr size_t kMaxLiveBlocks = 256;
constexpr uint64_t kMaxLiveBytes = uint64_t{16} << 20;

// ---- Contract violations are recorded, not fatal, while a program runs. ----

using fuzzing::g_violations;
using fuzzing::RecordViolation;

// ---- What the program does. ----

enum class Op : uint8_t {
  kAllocate,
  kAllocateZeroed,
  kAllocateChecked,
  kAllocateZeroedChecked,
  kReallocate,
  kReallocateChecked,
  kDeallocate,
  kDeallocateChecked,
  kBadAlignment,
  kBadSize,
  kDoubleFree,
  kForeignPointer,
  kSizeMismatch,
  kPmrBlock,
  kStdBlock,
  kPmrContainers,
  kStdContainers,
  kVerifyAll,
  kNumOps,
};

// How a live block was obtained, hence how it is given back.
enum Tag { kViaAllocator = 0, kViaPmr = 1, kViaStd = 2 };

// A type whose StdAllocator asks for 64-byte alignment (the malloc
// allocator's posix_memalign path, the aligned allocator's header path).
struct alignas(64) Wide {
  uint64_t words[8];
};

// Memory no allocator owns, for foreign-pointer attempts. Zero, so no header
// below it can pass AlignedAllocator's check.
alignas(4096) uint8_t g_foreign[8192];

class Harness {
 public:
  explicit Harness(ByteReader& in) : in_(in) {}

  void Run() {
    if (!MakeAllocator()) return;
    fuzzing::RunHarnessProgram<Op>(in_, kMaxOps, *this);
    fuzzing::FreeEverything(*this);
    const AllocatorStats s = allocator_->stats();
    TESSERA_FUZZ_CHECK(s.live_allocations() == 0 && s.bytes_in_use == 0,
                       "%llu blocks / %llu bytes still in use at the end",
                       static_cast<unsigned long long>(s.live_allocations()),
                       static_cast<unsigned long long>(s.bytes_in_use));
  }

  // The rest is public for fuzzing::RunHarnessProgram and FreeEverything.

  // ---- Setup. ----

  bool MakeAllocator() {
    const uint8_t config = in_.ConsumeByte();
    SystemAllocatorOptions options;
    tracked_ = (config & 0x08) == 0;  // most programs use the registry
    options.track_live_blocks = tracked_;
    options.huge_pages = (config & 0x10) != 0;
    // Thresholds from 4 KiB: the advice path runs on small blocks too.
    options.huge_page_threshold = size_t{4096} << ((config >> 5) & 7) * 2;
    const size_t min_alignment = size_t{16} << ((config >> 5) & 7);
    switch (config % 4) {
      case 0:
      case 3:
        allocator_ = std::make_unique<MallocAllocator>(options);
        TESSERA_FUZZ_CHECK(allocator_->name() == "malloc", "name %s",
                           std::string(allocator_->name()).c_str());
        break;
      case 1: {
        // Create rejects what the constructor would round up.
        absl::StatusOr<std::unique_ptr<AlignedAllocator>> bad =
            AlignedAllocator::Create(min_alignment + 8, options);
        TESSERA_FUZZ_CHECK(
            bad.status().code() == absl::StatusCode::kInvalidArgument &&
                absl::StrContains(bad.status().message(),
                                  absl::StrCat(min_alignment + 8)),
            "Create(%zu) gave %s", min_alignment + 8,
            bad.status().ToString().c_str());
        absl::StatusOr<std::unique_ptr<AlignedAllocator>> good =
            AlignedAllocator::Create(min_alignment, options);
        TESSERA_FUZZ_CHECK(good.ok(), "Create(%zu) failed: %s", min_alignment,
                           good.status().ToString().c_str());
        allocator_ = *std::move(good);
        TESSERA_FUZZ_CHECK(
            allocator_->name() == absl::StrCat("aligned", min_alignment),
            "name %s", std::string(allocator_->name()).c_str());
        break;
      }
      case 2:
        allocator_ = std::make_unique<ZeroedAllocator>(min_alignment, options);
        zero_every_block_ = true;
        break;
    }
    TESSERA_FUZZ_CHECK(allocator_->min_alignment() ==
                           (config % 4 == 1 || config % 4 == 2
                                ? min_alignment
                                : kDefaultAlignment),
                       "min_alignment %zu", allocator_->min_alignment());
    TESSERA_FUZZ_CHECK(allocator_->max_allocation_size() ==
                           static_cast<size_t>(PTRDIFF_MAX) - kMaxAlignment,
                       "max_allocation_size %zu",
                       allocator_->max_allocation_size());
    resource_ = std::make_unique<MemoryResource>(*allocator_);
    CheckModel("fresh allocator");
    return true;
  }

  // ---- Operand decoding. ----

  size_t DecodeSize() {
    const int size_class = in_.ConsumeIntegralInRange<int>(0, 31);
    if (size_class < 16) return in_.ConsumeIntegralInRange<size_t>(0, 64);
    if (size_class < 26) return in_.ConsumeIntegralInRange<size_t>(0, 4096);
    // Past the 4 MiB default huge-page threshold only behind a second zero
    // byte: each such block costs page faults on megabytes. (The advice path
    // itself is reached with small blocks too: the configuration byte sets
    // thresholds from 4 KiB.)
    if (size_class < 31 || in_.ConsumeByte() != 0) {
      return in_.ConsumeIntegralInRange<size_t>(0, 1 << 17);
    }
    return in_.ConsumeIntegralInRange<size_t>(size_t{4} << 20, size_t{5} << 20);
  }

  // 0 decodes to "no alignment argument" (kDefaultAlignment); else 1..64 KiB.
  size_t DecodeAlignment() {
    const int shift = in_.ConsumeIntegralInRange<int>(0, 17);
    return shift == 0 ? kDefaultAlignment : size_t{1} << (shift - 1);
  }

  // An index into shadow_.blocks(); requires a live block.
  size_t PickBlock() { return fuzzing::PickLive(in_, shadow_); }

  size_t Guaranteed(size_t alignment) const {
    size_t g = allocator_->min_alignment();
    if (alignment > g) g = alignment;
    return g < kDefaultAlignment ? kDefaultAlignment : g;
  }

  bool HasRoomFor(size_t bytes) const {
    return shadow_.size() < kMaxLiveBlocks &&
           shadow_.bytes_in_use() + bytes <= kMaxLiveBytes;
  }

  // ---- The model. ----

  void CheckModel(const char* when) {
    stats_.Check(*allocator_, shadow_, when);
    violations_.CheckAllExpected(when);
  }

  // Records a block the allocator just returned: placement, zeroing, then
  // the block's pattern.
  void Adopt(void* ptr, size_t bytes, size_t alignment, bool zeroed, int tag,
             const char* what) {
    TESSERA_FUZZ_CHECK(ptr != nullptr, "%s of %zu bytes aligned to %zu failed",
                       what, bytes, alignment);
    if (zeroed || zero_every_block_) CheckZero(ptr, 0, bytes, what);
    fuzzing::RecordNewBlock(shadow_, ptr, bytes, alignment,
                            Guaranteed(alignment), tag);
    stats_.NoteAllocation(shadow_);
  }

  void ExpectFailure(const absl::Status& status, absl::StatusCode code,
                     const std::string& names, const char* what) {
    TESSERA_FUZZ_CHECK(status.code() == code,
                       "%s: expected code %d, got %s", what,
                       static_cast<int>(code), status.ToString().c_str());
    TESSERA_FUZZ_CHECK(names.empty() ||
                           absl::StrContains(status.message(), names),
                       "%s: message '%s' does not name '%s'", what,
                       std::string(status.message()).c_str(), names.c_str());
    ++stats_.failed_requests;
  }

  void CheckIntact(const ShadowHeap::Block& block, const char* what) {
    CheckPattern(block.ptr, block.id, 0, block.bytes, what);
  }

  // ---- Good operations. ----

  void AllocateNew(bool zeroed, bool checked) {
    const size_t bytes = DecodeSize();
    const size_t alignment = DecodeAlignment();
    if (!HasRoomFor(bytes)) return;
    void* ptr =
        fuzzing::AllocateOrDie(*allocator_, bytes, alignment, zeroed, checked);
    // AllocateOrDie has checked the zeroing it asked for.
    Adopt(ptr, bytes, alignment, /*zeroed=*/false, kViaAllocator,
          "allocation");
  }

  void Reallocate(bool checked) {
    if (shadow_.empty()) return;
    const size_t index = PickBlock();
    const size_t new_bytes = DecodeSize();
    ShadowHeap::Block block = shadow_.blocks()[index];
    if (new_bytes > block.bytes && !HasRoomFor(new_bytes - block.bytes)) return;
    void* fresh =
        fuzzing::ReallocateOrDie(*allocator_, block, new_bytes, checked);
    if (zero_every_block_ && new_bytes > block.bytes) {
      CheckZero(fresh, block.bytes, new_bytes, "grown tail of zeroed block");
    }
    fuzzing::RecordMovedBlock(shadow_, index, fresh, new_bytes,
                              Guaranteed(block.alignment));
    shadow_.blocks()[index].tag = kViaAllocator;
    stats_.NoteReallocation(shadow_);
  }

  void Free(size_t index, bool checked) {
    const ShadowHeap::Block block = shadow_.blocks()[index];
    CheckIntact(block, "before free");
    switch (block.tag) {
      case kViaPmr:
        resource_->deallocate(block.ptr, block.bytes, block.alignment);
        break;
      case kViaStd:
        StdAllocator<Wide>(*allocator_)
            .deallocate(static_cast<Wide*>(block.ptr),
                        block.bytes / sizeof(Wide));
        break;
      default:
        fuzzing::DeallocateOrDie(*allocator_, block, checked);
    }
    shadow_.Remove(index);
    ++stats_.deallocations;
  }

  // ---- Misuse, which must be rejected and change nothing. ----

  void BadAlignment() {
    static constexpr size_t kBad[] = {0,
                                      3,
                                      24,
                                      48,
                                      100,
                                      (size_t{1} << 20) + 1,
                                      kMaxAlignment << 1,
                                      size_t{1} << 63,
                                      SIZE_MAX};
    const size_t alignment = in_.PickValueInArray(kBad);
    const size_t bytes = DecodeSize();
    const std::string named = absl::StrCat(alignment);
    const int variant = in_.ConsumeIntegralInRange<int>(0, 6);
    if (variant >= 4 && shadow_.empty()) return;
    const ShadowHeap::Block* block =
        variant >= 4 ? &shadow_.blocks()[PickBlock()] : nullptr;
    switch (variant) {
      case 0:
      case 1: {
        void* ptr = variant == 0 ? allocator_->Allocate(bytes, alignment)
                                 : allocator_->AllocateZeroed(bytes, alignment);
        TESSERA_FUZZ_CHECK(ptr == nullptr, "alignment %zu accepted", alignment);
        ++stats_.failed_requests;
        break;
      }
      case 2:
        ExpectFailure(allocator_->AllocateChecked(bytes, alignment).status(),
                      absl::StatusCode::kInvalidArgument, named,
                      "AllocateChecked with a bad alignment");
        break;
      case 3:
        ExpectFailure(
            allocator_->AllocateZeroedChecked(bytes, alignment).status(),
            absl::StatusCode::kInvalidArgument, named,
            "AllocateZeroedChecked with a bad alignment");
        break;
      case 4:
        ExpectFailure(allocator_
                          ->ReallocateChecked(block->ptr, block->bytes, bytes,
                                              alignment)
                          .status(),
                      absl::StatusCode::kInvalidArgument, named,
                      "ReallocateChecked with a bad alignment");
        break;
      case 5:
        TESSERA_FUZZ_CHECK(allocator_->Reallocate(block->ptr, block->bytes,
                                                  bytes, alignment) == nullptr,
                           "reallocation with alignment %zu accepted",
                           alignment);
        ++stats_.failed_requests;
        break;
      case 6:
        ExpectFailure(
            allocator_->DeallocateChecked(block->ptr, block->bytes, alignment),
            absl::StatusCode::kInvalidArgument, named,
            "DeallocateChecked with a bad alignment");
        break;
    }
    if (block != nullptr) CheckIntact(*block, "after a rejected request");
  }

  void BadSize() {
    const size_t max = allocator_->max_allocation_size();
    const size_t kBad[] = {SIZE_MAX,          SIZE_MAX - 1,
                           SIZE_MAX - 15,     SIZE_MAX / 2 + 1,
                           max + 1,           static_cast<size_t>(PTRDIFF_MAX),
                           SIZE_MAX - 4095};
    const size_t bytes = in_.PickValueInArray(kBad);
    const int variant = in_.ConsumeIntegralInRange<int>(0, 8);
    if ((variant == 4 || variant == 5) && shadow_.empty()) return;
    const ShadowHeap::Block* block =
        variant == 4 || variant == 5 ? &shadow_.blocks()[PickBlock()] : nullptr;
    const size_t alignment =
        block != nullptr ? block->alignment : DecodeAlignment();
    const size_t granule =
        alignment > kDefaultAlignment ? alignment : kDefaultAlignment;
    // The checked API calls a size whose rounding overflows invalid, and a
    // representable but impossible one exhausted.
    const absl::StatusCode code = bytes > SIZE_MAX - (granule - 1)
                                      ? absl::StatusCode::kInvalidArgument
                                      : absl::StatusCode::kResourceExhausted;
    const std::string named = absl::StrCat(bytes);
    switch (variant) {
      case 0:
      case 1: {
        void* ptr = variant == 0 ? allocator_->Allocate(bytes, alignment)
                                 : allocator_->AllocateZeroed(bytes, alignment);
        TESSERA_FUZZ_CHECK(ptr == nullptr, "size %zu accepted", bytes);
        ++stats_.failed_requests;
        break;
      }
      case 2:
        ExpectFailure(allocator_->AllocateChecked(bytes, alignment).status(),
                      code, named, "AllocateChecked with an impossible size");
        break;
      case 3:
        ExpectFailure(
            allocator_->AllocateZeroedChecked(bytes, alignment).status(), code,
            named, "AllocateZeroedChecked with an impossible size");
        break;
      case 4:
        ExpectFailure(allocator_
                          ->ReallocateChecked(block->ptr, block->bytes, bytes, alignment)
                          .status(),
                      code, named, "ReallocateChecked to an impossible size");
        break;
      case 5:
        TESSERA_FUZZ_CHECK(
            allocator_->Reallocate(block->ptr, block->bytes, bytes,
                                   alignment) == nullptr,
            "reallocation to %zu bytes accepted", bytes);
        ++stats_.failed_requests;
        break;
      case 6: {
        bool threw = false;
        try {
          void* never = resource_->allocate(bytes, granule);
          TESSERA_FUZZ_CHECK(never == nullptr, "pmr allocate(%zu) returned %p",
                             bytes, never);
        } catch (const std::bad_alloc&) {
          threw = true;
        }
        TESSERA_FUZZ_CHECK(threw, "pmr allocate(%zu) did not throw", bytes);
        ++stats_.failed_requests;
        break;
      }
      case 7: {
        // n * sizeof(Wide) is representable: the allocator refuses it.
        bool threw = false;
        try {
          Wide* never =
              StdAllocator<Wide>(*allocator_).allocate(bytes / sizeof(Wide));
          TESSERA_FUZZ_CHECK(never == nullptr, "StdAllocator returned %p",
                             static_cast<void*>(never));
        } catch (const std::bad_alloc&) {
          threw = true;
        }
        TESSERA_FUZZ_CHECK(threw, "StdAllocator allocate(%zu) did not throw",
                           bytes / sizeof(Wide));
        ++stats_.failed_requests;
        break;
      }
      case 8: {
        // n * sizeof(Wide) overflows: refused before the allocator is asked.
        bool threw = false;
        try {
          Wide* never = StdAllocator<Wide>(*allocator_)
                            .allocate(SIZE_MAX / sizeof(Wide) + 1 + bytes % 7);
          TESSERA_FUZZ_CHECK(never == nullptr, "StdAllocator returned %p",
                             static_cast<void*>(never));
        } catch (const std::bad_array_new_length&) {
          threw = true;
        }
        TESSERA_FUZZ_CHECK(threw, "StdAllocator did not refuse an overflow");
        break;
      }
    }
    if (block != nullptr) CheckIntact(*block, "after a rejected request");
  }

  void DoubleFree() {
    // Without the registry, a double free reaches free(): undefined.
    if (!tracked_) return;
    ShadowHeap::Block freed;
    if (!shadow_.PickRecentlyFreed(in_.ConsumeByte(), &freed)) return;
    const int mark = violations_.Mark();
    switch (in_.ConsumeIntegralInRange<int>(0, 3)) {
      case 0:
        ExpectFailure(allocator_->DeallocateChecked(freed.ptr, freed.bytes,
                                                    freed.alignment),
                      absl::StatusCode::kFailedPrecondition, "double free",
                      "DeallocateChecked of a freed block");
        break;
      case 1:
        allocator_->Deallocate(freed.ptr, freed.bytes, freed.alignment);
        violations_.ExpectOne(mark, freed.ptr, ContractViolation::kDoubleFree,
                        "Deallocate of a freed block");
        break;
      case 2:
        ExpectFailure(allocator_
                          ->ReallocateChecked(freed.ptr, freed.bytes, 64,
                                              freed.alignment)
                          .status(),
                      absl::StatusCode::kFailedPrecondition, "double free",
                      "ReallocateChecked of a freed block");
        break;
      case 3:
        TESSERA_FUZZ_CHECK(allocator_->Reallocate(freed.ptr, freed.bytes, 64,
                                                  freed.alignment) == nullptr,
                           "reallocation of freed %p accepted", freed.ptr);
        violations_.ExpectOne(mark, freed.ptr, ContractViolation::kDoubleFree,
                        "Reallocate of a freed block");
        ++stats_.failed_requests;
        break;
    }
  }

  void ForeignPointer() {
    const bool interior = in_.ConsumeBool();
    size_t alignment = DecodeAlignment();
    size_t bytes = DecodeSize();
    void* ptr;
    const ShadowHeap::Block* block = nullptr;
    if (tracked_) {
      if (interior && !shadow_.empty()) {
        block = &shadow_.blocks()[PickBlock()];
        if (block->bytes < 2) return;
        const size_t offset =
            1 + in_.ConsumeIntegralInRange<size_t>(0, 4095) % (block->bytes - 1);
        ptr = static_cast<char*>(block->ptr) + offset;
      } else {
        ptr = g_foreign + 4096;
      }
    } else {
      // Untracked: only AlignedAllocator's header can tell, so use an
      // alignment with a header and memory whose "header" is zero.
      if (allocator_->min_alignment() <= kDefaultAlignment) {
        if (std::string(allocator_->name()) == "malloc") return;
        if (alignment <= kDefaultAlignment || alignment > 4096) alignment = 64;
      } else if (alignment > 4096) {
        alignment = 4096;
      }
      ptr = g_foreign + 4096;
    }
    if (alignment > 4096 && ptr == g_foreign + 4096) alignment = 4096;
    // For an interior pointer the registry may remember a block that once
    // started there: it then says double free, which is also a rejection.
    const auto right_kind = [&](ContractViolation kind) {
      return kind == ContractViolation::kForeignPointer ||
             (block != nullptr && kind == ContractViolation::kDoubleFree);
    };
    const int mark = violations_.Mark();
    switch (in_.ConsumeIntegralInRange<int>(0, 3)) {
      case 0:
        ExpectFailure(allocator_->DeallocateChecked(ptr, bytes, alignment),
                      absl::StatusCode::kFailedPrecondition, "",
                      "DeallocateChecked of a foreign pointer");
        break;
      case 1:
        allocator_->Deallocate(ptr, bytes, alignment);
        violations_.ExpectOne(mark, ptr, "Deallocate of a foreign pointer");
        TESSERA_FUZZ_CHECK(right_kind(g_violations.last),
                           "Deallocate of foreign %p: reported '%s'", ptr,
                           std::string(ContractViolationName(
                                           g_violations.last)).c_str());
        break;
      case 2:
        ExpectFailure(
            allocator_->ReallocateChecked(ptr, bytes, 64, alignment).status(),
            absl::StatusCode::kFailedPrecondition, "",
            "ReallocateChecked of a foreign pointer");
        break;
      case 3:
        TESSERA_FUZZ_CHECK(
            allocator_->Reallocate(ptr, bytes, 64, alignment) == nullptr,
            "reallocation of foreign %p accepted", ptr);
        violations_.ExpectOne(mark, ptr, "Reallocate of a foreign pointer");
        TESSERA_FUZZ_CHECK(right_kind(g_violations.last),
                           "Reallocate of foreign %p: reported '%s'", ptr,
                           std::string(ContractViolationName(
                                           g_violations.last)).c_str());
        ++stats_.failed_requests;
        break;
    }
    if (block != nullptr) CheckIntact(*block, "after a foreign-pointer attempt");
  }

  void SizeMismatch() {
    if (!tracked_ || shadow_.empty()) return;
    const ShadowHeap::Block& block = shadow_.blocks()[PickBlock()];
    size_t bytes = block.bytes;
    size_t alignment = block.alignment;
    if (in_.ConsumeBool()) {
      bytes += 1 + in_.ConsumeByte();
    } else {
      alignment = alignment == 64 ? 32 : 64;
    }
    const int mark = violations_.Mark();
    switch (in_.ConsumeIntegralInRange<int>(0, 2)) {
      case 0:
        ExpectFailure(allocator_->DeallocateChecked(block.ptr, bytes, alignment),
                      absl::StatusCode::kFailedPrecondition,
                      absl::StrCat(block.bytes),
                      "DeallocateChecked with the wrong size");
        break;
      case 1:
        allocator_->Deallocate(block.ptr, bytes, alignment);
        violations_.ExpectOne(mark, block.ptr, ContractViolation::kSizeMismatch,
                        "Deallocate with the wrong size");
        break;
      case 2:
        TESSERA_FUZZ_CHECK(allocator_->Reallocate(block.ptr, bytes, 64,
                                                  alignment) == nullptr,
                           "reallocation with the wrong size accepted");
        violations_.ExpectOne(mark, block.ptr, ContractViolation::kSizeMismatch,
                        "Reallocate with the wrong size");
        ++stats_.failed_requests;
        break;
    }
    CheckIntact(block, "after a size mismatch");
  }

  // ---- The adapters. ----

  void PmrBlock() {
    const size_t bytes = DecodeSize();
    const size_t alignment = DecodeAlignment();
    if (!HasRoomFor(bytes)) return;
    Adopt(resource_->allocate(bytes, alignment), bytes, alignment, false,
          kViaPmr, "pmr allocate");
  }

  void StdBlock() {
    const size_t n = DecodeSize() / sizeof(Wide);
    if (!HasRoomFor(n * sizeof(Wide))) return;
    Adopt(StdAllocator<Wide>(*allocator_).allocate(n), n * sizeof(Wide),
          alignof(Wide), false, kViaStd, "StdAllocator allocate");
  }

  // Runs `body`, which builds and destroys containers over the allocator,
  // and checks they gave back everything they took, took at least
  // `min_allocations` blocks, and did not disturb any live block. The peak
  // they reached is bounded by `peak_bound` bytes above the current use.
  template <typename Body>
  void Containers(uint64_t min_allocations, uint64_t peak_bound, Body body) {
    const AllocatorStats before = allocator_->stats();
    body();
    const AllocatorStats after = allocator_->stats();
    const uint64_t taken = after.allocations - before.allocations;
    TESSERA_FUZZ_CHECK(taken >= min_allocations,
                       "containers allocated %llu blocks, expected >= %llu",
                       static_cast<unsigned long long>(taken),
                       static_cast<unsigned long long>(min_allocations));
    TESSERA_FUZZ_CHECK(
        after.deallocations - before.deallocations == taken &&
            after.bytes_in_use == before.bytes_in_use &&
            after.failed_requests == before.failed_requests,
        "containers did not give back what they took");
    TESSERA_FUZZ_CHECK(after.peak_bytes_in_use >= before.peak_bytes_in_use &&
                           after.peak_bytes_in_use <=
                               std::max<uint64_t>(before.peak_bytes_in_use,
                                                  before.bytes_in_use +
                                                      peak_bound),
                       "peak %llu after containers is out of bounds",
                       static_cast<unsigned long long>(after.peak_bytes_in_use));
    stats_.allocations += taken;
    stats_.deallocations += taken;
    stats_.peak_bytes_in_use = after.peak_bytes_in_use;
    VerifyAll();
  }

  void PmrContainers() {
    const size_t n = in_.ConsumeIntegralInRange<size_t>(0, 1000);
    const uint32_t seed = in_.ConsumeByte();
    const uint64_t bound = 4 * n * sizeof(uint32_t) + 4 * sizeof(Wide) * n +
                           (n + 1) * 256;
    Containers(n > 0 ? 1 : 0, bound, [&] {
      MemoryResource same(*allocator_);
      MallocAllocator other_allocator;
      MemoryResource other(other_allocator);
      TESSERA_FUZZ_CHECK(resource_->is_equal(same) && same.is_equal(*resource_),
                         "resources over one allocator differ");
      TESSERA_FUZZ_CHECK(!resource_->is_equal(other) &&
                             !resource_->is_equal(
                                 *std::pmr::new_delete_resource()),
                         "resources over different allocators are equal");
      TESSERA_FUZZ_CHECK(&resource_->allocator() == allocator_.get(),
                         "resource lost its allocator");
      std::pmr::vector<uint32_t> values(resource_.get());
      for (size_t i = 0; i < n; ++i) values.push_back(seed + i * 3);
      std::pmr::vector<Wide> wide(&same);
      wide.resize(n / 16);
      for (const Wide& w : wide) {
        TESSERA_FUZZ_CHECK(fuzzing::IsAligned(&w, alignof(Wide)),
                           "pmr vector element %p misaligned",
                           static_cast<const void*>(&w));
      }
      for (size_t i = 0; i < n; ++i) {
        TESSERA_FUZZ_CHECK(values[i] == seed + i * 3,
                           "pmr vector element %zu corrupted", i);
      }
    });
  }

  void StdContainers() {
    const size_t n = in_.ConsumeIntegralInRange<size_t>(0, 500);
    const uint16_t seed = in_.ConsumeByte();
    const uint64_t bound = 4 * n * sizeof(Wide) + n * 128 + 256;
    Containers(n > 0 ? 2 : 0, bound, [&] {
      // The scoped default reaches default-constructed StdAllocators.
      ScopedDefaultAllocator scope(*allocator_);
      StdAllocator<uint16_t> by_default;
      TESSERA_FUZZ_CHECK(&by_default.allocator() == allocator_.get(),
                         "StdAllocator did not pick up the scoped default");
      std::vector<uint16_t, StdAllocator<uint16_t>> shorts(by_default);
      for (size_t i = 0; i < n; ++i) shorts.push_back(seed + i);
      std::vector<Wide, StdAllocator<Wide>> wide(n / 4,
                                                 StdAllocator<Wide>(by_default));
      TESSERA_FUZZ_CHECK(
          wide.empty() || fuzzing::IsAligned(wide.data(), alignof(Wide)),
          "StdAllocator<Wide> storage %p misaligned",
          static_cast<void*>(wide.data()));
      TESSERA_FUZZ_CHECK(StdAllocator<Wide>(by_default) == by_default,
                         "rebound allocators compare unequal");
      // Nodes come through a rebound allocator.
      using Node = std::pair<const uint32_t, uint32_t>;
      std::map<uint32_t, uint32_t, std::less<uint32_t>, StdAllocator<Node>> map(
          (StdAllocator<Node>(*allocator_)));
      for (size_t i = 0; i < n; ++i) map.emplace((i * 7919) % (n + 1), i);
      for (size_t i = 0; i < n; ++i) {
        TESSERA_FUZZ_CHECK(shorts[i] == static_cast<uint16_t>(seed + i),
                           "std vector element %zu corrupted", i);
      }
    });
  }

  void VerifyAll() { fuzzing::CheckAllPatterns(shadow_); }

  void Step(Op op) {
    switch (op) {
      case Op::kAllocate:
        AllocateNew(/*zeroed=*/false, /*checked=*/false);
        break;
      case Op::kAllocateZeroed:
        AllocateNew(/*zeroed=*/true, /*checked=*/false);
        break;
      case Op::kAllocateChecked:
        AllocateNew(/*zeroed=*/false, /*checked=*/true);
        break;
      case Op::kAllocateZeroedChecked:
        AllocateNew(/*zeroed=*/true, /*checked=*/true);
        break;
      case Op::kReallocate:
        Reallocate(/*checked=*/false);
        break;
      case Op::kReallocateChecked:
        Reallocate(/*checked=*/true);
        break;
      case Op::kDeallocate:
        if (!shadow_.empty()) Free(PickBlock(), /*checked=*/false);
        break;
      case Op::kDeallocateChecked:
        if (!shadow_.empty()) Free(PickBlock(), /*checked=*/true);
        break;
      case Op::kBadAlignment:
        BadAlignment();
        break;
      case Op::kBadSize:
        BadSize();
        break;
      case Op::kDoubleFree:
        DoubleFree();
        break;
      case Op::kForeignPointer:
        ForeignPointer();
        break;
      case Op::kSizeMismatch:
        SizeMismatch();
        break;
      case Op::kPmrBlock:
        PmrBlock();
        break;
      case Op::kStdBlock:
        StdBlock();
        break;
      case Op::kPmrContainers:
        PmrContainers();
        break;
      case Op::kStdContainers:
        StdContainers();
        break;
      case Op::kVerifyAll:
      case Op::kNumOps:
        VerifyAll();
        break;
    }
  }

  const ShadowHeap& shadow() const { return shadow_; }

 private:
  ByteReader& in_;
  std::unique_ptr<SystemAllocator> allocator_;
  std::unique_ptr<MemoryResource> resource_;
  bool tracked_ = true;
  bool zero_every_block_ = false;
  ShadowHeap shadow_;
  fuzzing::StatsModel stats_;  // bytes in use come from the shadow heap
  fuzzing::ExpectedViolations violations_;
};

}  // namespace
}  // namespace tessera

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return tessera::fuzzing::RunAllocatorHarness<tessera::Harness>(data, size);
}
