// Copyright 2026 The Tessera Authors.
//
// Tests of the interface itself: the checked path, the adapters (pmr, std,
// handler) and the scoped default allocator.

#include "alloc/allocator.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory_resource>
#include <string>
#include <thread>
#include <vector>

#include "alloc/default_allocator.h"
#include "alloc/handler.h"
#include "alloc/memory_resource.h"
#include "alloc/system/system_allocator.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;

TEST(AlignmentTest, ValidAlignmentsArePowersOfTwoUpToTheMaximum) {
  EXPECT_FALSE(IsValidAlignment(0));
  EXPECT_TRUE(IsValidAlignment(1));
  EXPECT_TRUE(IsValidAlignment(64));
  EXPECT_FALSE(IsValidAlignment(48));
  EXPECT_TRUE(IsValidAlignment(kMaxAlignment));
  EXPECT_FALSE(IsValidAlignment(kMaxAlignment * 2));
  size_t out = 7;
  EXPECT_TRUE(RoundUpChecked(65, 64, &out));
  EXPECT_EQ(out, 128u);
  EXPECT_FALSE(RoundUpChecked(SIZE_MAX - 10, 64, &out));
  EXPECT_EQ(out, 128u);
}

TEST(CheckedApiTest, MessagesNameTheBadValue) {
  AlignedAllocator allocator(64);
  auto bad_alignment = allocator.AllocateZeroedChecked(10, 24);
  EXPECT_EQ(bad_alignment.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(bad_alignment.status().message()),
              HasSubstr("alignment 24"));
  auto bad_size = allocator.ReallocateChecked(nullptr, 0, SIZE_MAX);
  EXPECT_EQ(bad_size.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(bad_size.status().message()), HasSubstr("overflows"));
  EXPECT_EQ(allocator.DeallocateChecked(nullptr, 10).code(),
            absl::StatusCode::kOk);
  EXPECT_EQ(allocator.stats().failed_requests, 2u);
}

TEST(CheckedApiTest, SuccessfulCallsReturnUsableMemory) {
  MallocAllocator allocator;
  absl::StatusOr<void*> ptr = allocator.AllocateZeroedChecked(256, 128);
  ASSERT_TRUE(ptr.ok());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(*ptr) % 128, 0u);
  EXPECT_EQ(static_cast<char*>(*ptr)[255], 0);
  absl::StatusOr<void*> grown = allocator.ReallocateChecked(*ptr, 256, 512, 128);
  ASSERT_TRUE(grown.ok());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(*grown) % 128, 0u);
  EXPECT_TRUE(allocator.DeallocateChecked(*grown, 512, 128).ok());
  EXPECT_EQ(allocator.stats().bytes_in_use, 0u);
}

TEST(MemoryResourceTest, PmrVectorRunsOnATesseraAllocator) {
  AlignedAllocator allocator(64);
  MemoryResource resource(allocator);
  {
    std::pmr::vector<int> values(&resource);
    for (int i = 0; i < 1000; ++i) values.push_back(i);
    EXPECT_EQ(values[999], 999);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(values.data()) % 64, 0u);
    EXPECT_GT(allocator.stats().allocations, 1u);
    EXPECT_GE(allocator.stats().bytes_in_use, 1000 * sizeof(int));
  }
  EXPECT_EQ(allocator.stats().bytes_in_use, 0u);
  EXPECT_EQ(allocator.stats().live_allocations(), 0u);
}

TEST(MemoryResourceTest, EqualityFollowsTheAllocator) {
  MallocAllocator a;
  MallocAllocator b;
  MemoryResource ra1(a), ra2(a), rb(b);
  EXPECT_TRUE(ra1.is_equal(ra2));
  EXPECT_FALSE(ra1.is_equal(rb));
  EXPECT_FALSE(ra1.is_equal(*std::pmr::new_delete_resource()));
}

// An allocator that always fails, to see failures cross the adapters.
class FailingAllocator final : public Allocator {
 public:
  FailingAllocator() : Allocator("failing") {}
  AllocatorStats stats() const override { return stats_; }

 protected:
  void* DoAllocate(size_t, size_t) noexcept override { return CountFailure(); }
  void DoDeallocate(void*, size_t, size_t) noexcept override {}
  void* CountFailure() noexcept override {
    ++stats_.failed_requests;
    return nullptr;
  }

 private:
  AllocatorStats stats_;
};

TEST(MemoryResourceTest, FailureBecomesBadAlloc) {
  FailingAllocator failing;
  MemoryResource resource(failing);
  std::pmr::vector<int> values(&resource);
  EXPECT_THROW(values.resize(10), std::bad_alloc);
  EXPECT_EQ(failing.stats().failed_requests, 1u);
  std::vector<int, StdAllocator<int>> std_values{StdAllocator<int>(failing)};
  EXPECT_THROW(std_values.resize(10), std::bad_alloc);
  EXPECT_THROW(StdAllocator<double>(failing).allocate(SIZE_MAX / 4),
               std::bad_array_new_length);
}

TEST(StdAllocatorTest, VectorRunsOnATesseraAllocator) {
  AlignedAllocator allocator(32);
  {
    std::vector<float, StdAllocator<float>> values{StdAllocator<float>(allocator)};
    values.assign(4096, 1.5f);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(values.data()) % 32, 0u);
    EXPECT_EQ(allocator.stats().bytes_in_use, 4096 * sizeof(float));
    // Rebinding keeps the allocator.
    StdAllocator<double> rebound(values.get_allocator());
    EXPECT_EQ(&rebound.allocator(), &allocator);
    EXPECT_TRUE(rebound == values.get_allocator());
  }
  EXPECT_EQ(allocator.stats().bytes_in_use, 0u);
}

TEST(ScopedDefaultAllocatorTest, SetsAndRestoresPerThread) {
  EXPECT_EQ(&DefaultAllocator(), &GlobalMallocAllocator());
  AlignedAllocator outer_allocator(64);
  ZeroedAllocator inner_allocator;
  {
    ScopedDefaultAllocator outer(outer_allocator);
    EXPECT_EQ(&DefaultAllocator(), &outer_allocator);
    {
      ScopedDefaultAllocator inner(inner_allocator);
      EXPECT_EQ(&DefaultAllocator(), &inner_allocator);
      // Another thread does not see this thread's scope.
      Allocator* seen_by_other = nullptr;
      std::thread([&] { seen_by_other = &DefaultAllocator(); }).join();
      EXPECT_EQ(seen_by_other, &GlobalMallocAllocator());
      // StdAllocator's default constructor picks up the scoped default.
      std::vector<int, StdAllocator<int>> values(10);
      EXPECT_EQ(inner_allocator.stats().live_allocations(), 1u);
    }
    EXPECT_EQ(&DefaultAllocator(), &outer_allocator);
  }
  EXPECT_EQ(&DefaultAllocator(), &GlobalMallocAllocator());
  EXPECT_EQ(inner_allocator.stats().live_allocations(), 0u);
}

TEST(HandlerTest, HandlerForwardsToTheAllocator) {
  AlignedAllocator allocator(64);
  AllocatorHandler handler = MakeHandler(allocator);
  EXPECT_STREQ(handler.name, "aligned64");
  void* ptr = handler.calloc(handler.ctx, 100, 64);
  ASSERT_NE(ptr, nullptr);
  EXPECT_EQ(static_cast<char*>(ptr)[99], 0);
  ptr = handler.realloc(handler.ctx, ptr, 100, 200, 64);
  ASSERT_NE(ptr, nullptr);
  handler.free(handler.ctx, ptr, 200, 64);
  EXPECT_EQ(allocator.stats().allocations, 1u);
  EXPECT_EQ(allocator.stats().reallocations, 1u);
  EXPECT_EQ(allocator.stats().live_allocations(), 0u);
}

TEST(HandlerTest, HandlerAllocatorWrapsCallbacks) {
  MallocAllocator backing;
  HandlerAllocator wrapped(MakeHandler(backing));
  EXPECT_EQ(wrapped.name(), "malloc");
  void* ptr = wrapped.Allocate(64, 64);
  ASSERT_NE(ptr, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(ptr) % 64, 0u);
  ptr = wrapped.Reallocate(ptr, 64, 128, 64);
  wrapped.Deallocate(ptr, 128, 64);
  EXPECT_EQ(wrapped.stats().allocations, 1u);
  EXPECT_EQ(wrapped.stats().reallocations, 1u);
  EXPECT_EQ(wrapped.stats().bytes_in_use, 0u);
  EXPECT_EQ(wrapped.Allocate(8, 3), nullptr);
  EXPECT_EQ(wrapped.stats().failed_requests, 1u);
  EXPECT_EQ(backing.stats().live_allocations(), 0u);
}

TEST(HandlerTest, ZeroedRequestsGoThroughTheCallocCallback) {
  MallocAllocator backing;
  HandlerAllocator wrapped(MakeHandler(backing));
  auto* ptr = static_cast<unsigned char*>(wrapped.AllocateZeroed(100, 64));
  ASSERT_NE(ptr, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(ptr) % 64, 0u);
  for (int i = 0; i < 100; ++i) ASSERT_EQ(ptr[i], 0);
  EXPECT_EQ(backing.stats().allocations, 1u);
  EXPECT_EQ(wrapped.stats().bytes_in_use, 100u);
  wrapped.Deallocate(ptr, 100, 64);
  AllocatorHandler failing = MakeHandler(backing);
  failing.calloc = [](void*, size_t, size_t) -> void* { return nullptr; };
  HandlerAllocator refusing(failing);
  EXPECT_EQ(refusing.AllocateZeroed(100), nullptr);
  EXPECT_EQ(refusing.stats().failed_requests, 1u);
  EXPECT_EQ(backing.stats().live_allocations(), 0u);
}

TEST(HandlerTest, MissingCallocAndReallocFallBack) {
  MallocAllocator backing;
  AllocatorHandler handler = MakeHandler(backing);
  handler.calloc = nullptr;
  handler.realloc = nullptr;
  HandlerAllocator wrapped(handler);
  auto* ptr = static_cast<unsigned char*>(wrapped.AllocateZeroed(50));
  ASSERT_NE(ptr, nullptr);
  for (int i = 0; i < 50; ++i) ASSERT_EQ(ptr[i], 0);
  ptr[0] = 9;
  ptr = static_cast<unsigned char*>(wrapped.Reallocate(ptr, 50, 500));
  EXPECT_EQ(ptr[0], 9);
  wrapped.Deallocate(ptr, 500);
  EXPECT_EQ(backing.stats().live_allocations(), 0u);
}

// Implements only DoAllocate/DoDeallocate on malloc, so the interface's own
// defaults (zeroing, reallocation by copy, ownership) do the rest. Fails
// requests above `limit` bytes.
class MinimalAllocator final : public Allocator {
 public:
  explicit MinimalAllocator(size_t limit) : Allocator("minimal"), limit_(limit) {}
  AllocatorStats stats() const override { return stats_; }
  size_t max_allocation_size() const override { return 2 * limit_; }

 protected:
  void* DoAllocate(size_t bytes, size_t alignment) noexcept override {
    if (bytes > limit_) return CountFailure();
    // aligned_alloc wants a size that is a multiple of the alignment.
    const size_t a = std::max<size_t>(alignment, 64);
    void* ptr = std::aligned_alloc(a, std::max(a, (bytes + a - 1) & ~(a - 1)));
    ++stats_.allocations;
    return ptr;
  }
  void DoDeallocate(void* ptr, size_t, size_t) noexcept override {
    ++stats_.deallocations;
    std::free(ptr);
  }
  void* CountFailure() noexcept override {
    ++stats_.failed_requests;
    return nullptr;
  }

 private:
  const size_t limit_;
  AllocatorStats stats_;
};

TEST(CheckedApiTest, OutOfMemoryIsResourceExhaustedOnEveryCheckedCall) {
  MinimalAllocator allocator(1024);
  EXPECT_TRUE(absl::IsResourceExhausted(allocator.AllocateChecked(2000).status()));
  EXPECT_TRUE(
      absl::IsResourceExhausted(allocator.AllocateZeroedChecked(2000).status()));
  // Above max_allocation_size: refused before the allocator is asked.
  absl::StatusOr<void*> too_big = allocator.AllocateChecked(4096);
  EXPECT_TRUE(absl::IsResourceExhausted(too_big.status()));
  EXPECT_THAT(std::string(too_big.status().message()),
              HasSubstr("largest possible allocation"));
  absl::StatusOr<void*> block = allocator.ReallocateChecked(nullptr, 0, 100);
  ASSERT_TRUE(block.ok()) << block.status();
  std::memset(*block, 7, 100);
  absl::StatusOr<void*> grown = allocator.ReallocateChecked(*block, 100, 2000);
  EXPECT_TRUE(absl::IsResourceExhausted(grown.status()));
  EXPECT_THAT(std::string(grown.status().message()),
              HasSubstr("the old block is still valid"));
  EXPECT_EQ(static_cast<unsigned char*>(*block)[99], 7);
  // The default reallocation copies the prefix; the default zeroing clears.
  void* moved = allocator.Reallocate(*block, 100, 500);
  ASSERT_NE(moved, nullptr);
  EXPECT_EQ(static_cast<unsigned char*>(moved)[99], 7);
  void* zeroed = allocator.AllocateZeroed(300, 256);
  ASSERT_NE(zeroed, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(zeroed) % 256, 0u);
  EXPECT_EQ(static_cast<unsigned char*>(zeroed)[299], 0);
  EXPECT_TRUE(absl::IsInvalidArgument(allocator.DeallocateChecked(zeroed, 300, 3)));
  EXPECT_EQ(allocator.Allocate(10, 3), nullptr);
  EXPECT_EQ(allocator.AllocateZeroed(10, 0), nullptr);
  EXPECT_EQ(allocator.Reallocate(moved, 500, 10, 6), nullptr);
  EXPECT_TRUE(allocator.DeallocateChecked(zeroed, 300, 256).ok());
  allocator.Deallocate(moved, 500);
  allocator.Deallocate(nullptr, 500);
  EXPECT_EQ(allocator.stats().allocations, allocator.stats().deallocations);
  // 2000-byte requests: 3 (two checked allocations, one reallocation);
  // too big: 1; bad alignments: 4 (the DeallocateChecked one included).
  EXPECT_EQ(allocator.stats().failed_requests, 8u);
}

TEST(ContractViolationTest, NamesAndHandlerInstallation) {
  EXPECT_EQ(ContractViolationName(ContractViolation::kDoubleFree), "double free");
  EXPECT_EQ(ContractViolationName(ContractViolation::kForeignPointer),
            "foreign pointer");
  EXPECT_EQ(ContractViolationName(ContractViolation::kSizeMismatch),
            "size mismatch");
  static int calls = 0;
  static ContractViolation seen = ContractViolation::kDoubleFree;
  const ContractViolationHandler counting =
      [](absl::string_view, ContractViolation v, const void*, absl::string_view) {
        ++calls;
        seen = v;
      };
  const ContractViolationHandler previous = SetContractViolationHandler(counting);
  ReportContractViolation("test", ContractViolation::kSizeMismatch, nullptr, "x");
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(seen, ContractViolation::kSizeMismatch);
  // nullptr reinstalls the default handler (which aborts: not called here).
  EXPECT_EQ(SetContractViolationHandler(nullptr), counting);
  SetContractViolationHandler(previous);
}

TEST(ContractViolationTest, DefaultHandlerAbortsWithAMessage) {
  MallocAllocator allocator;
  alignas(16) static char not_ours[32];
  SystemAllocatorOptions options;
  options.track_live_blocks = true;
  MallocAllocator tracked(options);
  EXPECT_DEATH(tracked.Deallocate(not_ours, 16),
               "tessera: malloc: foreign pointer of 0x[0-9a-f]+");
}

}  // namespace
}  // namespace tessera
