// Copyright 2026 The Tessera Authors.
//
// -----------------------------------------------------------------------------
// File: concurrent_pool_fuzzer.cc
// -----------------------------------------------------------------------------
//
// Fuzzes ConcurrentPool with op programs run by one thread at a time (its
// races are the business of concurrent_pool_test's TSan stress tests),
// against the shadow model of fuzz/shadow_heap.h, following the rule in
// fuzz/README.md. A program may hand work to a short-lived second thread,
// joined before the next op, so cross-thread returns and the flush of an
// exiting thread's cache are covered deterministically.
//
// Input: three configuration bytes (cell size, alignment, cells per block,
// overflow policy, cache size, return checks, whether the thread's cache
// slots are exhausted by other pools first), then ops (see `Op`).
//
// Properties checked:
//   * every cell is aligned as configured, overlaps no live cell, and keeps
//     the pattern of its id until returned;
//   * CheckIntegrity() is OK after every op; the stats equal the model: cells
//     held by clients = live cells, the depot's cells in use = clients +
//     thread caches, no cache above its capacity, the calling thread's cache
//     only (other threads have exited and flushed), the depot's failures
//     only under kFail and only with nothing left in the depot or the cache;
//   * misuse with return checks on: a double return or a foreign, interior
//     or misaligned pointer is reported once, as kDoubleFree (a cell of this
//     pool) or kForeignPointer, and changes nothing;
//   * at the end, after returning everything: Trim flushes the cache and
//     releases every block (the pool holds no cell anywhere) and the
//     upstream allocator has nothing live.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "alloc/allocator.h"
#include "alloc/pool/concurrent_pool.h"
#include "alloc/pool/stacked_pool.h"
#include "alloc/system/system_allocator.h"
#include "fuzz/allocator_checks.h"
#include "fuzz/byte_reader.h"
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
  kReturn,
  kReturnNewest,
  kTrim,
  kOtherThread,
  kDoubleReturn,
  kForeign,
  kVerifyAll,
  kNumOps,
};

alignas(4096) uint8_t g_foreign[8192];

class Harness {
 public:
  explicit Harness(ByteReader& in)
      : in_(in), upstream_(fuzzing::TrackedMallocOptions()) {}

  void Run() {
    if (!MakePool()) return;
    fuzzing::RunHarnessProgram<Op>(in_, kMaxOps, *this);
    fuzzing::ReturnEveryCell(*this);
    pool_->Trim();
    const ConcurrentPoolStats s = pool_->stats();
    TESSERA_FUZZ_CHECK(s.cells_in_caches == 0 && s.depot.blocks == 0 &&
                           s.depot.cells_in_use == 0 && s.cells_in_use == 0,
                       "idle pool after Trim: %llu cached cells, %llu "
                       "blocks, %llu depot cells in use",
                       static_cast<unsigned long long>(s.cells_in_caches),
                       static_cast<unsigned long long>(s.depot.blocks),
                       static_cast<unsigned long long>(s.depot.cells_in_use));
    CheckModel("after the final Trim");
    fuzzing::DestroyAndCheckNothingLive(pool_, upstream_, nullptr,
                                        "after destroying the pool");
    fillers_.clear();  // they never overflow to upstream_
  }

  // The rest is public for fuzzing::StepCellPoolOp.
  bool MakePool() {
    const uint8_t a = in_.ConsumeByte();
    const uint8_t b = in_.ConsumeByte();
    const uint8_t c = in_.ConsumeByte();
    ConcurrentPoolOptions options;
    options.depot.cell_size = 8 * (1 + (a & 31));                // 8..256
    options.depot.alignment = size_t{8} << ((a >> 5) & 3);       // 8..64
    options.depot.cells_per_block = 1 + (b & 31);                // 1..32
    options.depot.initial_blocks = (b >> 5) & 1;
    switch ((b >> 6) & 3) {
      case 1:
        options.depot.overflow = OverflowPolicy::kUpstream;
        options.depot.upstream = &upstream_;
        break;
      case 2:
        options.depot.overflow = OverflowPolicy::kFail;
        options.depot.initial_blocks = 1 + ((b >> 5) & 1);
        break;
      default:
        options.depot.overflow = OverflowPolicy::kGrow;
    }
    options.cache_cells = 2 + (c & 15);  // 2..17
    options.check_returns = (c & 0x10) == 0;
    options.depot.name = "fuzzed_depot";

    ConcurrentPoolOptions bad = options;
    bad.cache_cells = (c & 0x40) != 0 ? 1 : 65537;
    fuzzing::CheckInvalidArgument(ConcurrentPool::Create(bad).status(),
                                  "a bad cache_cells");
    bad = options;
    bad.depot.cells_per_block = 0;
    fuzzing::CheckInvalidArgument(ConcurrentPool::Create(bad).status(),
                                  "bad depot options");

    if ((c & 0x20) != 0) {
      // Give this thread's every cache slot to another pool first, so the
      // pool under test runs on its locked depot path.
      ConcurrentPoolOptions filler;
      filler.depot.cell_size = 8;
      filler.depot.alignment = 8;
      filler.depot.cells_per_block = 4;
      for (int i = 0; i < pool_internal::kPoolSlotsPerThread; ++i) {
        std::unique_ptr<ConcurrentPool> f =
            fuzzing::CreatedOrDie(ConcurrentPool::Create(filler), "filler");
        f->Return(f->Take());
        fillers_.push_back(std::move(f));
      }
    }

    pool_ = fuzzing::CreatedOrDie(ConcurrentPool::Create(options), "Create");
    options_ = options;
    TESSERA_FUZZ_CHECK(pool_->cell_size() == options.depot.cell_size &&
                           pool_->cache_cells() == options.cache_cells,
                       "pool geometry: cell %zu, cache %zu",
                       pool_->cell_size(), pool_->cache_cells());
    CheckModel("fresh pool");
    return true;
  }

  void CheckModel(const char* when) {
    fuzzing::CheckIntegrityOk(pool_->CheckIntegrity(), when);
    const ConcurrentPoolStats s = pool_->stats();
    using ull = unsigned long long;
    TESSERA_FUZZ_CHECK(
        s.cells_in_use == shadow_.size() &&
            s.depot.cells_in_use == shadow_.size() + s.cells_in_caches &&
            s.cells_in_caches <= options_.cache_cells &&
            s.thread_caches <= 1 && s.depot.failures == failures_ &&
            s.depot.overflow_cells_in_use ==
                upstream_.stats().live_allocations(),
        "%s: stats (client cells %llu, depot in use %llu, cached %llu, "
        "caches %llu, failures %llu, overflow %llu) != model (%zu, "
        "%zu + cached, <= %zu, <= 1, %llu, %llu)",
        when, static_cast<ull>(s.cells_in_use),
        static_cast<ull>(s.depot.cells_in_use),
        static_cast<ull>(s.cells_in_caches), static_cast<ull>(s.thread_caches),
        static_cast<ull>(s.depot.failures),
        static_cast<ull>(s.depot.overflow_cells_in_use), shadow_.size(),
        shadow_.size(), options_.cache_cells, static_cast<ull>(failures_),
        static_cast<ull>(upstream_.stats().live_allocations()));
    violations_.CheckAllExpected(when);
  }

  // A cell just taken (or nullptr) by this or another thread. `before`: the
  // stats before the one Take that gave `cell`, or nullptr when unknown.
  void Adopt(void* cell, const ConcurrentPoolStats* before, const char* what) {
    if (cell == nullptr) {
      TESSERA_FUZZ_CHECK(options_.depot.overflow == OverflowPolicy::kFail &&
                             (before == nullptr ||
                              before->depot.cells_available == 0),
                         "%s failed under policy %d with %llu cells in the "
                         "depot",
                         what, static_cast<int>(options_.depot.overflow),
                         static_cast<unsigned long long>(
                             before == nullptr
                                 ? 0
                                 : before->depot.cells_available));
      ++failures_;
      return;
    }
    fuzzing::RecordNewBlock(shadow_, cell, options_.depot.cell_size,
                            options_.depot.alignment,
                            options_.depot.alignment);
    if (shadow_.size() > peak_) peak_ = shadow_.size();
  }

  void Take() {
    if (shadow_.size() >= kMaxLiveCells) return;
    const ConcurrentPoolStats before = pool_->stats();
    void* cell = pool_->Take();
    // The calling thread's cache had none left if the depot was asked and
    // could not serve.
    if (cell == nullptr) {
      TESSERA_FUZZ_CHECK(before.cells_in_caches == 0,
                         "Take failed with %llu cells in the cache",
                         static_cast<unsigned long long>(
                             before.cells_in_caches));
    }
    Adopt(cell, &before, "Take");
  }

  void Return(size_t index) {
    pool_->Return(fuzzing::TakeOutCell(shadow_, index, "before return"));
  }

  size_t PickCell() { return fuzzing::PickLive(in_, shadow_); }
  const ShadowHeap& shadow() const { return shadow_; }

  void Trim() {
    const ConcurrentPoolStats before = pool_->stats();
    const size_t released = pool_->Trim();
    const ConcurrentPoolStats after = pool_->stats();
    TESSERA_FUZZ_CHECK(after.cells_in_caches == 0 &&
                           after.depot.blocks == before.depot.blocks - released,
                       "Trim released %zu of %llu blocks, %llu left, %llu "
                       "cells still cached",
                       released,
                       static_cast<unsigned long long>(before.depot.blocks),
                       static_cast<unsigned long long>(after.depot.blocks),
                       static_cast<unsigned long long>(after.cells_in_caches));
    VerifyAll();
  }

  // A second thread takes `takes` cells (the harness adopts them) and
  // returns `returns` of the harness's cells, then exits: its cache must be
  // flushed to the depot.
  void OtherThread() {
    const size_t takes = in_.ConsumeIntegralInRange<size_t>(0, 40);
    const size_t returns =
        std::min<size_t>(in_.ConsumeIntegralInRange<size_t>(0, 40),
                         shadow_.size());
    if (shadow_.size() + takes > kMaxLiveCells) return;
    std::vector<void*> to_return;
    for (size_t i = 0; i < returns; ++i) {
      to_return.push_back(fuzzing::TakeOutCell(shadow_, shadow_.size() - 1,
                                               "before remote return"));
    }
    std::vector<void*> taken;
    std::thread worker([&] {
      for (void* cell : to_return) pool_->Return(cell);
      for (size_t i = 0; i < takes; ++i) taken.push_back(pool_->Take());
    });
    worker.join();
    // The depot may run dry during the worker's takes: only the policy can
    // be checked for a failure.
    for (void* cell : taken) Adopt(cell, nullptr, "Take on another thread");
  }

  void DoubleReturn() {
    if (!options_.check_returns) return;  // undefined without checks
    ShadowHeap::Block freed;
    if (!shadow_.PickRecentlyFreed(in_.ConsumeByte(), &freed)) return;
    // Its block may be gone since (Trim, overflow cell): then it is
    // reported as foreign, otherwise as a double free; either way once.
    const int mark = violations_.Mark();
    pool_->Return(freed.ptr);
    violations_.ExpectOne(mark, freed.ptr, "double Return");
  }

  void Foreign() {
    if (!options_.check_returns) return;
    void* ptr;
    if (!fuzzing::PickBadCellPointer(in_, shadow_, options_.depot.cell_size,
                                     g_foreign, &ptr)) {
      return;
    }
    const int mark = violations_.Mark();
    pool_->Return(ptr);
    violations_.ExpectOne(mark, ptr, ContractViolation::kForeignPointer,
                          "Return of a bad pointer");
  }

  void VerifyAll() { fuzzing::CheckAllPatterns(shadow_); }

  void Step(Op op) {
    if (fuzzing::StepCellPoolOp(*this, op)) return;
    switch (op) {
      case Op::kTake:
        Take();
        break;
      case Op::kReturn:
        if (!shadow_.empty()) Return(PickCell());
        break;
      case Op::kReturnNewest: {
        // Returns a run of the newest cells: fills the cache past capacity.
        const size_t n = std::min<size_t>(
            in_.ConsumeIntegralInRange<size_t>(0, 40), shadow_.size());
        for (size_t i = 0; i < n; ++i) Return(shadow_.size() - 1);
        break;
      }
      case Op::kOtherThread:
        OtherThread();
        break;
      default:
        break;
    }
  }


  ByteReader& in_;
  MallocAllocator upstream_;
  ConcurrentPoolOptions options_;
  std::vector<std::unique_ptr<ConcurrentPool>> fillers_;
  std::unique_ptr<ConcurrentPool> pool_;
  ShadowHeap shadow_;
  uint64_t failures_ = 0;
  uint64_t peak_ = 0;
  fuzzing::ExpectedViolations violations_;
};

}  // namespace
}  // namespace tessera

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return tessera::fuzzing::RunAllocatorHarness<tessera::Harness>(data, size);
}
