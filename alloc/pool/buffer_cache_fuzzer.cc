// Copyright 2026 The Tessera Authors.
//
// -----------------------------------------------------------------------------
// File: buffer_cache_fuzzer.cc
// -----------------------------------------------------------------------------
//
// Fuzzes BufferCache through the tessera::Allocator interface against the
// shadow model of fuzz/shadow_heap.h and a model of the cache itself,
// following the rule in fuzz/README.md.
//
// Input: two configuration bytes (threshold, budget, buffers per class, huge
// pages), then ops, each an opcode byte and its operands (see `Op`).
//
// Properties checked:
//   * every block is aligned as asked (large buffers to at least a page),
//     overlaps no live block, reads as zero when allocated zeroed (also when
//     a cached buffer is reused), and keeps the pattern of its id until
//     freed; reallocation keeps the prefix;
//   * the cache behaves as its header says, step by step, against a model of
//     the cached buffers (oldest first): a large request takes the newest
//     cached buffer of its class that is aligned enough (the very address
//     the model predicts) or maps a new one; a free caches the buffer unless
//     its class is full or it exceeds the budget, evicting the oldest to make
//     room; Release() unmaps all. hits, misses, evictions, released, cached
//     and live buffers and bytes, mapped bytes all equal the model;
//   * CheckIntegrity() is OK after every op and stats() equal the model;
//   * misuse of large buffers changes nothing: a double free (of a cached or
//     unmapped buffer), a foreign or interior pointer, a free with another
//     size or alignment are reported once (hot path) or rejected (checked
//     path); invalid alignments and impossible sizes are refused and
//     counted;
//   * at the end, after freeing everything and Release(): no buffer is live
//     or cached, nothing is mapped, and the upstream allocator holds nothing.
// Small blocks are the upstream allocator's to check (see the header), so no
// misuse is attempted on them.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "alloc/allocator.h"
#include "alloc/pool/buffer_cache.h"
#include "alloc/system/system_allocator.h"
#include "fuzz/allocator_checks.h"
#include "fuzz/byte_reader.h"
#include "fuzz/fuzz_check.h"
#include "fuzz/shadow_heap.h"

namespace tessera {
namespace {

using fuzzing::ByteReader;
using fuzzing::ShadowHeap;

constexpr size_t kMaxOps = 512;
constexpr size_t kMaxLiveBlocks = 256;
constexpr size_t kPage = 4096;

enum class Op : uint8_t {
  kAllocate,
  kAllocateZeroed,
  kAllocateChecked,
  kDeallocate,
  kDeallocateChecked,
  kReallocate,
  kReallocateChecked,
  kRelease,
  kDoubleFree,
  kForeign,
  kSizeMismatch,
  kBadRequest,
  kVerifyAll,
  kNumOps,
};

alignas(4096) uint8_t g_foreign[1 << 16];

class Harness {
 public:
  explicit Harness(ByteReader& in)
      : in_(in), upstream_(fuzzing::TrackedMallocOptions()) {}

  void Run() {
    const uint8_t a = in_.ConsumeByte();
    const uint8_t b = in_.ConsumeByte();
    BufferCacheOptions options;
    options.upstream = &upstream_;
    options.min_buffer_bytes = kPage << (a & 3);  // 4..32 KiB
    static constexpr size_t kBudgets[] = {0, 64 << 10, 256 << 10, 1 << 20,
                                          4 << 20, 16 << 20};
    options.budget_bytes = kBudgets[((a >> 2) & 7) % 6];
    options.max_buffers_per_class = (a >> 5) & 7;  // 0..7
    options.huge_pages = (b & 1) != 0;
    options_ = options;

    BufferCacheOptions bad = options;
    bad.min_buffer_bytes = kPage - 1 - (b >> 1);
    TESSERA_FUZZ_CHECK(
        absl::IsInvalidArgument(BufferCache::Create(bad).status()),
        "min_buffer_bytes %zu accepted", bad.min_buffer_bytes);
    cache_ = fuzzing::CreatedOrDie(BufferCache::Create(options), "Create");
    CheckModel("fresh cache");

    fuzzing::RunHarnessProgram<Op>(in_, kMaxOps, *this);
    fuzzing::FreeEverything(*this);
    Release();
    const BufferCacheStats s = cache_->cache_stats();
    TESSERA_FUZZ_CHECK(s.live_buffers == 0 && s.cached_buffers == 0 &&
                           s.cached_bytes == 0 && s.mapped_bytes == 0 &&
                           cache_->stats().bytes_in_use == 0,
                       "empty cache after Release: %llu live, %llu cached, "
                       "%llu mapped bytes",
                       static_cast<unsigned long long>(s.live_buffers),
                       static_cast<unsigned long long>(s.cached_buffers),
                       static_cast<unsigned long long>(s.mapped_bytes));
    fuzzing::DestroyAndCheckNothingLive(cache_, upstream_, nullptr,
                                        "after destroying the cache");
  }

  // The rest is public for fuzzing::StepInterfaceOp and FreeEverything.
  const ShadowHeap& shadow() const { return shadow_; }
  // A cached buffer in the model, oldest first.
  struct Cached {
    void* ptr;
    size_t class_bytes;
  };

  bool IsLarge(size_t bytes) const {
    return bytes >= options_.min_buffer_bytes;
  }

  size_t DecodeSize() {
    const size_t min = options_.min_buffer_bytes;
    switch (in_.ConsumeIntegralInRange<int>(0, 7)) {
      case 0:
      case 1:
      case 2:
        return in_.ConsumeIntegralInRange<size_t>(0, min - 1);  // upstream
      case 3:
        return min + in_.ConsumeIntegralInRange<size_t>(0, 255) - 128;
      case 7:  // up to 2.5 MiB: huge-page alignment when enabled
        return in_.ConsumeIntegralInRange<size_t>(min, (5 << 20) / 2);
      default:
        return in_.ConsumeIntegralInRange<size_t>(min, 8 * min);
    }
  }

  size_t DecodeAlignment() {
    const int shift = in_.ConsumeIntegralInRange<int>(0, 17);
    return shift == 0 ? kDefaultAlignment : size_t{1} << (shift - 1);
  }

  size_t PickBlock() { return fuzzing::PickLive(in_, shadow_); }

  // The alignment a block gets: large buffers are page-aligned mappings.
  size_t Guaranteed(size_t bytes, size_t alignment) const {
    size_t g = std::max(alignment, kDefaultAlignment);
    if (IsLarge(bytes)) g = std::max(g, kPage);
    return g;
  }

  void CheckModel(const char* when) {
    stats_.Check(*cache_, shadow_, when);

    uint64_t live_large = 0, live_small = 0, live_class_bytes = 0;
    for (const ShadowHeap::Block& block : shadow_.blocks()) {
      if (IsLarge(block.bytes)) {
        ++live_large;
        live_class_bytes += BufferCache::ClassBytes(block.bytes);
      } else {
        ++live_small;
      }
    }
    uint64_t cached_bytes = 0;
    for (const Cached& c : cached_) cached_bytes += c.class_bytes;
    const BufferCacheStats s = cache_->cache_stats();
    using ull = unsigned long long;
    TESSERA_FUZZ_CHECK(
        s.hits == hits_ && s.misses == misses_ && s.evictions == evictions_ &&
            s.released == released_ && s.cached_buffers == cached_.size() &&
            s.cached_bytes == cached_bytes && s.live_buffers == live_large &&
            s.mapped_bytes == live_class_bytes + cached_bytes,
        "%s: cache stats (hits %llu, misses %llu, evictions %llu, released "
        "%llu, cached %llu / %llu bytes, live %llu, mapped %llu) != model "
        "(%llu, %llu, %llu, %llu, %zu / %llu, %llu, %llu)",
        when, static_cast<ull>(s.hits), static_cast<ull>(s.misses),
        static_cast<ull>(s.evictions), static_cast<ull>(s.released),
        static_cast<ull>(s.cached_buffers), static_cast<ull>(s.cached_bytes),
        static_cast<ull>(s.live_buffers), static_cast<ull>(s.mapped_bytes),
        static_cast<ull>(hits_), static_cast<ull>(misses_),
        static_cast<ull>(evictions_), static_cast<ull>(released_),
        cached_.size(), static_cast<ull>(cached_bytes),
        static_cast<ull>(live_large),
        static_cast<ull>(live_class_bytes + cached_bytes));
    fuzzing::CheckLiveBlocks(upstream_, live_small, "upstream", when);
    violations_.CheckAllExpected(when);
  }

  // The model of a large request: the cached buffer it must reuse, or
  // nullptr for a fresh mapping (which must not be a cached address).
  void* ModelTake(size_t class_bytes, size_t alignment) {
    for (size_t i = cached_.size(); i-- > 0;) {
      if (cached_[i].class_bytes == class_bytes &&
          fuzzing::IsAligned(cached_[i].ptr, alignment)) {
        void* ptr = cached_[i].ptr;
        cached_.erase(cached_.begin() + static_cast<ptrdiff_t>(i));
        ++hits_;
        return ptr;
      }
    }
    ++misses_;
    return nullptr;
  }

  // Checks the address a request got against the model's prediction.
  void CheckTaken(void* ptr, void* predicted, size_t bytes, const char* what) {
    if (predicted != nullptr) {
      TESSERA_FUZZ_CHECK(ptr == predicted,
                         "%s of %zu bytes: got %p, the newest fitting cached "
                         "buffer is %p",
                         what, bytes, ptr, predicted);
      return;
    }
    for (const Cached& c : cached_) {
      TESSERA_FUZZ_CHECK(c.ptr != ptr,
                         "%s of %zu bytes: fresh mapping %p is still cached",
                         what, bytes, ptr);
    }
  }

  // The model of freeing a large buffer.
  void ModelFree(void* ptr, size_t bytes) {
    const size_t class_bytes = BufferCache::ClassBytes(bytes);
    size_t in_class = 0;
    for (const Cached& c : cached_) in_class += c.class_bytes == class_bytes;
    if (class_bytes > options_.budget_bytes ||
        in_class >= options_.max_buffers_per_class) {
      ++evictions_;
      return;
    }
    uint64_t cached_bytes = 0;
    for (const Cached& c : cached_) cached_bytes += c.class_bytes;
    while (cached_bytes + class_bytes > options_.budget_bytes) {
      cached_bytes -= cached_.front().class_bytes;
      cached_.erase(cached_.begin());
      ++evictions_;
    }
    cached_.push_back(Cached{ptr, class_bytes});
  }

  void Allocate(bool zeroed, bool checked) {
    const size_t bytes = DecodeSize();
    const size_t alignment = DecodeAlignment();
    if (shadow_.size() >= kMaxLiveBlocks) return;
    void* predicted = nullptr;
    if (IsLarge(bytes)) {
      predicted = ModelTake(BufferCache::ClassBytes(bytes), alignment);
    }
    void* ptr =
        fuzzing::AllocateOrDie(*cache_, bytes, alignment, zeroed, checked);
    if (IsLarge(bytes)) CheckTaken(ptr, predicted, bytes, "allocation");
    fuzzing::RecordNewBlock(shadow_, ptr, bytes, alignment,
                            Guaranteed(bytes, alignment));
    stats_.NoteAllocation(shadow_);
  }

  void Free(size_t index, bool checked) {
    const ShadowHeap::Block block = shadow_.blocks()[index];
    fuzzing::DeallocateOrDie(*cache_, block, checked);
    if (IsLarge(block.bytes)) ModelFree(block.ptr, block.bytes);
    shadow_.Remove(index);
    ++stats_.deallocations;
  }

  void Reallocate(bool checked) {
    if (shadow_.empty()) return;
    const size_t index = PickBlock();
    const size_t new_bytes = DecodeSize();
    const ShadowHeap::Block block = shadow_.blocks()[index];
    // The model: same class in place, otherwise a new request then a free.
    const bool in_place =
        IsLarge(block.bytes) && IsLarge(new_bytes) &&
        BufferCache::ClassBytes(new_bytes) ==
            BufferCache::ClassBytes(block.bytes);
    void* predicted = nullptr;
    if (!in_place && IsLarge(new_bytes)) {
      predicted =
          ModelTake(BufferCache::ClassBytes(new_bytes), block.alignment);
    }
    void* ptr = fuzzing::ReallocateOrDie(*cache_, block, new_bytes, checked);
    if (in_place) {
      TESSERA_FUZZ_CHECK(ptr == block.ptr,
                         "reallocation within class %zu moved %p to %p",
                         BufferCache::ClassBytes(new_bytes), block.ptr, ptr);
    } else {
      if (IsLarge(new_bytes)) CheckTaken(ptr, predicted, new_bytes, "reallocation");
      if (IsLarge(block.bytes)) ModelFree(block.ptr, block.bytes);
    }
    fuzzing::RecordMovedBlock(shadow_, index, ptr, new_bytes,
                              Guaranteed(new_bytes, block.alignment));
    stats_.NoteReallocation(shadow_);
  }

  void Release() {
    uint64_t bytes = 0;
    for (const Cached& c : cached_) bytes += c.class_bytes;
    released_ += cached_.size();
    cached_.clear();
    const size_t got = cache_->Release();
    TESSERA_FUZZ_CHECK(got == bytes, "Release returned %zu bytes, model %llu",
                       got, static_cast<unsigned long long>(bytes));
  }

  // Hands a bad (ptr, bytes, alignment) to the checked or hot free, and to
  // the checked or hot reallocation; each must report `violation` and change
  // nothing else.
  void Misuse(void* ptr, size_t bytes, size_t alignment,
              ContractViolation violation, const char* what) {
    const int mark = violations_.Mark();
    switch (in_.ConsumeIntegralInRange<int>(0, 3)) {
      case 0: {
        const absl::Status s = cache_->DeallocateChecked(ptr, bytes, alignment);
        TESSERA_FUZZ_CHECK(absl::IsFailedPrecondition(s),
                           "DeallocateChecked of %s %p: %s", what, ptr,
                           s.ToString().c_str());
        ++stats_.failed_requests;
        return;
      }
      case 1: {
        absl::StatusOr<void*> p =
            cache_->ReallocateChecked(ptr, bytes, bytes + 1, alignment);
        TESSERA_FUZZ_CHECK(absl::IsFailedPrecondition(p.status()),
                           "ReallocateChecked of %s %p: %s", what, ptr,
                           p.status().ToString().c_str());
        ++stats_.failed_requests;
        return;
      }
      case 2:
        cache_->Deallocate(ptr, bytes, alignment);
        break;
      default: {
        void* p = cache_->Reallocate(ptr, bytes, bytes + 1, alignment);
        TESSERA_FUZZ_CHECK(p == nullptr, "Reallocate of %s %p gave %p", what,
                           ptr, p);
        ++stats_.failed_requests;
        break;
      }
    }
    violations_.ExpectOne(mark, ptr, violation, what);
  }

  void DoubleFree() {
    ShadowHeap::Block freed;
    if (!shadow_.PickRecentlyFreed(in_.ConsumeByte(), &freed)) return;
    if (!IsLarge(freed.bytes)) return;  // upstream's to check
    bool cached = false;
    for (const Cached& c : cached_) cached |= c.ptr == freed.ptr;
    // A cached buffer is a double free; an unmapped one is simply unknown.
    Misuse(freed.ptr, freed.bytes, freed.alignment,
           cached ? ContractViolation::kDoubleFree
                  : ContractViolation::kForeignPointer,
           "freed buffer");
  }

  void Foreign() {
    const bool interior = in_.ConsumeBool();
    void* ptr = g_foreign + kPage;
    size_t bytes = options_.min_buffer_bytes;
    if (interior) {
      std::vector<size_t> large;
      for (size_t i = 0; i < shadow_.size(); ++i) {
        if (IsLarge(shadow_.blocks()[i].bytes)) large.push_back(i);
      }
      if (large.empty()) return;
      const ShadowHeap::Block& block =
          shadow_.blocks()[large[in_.ConsumeByte() % large.size()]];
      ptr = static_cast<char*>(block.ptr) + kPage;
      bytes = block.bytes;
      if (shadow_.IsLiveStart(ptr)) return;
    }
    for (const Cached& c : cached_) {
      if (c.ptr == ptr) return;
    }
    Misuse(ptr, bytes, kDefaultAlignment, ContractViolation::kForeignPointer,
           interior ? "interior pointer" : "foreign pointer");
  }

  void SizeMismatch() {
    std::vector<size_t> large;
    for (size_t i = 0; i < shadow_.size(); ++i) {
      if (IsLarge(shadow_.blocks()[i].bytes)) large.push_back(i);
    }
    if (large.empty()) return;
    const ShadowHeap::Block block =
        shadow_.blocks()[large[in_.ConsumeByte() % large.size()]];
    size_t bytes = block.bytes;
    size_t alignment = block.alignment;
    if (in_.ConsumeBool()) {
      bytes += 1 + in_.ConsumeByte();
    } else {
      alignment = alignment == kDefaultAlignment ? 2 * kDefaultAlignment
                                                 : kDefaultAlignment;
    }
    Misuse(block.ptr, bytes, alignment, ContractViolation::kSizeMismatch,
           "size/alignment mismatch of");
  }

  void BadRequest() {
    const int variant = in_.ConsumeIntegralInRange<int>(0, 3);
    const bool checked = in_.ConsumeBool();
    size_t bytes = options_.min_buffer_bytes;
    size_t alignment = kDefaultAlignment;
    switch (variant) {
      case 0:
        alignment = 24;  // not a power of two
        break;
      case 1:
        alignment = kMaxAlignment * 2;
        break;
      case 2:
        bytes = BufferCache::kMaxBufferBytes + 1;
        break;
      default:
        bytes = SIZE_MAX - 5;  // rounding overflows
    }
    if (checked) {
      absl::StatusOr<void*> p = cache_->AllocateChecked(bytes, alignment);
      TESSERA_FUZZ_CHECK(
          variant == 2 ? absl::IsResourceExhausted(p.status())
                       : absl::IsInvalidArgument(p.status()),
          "AllocateChecked(%zu, %zu): %s", bytes, alignment,
          p.status().ToString().c_str());
    } else {
      void* p = cache_->Allocate(bytes, alignment);
      TESSERA_FUZZ_CHECK(p == nullptr, "Allocate(%zu, %zu) gave %p", bytes,
                         alignment, p);
    }
    ++stats_.failed_requests;
  }

  void VerifyAll() { fuzzing::CheckAllPatterns(shadow_); }

  void Step(Op op) {
    if (op == Op::kAllocateZeroed) {
      Allocate(/*zeroed=*/true, /*checked=*/in_.ConsumeBool());
      return;
    }
    if (fuzzing::StepInterfaceOp(*this, op)) return;
    if (op == Op::kRelease) Release();
  }


  ByteReader& in_;
  MallocAllocator upstream_;
  BufferCacheOptions options_;
  std::unique_ptr<BufferCache> cache_;
  ShadowHeap shadow_;
  std::vector<Cached> cached_;  // the model of the cache, oldest first
  fuzzing::StatsModel stats_;
  uint64_t hits_ = 0;
  uint64_t misses_ = 0;
  uint64_t evictions_ = 0;
  uint64_t released_ = 0;
  fuzzing::ExpectedViolations violations_;
};

}  // namespace
}  // namespace tessera

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return tessera::fuzzing::RunAllocatorHarness<tessera::Harness>(data, size);
}
