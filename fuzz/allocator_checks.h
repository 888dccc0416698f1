// Copyright 2026 The Tessera Authors.
//
// -----------------------------------------------------------------------------
// File: allocator_checks.h
// -----------------------------------------------------------------------------
//
// What every allocator harness does the same way, so that each harness reads
// as its own op decoding plus calls to these:
//
//   * the op-program loop (`RunOpProgram`, and `RunHarnessProgram` for a
//     harness that checks its whole model after each op) and the picks its
//     ops decode (`ConsumeOp`, `PickLive`);
//   * calls through the tessera::Allocator interface that must succeed, on
//     the hot or the checked path (`AllocateOrDie`, `ReallocateOrDie`,
//     `DeallocateOrDie`), and their recording in the shadow heap with the
//     block pattern (`RecordNewBlock`, `RecordMovedBlock`, `CheckAllPatterns`);
//   * the contract-violation log (installed as the ContractViolationHandler
//     so misuse is counted, not aborted on) and what a harness expects of it
//     (`ExpectedViolations`);
//   * the integrity check and the comparison of an allocator's
//     AllocatorStats with the harness's model of them (`StatsModel`, which
//     counts each call as the harness makes it: `NoteAllocation`, ...);
//   * the tracked MallocAllocator harnesses use as an upstream allocator or
//     block source, and the check that it holds nothing once the allocator
//     under test is destroyed (`DestroyAndCheckNothingLive`);
//   * creating the allocator under test and checking that bad options are
//     rejected (`CreatedOrDie`, `CheckInvalidArgument`);
//   * the ops every harness over the Allocator interface shares, dispatched
//     by name (`StepInterfaceOp`), and the final free of every live block
//     (`FreeEverything`);
//   * for the cell pools (StackedPool, ConcurrentPool): the ops both have
//     (`StepCellPoolOp`), taking a recorded cell out of the shadow heap with
//     its pattern checked (`TakeOutCell`), the bad pointers their misuse
//     ops hand back (`PickBadCellPointer`) and the final return of every
//     live cell (`ReturnEveryCell`);
//   * the ops every harness has, whatever its allocator (kForeign and
//     kVerifyAll: `StepForeignOrVerifyOp`).
//
// Every check aborts through TESSERA_FUZZ_CHECK. Nothing here decides what an
// allocator should do with a request: that model stays in each harness.

#ifndef TESSERA_FUZZ_ALLOCATOR_CHECKS_H_
#define TESSERA_FUZZ_ALLOCATOR_CHECKS_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "alloc/allocator.h"
#include "alloc/system/system_allocator.h"
#include "fuzz/byte_reader.h"
#include "fuzz/fuzz_check.h"
#include "fuzz/shadow_heap.h"

namespace tessera {
namespace fuzzing {

// ---- The op program. ----

// The op the next byte of the program names: one of Op's values below
// Op::kNumOps.
template <typename Op>
Op ConsumeOp(ByteReader& in) {
  return static_cast<Op>(
      in.ConsumeIntegralInRange<int>(0, static_cast<int>(Op::kNumOps) - 1));
}

// Runs the program's ops (at most `max_ops`, until the input runs out):
// `step(op)` executes one, then `check_after_op()` checks the whole model.
template <typename Op, typename Step, typename CheckAfterOp>
void RunOpProgram(ByteReader& in, size_t max_ops, Step step,
                  CheckAfterOp check_after_op) {
  for (size_t ops = 0; ops < max_ops && !in.empty(); ++ops) {
    step(ConsumeOp<Op>(in));
    check_after_op();
  }
}

// RunOpProgram over harness `h`: h.Step(op) runs each op, then
// h.CheckModel("after op") checks the whole model.
template <typename Op, typename Harness>
void RunHarnessProgram(ByteReader& in, size_t max_ops, Harness& h) {
  RunOpProgram<Op>(
      in, max_ops, [&h](Op op) { h.Step(op); },
      [&h] { h.CheckModel("after op"); });
}

// The index of a live block of `shadow` the program picks (one byte).
// Requires !shadow.empty().
inline size_t PickLive(ByteReader& in, const ShadowHeap& shadow) {
  return in.ConsumeIntegralInRange<size_t>(0, 255) % shadow.size();
}

// ---- Calls that must succeed, and their record in the shadow heap. ----

// Allocates `bytes` aligned to `alignment` through the hot or the checked
// path (AllocateZeroed[Checked] when `zeroed`); the call must succeed and a
// zeroed block must read as zero. The block is not recorded.
inline void* AllocateOrDie(Allocator& allocator, size_t bytes,
                           size_t alignment, bool zeroed, bool checked) {
  void* ptr;
  if (checked) {
    absl::StatusOr<void*> p =
        zeroed ? allocator.AllocateZeroedChecked(bytes, alignment)
               : allocator.AllocateChecked(bytes, alignment);
    TESSERA_FUZZ_CHECK(p.ok(), "AllocateChecked(%zu, %zu): %s", bytes,
                       alignment, p.status().ToString().c_str());
    ptr = *p;
  } else {
    ptr = zeroed ? allocator.AllocateZeroed(bytes, alignment)
                 : allocator.Allocate(bytes, alignment);
  }
  TESSERA_FUZZ_CHECK(ptr != nullptr, "allocation of %zu bytes aligned to %zu "
                     "failed", bytes, alignment);
  if (zeroed) CheckZero(ptr, 0, bytes, "AllocateZeroed");
  return ptr;
}

// Reallocates the live `block` to `new_bytes` through the hot or the checked
// path, after checking its pattern; the call must succeed. Returns the new
// address; the shadow heap is not updated (see RecordMovedBlock).
inline void* ReallocateOrDie(Allocator& allocator,
                             const ShadowHeap::Block& block, size_t new_bytes,
                             bool checked) {
  CheckPattern(block.ptr, block.id, 0, block.bytes, "before reallocation");
  void* ptr;
  if (checked) {
    absl::StatusOr<void*> p = allocator.ReallocateChecked(
        block.ptr, block.bytes, new_bytes, block.alignment);
    TESSERA_FUZZ_CHECK(p.ok(), "ReallocateChecked of %p from %zu to %zu "
                       "bytes: %s", block.ptr, block.bytes, new_bytes,
                       p.status().ToString().c_str());
    ptr = *p;
  } else {
    ptr = allocator.Reallocate(block.ptr, block.bytes, new_bytes,
                               block.alignment);
  }
  TESSERA_FUZZ_CHECK(ptr != nullptr,
                     "reallocation of %p from %zu to %zu bytes failed",
                     block.ptr, block.bytes, new_bytes);
  return ptr;
}

// Frees the live `block` through the hot or the checked path, after checking
// its pattern; the checked call must succeed. The shadow heap is not updated.
inline void DeallocateOrDie(Allocator& allocator,
                            const ShadowHeap::Block& block, bool checked) {
  CheckPattern(block.ptr, block.id, 0, block.bytes, "before free");
  if (checked) {
    const absl::Status s =
        allocator.DeallocateChecked(block.ptr, block.bytes, block.alignment);
    TESSERA_FUZZ_CHECK(s.ok(), "DeallocateChecked of %p: %s", block.ptr,
                       s.ToString().c_str());
  } else {
    allocator.Deallocate(block.ptr, block.bytes, block.alignment);
  }
}

// Records a block just handed out (placement checked by ShadowHeap::Add
// against `guaranteed_alignment`) and fills it with its pattern. Returns its
// index in shadow.blocks().
inline size_t RecordNewBlock(ShadowHeap& shadow, void* ptr, size_t bytes,
                             size_t alignment, size_t guaranteed_alignment,
                             int tag = 0) {
  const size_t index =
      shadow.Add(ptr, bytes, alignment, guaranteed_alignment, tag);
  FillPattern(ptr, shadow.blocks()[index].id, 0, bytes);
  return index;
}

// Block `index` was reallocated to `ptr` with `new_bytes`: the prefix both
// sizes share must have kept its pattern; the record moves (placement checked
// against `guaranteed_alignment`) and the rest of the block gets the pattern.
inline void RecordMovedBlock(ShadowHeap& shadow, size_t index, void* ptr,
                             size_t new_bytes, size_t guaranteed_alignment) {
  const ShadowHeap::Block block = shadow.blocks()[index];
  const size_t kept = block.bytes < new_bytes ? block.bytes : new_bytes;
  CheckPattern(ptr, block.id, 0, kept, "after reallocation");
  shadow.Move(index, ptr, new_bytes, guaranteed_alignment);
  FillPattern(ptr, block.id, kept, new_bytes);
}

// Every live block still holds its pattern.
inline void CheckAllPatterns(const ShadowHeap& shadow) {
  for (const ShadowHeap::Block& block : shadow.blocks()) {
    CheckPattern(block.ptr, block.id, 0, block.bytes, "verify all");
  }
}

// ---- Contract violations. ----

// What ReportContractViolation reported since the log was last reset.
struct ViolationLog {
  int count = 0;
  ContractViolation last = ContractViolation::kDoubleFree;
  const void* last_ptr = nullptr;
};
inline ViolationLog g_violations;

// A ContractViolationHandler that records into g_violations.
inline void RecordViolation(absl::string_view, ContractViolation violation,
                            const void* ptr, absl::string_view) {
  ++g_violations.count;
  g_violations.last = violation;
  g_violations.last_ptr = ptr;
}

// The violations a harness provoked on purpose: each misuse must be reported
// exactly once, naming its pointer, and nothing else may be reported.
class ExpectedViolations {
 public:
  // The log's position before a misuse; pass it to ExpectOne afterwards.
  int Mark() const { return g_violations.count; }

  // Exactly one violation was reported since `mark`, naming `ptr`.
  void ExpectOne(int mark, const void* ptr, const char* what) {
    TESSERA_FUZZ_CHECK(g_violations.count == mark + 1 &&
                           g_violations.last_ptr == ptr,
                       "%s of %p: %d violations reported (last for %p), "
                       "expected 1",
                       what, ptr, g_violations.count - mark,
                       g_violations.last_ptr);
    ++expected_;
  }

  // As above, and the one report is of kind `kind`.
  void ExpectOne(int mark, const void* ptr, ContractViolation kind,
                 const char* what) {
    ExpectOne(mark, ptr, what);
    TESSERA_FUZZ_CHECK(
        g_violations.last == kind, "%s of %p: reported '%s', expected '%s'",
        what, ptr,
        std::string(ContractViolationName(g_violations.last)).c_str(),
        std::string(ContractViolationName(kind)).c_str());
  }

  // Every report in the log was provoked on purpose.
  void CheckAllExpected(const char* when) const {
    TESSERA_FUZZ_CHECK(g_violations.count == expected_,
                       "%s: %d contract violations reported, expected %d",
                       when, g_violations.count, expected_);
  }

 private:
  int expected_ = 0;
};

// ---- Integrity and stats. ----

inline void CheckIntegrityOk(const absl::Status& integrity, const char* when) {
  TESSERA_FUZZ_CHECK(integrity.ok(), "%s: CheckIntegrity: %s", when,
                     integrity.ToString().c_str());
}

// The counters a harness models; `bytes_in_use` comes from its shadow heap.
inline void CheckStatsMatchModel(const AllocatorStats& s,
                                 const AllocatorStats& model,
                                 const char* when) {
  using ull = unsigned long long;
  TESSERA_FUZZ_CHECK(
      s.allocations == model.allocations &&
          s.deallocations == model.deallocations &&
          s.reallocations == model.reallocations &&
          s.failed_requests == model.failed_requests &&
          s.bytes_in_use == model.bytes_in_use &&
          s.peak_bytes_in_use == model.peak_bytes_in_use,
      "%s: stats (alloc %llu, dealloc %llu, realloc %llu, failed %llu, "
      "in use %llu, peak %llu) != model (%llu, %llu, %llu, %llu, %llu, %llu)",
      when, static_cast<ull>(s.allocations), static_cast<ull>(s.deallocations),
      static_cast<ull>(s.reallocations), static_cast<ull>(s.failed_requests),
      static_cast<ull>(s.bytes_in_use), static_cast<ull>(s.peak_bytes_in_use),
      static_cast<ull>(model.allocations),
      static_cast<ull>(model.deallocations),
      static_cast<ull>(model.reallocations),
      static_cast<ull>(model.failed_requests),
      static_cast<ull>(model.bytes_in_use),
      static_cast<ull>(model.peak_bytes_in_use));
}

// The harness's model of an Allocator's stats(): the harness counts each
// call that succeeded or that it made fail on purpose; the bytes in use (and
// so the peak) are the shadow heap's.
struct StatsModel {
  uint64_t allocations = 0;
  uint64_t deallocations = 0;
  uint64_t reallocations = 0;
  uint64_t failed_requests = 0;
  uint64_t peak_bytes_in_use = 0;

  // After a call that may have raised the bytes in use.
  void NotePeak(const ShadowHeap& shadow) {
    if (shadow.bytes_in_use() > peak_bytes_in_use) {
      peak_bytes_in_use = shadow.bytes_in_use();
    }
  }

  // After an allocation that succeeded and is recorded in `shadow`.
  void NoteAllocation(const ShadowHeap& shadow) {
    ++allocations;
    NotePeak(shadow);
  }

  // After a reallocation that succeeded and is recorded in `shadow`.
  void NoteReallocation(const ShadowHeap& shadow) {
    ++reallocations;
    NotePeak(shadow);
  }

  // `allocator` is intact and its stats() equal the model.
  void Check(const Allocator& allocator, const ShadowHeap& shadow,
             const char* when) const {
    CheckIntegrityOk(allocator.CheckIntegrity(), when);
    AllocatorStats model;
    model.allocations = allocations;
    model.deallocations = deallocations;
    model.reallocations = reallocations;
    model.failed_requests = failed_requests;
    model.bytes_in_use = shadow.bytes_in_use();
    model.peak_bytes_in_use = peak_bytes_in_use;
    CheckStatsMatchModel(allocator.stats(), model, when);
  }
};

// ---- The upstream allocator of pools and caches. ----

// A MallocAllocator that counts its live blocks (stats().live_allocations()),
// so a harness can check what a pool still holds upstream.
inline SystemAllocatorOptions TrackedMallocOptions() {
  SystemAllocatorOptions options;
  options.track_live_blocks = true;
  options.huge_pages = false;
  return options;
}

// `allocator` (the upstream or block source of `owner`) has `expected` live
// blocks.
inline void CheckLiveBlocks(const SystemAllocator& allocator,
                            uint64_t expected, const char* owner,
                            const char* when) {
  const uint64_t live = allocator.stats().live_allocations();
  TESSERA_FUZZ_CHECK(live == expected, "%s: %s holds %llu blocks, model %llu",
                     when, owner, static_cast<unsigned long long>(live),
                     static_cast<unsigned long long>(expected));
}

// Destroys the allocator under test (`allocator`), then checks that nothing
// it took from `upstream` (and from `block_source`, when not null) is still
// live there.
template <typename T>
void DestroyAndCheckNothingLive(std::unique_ptr<T>& allocator,
                                const SystemAllocator& upstream,
                                const SystemAllocator* block_source,
                                const char* when) {
  allocator.reset();
  CheckLiveBlocks(upstream, 0, "upstream", when);
  if (block_source != nullptr) {
    CheckLiveBlocks(*block_source, 0, "block source", when);
  }
}

// ---- Creating the allocator under test. ----

// The allocator a factory made; the factory must have succeeded.
template <typename T>
std::unique_ptr<T> CreatedOrDie(absl::StatusOr<std::unique_ptr<T>> made,
                                const char* what) {
  TESSERA_FUZZ_CHECK(made.ok(), "%s: %s", what,
                     made.status().ToString().c_str());
  return *std::move(made);
}

// A factory given bad options (`what`) must have said InvalidArgument.
inline void CheckInvalidArgument(const absl::Status& status,
                                 const char* what) {
  TESSERA_FUZZ_CHECK(absl::IsInvalidArgument(status), "%s accepted: %s", what,
                     status.ToString().c_str());
}

// ---- The ops every harness has. ----

// Runs `op` if it is kForeign (through h.Foreign()) or kVerifyAll (or
// kNumOps, which verifies too, through h.VerifyAll()), and returns whether
// it was.
template <typename Op, typename Harness>
bool StepForeignOrVerifyOp(Harness& h, Op op) {
  switch (op) {
    case Op::kForeign:
      h.Foreign();
      return true;
    case Op::kVerifyAll:
    case Op::kNumOps:
      h.VerifyAll();
      return true;
    default:
      return false;
  }
}

// ---- Harnesses over the tessera::Allocator interface. ----

// Runs `op` if it is one of the ops every harness over the Allocator
// interface has, and returns whether it was. `Op` names them kAllocate,
// kAllocateZeroed, kAllocateChecked, kDeallocate, kDeallocateChecked,
// kReallocate, kReallocateChecked, kDoubleFree, kForeign, kSizeMismatch,
// kBadRequest, kVerifyAll and kNumOps (which verifies too); `h` has the
// matching methods Allocate(zeroed, checked), Free(index, checked),
// Reallocate(checked), DoubleFree(), Foreign(), SizeMismatch(), BadRequest(),
// VerifyAll(), PickBlock() and shadow(). Each harness keeps its model in
// those methods; only the dispatch is shared.
template <typename Op, typename Harness>
bool StepInterfaceOp(Harness& h, Op op) {
  switch (op) {
    case Op::kAllocate:
      h.Allocate(/*zeroed=*/false, /*checked=*/false);
      return true;
    case Op::kAllocateZeroed:
      h.Allocate(/*zeroed=*/true, /*checked=*/false);
      return true;
    case Op::kAllocateChecked:
      h.Allocate(/*zeroed=*/false, /*checked=*/true);
      return true;
    case Op::kDeallocate:
      if (!h.shadow().empty()) h.Free(h.PickBlock(), /*checked=*/false);
      return true;
    case Op::kDeallocateChecked:
      if (!h.shadow().empty()) h.Free(h.PickBlock(), /*checked=*/true);
      return true;
    case Op::kReallocate:
      h.Reallocate(/*checked=*/false);
      return true;
    case Op::kReallocateChecked:
      h.Reallocate(/*checked=*/true);
      return true;
    case Op::kDoubleFree:
      h.DoubleFree();
      return true;
    case Op::kSizeMismatch:
      h.SizeMismatch();
      return true;
    case Op::kBadRequest:
      h.BadRequest();
      return true;
    default:
      return StepForeignOrVerifyOp(h, op);
  }
}

// Frees every live block, newest first, through the hot path, then checks
// the model once.
template <typename Harness>
void FreeEverything(Harness& h) {
  while (!h.shadow().empty()) h.Free(h.shadow().size() - 1, /*checked=*/false);
  h.CheckModel("after freeing everything");
}

// ---- Cell pools (StackedPool, ConcurrentPool). ----

// Runs `op` if it is one of the ops both cell-pool harnesses have (kTrim,
// kDoubleReturn, kForeign, kVerifyAll, kNumOps), through `h`'s Trim(),
// DoubleReturn(), Foreign() and VerifyAll(); returns whether it was.
template <typename Op, typename Harness>
bool StepCellPoolOp(Harness& h, Op op) {
  switch (op) {
    case Op::kTrim:
      h.Trim();
      return true;
    case Op::kDoubleReturn:
      h.DoubleReturn();
      return true;
    default:
      return StepForeignOrVerifyOp(h, op);
  }
}

// Returns every live cell, newest first, through h.Return(index), then
// checks the model once.
template <typename Harness>
void ReturnEveryCell(Harness& h) {
  while (!h.shadow().empty()) h.Return(h.shadow().size() - 1);
  h.CheckModel("after returning everything");
}

// Removes live cell `index` from `shadow`, its pattern checked first
// (`when`), and returns it for the pool.
inline void* TakeOutCell(ShadowHeap& shadow, size_t index, const char* when) {
  const ShadowHeap::Block cell = shadow.blocks()[index];
  CheckPattern(cell.ptr, cell.id, 0, cell.bytes, when);
  shadow.Remove(index);
  return cell.ptr;
}

// A pointer the pool never handed out, as the program picks it: the middle
// of `foreign` (a buffer of at least 8 KiB the pool does not own), or a live
// cell plus 8 (interior, still 8-aligned) or plus 1 (misaligned). False when
// the pick needs a live cell and there is none, or an interior pointer of a
// cell of `cell_size` <= 8 (which would be the next cell).
inline bool PickBadCellPointer(ByteReader& in, const ShadowHeap& shadow,
                               size_t cell_size, uint8_t* foreign,
                               void** ptr) {
  const int kind = in.ConsumeIntegralInRange<int>(0, 2);
  *ptr = foreign + 4096;
  if (kind == 0) return true;
  if (shadow.empty()) return false;
  const ShadowHeap::Block& cell = shadow.blocks()[PickLive(in, shadow)];
  *ptr = static_cast<char*>(cell.ptr) + (kind == 1 ? 8 : 1);
  return !(cell_size <= 8 && kind == 1);
}

// ---- The entry point. ----

// The body of every allocator harness's LLVMFuzzerTestOneInput: contract
// violations are recorded (not aborted on) into a log that starts empty for
// each input, and `Harness(reader).Run()` executes the input's program.
template <typename Harness>
int RunAllocatorHarness(const uint8_t* data, size_t size) {
  static const bool installed =
      (SetContractViolationHandler(&RecordViolation), true);
  (void)installed;
  g_violations = ViolationLog();
  ByteReader reader(data, size);
  Harness(reader).Run();
  return 0;
}

}  // namespace fuzzing
}  // namespace tessera

#endif  // TESSERA_FUZZ_ALLOCATOR_CHECKS_H_
