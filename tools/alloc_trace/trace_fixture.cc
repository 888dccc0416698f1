// Copyright 2026 The Tessera Authors.
//
// A program with known allocation counts, for alloc_trace_record_test. Each
// kind of call uses its own band of sizes, so the test can count this
// program's calls apart from those of the C and C++ runtimes:
//
//   malloc          100 calls, sizes 7001..7100, then freed
//   calloc           50 calls, 1 x 9001..9050, then freed
//   malloc + realloc  1 malloc of 10001, 20 reallocs to 11001..11020, freed
//   posix_memalign   10 calls, alignment 64, sizes 12001..12010
//   aligned_alloc     5 calls, alignment 128, sizes 13056 + 128 i
//   memalign          3 calls, alignment 256, sizes 14001..14003
//   second thread    30 mallocs of 15001..15030, then freed
//   cross-thread     20 mallocs of 16001..16020 on the main thread, freed
//                    by a third thread (handed over)

#include <malloc.h>
#include <pthread.h>

#include <cstdio>
#include <cstdlib>

namespace {

// Stores into a volatile array keep the compiler from pairing and deleting
// the malloc/free calls.
void* volatile sink[128];

void* Keep(int i, void* p) {
  if (p == nullptr) {
    std::fprintf(stderr, "trace_fixture: allocation failed\n");
    std::exit(1);
  }
  static_cast<volatile char*>(p)[0] = 1;
  sink[i] = p;
  return p;
}

void* SecondThread(void*) {
  for (int i = 0; i < 30; ++i) Keep(i, std::malloc(15001 + i));
  for (int i = 0; i < 30; ++i) std::free(sink[i]);
  return nullptr;
}

void* volatile handed_over[20];

void* FreeingThread(void*) {
  for (int i = 0; i < 20; ++i) std::free(handed_over[i]);
  return nullptr;
}

}  // namespace

int main() {
  for (int i = 0; i < 100; ++i) Keep(i, std::malloc(7001 + i));
  for (int i = 0; i < 100; ++i) std::free(sink[i]);
  for (int i = 0; i < 50; ++i) Keep(i, std::calloc(1, 9001 + i));
  for (int i = 0; i < 50; ++i) std::free(sink[i]);
  void* p = Keep(0, std::malloc(10001));
  for (int i = 0; i < 20; ++i) p = Keep(0, std::realloc(p, 11001 + i));
  std::free(p);
  for (int i = 0; i < 10; ++i) {
    void* q = nullptr;
    if (posix_memalign(&q, 64, 12001 + i) != 0) q = nullptr;
    Keep(i, q);
  }
  for (int i = 0; i < 5; ++i) Keep(10 + i, aligned_alloc(128, 13056 + 128 * i));
  for (int i = 0; i < 3; ++i) Keep(15 + i, memalign(256, 14001 + i));
  for (int i = 0; i < 18; ++i) std::free(sink[i]);
  pthread_t thread;
  if (pthread_create(&thread, nullptr, SecondThread, nullptr) != 0) return 1;
  pthread_join(thread, nullptr);
  for (int i = 0; i < 20; ++i) {
    handed_over[i] = Keep(i, std::malloc(16001 + i));
  }
  if (pthread_create(&thread, nullptr, FreeingThread, nullptr) != 0) return 1;
  pthread_join(thread, nullptr);
  return 0;
}
