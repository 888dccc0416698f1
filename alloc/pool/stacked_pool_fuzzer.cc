// Copyright 2026 The Tessera Authors.
//
// -----------------------------------------------------------------------------
// File: stacked_pool_fuzzer.cc
// -----------------------------------------------------------------------------
//
// Fuzzes StackedPool (single-threaded op programs; ConcurrentPool's threaded
// part is its TSan stress test) against the shadow model of
// fuzz/shadow_heap.h, following the rule in fuzz/README.md.
//
// Input: three configuration bytes (cell size, alignment, cells per block,
// initial blocks, overflow policy, block source, high-water trim, return
// checks), then ops, each an opcode byte and its operands (see `Op`).
//
// Properties checked:
//   * every cell is aligned to the pool's alignment, overlaps no live cell
//     (cells are `cell_size` bytes; the stride may be larger), and keeps the
//     pattern of its id until returned;
//   * CheckIntegrity() is OK after every op and the stats equal the model:
//     cells in use, peak, takes, returns, failures (only under kFail, only
//     when every reserved cell is in use), overflow cells = upstream's live
//     blocks, reserved = blocks x cells_per_block = available + block cells
//     in use;
//   * misuse changes nothing: a double return, a foreign, interior or
//     misaligned pointer is reported once through ReportContractViolation by
//     Return (with return checks) and rejected by ReturnChecked (foreign,
//     interior and misaligned pointers even without them);
//   * at the end, after returning everything: Trim releases every block, the
//     block source and the upstream allocator have nothing live, and bad
//     options are rejected by Create.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "alloc/allocator.h"
#include "alloc/pool/stacked_pool.h"
#include "alloc/system/system_allocator.h"
#include "fuzz/byte_reader.h"
#include "fuzz/allocator_checks.h"
#include "fuzz/fuzz_check.h"
#include "fuzz/shadow_heap.h"

namespace tessera {
namespace {

using fuzzing::ByteReader;
using fuzzing::ShadowHeap;

constexpr size_t kMaxOps = 1024;
constexpr size_t kMaxLiveCells = 2048;

enum class Op : uint8_t {
  kTake,
  kTakeChecked,
  kTakeBatch,
  kReturn,
  kReturnChecked,
  kReturnBatch,
  kTrim,
  kDoubleReturn,
  kForeign,
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
    if (!MakePool()) return;
    fuzzing::RunHarnessProgram<Op>(in_, kMaxOps, *this);
    fuzzing::ReturnEveryCell(*this);
    pool_->Trim();
    const StackedPoolStats s = pool_->stats();
    TESSERA_FUZZ_CHECK(s.blocks == 0 && s.cells_reserved == 0 &&
                           s.cells_available == 0 && s.cells_in_use == 0 &&
                           s.overflow_cells_in_use == 0,
                       "idle pool after Trim: %llu blocks, %llu reserved, "
                       "%llu available, %llu in use",
                       static_cast<unsigned long long>(s.blocks),
                       static_cast<unsigned long long>(s.cells_reserved),
                       static_cast<unsigned long long>(s.cells_available),
                       static_cast<unsigned long long>(s.cells_in_use));
    CheckModel("after the final Trim");
    fuzzing::DestroyAndCheckNothingLive(pool_, upstream_, &block_source_,
                                        "after destroying the pool");
  }

  // The rest is public for fuzzing::StepCellPoolOp.
  bool MakePool() {
    const uint8_t a = in_.ConsumeByte();
    const uint8_t b = in_.ConsumeByte();
    const uint8_t c = in_.ConsumeByte();
    StackedPoolOptions options;
    options.cell_size = 8 * (1 + (a & 63));                 // 8..512
    options.alignment = size_t{8} << ((a >> 6) | ((b & 1) << 2));  // 8..256
    if ((b & 2) != 0) options.alignment = 4096;
    options.cells_per_block = 1 + ((b >> 2) & 63);          // 1..64
    options.initial_blocks = (c & 3);
    switch ((c >> 2) & 3) {
      case 1:
        options.overflow = OverflowPolicy::kUpstream;
        options.upstream = &upstream_;
        break;
      case 2:
        options.overflow = OverflowPolicy::kFail;
        if (options.initial_blocks == 0) options.initial_blocks = 1;
        break;
      default:
        options.overflow = OverflowPolicy::kGrow;
    }
    if ((c & 0x10) != 0) options.block_source = &block_source_;
    options.check_returns = (c & 0x20) == 0;
    options.name = "fuzzed_pool";

    CheckBadOptionsRejected(options);

    pool_ = fuzzing::CreatedOrDie(StackedPool::Create(options), "Create");
    if ((c & 0x40) != 0) {
      // High-water trim needs the rounded capacity: rebuild with it.
      options.trim_idle_cells_above =
          pool_->cells_per_block() * (1 + ((c >> 7) & 1));
      pool_.reset();
      pool_ = fuzzing::CreatedOrDie(StackedPool::Create(options),
                                    "Create with trim");
    }
    options_ = options;
    TESSERA_FUZZ_CHECK(pool_->cell_size() == options.cell_size &&
                           pool_->alignment() == options.alignment &&
                           pool_->stride() >= options.cell_size &&
                           pool_->stride() % options.alignment == 0 &&
                           pool_->cells_per_block() >= options.cells_per_block,
                       "pool geometry: cell %zu align %zu stride %zu cells %zu",
                       pool_->cell_size(), pool_->alignment(), pool_->stride(),
                       pool_->cells_per_block());
    CheckModel("fresh pool");
    return true;
  }

  void CheckBadOptionsRejected(const StackedPoolOptions& good) {
    StackedPoolOptions bad = good;
    switch (in_.ConsumeIntegralInRange<int>(0, 4)) {
      case 0:
        bad.cell_size = good.cell_size + 4;  // not a multiple of 8
        break;
      case 1:
        bad.alignment = 24;
        break;
      case 2:
        bad.alignment = kMaxCellAlignment * 2;
        break;
      case 3:
        bad.cells_per_block = 0;
        break;
      case 4:
        bad.overflow = OverflowPolicy::kUpstream;
        bad.upstream = nullptr;
        break;
    }
    fuzzing::CheckInvalidArgument(StackedPool::Create(bad).status(),
                                  "bad options");
  }

  void CheckModel(const char* when) {
    fuzzing::CheckIntegrityOk(pool_->CheckIntegrity(), when);
    const StackedPoolStats s = pool_->stats();
    const uint64_t overflow = upstream_.stats().live_allocations();
    TESSERA_FUZZ_CHECK(
        s.cells_in_use == shadow_.size() && s.peak_cells_in_use == peak_ &&
            s.takes == takes_ && s.returns == returns_ &&
            s.failures == failures_ && s.overflow_cells_in_use == overflow,
        "%s: stats (in use %llu, peak %llu, takes %llu, returns %llu, "
        "failures %llu, overflow %llu) != model (%zu, %llu, %llu, %llu, %llu, "
        "%llu)",
        when, static_cast<unsigned long long>(s.cells_in_use),
        static_cast<unsigned long long>(s.peak_cells_in_use),
        static_cast<unsigned long long>(s.takes),
        static_cast<unsigned long long>(s.returns),
        static_cast<unsigned long long>(s.failures),
        static_cast<unsigned long long>(s.overflow_cells_in_use),
        shadow_.size(), static_cast<unsigned long long>(peak_),
        static_cast<unsigned long long>(takes_),
        static_cast<unsigned long long>(returns_),
        static_cast<unsigned long long>(failures_),
        static_cast<unsigned long long>(overflow));
    TESSERA_FUZZ_CHECK(
        s.cells_reserved == s.blocks * pool_->cells_per_block() &&
            s.cells_available + (s.cells_in_use - s.overflow_cells_in_use) ==
                s.cells_reserved,
        "%s: %llu blocks, %llu reserved, %llu available, %llu block cells "
        "in use",
        when, static_cast<unsigned long long>(s.blocks),
        static_cast<unsigned long long>(s.cells_reserved),
        static_cast<unsigned long long>(s.cells_available),
        static_cast<unsigned long long>(s.cells_in_use -
                                        s.overflow_cells_in_use));
    if (options_.block_source != nullptr) {
      fuzzing::CheckLiveBlocks(block_source_, s.blocks, "block source", when);
    }
    violations_.CheckAllExpected(when);
  }

  // A cell just taken (or nullptr): checks when a failure is allowed.
  void Adopt(void* cell, const StackedPoolStats& before, const char* what) {
    if (cell == nullptr) {
      TESSERA_FUZZ_CHECK(options_.overflow == OverflowPolicy::kFail &&
                             before.cells_available == 0,
                         "%s failed under policy %d with %llu cells available",
                         what, static_cast<int>(options_.overflow),
                         static_cast<unsigned long long>(
                             before.cells_available));
      ++failures_;
      return;
    }
    TESSERA_FUZZ_CHECK(pool_->Owns(cell), "%s: pool does not own %p", what,
                       cell);
    fuzzing::RecordNewBlock(shadow_, cell, options_.cell_size,
                            options_.alignment, options_.alignment);
    ++takes_;
    if (shadow_.size() > peak_) peak_ = shadow_.size();
  }

  void Take(bool checked) {
    if (shadow_.size() >= kMaxLiveCells) return;
    const StackedPoolStats before = pool_->stats();
    if (checked) {
      absl::StatusOr<void*> cell = pool_->TakeChecked();
      if (!cell.ok()) {
        TESSERA_FUZZ_CHECK(absl::IsResourceExhausted(cell.status()),
                           "TakeChecked: %s",
                           cell.status().ToString().c_str());
        Adopt(nullptr, before, "TakeChecked");
        return;
      }
      Adopt(*cell, before, "TakeChecked");
    } else {
      Adopt(pool_->Take(), before, "Take");
    }
  }

  void TakeBatch() {
    const size_t n = in_.ConsumeIntegralInRange<size_t>(0, 32);
    if (shadow_.size() + n > kMaxLiveCells) return;
    const StackedPoolStats before = pool_->stats();
    void* cells[32];
    const size_t got = pool_->TakeBatch(cells, n);
    TESSERA_FUZZ_CHECK(got <= n, "TakeBatch(%zu) gave %zu", n, got);
    if (got < n) {
      TESSERA_FUZZ_CHECK(options_.overflow == OverflowPolicy::kFail,
                         "TakeBatch(%zu) gave %zu under policy %d", n, got,
                         static_cast<int>(options_.overflow));
      if (got == 0 && n > 0) Adopt(nullptr, before, "TakeBatch");
    }
    for (size_t i = 0; i < got; ++i) {
      TESSERA_FUZZ_CHECK(cells[i] != nullptr, "TakeBatch gave a null cell");
      Adopt(cells[i], before, "TakeBatch");
    }
  }

  size_t PickCell() { return fuzzing::PickLive(in_, shadow_); }
  const ShadowHeap& shadow() const { return shadow_; }

  void Return(size_t index, bool checked = false) {
    void* cell = fuzzing::TakeOutCell(shadow_, index, "before return");
    if (checked) {
      const absl::Status s = pool_->ReturnChecked(cell);
      TESSERA_FUZZ_CHECK(s.ok(), "ReturnChecked: %s", s.ToString().c_str());
    } else {
      pool_->Return(cell);
    }
    ++returns_;
  }

  void ReturnBatch() {
    const size_t n = std::min<size_t>(in_.ConsumeIntegralInRange<size_t>(0, 32),
                                      shadow_.size());
    void* cells[32];
    for (size_t i = 0; i < n; ++i) {
      cells[i] = fuzzing::TakeOutCell(shadow_, shadow_.size() - 1,
                                      "before batch return");
    }
    pool_->ReturnBatch(cells, n);
    returns_ += n;
  }

  void Trim() {
    const uint64_t blocks = pool_->stats().blocks;
    const size_t released = pool_->Trim();
    TESSERA_FUZZ_CHECK(pool_->stats().blocks == blocks - released,
                       "Trim released %zu of %llu blocks, %llu left",
                       released, static_cast<unsigned long long>(blocks),
                       static_cast<unsigned long long>(pool_->stats().blocks));
    VerifyAll();  // released blocks never held a live cell
  }

  void DoubleReturn() {
    if (!pool_->checks_returns()) return;  // undefined without checks
    ShadowHeap::Block freed;
    if (!shadow_.PickRecentlyFreed(in_.ConsumeByte(), &freed)) return;
    // Its block (or overflow cell) may be gone since: then it is foreign.
    const int mark = violations_.Mark();
    if (in_.ConsumeBool()) {
      const absl::Status s = pool_->ReturnChecked(freed.ptr);
      TESSERA_FUZZ_CHECK(absl::IsFailedPrecondition(s),
                         "ReturnChecked of a returned cell: %s",
                         s.ToString().c_str());
    } else {
      pool_->Return(freed.ptr);
      violations_.ExpectOne(mark, freed.ptr, "double Return");
    }
  }

  void Foreign() {
    void* ptr;
    if (!fuzzing::PickBadCellPointer(in_, shadow_, options_.cell_size,
                                     g_foreign, &ptr)) {
      return;
    }
    const int mark = violations_.Mark();
    if (!pool_->checks_returns() || in_.ConsumeBool()) {
      const absl::Status s = pool_->ReturnChecked(ptr);
      TESSERA_FUZZ_CHECK(absl::IsFailedPrecondition(s),
                         "ReturnChecked of a bad pointer %p: %s", ptr,
                         s.ToString().c_str());
      TESSERA_FUZZ_CHECK(!pool_->Owns(ptr), "pool owns bad pointer %p", ptr);
    } else {
      pool_->Return(ptr);
      violations_.ExpectOne(mark, ptr, ContractViolation::kForeignPointer,
                            "Return of a bad pointer");
    }
  }

  void VerifyAll() { fuzzing::CheckAllPatterns(shadow_); }

  void Step(Op op) {
    if (fuzzing::StepCellPoolOp(*this, op)) return;
    switch (op) {
      case Op::kTake:
        Take(/*checked=*/false);
        break;
      case Op::kTakeChecked:
        Take(/*checked=*/true);
        break;
      case Op::kTakeBatch:
        TakeBatch();
        break;
      case Op::kReturn:
        if (!shadow_.empty()) Return(PickCell(), /*checked=*/false);
        break;
      case Op::kReturnChecked:
        if (!shadow_.empty()) Return(PickCell(), /*checked=*/true);
        break;
      case Op::kReturnBatch:
        ReturnBatch();
        break;
      default:
        break;
    }
  }


  ByteReader& in_;
  MallocAllocator upstream_;
  MallocAllocator block_source_;
  StackedPoolOptions options_;
  std::unique_ptr<StackedPool> pool_;
  ShadowHeap shadow_;
  uint64_t takes_ = 0;
  uint64_t returns_ = 0;
  uint64_t failures_ = 0;
  uint64_t peak_ = 0;
  fuzzing::ExpectedViolations violations_;
};

}  // namespace
}  // namespace tessera

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return tessera::fuzzing::RunAllocatorHarness<tessera::Harness>(data, size);
}
