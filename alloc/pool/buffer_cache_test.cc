// Copyright 2026 The Tessera Authors.

#include "alloc/pool/buffer_cache.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <thread>
#include <vector>

#include "absl/base/config.h"
#include "absl/container/flat_hash_map.h"
#include "absl/random/random.h"
#include "alloc/pool/internal/test_allocator.h"
#include "alloc/pool/internal/violation_recorder.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

#if defined(ABSL_HAVE_ADDRESS_SANITIZER)
#include <sanitizer/asan_interface.h>
#endif

namespace tessera {
namespace {

using ::testing::HasSubstr;
using pool_internal::TestAllocator;
using pool_internal::ViolationRecorder;

constexpr size_t kKiB = 1024;
constexpr size_t kMiB = 1024 * 1024;

bool IsAligned(const void* ptr, size_t alignment) {
  return (reinterpret_cast<uintptr_t>(ptr) & (alignment - 1)) == 0;
}

class BufferCacheTest : public ::testing::Test {
 protected:
  std::unique_ptr<BufferCache> Make(BufferCacheOptions options = {}) {
    options.upstream = &upstream_;
    auto cache = BufferCache::Create(options);
    EXPECT_TRUE(cache.ok()) << cache.status();
    return cache.ok() ? std::move(*cache) : nullptr;
  }
  TestAllocator upstream_;
};

TEST(BufferCacheClassesTest, ClassesRoundUpByAtMostAQuarter) {
  for (size_t bytes = 64 * kKiB; bytes < 3 * 64 * kMiB;
       bytes = bytes * 9 / 8 + 777) {
    const size_t class_bytes = BufferCache::ClassBytes(bytes);
    EXPECT_GE(class_bytes, bytes);
    EXPECT_LE(class_bytes, bytes + bytes / 4 + 4096) << bytes;
    EXPECT_EQ(class_bytes % 4096, 0u);
    EXPECT_EQ(BufferCache::ClassBytes(class_bytes), class_bytes) << bytes;
  }
  EXPECT_EQ(BufferCache::ClassBytes(64 * kKiB), 64 * kKiB);
  EXPECT_EQ(BufferCache::ClassBytes(100000), BufferCache::ClassBytes(110000));
  EXPECT_NE(BufferCache::ClassBytes(100000), BufferCache::ClassBytes(120000));
  EXPECT_EQ(BufferCache::ClassBytes(40 * 1000 * 1000), 40 * kMiB);
}

TEST(BufferCacheOptionsTest, MinimumBelowOnePageIsRejected) {
  BufferCacheOptions options;
  options.min_buffer_bytes = 1000;
  auto cache = BufferCache::Create(options);
  EXPECT_EQ(cache.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(cache.status().message(), HasSubstr("min_buffer_bytes 1000"));
}

TEST_F(BufferCacheTest, SmallRequestsGoUpstream) {
  auto cache = Make();
  void* small = cache->Allocate(64 * kKiB - 1);
  ASSERT_NE(small, nullptr);
  EXPECT_TRUE(upstream_.IsLive(small));
  cache->Deallocate(small, 64 * kKiB - 1);
  EXPECT_EQ(upstream_.live_blocks(), 0u);
  EXPECT_EQ(cache->cache_stats().misses, 0u);
  EXPECT_EQ(cache->stats().allocations, 1u);
  EXPECT_EQ(cache->stats().deallocations, 1u);
}

TEST_F(BufferCacheTest, LargeBufferIsMappedPageAlignedAndReadsZero) {
  auto cache = Make();
  auto* buffer = static_cast<unsigned char*>(cache->Allocate(200 * kKiB));
  ASSERT_NE(buffer, nullptr);
  EXPECT_FALSE(upstream_.IsLive(buffer));
  EXPECT_TRUE(IsAligned(buffer, 4096));
  for (size_t i = 0; i < 200 * kKiB; i += 997) ASSERT_EQ(buffer[i], 0);
  std::memset(buffer, 0x11, 200 * kKiB);
  EXPECT_EQ(cache->cache_stats().misses, 1u);
  EXPECT_EQ(cache->cache_stats().live_buffers, 1u);
  cache->Deallocate(buffer, 200 * kKiB);
  EXPECT_TRUE(cache->CheckIntegrity().ok()) << cache->CheckIntegrity();
}

// A zeroed request served by a dirty cached buffer reads all zero, below and
// above the crossover where clearing becomes giving huge pages back.
TEST_F(BufferCacheTest, ZeroedRequestAfterDirtyReuseReadsAllZero) {
  auto cache = Make();
  const size_t sizes[] = {200 * kKiB, 4 * kMiB - 4096, 4 * kMiB,
                          4 * kMiB + 12345, 10 * kMiB + 100};
  for (size_t bytes : sizes) {
    auto* dirty = static_cast<unsigned char*>(cache->Allocate(bytes));
    ASSERT_NE(dirty, nullptr);
    std::memset(dirty, 0xA5, bytes);
    cache->Deallocate(dirty, bytes);
    auto* zeroed = static_cast<unsigned char*>(cache->AllocateZeroed(bytes));
    ASSERT_EQ(zeroed, dirty) << bytes;
    const size_t first_nonzero = static_cast<size_t>(
        std::find_if(zeroed, zeroed + bytes,
                     [](unsigned char c) { return c != 0; }) -
        zeroed);
    EXPECT_EQ(first_nonzero, bytes) << bytes;
    cache->Deallocate(zeroed, bytes);
  }
  EXPECT_TRUE(cache->CheckIntegrity().ok()) << cache->CheckIntegrity();
}

TEST_F(BufferCacheTest, FreedBufferServesTheNextRequestOfItsClass) {
  auto cache = Make();
  void* a = cache->Allocate(100000);
  std::memset(a, 0x22, 100000);
  cache->Deallocate(a, 100000);
  BufferCacheStats s = cache->cache_stats();
  EXPECT_EQ(s.cached_buffers, 1u);
  EXPECT_EQ(s.cached_bytes, BufferCache::ClassBytes(100000));
  void* b = cache->Allocate(110000);  // same class
  EXPECT_EQ(b, a);
  s = cache->cache_stats();
  EXPECT_EQ(s.hits, 1u);
  EXPECT_EQ(s.misses, 1u);
  EXPECT_EQ(s.cached_buffers, 0u);
  void* c = cache->Allocate(100000);  // nothing cached now: a new mapping
  EXPECT_NE(c, a);
  EXPECT_EQ(cache->cache_stats().misses, 2u);
  cache->Deallocate(b, 110000);
  cache->Deallocate(c, 100000);
  EXPECT_TRUE(cache->CheckIntegrity().ok()) << cache->CheckIntegrity();
}

#if defined(ABSL_HAVE_ADDRESS_SANITIZER)
TEST_F(BufferCacheTest, IdleBuffersArePoisonedUnderAsan) {
  BufferCacheOptions options;
  options.budget_bytes = BufferCache::ClassBytes(100000);  // room for one
  auto cache = Make(options);
  void* a = cache->Allocate(100000);
  void* b = cache->Allocate(100000);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  cache->Deallocate(a, 100000);
  EXPECT_TRUE(__asan_address_is_poisoned(a));
  EXPECT_TRUE(__asan_address_is_poisoned(static_cast<char*>(a) + 99999));
  EXPECT_DEATH(static_cast<volatile char*>(a)[10] = 1, "use-after-poison");
  // Freeing b evicts a (the budget holds one): a is unpoisoned, then unmapped.
  cache->Deallocate(b, 100000);
  EXPECT_TRUE(__asan_address_is_poisoned(b));
  void* again = cache->Allocate(100000);  // the cached b, usable again
  EXPECT_EQ(again, b);
  EXPECT_FALSE(__asan_address_is_poisoned(again));
  std::memset(again, 0x33, 100000);
  cache->Deallocate(again, 100000);
  EXPECT_EQ(cache->Release(), BufferCache::ClassBytes(100000));
}
#endif

TEST_F(BufferCacheTest, OtherClassesMissTheCache) {
  auto cache = Make();
  void* a = cache->Allocate(100000);
  cache->Deallocate(a, 100000);
  void* b = cache->Allocate(300000);
  EXPECT_NE(b, a);
  EXPECT_EQ(cache->cache_stats().hits, 0u);
  EXPECT_EQ(cache->cache_stats().cached_buffers, 1u);
  cache->Deallocate(b, 300000);
}

TEST_F(BufferCacheTest, ZeroedRequestServedFromTheCacheReadsZero) {
  auto cache = Make();
  auto* a = static_cast<unsigned char*>(cache->Allocate(128 * kKiB));
  std::memset(a, 0xEE, 128 * kKiB);
  cache->Deallocate(a, 128 * kKiB);
  auto* b = static_cast<unsigned char*>(cache->AllocateZeroed(128 * kKiB));
  ASSERT_EQ(b, a);
  for (size_t i = 0; i < 128 * kKiB; ++i) ASSERT_EQ(b[i], 0) << i;
  cache->Deallocate(b, 128 * kKiB);
}

TEST_F(BufferCacheTest, BudgetEvictsTheBuffersFreedLongestAgo) {
  BufferCacheOptions options;
  options.budget_bytes = 3 * 64 * kKiB;
  auto cache = Make(options);
  void* buffers[4];
  for (void*& b : buffers) b = cache->Allocate(64 * kKiB);
  for (void* b : buffers) cache->Deallocate(b, 64 * kKiB);
  BufferCacheStats s = cache->cache_stats();
  EXPECT_EQ(s.evictions, 1u);
  EXPECT_EQ(s.cached_buffers, 3u);
  EXPECT_EQ(s.cached_bytes, 3 * 64 * kKiB);
  // The newest comes back first; the oldest (buffers[0]) is gone.
  std::vector<void*> again;
  for (int i = 0; i < 3; ++i) again.push_back(cache->Allocate(64 * kKiB));
  EXPECT_EQ(again[0], buffers[3]);
  EXPECT_EQ(again[1], buffers[2]);
  EXPECT_EQ(again[2], buffers[1]);
  EXPECT_EQ(cache->cache_stats().hits, 3u);
  for (void* b : again) cache->Deallocate(b, 64 * kKiB);
  EXPECT_TRUE(cache->CheckIntegrity().ok()) << cache->CheckIntegrity();
}

TEST_F(BufferCacheTest, BufferLargerThanTheBudgetIsUnmappedOnFree) {
  BufferCacheOptions options;
  options.budget_bytes = 1 * kMiB;
  auto cache = Make(options);
  void* big = cache->Allocate(2 * kMiB);
  cache->Deallocate(big, 2 * kMiB);
  EXPECT_EQ(cache->cache_stats().cached_buffers, 0u);
  EXPECT_EQ(cache->cache_stats().evictions, 1u);
  EXPECT_EQ(cache->cache_stats().mapped_bytes, 0u);
}

TEST_F(BufferCacheTest, ZeroBudgetCachesNothing) {
  BufferCacheOptions options;
  options.budget_bytes = 0;
  auto cache = Make(options);
  void* a = cache->Allocate(64 * kKiB);
  cache->Deallocate(a, 64 * kKiB);
  EXPECT_EQ(cache->cache_stats().cached_buffers, 0u);
  EXPECT_TRUE(cache->CheckIntegrity().ok());
}

TEST_F(BufferCacheTest, EachClassKeepsAtMostItsLimit) {
  BufferCacheOptions options;
  options.max_buffers_per_class = 2;
  auto cache = Make(options);
  void* buffers[5];
  for (void*& b : buffers) b = cache->Allocate(64 * kKiB);
  void* other = cache->Allocate(1 * kMiB);
  for (void* b : buffers) cache->Deallocate(b, 64 * kKiB);
  cache->Deallocate(other, 1 * kMiB);
  BufferCacheStats s = cache->cache_stats();
  EXPECT_EQ(s.cached_buffers, 3u);
  EXPECT_EQ(s.evictions, 3u);
  EXPECT_TRUE(cache->CheckIntegrity().ok()) << cache->CheckIntegrity();
}

TEST_F(BufferCacheTest, ReleaseUnmapsEveryCachedBuffer) {
  auto cache = Make();
  void* a = cache->Allocate(64 * kKiB);
  void* b = cache->Allocate(1 * kMiB);
  void* live = cache->Allocate(64 * kKiB);
  cache->Deallocate(a, 64 * kKiB);
  cache->Deallocate(b, 1 * kMiB);
  EXPECT_EQ(cache->Release(), 64 * kKiB + 1 * kMiB);
  BufferCacheStats s = cache->cache_stats();
  EXPECT_EQ(s.cached_buffers, 0u);
  EXPECT_EQ(s.released, 2u);
  EXPECT_EQ(s.mapped_bytes, 64 * kKiB);
  EXPECT_EQ(cache->Release(), 0u);
  cache->Deallocate(live, 64 * kKiB);
  EXPECT_TRUE(cache->CheckIntegrity().ok());
}

TEST_F(BufferCacheTest, BuffersOfHugePageSizeAreHugePageAligned) {
  BufferCacheOptions options;
  options.huge_pages = true;
  auto cache = Make(options);
  void* a = cache->Allocate(3 * kMiB);
  EXPECT_TRUE(IsAligned(a, 2 * kMiB));
  std::memset(a, 1, 3 * kMiB);
  cache->Deallocate(a, 3 * kMiB);
}

TEST_F(BufferCacheTest, RequestedAlignmentIsHonouredOnMissAndHit) {
  auto cache = Make();
  void* a = cache->Allocate(64 * kKiB, 4096);
  cache->Deallocate(a, 64 * kKiB, 4096);
  for (size_t alignment : {size_t{1} << 16, size_t{1} << 20, size_t{1} << 22}) {
    void* b = cache->Allocate(64 * kKiB, alignment);
    ASSERT_NE(b, nullptr);
    EXPECT_TRUE(IsAligned(b, alignment));
    cache->Deallocate(b, 64 * kKiB, alignment);
  }
  EXPECT_TRUE(cache->CheckIntegrity().ok()) << cache->CheckIntegrity();
}

TEST_F(BufferCacheTest, ReallocateWithinAClassKeepsTheBuffer) {
  auto cache = Make();
  auto* a = static_cast<char*>(cache->Allocate(100000));
  std::memset(a, 'x', 100000);
  EXPECT_EQ(cache->Reallocate(a, 100000, 110000), a);
  auto* b = static_cast<char*>(cache->Reallocate(a, 110000, 1 * kMiB));
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b[0], 'x');
  EXPECT_EQ(b[99999], 'x');
  auto* c = static_cast<char*>(cache->Reallocate(b, 1 * kMiB, 100));
  ASSERT_TRUE(upstream_.IsLive(c));
  EXPECT_EQ(c[99], 'x');
  AllocatorStats s = cache->stats();
  EXPECT_EQ(s.allocations, 1u);
  EXPECT_EQ(s.reallocations, 3u);
  EXPECT_EQ(s.bytes_in_use, 100u);
  cache->Deallocate(c, 100);
  EXPECT_TRUE(cache->CheckIntegrity().ok()) << cache->CheckIntegrity();
}

TEST_F(BufferCacheTest, OversizedAndBadlyAlignedRequestsFailAndAreCounted) {
  auto cache = Make();
  EXPECT_EQ(cache->Allocate(BufferCache::kMaxBufferBytes + 1), nullptr);
  EXPECT_EQ(cache->Allocate(1 * kMiB, 3), nullptr);
  EXPECT_EQ(cache->AllocateChecked(SIZE_MAX / 2).status().code(),
            absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(cache->stats().failed_requests, 3u);
}

// ---- Bad frees ----

TEST_F(BufferCacheTest, DoubleFreeIsReportedAndIgnored) {
  ViolationRecorder recorder;
  auto cache = Make();
  void* a = cache->Allocate(64 * kKiB);
  cache->Deallocate(a, 64 * kKiB);
  cache->Deallocate(a, 64 * kKiB);
  ASSERT_EQ(recorder.violations().size(), 1u);
  EXPECT_EQ(recorder.violations()[0].violation, ContractViolation::kDoubleFree);
  EXPECT_EQ(cache->cache_stats().cached_buffers, 1u);
  EXPECT_EQ(cache->DeallocateChecked(a, 64 * kKiB).code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(cache->CheckIntegrity().ok()) << cache->CheckIntegrity();
}

TEST_F(BufferCacheTest, ForeignPointerIsReportedAndNeverUnmapped) {
  ViolationRecorder recorder;
  auto cache = Make();
  std::vector<char> mine(64 * kKiB, 'm');
  cache->Deallocate(mine.data(), 64 * kKiB);
  ASSERT_EQ(recorder.violations().size(), 1u);
  EXPECT_EQ(recorder.violations()[0].violation,
            ContractViolation::kForeignPointer);
  EXPECT_EQ(mine[100], 'm');  // still mapped and intact
  EXPECT_EQ(cache->stats().deallocations, 0u);
}

TEST_F(BufferCacheTest, SizeMismatchIsReportedAndIgnored) {
  ViolationRecorder recorder;
  auto cache = Make();
  void* a = cache->Allocate(1 * kMiB);
  cache->Deallocate(a, 2 * kMiB);
  cache->Deallocate(a, 1 * kMiB, 4096);
  ASSERT_EQ(recorder.violations().size(), 2u);
  EXPECT_EQ(recorder.violations()[0].violation,
            ContractViolation::kSizeMismatch);
  EXPECT_THAT(recorder.violations()[0].detail, HasSubstr("1048576 bytes"));
  absl::Status status = cache->DeallocateChecked(a, 2 * kMiB);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(cache->DeallocateChecked(a, 1 * kMiB).ok());
  EXPECT_TRUE(cache->CheckIntegrity().ok());
}

// ---- Threads and the randomised model ----

TEST_F(BufferCacheTest, ThreadsShareTheCacheSafely) {
  auto cache = Make();
  auto worker = [&](int seed) {
    std::mt19937 gen(seed);
    for (int i = 0; i < 200; ++i) {
      const size_t bytes = (64 + (gen() % 4) * 64) * kKiB;
      auto* p = static_cast<unsigned char*>(cache->Allocate(bytes));
      ASSERT_NE(p, nullptr);
      p[0] = static_cast<unsigned char>(seed);
      p[bytes - 1] = static_cast<unsigned char>(seed);
      ASSERT_EQ(p[0], static_cast<unsigned char>(seed));
      cache->Deallocate(p, bytes);
    }
  };
  std::thread a(worker, 1), b(worker, 2);
  a.join();
  b.join();
  BufferCacheStats s = cache->cache_stats();
  EXPECT_EQ(s.hits + s.misses, 400u);
  EXPECT_GT(s.hits, 0u);
  EXPECT_EQ(s.live_buffers, 0u);
  EXPECT_TRUE(cache->CheckIntegrity().ok()) << cache->CheckIntegrity();
}

TEST_F(BufferCacheTest, MatchesAShadowMapUnderRandomOperations) {
  ViolationRecorder recorder;
  BufferCacheOptions options;
  options.budget_bytes = 4 * kMiB;  // small, so evictions happen
  options.max_buffers_per_class = 3;
  auto cache = Make(options);
  std::mt19937_64 gen(42);
  struct Live {
    size_t bytes;
    size_t alignment;
    unsigned char fill;
  };
  absl::flat_hash_map<unsigned char*, Live> live;
  std::vector<unsigned char*> order;
  // Checks the bytes a buffer must still hold (sparsely for big ones).
  auto verify = [&](unsigned char* p) {
    const Live& l = live.at(p);
    const size_t step = l.bytes > 8192 ? 509 : 1;
    for (size_t i = 0; i < l.bytes; i += step) ASSERT_EQ(p[i], l.fill) << i;
    if (l.bytes != 0) {
      ASSERT_EQ(p[l.bytes - 1], l.fill);
    }
  };
  const size_t sizes[] = {100, 5000, 64 * kKiB, 70000, 100000, 256 * kKiB,
                          600000, 1 * kMiB};
  const size_t alignments[] = {16, 64, 4096, 1 << 16};
  for (int op = 0; op < 400; ++op) {
    if (absl::Uniform(gen, 0, 100) < 55 || order.empty()) {
      const size_t bytes = sizes[absl::Uniform(gen, 0, 8)];
      const size_t alignment = alignments[absl::Uniform(gen, 0, 4)];
      const bool zeroed = absl::Uniform(gen, 0, 4) == 0;
      auto* p = static_cast<unsigned char*>(
          zeroed ? cache->AllocateZeroed(bytes, alignment)
                 : cache->Allocate(bytes, alignment));
      ASSERT_NE(p, nullptr);
      ASSERT_TRUE(IsAligned(p, alignment));
      ASSERT_FALSE(live.contains(p));
      if (zeroed) {
        for (size_t i = 0; i < bytes; i += 61) ASSERT_EQ(p[i], 0);
      }
      const auto fill = static_cast<unsigned char>(op | 1);
      std::memset(p, fill, bytes);
      live[p] = Live{bytes, alignment, fill};
      order.push_back(p);
    } else {
      const size_t i = absl::Uniform<size_t>(gen, 0, order.size());
      unsigned char* p = order[i];
      verify(p);
      const Live l = live.at(p);
      order[i] = order.back();
      order.pop_back();
      live.erase(p);
      cache->Deallocate(p, l.bytes, l.alignment);
      if (absl::Uniform(gen, 0, 20) == 0) cache->Release();
    }
    ASSERT_TRUE(cache->CheckIntegrity().ok()) << cache->CheckIntegrity();
    ASSERT_EQ(cache->stats().live_allocations(), live.size());
  }
  for (unsigned char* p : order) {
    verify(p);
    cache->Deallocate(p, live.at(p).bytes, live.at(p).alignment);
  }
  EXPECT_TRUE(recorder.violations().empty());
  EXPECT_EQ(upstream_.live_blocks(), 0u);
  EXPECT_GT(cache->cache_stats().hits, 0u);
  EXPECT_GT(cache->cache_stats().evictions, 0u);
  EXPECT_TRUE(cache->CheckIntegrity().ok());
}

}  // namespace
}  // namespace tessera
