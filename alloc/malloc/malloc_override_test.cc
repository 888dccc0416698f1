// Copyright 2026 The Tessera Authors.
//
// The whole test binary runs on Tessera malloc (malloc_override is linked
// in): gtest, libstdc++ and libc allocate through it too. Default
// configuration only (the sanitizers own malloc).

#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <thread>
#include <vector>

#include "alloc/malloc/internal/engine.h"
#include "alloc/malloc/internal/engine_internal.h"
#include "gtest/gtest.h"

extern "C" void free_sized(void* ptr, size_t bytes);
extern "C" void free_aligned_sized(void* ptr, size_t alignment, size_t bytes);

namespace tessera {
namespace malloc_internal {
namespace {

// Keeps the compiler from folding malloc/free pairs away.
void* volatile g_sink;
// Sizes read at run time, so the compiler cannot reject the bad calls.
volatile size_t g_size_max = SIZE_MAX;
volatile size_t g_half = SIZE_MAX / 2;

void ExpectIntact() {
  int invariant = 0;
  const char* error = CheckThreadHeap(&invariant);
  ASSERT_EQ(error, nullptr) << error;
}

long ResidentBytes() {
  long pages = 0, resident = 0;
  FILE* f = fopen("/proc/self/statm", "r");
  if (f == nullptr) return -1;
  if (fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = -1;
  fclose(f);
  return resident * sysconf(_SC_PAGESIZE);
}

// malloc_trim is Tessera's, not glibc's (which would trim glibc's own unused
// heap): 64 MiB written and freed go back to the OS at once, and a second
// call finds nothing left to give.
TEST(MallocOverrideTest, MallocTrimGivesFreeMemoryBack) {
  constexpr int kBlocks = 4096;
  constexpr size_t kBytes = 16 << 10;
  std::vector<void*> blocks(kBlocks);
  for (void*& p : blocks) {
    p = malloc(kBytes);
    ASSERT_NE(p, nullptr);
    memset(p, 1, kBytes);
  }
  for (void* p : blocks) free(p);
  const long held = ResidentBytes();
  ASSERT_GT(held, 0);
  EXPECT_EQ(malloc_trim(0), 1);
  EXPECT_EQ(malloc_trim(0), 0);  // (ResidentBytes allocates: not between)
  EXPECT_LT(ResidentBytes(), held - long{32} * 1024 * 1024);
  ExpectIntact();
}

TEST(MallocOverrideTest, EveryEntryPointIsServedByTessera) {
  void* m = malloc(100);
  void* c = calloc(10, 10);
  void* r = realloc(nullptr, 100);
  void* a = aligned_alloc(64, 128);
  void* v = valloc(100);
  void* pv = pvalloc(100);
  void* ma = memalign(256, 10);
  void* pm = nullptr;
  ASSERT_EQ(posix_memalign(&pm, 128, 1000), 0);
  auto* n = new int(7);
  auto* arr = new int[100];
  std::string s(1000, 'x');  // libstdc++'s own allocation
  for (void* p : {m, c, r, a, v, pv, ma, pm, static_cast<void*>(n),
                  static_cast<void*>(arr), static_cast<void*>(s.data())}) {
    EXPECT_TRUE(Owns(p) || UsableSize(p) > 0) << p;
  }
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % 64, 0u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(v) % 4096, 0u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(pv) % 4096, 0u);
  EXPECT_GE(malloc_usable_size(pv), 4096u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(ma) % 256, 0u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(pm) % 128, 0u);
  EXPECT_GE(malloc_usable_size(m), 100u);
  EXPECT_EQ(malloc_usable_size(nullptr), 0u);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(static_cast<char*>(c)[i], 0);
  free(m);
  free(c);
  free(r);
  free(a);  // aligned blocks go back through plain free
  free(v);
  free(pv);
  free(ma);
  free(pm);
  delete n;
  delete[] arr;
  ExpectIntact();
}

// The aligned entry points take a cell of the block's size where an aligned
// class holds it (tessera_malloc.h): 4 KiB-aligned 4 KiB blocks, 64 of
// them, each a 4 KiB cell of one page after another, not 8 KiB ones.
TEST(MallocOverrideTest, PageAlignedPagesCostAPageEach) {
  std::vector<void*> blocks;
  for (int i = 0; i < 64; ++i) {
    void* p = nullptr;
    ASSERT_EQ(posix_memalign(&p, 4096, 4096), 0);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 4096, 0u);
    EXPECT_EQ(malloc_usable_size(p), 4096u);
    std::memset(p, 3, 4096);
    blocks.push_back(p);
  }
  void* a = aligned_alloc(1024, 1024);
  void* m = memalign(8192, 8000);
  void* n = ::operator new(2048, std::align_val_t{2048});
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % 1024, 0u);
  EXPECT_EQ(malloc_usable_size(a), 1024u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(m) % 8192, 0u);
  EXPECT_EQ(malloc_usable_size(m), 8192u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(n) % 2048, 0u);
  EXPECT_EQ(malloc_usable_size(n), 2048u);
  ExpectIntact();
  free(a);
  free(m);
  ::operator delete(n, std::align_val_t{2048});
  for (void* p : blocks) free(p);
  ExpectIntact();
}

TEST(MallocOverrideTest, SizedAndAlignedFreesAndEveryNewDeleteForm) {
  void* p = malloc(300);
  free_sized(p, 300);
  void* q = aligned_alloc(512, 5000);
  free_aligned_sized(q, 512, 5000);
  struct alignas(256) Wide { char bytes[300]; };
  auto* w = new Wide;
  EXPECT_EQ(reinterpret_cast<uintptr_t>(w) % 256, 0u);
  delete w;  // sized + aligned delete
  auto* ws = new Wide[3];
  EXPECT_EQ(reinterpret_cast<uintptr_t>(ws) % 256, 0u);
  delete[] ws;
  int* nothrow = new (std::nothrow) int[10];
  ASSERT_NE(nothrow, nullptr);
  delete[] nothrow;
  void* raw = ::operator new(1000, std::align_val_t{64}, std::nothrow);
  ::operator delete(raw, std::align_val_t{64}, std::nothrow);
  void* sized = ::operator new(48);
  ::operator delete(sized, 48);
  EXPECT_THROW(g_sink = ::operator new(g_half), std::bad_alloc);
  EXPECT_EQ(::operator new(g_half, std::nothrow), nullptr);
  ExpectIntact();
}

TEST(MallocOverrideTest, BadRequestsFailAsGlibcDocuments) {
  errno = 0;
  EXPECT_EQ(malloc(g_size_max), nullptr);
  EXPECT_EQ(errno, ENOMEM);
  errno = 0;
  EXPECT_EQ(calloc(g_half, 3), nullptr);  // the product overflows
  EXPECT_EQ(errno, ENOMEM);
  errno = 0;
  EXPECT_EQ(reallocarray(nullptr, g_half, 3), nullptr);
  EXPECT_EQ(errno, ENOMEM);
  void* out = reinterpret_cast<void*>(0x1234);
  EXPECT_EQ(posix_memalign(&out, 24, 100), EINVAL);  // not a power of two
  EXPECT_EQ(posix_memalign(&out, 4, 100), EINVAL);   // below sizeof(void*)
  EXPECT_EQ(out, reinterpret_cast<void*>(0x1234));   // nothing allocated
  EXPECT_EQ(posix_memalign(&out, 64, g_size_max), ENOMEM);
  errno = 0;
  EXPECT_EQ(aligned_alloc(3, 100), nullptr);
  EXPECT_EQ(errno, EINVAL);
  // realloc(NULL, n) is malloc(n); realloc(p, 0) frees p and returns NULL.
  void* p = realloc(nullptr, 64);
  ASSERT_NE(p, nullptr);
  EXPECT_TRUE(Owns(p));
  EXPECT_EQ(realloc(p, 0), nullptr);
  EXPECT_FALSE(Owns(p));  // freed (its cell carries the free canary)
  // A failed realloc leaves the block alone.
  void* keep = malloc(32);
  std::memset(keep, 5, 32);
  EXPECT_EQ(realloc(keep, g_size_max), nullptr);
  EXPECT_EQ(static_cast<char*>(keep)[31], 5);
  free(keep);
  free(nullptr);
  ExpectIntact();
}

TEST(MallocOverrideDeathTest, DoubleFreeAbortsNamingThePointer) {
  EXPECT_DEATH(
      {
        void* p = malloc(40);
        g_sink = malloc(40);
        free(p);
        free(p);
      },
      "tessera_malloc: double free of 0x");
}

TEST(MallocOverrideDeathTest, ForeignAndInteriorPointersAbort) {
  static char not_heap[64];
  EXPECT_DEATH(free(not_heap), "tessera_malloc: foreign pointer of 0x");
  EXPECT_DEATH(
      {
        char* p = static_cast<char*>(malloc(200));
        free(p + 32);
      },
      "interior pointer");
}

// The program's malloc keeps no per-call counters for blocks of a size class
// (Counting::kNone: they cost 15-20% of a small malloc/free pair); huge
// blocks, whose calls map memory anyway, are counted.
TEST(MallocOverrideTest, CountsHugeBlocksButNotClassBlocks) {
  const EngineStats before = Stats();
  void* small = malloc(64);
  ASSERT_NE(small, nullptr);
  free(small);
  const EngineStats middle = Stats();
  EXPECT_EQ(middle.allocations, before.allocations);
  EXPECT_EQ(middle.deallocations, before.deallocations);
  void* huge = malloc(size_t{8} << 20);
  ASSERT_NE(huge, nullptr);
  EXPECT_EQ(Stats().allocations - middle.allocations, 1u);
  free(huge);
  EXPECT_EQ(Stats().deallocations - middle.deallocations, 1u);
}

// The program's blocks lie in the segment range, reserved when its first
// segment was mapped (before main).
TEST(MallocOverrideTest, BlocksLieInTheSegmentRange) {
  EXPECT_TRUE(SegmentRangeReserved());
  for (size_t bytes : {size_t{16}, size_t{1000}, size_t{100000}}) {
    void* p = malloc(bytes);
    EXPECT_TRUE(InSegmentRange(reinterpret_cast<uintptr_t>(p))) << bytes;
    free(p);
  }
  EXPECT_EQ(Stats().segments_outside_range, 0u);
}

// TESSERA_MALLOC_SEGMENT_RANGE=0 (read when the first segment is mapped,
// before main) keeps segments out of the range: they are mapped anywhere,
// and free finds them through the map, on the thread that allocated a block
// or another. Bad frees are still reported.
TEST(MallocOverrideDeathTest, WithoutTheSegmentRangeFreeFindsSegmentsByTheMap) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  setenv("TESSERA_MALLOC_SEGMENT_RANGE", "0", 1);
  EXPECT_EXIT(
      {
        bool ok = !SegmentRangeReserved();
        std::vector<char*> blocks;
        for (int i = 0; i < 20000; ++i) {
          const size_t n = 8 + static_cast<size_t>(i * 37 % 3000);
          char* p = static_cast<char*>(malloc(n));
          std::memset(p, i & 0x7f, n);
          ok &= !InSegmentRange(reinterpret_cast<uintptr_t>(p));
          blocks.push_back(p);
        }
        std::thread([&] {
          for (size_t i = 0; i < blocks.size(); i += 2) free(blocks[i]);
        }).join();
        for (size_t i = 1; i < blocks.size(); i += 2) free(blocks[i]);
        const EngineStats stats = Stats();
        ok &= stats.segments > 0 &&
              stats.segments_outside_range == stats.segments;
        int invariant = 0;
        ok &= CheckAllHeaps(&invariant) == nullptr;
        std::fprintf(stderr, "outside the range: %s\n", ok ? "ok" : "wrong");
        if (!ok) std::exit(1);
        char* p = static_cast<char*>(malloc(200));
        free(p);
        free(p);
      },
      ::testing::KilledBySignal(SIGABRT),
      "outside the range: ok\n.*tessera_malloc: double free of 0x");
  unsetenv("TESSERA_MALLOC_SEGMENT_RANGE");
}

TEST(MallocOverrideTest, DlsymAndDlopenWork) {
  // dlsym allocates its error state with calloc: it must find a ready heap.
  void* self = dlsym(RTLD_DEFAULT, "malloc");
  EXPECT_NE(self, nullptr);
  void* handle = dlopen("libm.so.6", RTLD_NOW);
  ASSERT_NE(handle, nullptr);
  EXPECT_NE(dlsym(handle, "cos"), nullptr);
  EXPECT_EQ(dlsym(handle, "no_such_symbol_here"), nullptr);
  EXPECT_NE(dlerror(), nullptr);
  dlclose(handle);
}

TEST(MallocOverrideTest, ThreadsFreeEachOthersBlocksAndThreadsThatNeverFree) {
  constexpr int kThreads = 4;
  constexpr int kBlocks = 20000;
  std::vector<std::vector<char*>> made(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t, &made] {
      for (int i = 0; i < kBlocks; ++i) {
        const size_t n = 8 + static_cast<size_t>((i * 37 + t) % 3000);
        char* p = static_cast<char*>(malloc(n));
        std::memset(p, t + 1, n);
        made[t].push_back(p);
      }
    });  // exits without freeing anything
  }
  for (auto& th : threads) th.join();
  threads.clear();
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t, &made] {
      const auto& mine = made[(t + 1) % kThreads];  // someone else's
      for (char* p : mine) {
        if (p[0] != static_cast<char>((t + 1) % kThreads + 1)) std::abort();
        free(p);
      }
    });
  }
  for (auto& th : threads) th.join();
  Collect(true);
  int invariant = 0;
  const char* error = CheckAllHeaps(&invariant);
  EXPECT_EQ(error, nullptr) << error;
}

TEST(MallocOverrideTest, ForkFromAThreadedProgramLeavesAWorkingChild) {
  std::atomic<bool> stop{false};
  std::vector<std::thread> busy;
  for (int t = 0; t < 3; ++t) {
    busy.emplace_back([&stop] {
      std::vector<void*> held;
      while (!stop.load()) {
        held.push_back(malloc(64 + held.size() % 500));
        if (held.size() > 1000) {
          for (void* p : held) free(p);
          held.clear();
        }
      }
      for (void* p : held) free(p);
    });
  }
  for (int round = 0; round < 20; ++round) {
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      // The child: the other threads are gone, possibly mid-malloc.
      std::vector<void*> blocks;
      for (int i = 0; i < 10000; ++i) blocks.push_back(malloc(i % 2000 + 1));
      for (void* p : blocks) free(p);
      std::thread child_thread([] { free(malloc(1 << 20)); free(malloc(100)); });
      child_thread.join();
      int invariant = 0;
      _exit(CheckThreadHeap(&invariant) == nullptr ? 0 : 3);
    }
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status)) << status;
    EXPECT_EQ(WEXITSTATUS(status), 0);
  }
  stop = true;
  for (auto& th : busy) th.join();
}

}  // namespace
}  // namespace malloc_internal
}  // namespace tessera
