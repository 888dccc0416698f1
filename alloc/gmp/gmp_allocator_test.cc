// Copyright 2026 The Tessera Authors.

#include "alloc/gmp/gmp_allocator.h"

#include <gmp.h>

#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "alloc/allocator.h"
#include "alloc/pool/size_class_pool.h"
#include "alloc/system/system_allocator.h"
#include "alloc/tlsf/tlsf_arena.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tessera {
namespace {

using ::testing::ElementsAre;
using ::testing::Pair;

bool SameFunctions(const GmpMemoryState& a, const GmpMemoryState& b) {
  return a.allocate == b.allocate && a.reallocate == b.reallocate &&
         a.free == b.free;
}

// A string GMP allocated (mpz_get_str(nullptr, ...)) is freed with GMP's
// current free function and the size the manual gives: strlen + 1.
std::string TakeGmpString(char* s) {
  std::string copy(s);
  void (*gmp_free)(void*, size_t) = nullptr;
  mp_get_memory_functions(nullptr, nullptr, &gmp_free);
  gmp_free(s, copy.size() + 1);
  return copy;
}

// Big-integer arithmetic touching every size range: one-limb results, a
// 100-digit sum, ~1 KiB and ~2 KiB powers (SizeClassPool's class limit), a
// 1.1-Mbit square (GMP's multiplication takes its scratch from the allocate
// function above 64 KiB), and decimal string round trips. Calls `check` after
// each operation; returns a digest of the results.
std::string BigIntegerWorkload(const std::function<void()>& check) {
  mpz_t small, hundred, power, square, huge, parsed;
  mpz_init_set_ui(small, 3);
  mpz_init_set_str(hundred,
                   "1234567890123456789012345678901234567890123456789012345678"
                   "901234567890123456789012345678901234567890",
                   10);
  mpz_init(power);
  mpz_init(square);
  mpz_init(huge);
  mpz_init(parsed);
  check();

  mpz_t sum;
  mpz_init(sum);
  mpz_add_ui(sum, small, 5);  // the seed's 3 + 5
  check();
  mpz_add(sum, sum, hundred);
  check();
  mpz_mul(sum, sum, hundred);
  check();
  mpz_pow_ui(power, small, 5000);  // 7925 bits
  check();
  mpz_mul(square, power, power);  // 15850 bits
  check();
  mpz_ui_pow_ui(huge, 7, 400000);  // 1.12 Mbit
  check();
  mpz_mul(huge, huge, huge);
  check();

  const std::string square_text = TakeGmpString(mpz_get_str(nullptr, 10, square));
  check();
  EXPECT_EQ(mpz_set_str(parsed, square_text.c_str(), 10), 0);
  EXPECT_EQ(mpz_cmp(parsed, square), 0);
  check();
  const std::string huge_hex = TakeGmpString(mpz_get_str(nullptr, 16, huge));
  EXPECT_EQ(mpz_set_str(parsed, huge_hex.c_str(), 16), 0);
  EXPECT_EQ(mpz_cmp(parsed, huge), 0);
  check();

  const std::string digest = absl::StrCat(
      TakeGmpString(mpz_get_str(nullptr, 10, sum)), "|", square_text, "|",
      mpz_sizeinbase(huge, 2), "|", mpz_fdiv_ui(huge, 1000000007));
  mpz_clear(small);
  mpz_clear(hundred);
  mpz_clear(power);
  mpz_clear(square);
  mpz_clear(huge);
  mpz_clear(parsed);
  mpz_clear(sum);
  check();
  return digest;
}

struct AllocatorCase {
  const char* name;
  std::function<std::unique_ptr<Allocator>()> make;
};

std::vector<AllocatorCase> AllocatorCases() {
  return {
      {"size_class",
       [] {
         SizeClassPoolOptions options;
         options.check_returns = true;  // a wrong free size is reported
         return std::unique_ptr<Allocator>(
             std::move(SizeClassPool::Create(options)).value());
       }},
      {"tlsf",
       [] {
         return std::unique_ptr<Allocator>(
             std::move(TlsfArena::Create()).value());
       }},
      {"malloc",
       [] {
         SystemAllocatorOptions options;
         options.track_live_blocks = true;  // sizes and pointers checked
         return std::unique_ptr<Allocator>(
             std::make_unique<MallocAllocator>(options));
       }},
  };
}

class GmpOnAllocatorTest : public ::testing::TestWithParam<AllocatorCase> {};

TEST_P(GmpOnAllocatorTest, ArithmeticMatchesGmpDefaultsAndReturnsEveryByte) {
  const std::string expected = BigIntegerWorkload([] {});
  std::unique_ptr<Allocator> allocator = GetParam().make();
  int checks = 0;
  std::string digest;
  {
    ScopedGmpAllocator route(*allocator);
    ASSERT_EQ(GmpRoutedAllocator(), allocator.get());
    digest = BigIntegerWorkload([&] {
      ++checks;
      const absl::Status integrity = allocator->CheckIntegrity();
      EXPECT_TRUE(integrity.ok()) << "after check " << checks << ": "
                                  << integrity;
    });
  }
  EXPECT_EQ(digest, expected);
  const AllocatorStats stats = allocator->stats();
  EXPECT_EQ(stats.bytes_in_use, 0u);
  EXPECT_EQ(stats.live_allocations(), 0u);
  EXPECT_GT(stats.allocations, 10u);
  EXPECT_GT(stats.reallocations, 0u);
  // The 1.1-Mbit square needs ~280 KB of limbs.
  EXPECT_GT(stats.peak_bytes_in_use, 280000u);
  EXPECT_EQ(stats.failed_requests, 0u);
  EXPECT_TRUE(allocator->CheckIntegrity().ok());
}

INSTANTIATE_TEST_SUITE_P(
    Allocators, GmpOnAllocatorTest, ::testing::ValuesIn(AllocatorCases()),
    [](const ::testing::TestParamInfo<AllocatorCase>& info) {
      return std::string(info.param.name);
    });

std::unique_ptr<SizeClassPool> MakePool() {
  SizeClassPoolOptions options;
  options.check_returns = true;
  return std::move(SizeClassPool::Create(options)).value();
}

TEST(GmpRouteTest, RestoreBringsBackThePreviousFunctions) {
  const GmpMemoryState original = CurrentGmpMemoryState();
  ASSERT_EQ(original.allocator, nullptr);
  std::unique_ptr<SizeClassPool> pool = MakePool();

  const GmpMemoryState previous = RouteGmpTo(*pool);
  EXPECT_TRUE(SameFunctions(previous, original));
  EXPECT_EQ(previous.allocator, nullptr);
  EXPECT_FALSE(SameFunctions(CurrentGmpMemoryState(), original));
  EXPECT_EQ(GmpRoutedAllocator(), pool.get());
  mpz_t x;
  mpz_init_set_str(x, "99999999999999999999999999999999999999", 10);
  EXPECT_EQ(pool->stats().live_allocations(), 1u);
  mpz_clear(x);

  RestoreGmpMemoryFunctions(previous);
  EXPECT_TRUE(SameFunctions(CurrentGmpMemoryState(), original));
  EXPECT_EQ(GmpRoutedAllocator(), nullptr);
  const uint64_t allocations = pool->stats().allocations;
  mpz_init_set_str(x, "99999999999999999999999999999999999999", 10);
  mpz_clear(x);
  EXPECT_EQ(pool->stats().allocations, allocations)
      << "GMP still allocates from the pool after the restore";
  EXPECT_EQ(pool->stats().bytes_in_use, 0u);
}

TEST(GmpRouteTest, NestedScopesUnwindInOrder) {
  const GmpMemoryState original = CurrentGmpMemoryState();
  std::unique_ptr<SizeClassPool> outer_pool = MakePool();
  std::unique_ptr<SizeClassPool> inner_pool = MakePool();
  {
    ScopedGmpAllocator outer(*outer_pool);
    mpz_t x;
    mpz_init2(x, 640);
    EXPECT_EQ(outer_pool->stats().bytes_in_use, 80u);
    {
      ScopedGmpAllocator inner(*inner_pool);
      EXPECT_EQ(inner.previous().allocator, outer_pool.get());
      EXPECT_EQ(GmpRoutedAllocator(), inner_pool.get());
      mpz_t y;
      mpz_init2(y, 1280);
      EXPECT_EQ(inner_pool->stats().bytes_in_use, 160u);
      EXPECT_EQ(outer_pool->stats().bytes_in_use, 80u);
      mpz_clear(y);
      EXPECT_EQ(inner_pool->stats().bytes_in_use, 0u);
    }
    EXPECT_EQ(GmpRoutedAllocator(), outer_pool.get());
    // Back on the outer pool: growing x reallocates there.
    mpz_realloc2(x, 6400);
    EXPECT_EQ(outer_pool->stats().bytes_in_use, 800u);
    EXPECT_EQ(outer_pool->stats().reallocations, 1u);
    mpz_clear(x);
  }
  EXPECT_EQ(GmpRoutedAllocator(), nullptr);
  EXPECT_TRUE(SameFunctions(CurrentGmpMemoryState(), original));
  EXPECT_EQ(outer_pool->stats().bytes_in_use, 0u);
  EXPECT_EQ(inner_pool->stats().allocations, 1u);
  EXPECT_TRUE(outer_pool->CheckIntegrity().ok());
  EXPECT_TRUE(inner_pool->CheckIntegrity().ok());
}

TEST(GmpRouteTest, FunctionsReplacedBehindTheRouteAreNotReportedAsRouted) {
  std::unique_ptr<SizeClassPool> pool = MakePool();
  ScopedGmpAllocator route(*pool);
  ASSERT_EQ(GmpRoutedAllocator(), pool.get());
  const GmpMemoryState ours = CurrentGmpMemoryState();
  mp_set_memory_functions(nullptr, nullptr, nullptr);  // GMP's defaults
  EXPECT_EQ(GmpRoutedAllocator(), nullptr);
  mp_set_memory_functions(ours.allocate, ours.reallocate, ours.free);
  EXPECT_EQ(GmpRoutedAllocator(), pool.get());
}

// Keeps the size of every live block and checks each sized call against it:
// what GMP passes to realloc and free must be what the block was allocated
// (or last reallocated) with, since the allocators trust those sizes.
class RecordingAllocator final : public Allocator {
 public:
  struct Options {
    bool fail_allocate = false;
    bool fail_reallocate = false;
  };
  explicit RecordingAllocator(Options options)
      : Allocator("recording"), options_(options) {}
  RecordingAllocator() : RecordingAllocator(Options{}) {}

  AllocatorStats stats() const override { return stats_; }

  // (old_bytes, new_bytes) of every Reallocate, in order.
  const std::vector<std::pair<size_t, size_t>>& reallocations() const {
    return reallocations_;
  }
  // Sizes of every Deallocate, in order.
  const std::vector<size_t>& frees() const { return frees_; }
  // Calls whose size did not match the block's recorded size.
  int mismatches() const { return mismatches_; }

 protected:
  void* DoAllocate(size_t bytes, size_t alignment) noexcept override {
    if (options_.fail_allocate) return CountFailure();
    void* p = GlobalMallocAllocator().Allocate(bytes, alignment);
    if (p == nullptr) return CountFailure();
    live_[p] = bytes;
    ++stats_.allocations;
    stats_.bytes_in_use += bytes;
    return p;
  }
  void* DoReallocate(void* ptr, size_t old_bytes, size_t new_bytes,
                     size_t alignment) noexcept override {
    if (options_.fail_reallocate) return CountFailure();
    reallocations_.emplace_back(old_bytes, new_bytes);
    CheckSize(ptr, old_bytes);
    void* p = GlobalMallocAllocator().Reallocate(ptr, old_bytes, new_bytes,
                                                 alignment);
    if (p == nullptr) return CountFailure();
    live_.erase(ptr);
    live_[p] = new_bytes;
    ++stats_.reallocations;
    stats_.bytes_in_use += new_bytes;
    stats_.bytes_in_use -= old_bytes;
    return p;
  }
  void DoDeallocate(void* ptr, size_t bytes, size_t alignment) noexcept override {
    frees_.push_back(bytes);
    CheckSize(ptr, bytes);
    live_.erase(ptr);
    ++stats_.deallocations;
    stats_.bytes_in_use -= bytes;
    GlobalMallocAllocator().Deallocate(ptr, bytes, alignment);
  }
  void* CountFailure() noexcept override {
    ++stats_.failed_requests;
    return nullptr;
  }

 private:
  void CheckSize(void* ptr, size_t bytes) {
    auto it = live_.find(ptr);
    if (it == live_.end() || it->second != bytes) ++mismatches_;
  }

  const Options options_;
  AllocatorStats stats_;
  absl::flat_hash_map<void*, size_t> live_;
  std::vector<std::pair<size_t, size_t>> reallocations_;
  std::vector<size_t> frees_;
  int mismatches_ = 0;
};

TEST(GmpSizesTest, ReallocAndFreeGetTheSizesTheBlockHas) {
  RecordingAllocator recorder;
  {
    ScopedGmpAllocator route(recorder);
    mpz_t x;
    mpz_init2(x, 64);  // one limb
    EXPECT_EQ(recorder.stats().bytes_in_use, 8u);
    mpz_realloc2(x, 6400);  // 100 limbs
    mpz_set_ui(x, 1);
    mpz_mul_2exp(x, x, 64 * 200);  // 201 limbs (GMP asks for one spare)
    const size_t final_bytes = x->_mp_alloc * sizeof(mp_limb_t);
    EXPECT_GE(final_bytes, 201 * sizeof(mp_limb_t));
    mpz_clear(x);
    EXPECT_THAT(recorder.reallocations(),
                ElementsAre(Pair(8u, 800u), Pair(800u, final_bytes)));
    EXPECT_THAT(recorder.frees(), ElementsAre(final_bytes));

    // And over a whole workload, with strings and GMP's scratch space.
    BigIntegerWorkload([] {});
  }
  EXPECT_EQ(recorder.mismatches(), 0);
  EXPECT_EQ(recorder.stats().bytes_in_use, 0u);
  EXPECT_EQ(recorder.stats().live_allocations(), 0u);
}

using GmpFailureDeathTest = ::testing::Test;

TEST(GmpFailureDeathTest, FailedAllocationAbortsNamingTheSize) {
  RecordingAllocator::Options options;
  options.fail_allocate = true;
  RecordingAllocator failing(options);
  EXPECT_DEATH(
      {
        ScopedGmpAllocator route(failing);
        mpz_t x;
        mpz_init2(x, 6400);
      },
      "tessera: GMP: cannot allocate 800 bytes from allocator 'recording'");
}

TEST(GmpFailureDeathTest, FailedReallocationAbortsNamingBothSizes) {
  RecordingAllocator::Options options;
  options.fail_reallocate = true;
  RecordingAllocator failing(options);
  EXPECT_DEATH(
      {
        ScopedGmpAllocator route(failing);
        mpz_t x;
        mpz_init2(x, 64);
        mpz_realloc2(x, 6400);
      },
      "tessera: GMP: cannot reallocate 8 bytes to 800 bytes from allocator "
      "'recording'");
}

}  // namespace
}  // namespace tessera
