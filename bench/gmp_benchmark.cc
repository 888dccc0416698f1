// Copyright 2026 The Tessera Authors.
//
// The SAGE seed's experiment: `x + y` on GMP integers with a fresh result each
// time, which is what a Sage `Integer` addition does (mpz_init, mpz_add,
// mpz_clear): one small allocation and one free per addition, so the malloc
// under GMP is a large part of the cost. Operands: the seed's small 3 + 5, and
// two 100-digit integers (a 7-limb result, 56 bytes).
//
// One benchmark per GMP route, named "gmp_add/<route>/<small|big>":
//   * malloc: GMP's default functions, i.e. the process's malloc. Run it with
//     LD_PRELOAD=<jemalloc, mimalloc, tcmalloc> for the peers.
//   * size_class: GMP routed to a SizeClassPool (alloc/gmp), the final class,
//     so the route's trampolines inline the pool's hot path.
//   * size_class_virtual: the same pool through `Allocator&` (a virtual call
//     per allocation), to show what devirtualising the route is worth.
//   * tessera_malloc: GMP routed to GlobalTesseraMalloc() (alloc/malloc), in
//     a process whose malloc is still glibc's. (Tessera malloc as the
//     process's malloc is the driver's LD_PRELOAD subject on route malloc.)
//   * tessera_fast_paths: GMP routed to GlobalTesseraMalloc() by
//     RouteGmpToTesseraMalloc() (alloc/malloc/gmp_route.h): GMP's functions
//     are Tessera malloc's inline fast paths, no interface in between.
//
// The driver //bench:gmp_shootout runs this binary once per subject in a
// fresh child (peers preloaded and proven) and prints the table:
//   tools/bazel run --config=opt //bench:gmp_shootout
// It can also run alone:
//   tools/bazel run --config=opt //bench:gmp_benchmark
//
// Flags of its own (before Google Benchmark's):
//   --prove_allocator=<glibc|jemalloc|mimalloc|tcmalloc>: prove at start-up
//     that the process malloc is that peer (bench/shootout/catalog.h), print
//     "proof: ..." on stdout, and refuse to run (exit 2) otherwise.
//   --prove_linked_tessera_malloc: prove that `malloc` resolves into this
//     executable and that it is Tessera malloc's (the tessera_malloc_version
//     marker of //alloc/malloc:malloc_override): the gmp_benchmark_tessera_linked
//     binary, whose whole process runs on Tessera malloc without a preload.
//   --prove_library=<path>: prove that `malloc` resolves into the shared
//     library at <path> (for an LD_PRELOAD library the catalog does not know).

#include <dlfcn.h>
#include <gmp.h>
#include <limits.h>
#include <stdlib.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "alloc/allocator.h"
#include "alloc/gmp/gmp_allocator.h"
#include "alloc/malloc/gmp_route.h"
#include "alloc/malloc/tessera_malloc.h"
#include "alloc/pool/size_class_pool.h"
#include "bench/shootout/catalog.h"
#include "benchmark/benchmark.h"

namespace tessera {
namespace {

struct Operands {
  const char* name;
  const char* x;
  const char* y;
};

constexpr Operands kOperands[] = {
    {"small", "3", "5"},
    {"big",
     "1234567890123456789012345678901234567890123456789012345678901234567890"
     "123456789012345678901234567890",
     "9876543210987654321098765432109876543210987654321098765432109876543210"
     "987654321098765432109876543210"},
};

// The timed loop, on whatever GMP allocates with when it is called. The
// operands are made and cleared under the same functions as the results.
void TimeAdd(benchmark::State& state, const Operands& operands) {
  mpz_t x, y;
  mpz_init_set_str(x, operands.x, 10);
  mpz_init_set_str(y, operands.y, 10);
  for (auto _ : state) {
    mpz_t sum;
    mpz_init(sum);
    mpz_add(sum, x, y);
    benchmark::DoNotOptimize(sum->_mp_d);
    mpz_clear(sum);
  }
  mpz_clear(x);
  mpz_clear(y);
}

void GmpAddMalloc(benchmark::State& state, const Operands* operands) {
  TimeAdd(state, *operands);
}

std::unique_ptr<SizeClassPool> MakePool() {
  absl::StatusOr<std::unique_ptr<SizeClassPool>> pool = SizeClassPool::Create();
  if (!pool.ok()) {
    std::fprintf(stderr, "gmp_benchmark: %s\n",
                 pool.status().ToString().c_str());
    std::abort();
  }
  return std::move(pool).value();
}

// Runs `timed` (x + y under some route to `allocator`) and fails the
// benchmark unless every byte GMP took went back to the allocator.
template <typename A, typename Timed>
void TimeCheckingReturns(benchmark::State& state, A& allocator, Timed timed) {
  const AllocatorStats before = allocator.stats();
  timed();
  const AllocatorStats after = allocator.stats();
  if (after.bytes_in_use != before.bytes_in_use ||
      after.allocations == before.allocations) {
    state.SkipWithError(
        absl::StrCat(allocator.name(), ": ",
                     after.bytes_in_use - before.bytes_in_use,
                     " bytes still in use after ",
                     after.allocations - before.allocations, " allocations")
            .c_str());
  }
}

// Times x + y with GMP routed to `allocator` by alloc/gmp (its static type: a
// final class gets the devirtualised trampolines).
template <typename A>
void TimeRouted(benchmark::State& state, const Operands& operands,
                A& allocator) {
  TimeCheckingReturns(state, allocator, [&] {
    ScopedGmpAllocator route(allocator);
    TimeAdd(state, operands);
  });
}

void GmpAddSizeClass(benchmark::State& state, const Operands* operands) {
  std::unique_ptr<SizeClassPool> pool = MakePool();
  TimeRouted(state, *operands, *pool);  // SizeClassPool&: devirtualised
}

void GmpAddSizeClassVirtual(benchmark::State& state, const Operands* operands) {
  std::unique_ptr<SizeClassPool> pool = MakePool();
  Allocator& base = *pool;
  TimeRouted(state, *operands, base);  // Allocator&: a virtual call per request
}

void GmpAddTesseraMalloc(benchmark::State& state, const Operands* operands) {
  TimeRouted(state, *operands, GlobalTesseraMalloc());  // TesseraMalloc&
}

void GmpAddTesseraFastPaths(benchmark::State& state, const Operands* operands) {
  TimeCheckingReturns(state, GlobalTesseraMalloc(), [&] {
    ScopedGmpTesseraMalloc route;  // alloc/malloc/gmp_route.h
    TimeAdd(state, *operands);
  });
}

struct Route {
  const char* name;
  void (*run)(benchmark::State&, const Operands*);
};

// One line per route; the driver's subjects name these. A route to another
// allocator is a function like GmpAddSizeClass (TimeRouted on it) and a line
// here.
constexpr Route kRoutes[] = {
    {"malloc", &GmpAddMalloc},
    {"size_class", &GmpAddSizeClass},
    {"size_class_virtual", &GmpAddSizeClassVirtual},
    {"tessera_malloc", &GmpAddTesseraMalloc},
    {"tessera_fast_paths", &GmpAddTesseraFastPaths},
};

// The loaded object that the process's `malloc` resolves into.
absl::StatusOr<Dl_info> WhereMallocResolves() {
  void* address = dlsym(RTLD_DEFAULT, "malloc");
  Dl_info info;
  if (address == nullptr || dladdr(address, &info) == 0 ||
      info.dli_fname == nullptr) {
    return absl::FailedPreconditionError("cannot find where malloc comes from");
  }
  return info;
}

// "malloc in <library>" when `malloc` resolves into the library at `path`.
absl::StatusOr<std::string> ProveLibrary(const std::string& path) {
  absl::StatusOr<Dl_info> info = WhereMallocResolves();
  if (!info.ok()) return info.status();
  char want[PATH_MAX], got[PATH_MAX];
  if (realpath(path.c_str(), want) == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat("library '", path, "' does not exist"));
  }
  if (realpath(info->dli_fname, got) == nullptr ||
      std::strcmp(want, got) != 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("refusing to report: malloc resolves into ",
                     info->dli_fname, ", not ", want));
  }
  return absl::StrCat("malloc in ", want);
}

}  // namespace
}  // namespace tessera

// The override's marker; weak, so gmp_benchmark links without it. (An
// executable does not export it to dlsym: nothing else references it.)
extern "C" const char* tessera_malloc_version() __attribute__((weak));

namespace tessera {
namespace {

// "Tessera malloc linked into <exe>" when this executable defines malloc and
// carries Tessera malloc's marker.
absl::StatusOr<std::string> ProveLinkedTesseraMalloc() {
  absl::StatusOr<Dl_info> info = WhereMallocResolves();
  if (!info.ok()) return info.status();
  // The main executable's dli_fname is its argv[0]: compare load bases with
  // a function of this file instead.
  Dl_info self_info;
  if (dladdr(reinterpret_cast<void*>(&ProveLibrary), &self_info) == 0 ||
      self_info.dli_fbase != info->dli_fbase) {
    return absl::FailedPreconditionError(absl::StrCat(
        "refusing to report: malloc resolves into ", info->dli_fname,
        ", not this executable"));
  }
  char self[PATH_MAX];
  if (realpath("/proc/self/exe", self) == nullptr) {
    return absl::FailedPreconditionError("cannot read /proc/self/exe");
  }
  if (&tessera_malloc_version == nullptr) {
    return absl::FailedPreconditionError(
        "refusing to report: this executable's malloc is not Tessera malloc's "
        "(no tessera_malloc_version)");
  }
  return absl::StrCat("Tessera malloc linked into ", self);
}

int Main(int argc, char** argv) {
  std::vector<char*> args = {argv[0]};
  std::string proof;
  for (int i = 1; i < argc; ++i) {
    const absl::string_view arg = argv[i];
    absl::StatusOr<std::string> proven;
    if (absl::StartsWith(arg, "--prove_allocator=")) {
      proven = shootout::ProveActiveAllocator(
          arg.substr(std::strlen("--prove_allocator=")));
    } else if (arg == "--prove_linked_tessera_malloc") {
      proven = ProveLinkedTesseraMalloc();
    } else if (absl::StartsWith(arg, "--prove_library=")) {
      proven = ProveLibrary(
          std::string(arg.substr(std::strlen("--prove_library="))));
    } else {
      args.push_back(argv[i]);
      continue;
    }
    if (!proven.ok()) {
      std::printf("error: %s\n", proven.status().ToString().c_str());
      return 2;
    }
    std::printf("proof: %s\n", proven->c_str());
    std::fflush(stdout);
  }
  for (const Route& route : kRoutes) {
    for (const Operands& operands : kOperands) {
      benchmark::RegisterBenchmark(
          absl::StrCat("gmp_add/", route.name, "/", operands.name).c_str(),
          route.run, &operands);
    }
  }
  int n = static_cast<int>(args.size());
  benchmark::Initialize(&n, args.data());
  if (benchmark::ReportUnrecognizedArguments(n, args.data())) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

}  // namespace
}  // namespace tessera

int main(int argc, char** argv) { return tessera::Main(argc, argv); }
