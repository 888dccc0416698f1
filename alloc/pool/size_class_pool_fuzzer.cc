// Copyright 2026 The Tessera Authors.
//
// -----------------------------------------------------------------------------
// File: size_class_pool_fuzzer.cc
// -----------------------------------------------------------------------------
//
// Fuzzes SizeClassPool through the tessera::Allocator interface against the
// shadow model of fuzz/shadow_heap.h, following the rule in fuzz/README.md.
//
// Input: one configuration byte (block size, idle-block policy, return
// checks, block source), then ops, each an opcode byte and its operands.
//
// Properties checked:
//   * every block is aligned to max(requested, 16), overlaps no live block,
//     reads as zero when allocated zeroed, and keeps the pattern of its id
//     until freed; reallocation keeps the prefix;
//   * CheckIntegrity() is OK after every op; stats() equal the model; the
//     upstream allocator holds exactly the live blocks that no class serves
//     (ClassFor < 0), and the block source exactly the classes' blocks;
//   * misuse of small blocks (with return checks) changes nothing: a double
//     free, a foreign or interior pointer, and a free with a size of another
//     class are reported once (hot path) or rejected (checked path); invalid
//     alignments and impossible sizes are refused and counted;
//   * at the end, after freeing everything, Trim leaves no class block, and
//     nothing is live in the upstream allocator or the block source.
// Blocks above 1 KiB are the upstream allocator's to check (see the header),
// so no misuse is attempted on them.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "alloc/allocator.h"
#include "alloc/pool/size_class_pool.h"
#include "alloc/system/system_allocator.h"
#include "fuzz/byte_reader.h"
#include "fuzz/allocator_checks.h"
#include "fuzz/fuzz_check.h"
#include "fuzz/shadow_heap.h"

namespace tessera {
namespace {

using fuzzing::ByteReader;
using fuzzing::CheckPattern;
using fuzzing::ShadowHeap;

constexpr size_t kMaxOps = 1024;
constexpr size_t kMaxLiveBlocks = 1024;

enum class Op : uint8_t {
  kAllocate,
  kAllocateZeroed,
  kAllocateChecked,
  kDeallocate,
  kDeallocateChecked,
  kReallocate,
  kReallocateChecked,
  kTrim,
  kDoubleFree,
  kForeign,
  kSizeMismatch,
  kBadRequest,
  kVerifyAll,
  kNumOps,
};

alignas(4096) uint8_t g_foreign[8192];

class Harness {
 public:
  explicit Harness(ByteReader& in)
      : in_(in),
        upstream_(fuzzing::TrackedMallocOptions()),
        block_source_(fuzzing::TrackedMallocOptions()) {}

  void Run() {
    const uint8_t config = in_.ConsumeByte();
    SizeClassPoolOptions options;
    options.upstream = &upstream_;
    options.block_bytes = size_t{4096} << (config & 7);
    options.keep_idle_blocks = (config >> 3) & 3;
    options.check_returns = (config & 0x20) == 0;
    if ((config & 0x40) != 0) options.block_source = &block_source_;
    checks_ = options.check_returns;
    pool_ = fuzzing::CreatedOrDie(SizeClassPool::Create(options), "Create");
    SizeClassPoolOptions bad = options;
    bad.block_bytes = options.block_bytes * 3;  // not a power of two
    TESSERA_FUZZ_CHECK(
        absl::IsInvalidArgument(SizeClassPool::Create(bad).status()),
        "block_bytes %zu accepted", bad.block_bytes);
    CheckModel("fresh pool");

    fuzzing::RunHarnessProgram<Op>(in_, kMaxOps, *this);
    fuzzing::FreeEverything(*this);
    pool_->Trim();
    for (int c = 0; c < SizeClassPool::kNumClasses; ++c) {
      TESSERA_FUZZ_CHECK(pool_->class_pool(c).stats().blocks == 0,
                         "class %d keeps %llu blocks after Trim", c,
                         static_cast<unsigned long long>(
                             pool_->class_pool(c).stats().blocks));
    }
    fuzzing::DestroyAndCheckNothingLive(pool_, upstream_, &block_source_,
                                        "after destroying the pool");
  }

  // The rest is public for fuzzing::StepInterfaceOp and FreeEverything.
  const ShadowHeap& shadow() const { return shadow_; }
  size_t DecodeSize() {
    const int size_class = in_.ConsumeIntegralInRange<int>(0, 7);
    if (size_class < 6) return in_.ConsumeIntegralInRange<size_t>(0, 1024);
    return in_.ConsumeIntegralInRange<size_t>(0, 8192);
  }

  size_t DecodeAlignment() {
    const int shift = in_.ConsumeIntegralInRange<int>(0, 13);
    return shift == 0 ? kDefaultAlignment : size_t{1} << (shift - 1);
  }

  size_t PickBlock() { return fuzzing::PickLive(in_, shadow_); }

  static size_t Guaranteed(size_t alignment) {
    return alignment > kDefaultAlignment ? alignment : kDefaultAlignment;
  }

  void CheckModel(const char* when) {
    stats_.Check(*pool_, shadow_, when);
    uint64_t upstream_blocks = 0;
    uint64_t class_blocks = 0;
    for (const ShadowHeap::Block& b : shadow_.blocks()) {
      if (SizeClassPool::ClassFor(b.bytes, b.alignment) < 0) ++upstream_blocks;
    }
    for (int c = 0; c < SizeClassPool::kNumClasses; ++c) {
      class_blocks += pool_->class_pool(c).stats().blocks;
    }
    fuzzing::CheckLiveBlocks(upstream_, upstream_blocks, "upstream", when);
    if (block_source_.stats().allocations > 0) {
      fuzzing::CheckLiveBlocks(block_source_, class_blocks, "block source",
                               when);
    }
    violations_.CheckAllExpected(when);
  }

  void Allocate(bool zeroed, bool checked) {
    const size_t bytes = DecodeSize();
    const size_t alignment = DecodeAlignment();
    if (shadow_.size() >= kMaxLiveBlocks) return;
    void* ptr =
        fuzzing::AllocateOrDie(*pool_, bytes, alignment, zeroed, checked);
    fuzzing::RecordNewBlock(shadow_, ptr, bytes, alignment,
                            Guaranteed(alignment));
    stats_.NoteAllocation(shadow_);
  }

  void Free(size_t index, bool checked) {
    fuzzing::DeallocateOrDie(*pool_, shadow_.blocks()[index], checked);
    shadow_.Remove(index);
    ++stats_.deallocations;
  }

  void Reallocate(bool checked) {
    if (shadow_.empty()) return;
    const size_t index = PickBlock();
    const size_t new_bytes = DecodeSize();
    const ShadowHeap::Block block = shadow_.blocks()[index];
    void* fresh = fuzzing::ReallocateOrDie(*pool_, block, new_bytes, checked);
    fuzzing::RecordMovedBlock(shadow_, index, fresh, new_bytes,
                              Guaranteed(block.alignment));
    stats_.NoteReallocation(shadow_);
  }

  // A live or recently freed small block to misuse, if any.
  bool IsSmall(const ShadowHeap::Block& b) const {
    return SizeClassPool::ClassFor(b.bytes, b.alignment) >= 0;
  }

  void DoubleFree() {
    if (!checks_) return;  // undefined without return checks
    ShadowHeap::Block freed;
    if (!shadow_.PickRecentlyFreed(in_.ConsumeByte(), &freed) ||
        !IsSmall(freed)) {
      return;
    }
    const int mark = violations_.Mark();
    if (in_.ConsumeBool()) {
      const absl::Status s =
          pool_->DeallocateChecked(freed.ptr, freed.bytes, freed.alignment);
      TESSERA_FUZZ_CHECK(absl::IsFailedPrecondition(s),
                         "DeallocateChecked of a freed block: %s",
                         s.ToString().c_str());
      ++stats_.failed_requests;
    } else {
      pool_->Deallocate(freed.ptr, freed.bytes, freed.alignment);
      violations_.ExpectOne(mark, freed.ptr, "Deallocate of a freed block");
    }
  }

  void Foreign() {
    if (!checks_) return;
    void* ptr = g_foreign + 4096;
    size_t bytes = in_.ConsumeIntegralInRange<size_t>(0, 1024);
    const size_t alignment = kDefaultAlignment;
    if (in_.ConsumeBool() && !shadow_.empty()) {
      const ShadowHeap::Block& block = shadow_.blocks()[PickBlock()];
      if (!IsSmall(block) || block.bytes < 32) return;
      ptr = static_cast<char*>(block.ptr) + 16;  // interior, still aligned
      bytes = block.bytes;
    }
    if (SizeClassPool::ClassFor(bytes, alignment) < 0) return;
    const int mark = violations_.Mark();
    if (in_.ConsumeBool()) {
      TESSERA_FUZZ_CHECK(
          absl::IsFailedPrecondition(
              pool_->DeallocateChecked(ptr, bytes, alignment)),
          "DeallocateChecked of foreign %p accepted", ptr);
      ++stats_.failed_requests;
    } else {
      pool_->Deallocate(ptr, bytes, alignment);
      violations_.ExpectOne(mark, ptr, ContractViolation::kForeignPointer,
                            "Deallocate of a foreign pointer");
    }
    VerifyAll();
  }

  void SizeMismatch() {
    if (!checks_ || shadow_.empty()) return;
    const ShadowHeap::Block& block = shadow_.blocks()[PickBlock()];
    if (!IsSmall(block)) return;
    const int cls = SizeClassPool::ClassFor(block.bytes, block.alignment);
    const size_t wrong = in_.ConsumeIntegralInRange<size_t>(0, 1024);
    const int wrong_cls = SizeClassPool::ClassFor(wrong, block.alignment);
    if (wrong_cls < 0 || wrong_cls == cls) return;
    const int mark = violations_.Mark();
    if (in_.ConsumeBool()) {
      TESSERA_FUZZ_CHECK(absl::IsFailedPrecondition(pool_->DeallocateChecked(
                             block.ptr, wrong, block.alignment)),
                         "free of a %zu-byte block as %zu bytes accepted",
                         block.bytes, wrong);
      ++stats_.failed_requests;
    } else {
      pool_->Deallocate(block.ptr, wrong, block.alignment);
      violations_.ExpectOne(mark, block.ptr, ContractViolation::kSizeMismatch,
                            "Deallocate with the wrong size");
    }
    CheckPattern(block.ptr, block.id, 0, block.bytes, "after a mismatch");
  }

  void BadRequest() {
    static constexpr size_t kBadAlignments[] = {3, 24, 100, SIZE_MAX};
    const int variant = in_.ConsumeIntegralInRange<int>(0, 3);
    const size_t alignment = in_.PickValueInArray(kBadAlignments);
    switch (variant) {
      case 0:
        TESSERA_FUZZ_CHECK(pool_->Allocate(64, alignment) == nullptr,
                           "alignment %zu accepted", alignment);
        break;
      case 1:
        TESSERA_FUZZ_CHECK(absl::IsInvalidArgument(
                               pool_->AllocateChecked(64, alignment).status()),
                           "AllocateChecked alignment %zu accepted", alignment);
        break;
      case 2:
        TESSERA_FUZZ_CHECK(pool_->Allocate(SIZE_MAX - 8) == nullptr,
                           "SIZE_MAX - 8 bytes accepted");
        break;
      case 3:
        TESSERA_FUZZ_CHECK(!pool_->AllocateChecked(SIZE_MAX).ok(),
                           "SIZE_MAX bytes accepted");
        break;
    }
    ++stats_.failed_requests;
  }

  void VerifyAll() { fuzzing::CheckAllPatterns(shadow_); }

  void Step(Op op) {
    if (fuzzing::StepInterfaceOp(*this, op)) return;
    if (op == Op::kTrim) {
      pool_->Trim();
      VerifyAll();
    }
  }


  ByteReader& in_;
  MallocAllocator upstream_;
  MallocAllocator block_source_;
  std::unique_ptr<SizeClassPool> pool_;
  bool checks_ = true;
  ShadowHeap shadow_;
  fuzzing::StatsModel stats_;
  fuzzing::ExpectedViolations violations_;
};

}  // namespace
}  // namespace tessera

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return tessera::fuzzing::RunAllocatorHarness<tessera::Harness>(data, size);
}
