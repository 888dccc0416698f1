// Copyright 2026 The Tessera Authors.
//
// Fuzzes TesseraMalloc through the tessera::Allocator interface: programs of
// allocations (every tier: small, medium, huge; plain, zeroed, aligned,
// checked), frees, reallocations, frees on another thread, collections and
// misuse (double free, foreign, interior, size mismatch). After every op the
// calling thread's heap passes CheckIntegrity, every live block keeps its
// pattern (shadow heap), the counters move as the model says, and each
// misuse is reported exactly once naming its pointer.

#include <cstddef>
#include <cstdint>
#include <thread>

#include "alloc/allocator.h"
#include "alloc/malloc/tessera_malloc.h"
#include "fuzz/allocator_checks.h"
#include "fuzz/byte_reader.h"
#include "fuzz/fuzz_check.h"
#include "fuzz/shadow_heap.h"

namespace tessera {
namespace fuzzing {
namespace {

enum class Op {
  kAllocate,
  kAllocateZeroed,
  kAllocateAligned,
  kAllocateChecked,
  kDeallocate,
  kDeallocateChecked,
  kReallocate,
  kFreeOnAnotherThread,
  kDoubleFree,
  kForeign,
  kInterior,
  kSizeMismatch,
  kCollect,
  kVerifyAll,
  kNumOps,
};

class Harness {
 public:
  explicit Harness(ByteReader& in) : in_(in), start_(m_.stats()) {}

  void Run() {
    RunOpProgram<Op>(in_, 400, [this](Op op) { Step(op); },
                     [this] { CheckModel("after op"); });
    while (!shadow_.empty()) Free(shadow_.size() - 1, false);
    CheckModel("after freeing everything");
    violations_.CheckAllExpected("end");
  }

 private:
  size_t PickSize() {
    const int tier = in_.ConsumeIntegralInRange<int>(0, 127);
    // One pick in 128: a huge block just over 4 MiB, whose mapping, once
    // freed and cached, a later page's segment is taken from (rare: every
    // block is filled and checked whole).
    if (tier == 127) {
      return in_.ConsumeIntegralInRange<size_t>(size_t{4} << 20,
                                                (size_t{4} << 20) + 65536);
    }
    switch (tier & 3) {
      case 0: return in_.ConsumeIntegralInRange<size_t>(0, 256);
      case 1: return in_.ConsumeIntegralInRange<size_t>(0, 16384);
      case 2: return in_.ConsumeIntegralInRange<size_t>(0, 70000);
      default: return in_.ConsumeIntegralInRange<size_t>(0, size_t{640} << 10);
    }
  }

  void Allocate(bool zeroed, bool checked, size_t alignment) {
    const size_t bytes = PickSize();
    void* p = AllocateOrDie(m_, bytes, alignment, zeroed, checked);
    RecordNewBlock(shadow_, p, bytes, alignment,
                   alignment > 16 ? alignment : 16);
    ++allocations_;
  }

  void Free(size_t index, bool checked) {
    const ShadowHeap::Block block = shadow_.blocks()[index];
    DeallocateOrDie(m_, block, checked);
    shadow_.Remove(index);
    ++deallocations_;
  }

  void Step(Op op) {
    switch (op) {
      case Op::kAllocate: Allocate(false, false, 16); break;
      case Op::kAllocateZeroed: Allocate(true, false, 16); break;
      case Op::kAllocateChecked: Allocate(in_.ConsumeBool(), true, 16); break;
      case Op::kAllocateAligned:
        Allocate(false, false, size_t{32} << in_.ConsumeIntegralInRange<int>(0, 12));
        break;
      case Op::kDeallocate:
      case Op::kDeallocateChecked:
        if (!shadow_.empty()) {
          Free(PickLive(in_, shadow_), op == Op::kDeallocateChecked);
        }
        break;
      case Op::kReallocate: {
        if (shadow_.empty()) break;
        const size_t index = PickLive(in_, shadow_);
        const ShadowHeap::Block block = shadow_.blocks()[index];
        if (block.alignment > 16) break;
        const size_t bytes = PickSize();
        void* p = ReallocateOrDie(m_, block, bytes, in_.ConsumeBool());
        RecordMovedBlock(shadow_, index, p, bytes, 16);
        ++reallocations_;
        break;
      }
      case Op::kFreeOnAnotherThread: {
        if (shadow_.empty()) break;
        const size_t index = PickLive(in_, shadow_);
        const ShadowHeap::Block block = shadow_.blocks()[index];
        CheckPattern(block.ptr, block.id, 0, block.bytes, "before remote free");
        shadow_.Remove(index);
        std::thread([&] { m_.Deallocate(block.ptr, block.bytes, block.alignment); })
            .join();
        ++deallocations_;
        break;
      }
      case Op::kDoubleFree: {
        if (shadow_.empty()) break;
        const size_t index = PickLive(in_, shadow_);
        const ShadowHeap::Block block = shadow_.blocks()[index];
        Free(index, false);
        const int mark = violations_.Mark();
        m_.Deallocate(block.ptr, block.bytes, block.alignment);
        violations_.ExpectOne(mark, block.ptr, "double free");
        break;
      }
      case Op::kForeign: {
        alignas(64) static unsigned char foreign[256];
        const int mark = violations_.Mark();
        m_.Deallocate(foreign + 64, 64);
        violations_.ExpectOne(mark, foreign + 64,
                              ContractViolation::kForeignPointer, "foreign");
        break;
      }
      case Op::kInterior: {
        // Pages that served an aligned request free any address inside a
        // block (memalign + free): those are not misuse there.
        if (shadow_.empty()) break;
        const ShadowHeap::Block& block = shadow_.blocks()[PickLive(in_, shadow_)];
        if (block.bytes < 32 || TesseraMalloc::FreesInteriorPointers(block.ptr)) {
          break;
        }
        void* inside = static_cast<char*>(block.ptr) + 16;
        const int mark = violations_.Mark();
        m_.Deallocate(inside, 16);
        violations_.ExpectOne(mark, inside, ContractViolation::kForeignPointer,
                              "interior free");
        break;
      }
      case Op::kSizeMismatch: {
        if (shadow_.empty()) break;
        const ShadowHeap::Block& block = shadow_.blocks()[PickLive(in_, shadow_)];
        const size_t usable = TesseraMalloc::UsableSize(block.ptr);
        const int mark = violations_.Mark();
        m_.Deallocate(block.ptr, usable + 1, block.alignment);
        violations_.ExpectOne(mark, block.ptr, ContractViolation::kSizeMismatch,
                              "size mismatch");
        break;
      }
      case Op::kCollect:
        TesseraMalloc::Collect(in_.ConsumeBool());
        break;
      case Op::kVerifyAll:
      case Op::kNumOps:
        CheckAllPatterns(shadow_);
        break;
    }
  }

  void CheckModel(const char* when) {
    CheckIntegrityOk(m_.CheckIntegrity(), when);
    const AllocatorStats s = m_.stats();
    TESSERA_FUZZ_CHECK(s.allocations - start_.allocations == allocations_ &&
                           s.deallocations - start_.deallocations == deallocations_ &&
                           s.reallocations - start_.reallocations == reallocations_,
                       "%s: counters moved by %llu/%llu/%llu, model %llu/%llu/%llu",
                       when,
                       static_cast<unsigned long long>(s.allocations - start_.allocations),
                       static_cast<unsigned long long>(s.deallocations - start_.deallocations),
                       static_cast<unsigned long long>(s.reallocations - start_.reallocations),
                       static_cast<unsigned long long>(allocations_),
                       static_cast<unsigned long long>(deallocations_),
                       static_cast<unsigned long long>(reallocations_));
    // bytes_in_use counts usable bytes: exactly UsableSize for every block
    // but those an aligned request carved out of a larger cell, which count
    // the whole cell (at most `alignment` more).
    uint64_t low = 0, high = 0;
    for (const ShadowHeap::Block& b : shadow_.blocks()) {
      const size_t usable = TesseraMalloc::UsableSize(b.ptr);
      TESSERA_FUZZ_CHECK(usable >= b.bytes, "%s: usable %zu < %zu bytes", when,
                         usable, b.bytes);
      low += usable;
      high += usable + (b.alignment > 16 ? b.alignment : 0);
    }
    const uint64_t in_use = s.bytes_in_use - start_.bytes_in_use;
    TESSERA_FUZZ_CHECK(in_use >= low && in_use <= high,
                       "%s: bytes_in_use moved by %llu, model [%llu, %llu]", when,
                       static_cast<unsigned long long>(in_use),
                       static_cast<unsigned long long>(low),
                       static_cast<unsigned long long>(high));
  }

  ByteReader& in_;
  TesseraMalloc m_;
  AllocatorStats start_;
  ShadowHeap shadow_;
  ExpectedViolations violations_;
  uint64_t allocations_ = 0, deallocations_ = 0, reallocations_ = 0;
};

}  // namespace
}  // namespace fuzzing
}  // namespace tessera

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return tessera::fuzzing::RunAllocatorHarness<tessera::fuzzing::Harness>(data,
                                                                          size);
}
