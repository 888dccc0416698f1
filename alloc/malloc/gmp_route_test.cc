// Copyright 2026 The Tessera Authors.
//
// GMP routed to Tessera malloc's fast paths (gmp_route.h): the same numbers
// as GMP's defaults, every block counted and returned, the previous functions
// restored, bad frees reported, failures aborting with the size.

#include "alloc/malloc/gmp_route.h"

#include <gmp.h>

#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "alloc/gmp/gmp_allocator.h"
#include "alloc/malloc/tessera_malloc.h"
#include "alloc/pool/internal/violation_recorder.h"
#include "alloc/pool/size_class_pool.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tessera {
namespace {

using pool_internal::ViolationRecorder;

// Decimal digits of a string GMP allocated, freed with GMP's free function
// and the size it was allocated with (as GMP's own callers must).
std::string TakeString(char* digits) {
  std::string result(digits);
  void (*free_function)(void*, size_t);
  mp_get_memory_functions(nullptr, nullptr, &free_function);
  free_function(digits, result.size() + 1);
  return result;
}

// Arithmetic that allocates small limb arrays, grows them by realloc, and
// makes a result above 256 KiB (Tessera malloc's huge blocks): the digest of
// its results.
std::vector<std::string> BigIntegerWork() {
  std::vector<std::string> results;
  mpz_t a, b, c;
  mpz_init(a);
  mpz_init_set_ui(b, 3);
  mpz_init(c);
  for (unsigned long i = 1; i <= 300; ++i) {
    mpz_add_ui(a, a, i);
    mpz_mul_2exp(a, a, 37);  // grows a by realloc
  }
  results.push_back(TakeString(mpz_get_str(nullptr, 16, a)));
  mpz_fac_ui(c, 2000);
  results.push_back(TakeString(mpz_get_str(nullptr, 10, c)));
  mpz_pow_ui(b, b, 2000000);  // 3.2 M bits: a 396 KB limb array
  mpz_mul(c, b, c);
  results.push_back(std::to_string(mpz_sizeinbase(c, 2)));
  results.push_back(std::to_string(mpz_fdiv_ui(c, 1000000007)));
  mpz_clear(a);
  mpz_clear(b);
  mpz_clear(c);
  return results;
}

TEST(GmpRouteTest, ArithmeticMatchesGmpDefaultsAndEveryBlockIsCounted) {
  const std::vector<std::string> expected = BigIntegerWork();
  TesseraMalloc& tm = GlobalTesseraMalloc();
  const AllocatorStats before = tm.stats();
  {
    ScopedGmpTesseraMalloc route;
    EXPECT_EQ(GmpRoutedAllocator(), &tm);
    EXPECT_EQ(BigIntegerWork(), expected);
    EXPECT_TRUE(tm.CheckIntegrity().ok());
  }
  const AllocatorStats after = tm.stats();
  EXPECT_GT(after.allocations, before.allocations);
  EXPECT_GT(after.reallocations, before.reallocations);
  EXPECT_EQ(after.bytes_in_use, before.bytes_in_use);
  EXPECT_EQ(GmpRoutedAllocator(), nullptr);
}

TEST(GmpRouteTest, RestoreBringsBackThePreviousFunctions) {
  GmpMemoryState original = CurrentGmpMemoryState();
  {
    ScopedGmpTesseraMalloc route;
    const GmpMemoryState routed = CurrentGmpMemoryState();
    EXPECT_NE(routed.allocate, original.allocate);
    EXPECT_NE(routed.free, original.free);
    EXPECT_EQ(route.previous().allocate, original.allocate);
  }
  const GmpMemoryState restored = CurrentGmpMemoryState();
  EXPECT_EQ(restored.allocate, original.allocate);
  EXPECT_EQ(restored.reallocate, original.reallocate);
  EXPECT_EQ(restored.free, original.free);
}

TEST(GmpRouteTest, NestsWithTheGenericRoute) {
  const GmpMemoryState original = CurrentGmpMemoryState();
  absl::StatusOr<std::unique_ptr<SizeClassPool>> pool = SizeClassPool::Create();
  ASSERT_TRUE(pool.ok());
  {
    ScopedGmpTesseraMalloc outer;
    EXPECT_EQ(GmpRoutedAllocator(), &GlobalTesseraMalloc());
    {
      ScopedGmpAllocator inner(**pool);
      EXPECT_EQ(GmpRoutedAllocator(), pool->get());
      mpz_t x;
      mpz_init_set_str(x, "123456789012345678901234567890", 10);
      EXPECT_GT((*pool)->stats().live_allocations(), 0u);
      mpz_clear(x);
    }
    EXPECT_EQ(GmpRoutedAllocator(), &GlobalTesseraMalloc());
  }
  EXPECT_EQ(CurrentGmpMemoryState().allocate, original.allocate);
  EXPECT_EQ((*pool)->stats().live_allocations(), 0u);
}

// Numbers made on one thread and cleared on another: the cross-thread frees
// of the engine, behind GMP's sized free.
TEST(GmpRouteTest, NumbersClearedOnAnotherThread) {
  TesseraMalloc& tm = GlobalTesseraMalloc();
  const uint64_t in_use = tm.stats().bytes_in_use;
  ScopedGmpTesseraMalloc route;
  constexpr int kThreads = 4;
  constexpr int kNumbers = 200;
  std::vector<std::vector<__mpz_struct>> made(
      kThreads, std::vector<__mpz_struct>(kNumbers));
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&made, t] {
      for (int i = 0; i < kNumbers; ++i) {
        mpz_ptr number = &made[t][i];
        mpz_init_set_ui(number, static_cast<unsigned long>(i + 1));
        mpz_mul_2exp(number, number, 64 * (i % 50));
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) {
    for (int i = 0; i < kNumbers; ++i) {
      EXPECT_EQ(mpz_scan1(&made[t][i], 0),
                static_cast<mp_bitcnt_t>(64 * (i % 50)) +
                    static_cast<mp_bitcnt_t>(__builtin_ctz(i + 1)));
      mpz_clear(&made[t][i]);
    }
  }
  GlobalTesseraMalloc().Collect();
  EXPECT_EQ(tm.stats().bytes_in_use, in_use);
  EXPECT_TRUE(tm.CheckIntegrity().ok());
}

TEST(GmpRouteTest, BadFreesAreReportedAndIgnored) {
  ViolationRecorder recorder;
  ScopedGmpTesseraMalloc route;
  void* (*allocate)(size_t);
  void (*free_function)(void*, size_t);
  mp_get_memory_functions(&allocate, nullptr, &free_function);
  void* block = allocate(64);
  ASSERT_NE(block, nullptr);
  free_function(block, 100000);  // a size larger than the block
  ASSERT_EQ(recorder.violations().size(), 1u);
  EXPECT_EQ(recorder.violations()[0].violation, ContractViolation::kSizeMismatch);
  EXPECT_EQ(recorder.violations()[0].ptr, block);
  alignas(16) unsigned char on_stack[64] = {};
  free_function(on_stack, sizeof(on_stack));
  ASSERT_EQ(recorder.violations().size(), 2u);
  EXPECT_EQ(recorder.violations()[1].violation, ContractViolation::kForeignPointer);
  for (unsigned char byte : on_stack) EXPECT_EQ(byte, 0);
  free_function(block, 64);
  free_function(block, 64);  // twice
  ASSERT_EQ(recorder.violations().size(), 3u);
  EXPECT_EQ(recorder.violations()[2].violation, ContractViolation::kDoubleFree);
  EXPECT_TRUE(GlobalTesseraMalloc().CheckIntegrity().ok());
}

TEST(GmpRouteDeathTest, FailedAllocationAbortsNamingTheSize) {
  EXPECT_DEATH(
      {
        ScopedGmpTesseraMalloc route;
        void* (*allocate)(size_t);
        mp_get_memory_functions(&allocate, nullptr, nullptr);
        allocate(size_t{1} << 62);
      },
      "tessera: GMP: cannot allocate 4611686018427387904 bytes from "
      "allocator 'tessera_malloc'");
}

}  // namespace
}  // namespace tessera
