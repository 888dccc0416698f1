// Copyright 2026 The Tessera Authors.
//
// The TLSF arena against glibc malloc/free, in the same binary and run:
//
//   tools/bazel run --config=opt //bench:tlsf_benchmark
//
// W1  the seed's workload: a 512 MiB arena, 64-byte alignment, 256 batches of
//     2048 allocations with sizes drawn from {64, 100, 200, 400, 1024, 4096}
//     (fixed seed), each batch freed in a shuffled order. Time per alloc+free
//     pair, untouched (as the seed measured) and touched (first and last 8
//     bytes of every block written). A validation pass first proves that no
//     two live blocks of a batch overlap.
// W3  small-object churn: sizes 16-64 B, a ring of 64 live objects, 10M
//     iterations of free-oldest + allocate. Time per iteration.
// W4  fragmentation: log-uniform sizes 16 B - 64 KiB, 100k live blocks, 2M
//     free+allocate operations on random victims, every page of every block
//     touched. Peak RSS growth / peak live bytes, ns per operation and the
//     latency percentiles of each operation (one free + one allocate).
//
// "tlsf" is the arena as users get it (default options) through its handle
// API (TryAlloc/TryFree), "tlsf_ptr" the same arena through the generic
// Allocator interface (virtual Allocate/Deallocate, free by pointer through
// the pointer index, which the handle API leaves unbuilt), "tlsf_final" the
// generic interface called on the final class (devirtualised, as the
// shootout calls it), "tlsf_nocache" the TLSF core alone (quick cache off).
// RT  round trip: allocate 64 B, write a byte, free; 10M times, through the
//     generic interface (the shootout's rt_64).
// Only same-run ratios mean anything on a shared machine; the summary table
// at the end prints them.

#include <malloc.h>
#include <time.h>
#include <x86intrin.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "alloc/tlsf/tlsf_arena.h"
#include "benchmark/benchmark.h"

namespace tessera {
namespace {

using Clock = std::chrono::steady_clock;

// Thread CPU time: the machine is shared, and wall time would charge this
// benchmark for other processes' time slices.
double CpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// name -> ns per operation, filled by the benchmarks, printed by main().
std::map<std::string, double>& Results() {
  static auto* results = new std::map<std::string, double>;
  return *results;
}

struct LatencySummary {
  double p50 = 0, p99 = 0, p999 = 0, max = 0, ns_per_op = 0, rss_ratio = 0;
  // Mean over operations shorter than 100 us: on a shared machine the longer
  // ones are this thread being descheduled, not allocator work.
  double trimmed_ns_per_op = 0;
};
std::map<std::string, LatencySummary>& W4Results() {
  static auto* results = new std::map<std::string, LatencySummary>;
  return *results;
}

// The arena as users get it (default options: quick cache and pointer index
// on) unless a variant says otherwise.
std::unique_ptr<TlsfArena> MakeArena(size_t bytes,
                                     TlsfArenaOptions options = {}) {
  options.arena_bytes = bytes;
  options.arena_alignment = 64;
  options.granularity = 64;
  absl::StatusOr<std::unique_ptr<TlsfArena>> arena = TlsfArena::Create(options);
  if (!arena.ok()) {
    std::fprintf(stderr, "%s\n", arena.status().ToString().c_str());
    std::abort();
  }
  return *std::move(arena);
}

// ---- Allocator policies: Token is what the workload keeps per block. ----

struct GlibcMalloc {
  static constexpr const char* kName = "glibc";
  using Token = void*;
  bool Alloc(size_t n, Token* t) { return (*t = std::malloc(n)) != nullptr; }
  void Free(Token t, size_t) { std::free(t); }
  static void* Addr(Token t) { return t; }
};

struct GlibcAligned64 {
  static constexpr const char* kName = "glibc_aligned64";
  using Token = void*;
  bool Alloc(size_t n, Token* t) {
    return (*t = std::aligned_alloc(64, (n + 63) & ~size_t{63})) != nullptr;
  }
  void Free(Token t, size_t) { std::free(t); }
  static void* Addr(Token t) { return t; }
};

struct TlsfHandles {
  static constexpr const char* kName = "tlsf";
  explicit TlsfHandles(size_t arena_bytes) : arena(MakeArena(arena_bytes)) {}
  using Token = Handle;
  bool Alloc(size_t n, Token* t) { return arena->TryAlloc(n, t); }
  void Free(const Token& t, size_t) { arena->TryFree(t, 1); }
  static void* Addr(const Token& t) { return t.address(); }
  std::unique_ptr<TlsfArena> arena;
};

// The TLSF core alone: the quick cache turned off, so every free merges and
// every allocation searches the bitmaps.
TlsfArenaOptions NoCache() {
  TlsfArenaOptions options;
  options.quick_cache_depth = 0;
  return options;
}
struct TlsfNoCache {
  static constexpr const char* kName = "tlsf_nocache";
  explicit TlsfNoCache(size_t arena_bytes)
      : arena(MakeArena(arena_bytes, NoCache())) {}
  using Token = Handle;
  bool Alloc(size_t n, Token* t) { return arena->TryAlloc(n, t); }
  void Free(const Token& t, size_t) { arena->TryFree(t, 1); }
  static void* Addr(const Token& t) { return t.address(); }
  std::unique_ptr<TlsfArena> arena;
};

struct TlsfPointers {
  static constexpr const char* kName = "tlsf_ptr";
  explicit TlsfPointers(size_t arena_bytes)
      : arena(MakeArena(arena_bytes)), allocator(arena.get()) {}
  using Token = void*;
  bool Alloc(size_t n, Token* t) {
    return (*t = allocator->Allocate(n, 64)) != nullptr;
  }
  void Free(Token t, size_t n) { allocator->Deallocate(t, n, 64); }
  static void* Addr(Token t) { return t; }
  std::unique_ptr<TlsfArena> arena;
  Allocator* allocator;  // through the vtable, as a generic caller would
};

// The generic interface on the final class, as the shootout's subjects call
// it: the compiler devirtualises and inlines the fast paths.
struct TlsfFinal {
  static constexpr const char* kName = "tlsf_final";
  explicit TlsfFinal(size_t arena_bytes) : arena(MakeArena(arena_bytes)) {}
  using Token = void*;
  bool Alloc(size_t n, Token* t) {
    return (*t = arena->Allocate(n)) != nullptr;
  }
  void Free(Token t, size_t n) { arena->Deallocate(t, n); }
  static void* Addr(Token t) { return t; }
  std::unique_ptr<TlsfArena> arena;
};

template <typename Policy>
Policy MakePolicy(size_t arena_bytes) {
  if constexpr (std::is_constructible_v<Policy, size_t>) {
    return Policy(arena_bytes);
  } else {
    return Policy();
  }
}

// ---- W1. ----

constexpr int kW1Batches = 256;
constexpr int kW1Batch = 2048;
constexpr size_t kW1Arena = size_t{512} << 20;

struct W1Plan {
  std::vector<uint32_t> sizes;  // kW1Batches * kW1Batch
  std::vector<uint16_t> order;  // free order per batch
};

const W1Plan& GetW1Plan() {
  static const W1Plan* plan = [] {
    auto* p = new W1Plan;
    std::mt19937 rng(20240601);
    const uint32_t choices[] = {64, 100, 200, 400, 1024, 4096};
    p->sizes.resize(kW1Batches * kW1Batch);
    p->order.resize(kW1Batches * kW1Batch);
    for (int b = 0; b < kW1Batches; ++b) {
      for (int i = 0; i < kW1Batch; ++i) {
        p->sizes[b * kW1Batch + i] = choices[rng() % 6];
        p->order[b * kW1Batch + i] = static_cast<uint16_t>(i);
      }
      std::shuffle(p->order.begin() + b * kW1Batch,
                   p->order.begin() + (b + 1) * kW1Batch, rng);
    }
    return p;
  }();
  return *plan;
}

// One batch, then a check that no two of its live blocks overlap.
template <typename Policy>
void ValidateW1(Policy& policy) {
  const W1Plan& plan = GetW1Plan();
  std::vector<typename Policy::Token> live(kW1Batch);
  std::vector<std::pair<uintptr_t, size_t>> spans;
  for (int i = 0; i < kW1Batch; ++i) {
    if (!policy.Alloc(plan.sizes[i], &live[i])) std::abort();
    spans.push_back({reinterpret_cast<uintptr_t>(Policy::Addr(live[i])),
                     plan.sizes[i]});
  }
  std::sort(spans.begin(), spans.end());
  for (size_t i = 1; i < spans.size(); ++i) {
    if (spans[i].first < spans[i - 1].first + spans[i - 1].second) {
      std::fprintf(stderr, "W1 validation: %s handed out overlapping blocks\n",
                   Policy::kName);
      std::abort();
    }
  }
  for (int i = 0; i < kW1Batch; ++i) {
    policy.Free(live[plan.order[i]], plan.sizes[plan.order[i]]);
  }
}

template <typename Policy, bool kTouch>
void BM_W1(benchmark::State& state) {
  const W1Plan& plan = GetW1Plan();
  Policy policy = MakePolicy<Policy>(kW1Arena);
  ValidateW1(policy);
  std::vector<typename Policy::Token> live(kW1Batch);
  double seconds = 0;
  int64_t pairs = 0;
  for (auto _ : state) {
    const double start = CpuSeconds();
    for (int b = 0; b < kW1Batches; ++b) {
      const uint32_t* sizes = &plan.sizes[b * kW1Batch];
      const uint16_t* order = &plan.order[b * kW1Batch];
      for (int i = 0; i < kW1Batch; ++i) {
        policy.Alloc(sizes[i], &live[i]);
        if (kTouch) {
          char* p = static_cast<char*>(Policy::Addr(live[i]));
          std::memset(p, 1, 8);
          std::memset(p + sizes[i] - 8, 1, 8);
        }
        benchmark::DoNotOptimize(live[i]);
      }
      for (int i = 0; i < kW1Batch; ++i) {
        policy.Free(live[order[i]], sizes[order[i]]);
      }
    }
    seconds += CpuSeconds() - start;
    pairs += int64_t{kW1Batches} * kW1Batch;
  }
  const double ns = seconds * 1e9 / static_cast<double>(pairs);
  state.counters["ns_per_pair"] = ns;
  Results()[std::string("W1_") + (kTouch ? "touched_" : "untouched_") +
            Policy::kName] = ns;
}

// ---- W3. ----

constexpr int kW3Ring = 64;
constexpr int64_t kW3Iterations = 10'000'000;

template <typename Policy>
void BM_W3(benchmark::State& state) {
  Policy policy = MakePolicy<Policy>(size_t{64} << 20);
  // A table of sizes cycled through (a power of two long: a mask, no modulo).
  std::vector<uint32_t> sizes(1 << 16);
  std::mt19937 rng(3);
  for (uint32_t& s : sizes) s = 16 + rng() % 49;
  std::vector<typename Policy::Token> ring(kW3Ring);
  std::vector<uint32_t> ring_size(kW3Ring);
  for (int i = 0; i < kW3Ring; ++i) {
    ring_size[i] = sizes[i];
    policy.Alloc(ring_size[i], &ring[i]);
  }
  double seconds = 0;
  int64_t ops = 0;
  for (auto _ : state) {
    const double start = CpuSeconds();
    for (int64_t it = 0; it < kW3Iterations; ++it) {
      const int slot = static_cast<int>(it & (kW3Ring - 1));
      policy.Free(ring[slot], ring_size[slot]);
      const uint32_t n = sizes[it & (sizes.size() - 1)];
      ring_size[slot] = n;
      policy.Alloc(n, &ring[slot]);
      benchmark::DoNotOptimize(ring[slot]);
    }
    seconds += CpuSeconds() - start;
    ops += kW3Iterations;
  }
  for (int i = 0; i < kW3Ring; ++i) policy.Free(ring[i], ring_size[i]);
  const double ns = seconds * 1e9 / static_cast<double>(ops);
  state.counters["ns_per_iter"] = ns;
  Results()[std::string("W3_") + Policy::kName] = ns;
}

// ---- Round trip: allocate 64 bytes, write one byte, free (the shootout's
// rt_64 through the generic interface). ----

constexpr int64_t kRoundTrips = 10'000'000;

template <typename Policy>
void BM_RoundTrip64(benchmark::State& state) {
  Policy policy = MakePolicy<Policy>(size_t{64} << 20);
  double seconds = 0;
  int64_t ops = 0;
  for (auto _ : state) {
    const double start = CpuSeconds();
    for (int64_t i = 0; i < kRoundTrips; ++i) {
      typename Policy::Token t;
      if (!policy.Alloc(64, &t)) std::abort();
      *static_cast<volatile char*>(Policy::Addr(t)) = 1;
      policy.Free(t, 64);
    }
    seconds += CpuSeconds() - start;
    ops += kRoundTrips;
  }
  const double ns = seconds * 1e9 / static_cast<double>(ops);
  state.counters["ns_per_pair"] = ns;
  Results()[std::string("RT64_") + Policy::kName] = ns;
}

// ---- W4. ----

constexpr int kW4Live = 100'000;
constexpr int kW4Ops = 2'000'000;
constexpr size_t kW4Arena = size_t{3} << 30;

size_t ResidentBytes() {
  FILE* f = std::fopen("/proc/self/statm", "r");
  long pages = 0, resident = 0;
  if (f != nullptr) {
    if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
    std::fclose(f);
  }
  return static_cast<size_t>(resident) * 4096;
}

void Touch(void* ptr, size_t n) {
  char* p = static_cast<char*>(ptr);
  for (size_t off = 0; off < n; off += 4096) p[off] = 1;
  p[n - 1] = 1;
}

template <typename Policy>
void BM_W4(benchmark::State& state) {
  std::mt19937_64 rng(4);
  std::uniform_real_distribution<double> log_size(std::log(16.0),
                                                  std::log(65536.0));
  std::vector<uint32_t> sizes(kW4Live + kW4Ops);
  for (uint32_t& s : sizes) s = static_cast<uint32_t>(std::exp(log_size(rng)));
  std::vector<uint32_t> victims(kW4Ops);
  for (uint32_t& v : victims) v = static_cast<uint32_t>(rng() % kW4Live);
  std::vector<uint32_t> cycles(kW4Ops);

  for (auto _ : state) {
    // The workload's own bookkeeping (a token per live block: 24 bytes for a
    // Handle, 8 for a pointer) is allocated and touched before the baseline,
    // so that the RSS figure is the allocator's alone.
    std::vector<typename Policy::Token> live(kW4Live);
    std::vector<uint32_t> live_size(kW4Live);
    malloc_trim(0);
    const size_t baseline = ResidentBytes();
    size_t peak_rss = 0, live_bytes = 0, peak_live = 0;
    {
      Policy policy = MakePolicy<Policy>(kW4Arena);
      for (int i = 0; i < kW4Live; ++i) {
        live_size[i] = sizes[i];
        if (!policy.Alloc(sizes[i], &live[i])) std::abort();
        Touch(Policy::Addr(live[i]), sizes[i]);
        live_bytes += sizes[i];
      }
      peak_live = live_bytes;
      peak_rss = ResidentBytes() - baseline;
      const auto start = Clock::now();
      const uint64_t tsc_start = __rdtsc();
      for (int op = 0; op < kW4Ops; ++op) {
        const uint32_t v = victims[op];
        const uint32_t n = sizes[kW4Live + op];
        const uint64_t t0 = __rdtsc();
        policy.Free(live[v], live_size[v]);
        const bool ok = policy.Alloc(n, &live[v]);
        const uint64_t t1 = __rdtsc();
        if (!ok) std::abort();
        cycles[op] = static_cast<uint32_t>(std::min<uint64_t>(t1 - t0, UINT32_MAX));
        live_bytes = live_bytes + n - live_size[v];
        live_size[v] = n;
        Touch(Policy::Addr(live[v]), n);
        peak_live = std::max(peak_live, live_bytes);
        if ((op & 4095) == 0) {
          peak_rss = std::max(peak_rss, ResidentBytes() - baseline);
        }
      }
      const uint64_t tsc_total = __rdtsc() - tsc_start;
      const double seconds =
          std::chrono::duration<double>(Clock::now() - start).count();
      peak_rss = std::max(peak_rss, ResidentBytes() - baseline);
      for (int i = 0; i < kW4Live; ++i) policy.Free(live[i], live_size[i]);

      // Per-op percentiles, converted with the TSC rate of this run. The
      // loop's total also includes page touching, so ns/op is derived from
      // the summed per-op cycles, not the wall time.
      const double ns_per_cycle = seconds * 1e9 / static_cast<double>(tsc_total);
      uint64_t op_cycles = 0;
      for (uint32_t c : cycles) op_cycles += c;
      std::vector<uint32_t> sorted = cycles;
      auto pct = [&](double q) {
        auto it = sorted.begin() + static_cast<ptrdiff_t>(q * (kW4Ops - 1));
        std::nth_element(sorted.begin(), it, sorted.end());
        return *it * ns_per_cycle;
      };
      LatencySummary s;
      s.p50 = pct(0.5);
      s.p99 = pct(0.99);
      s.p999 = pct(0.999);
      s.max = *std::max_element(cycles.begin(), cycles.end()) * ns_per_cycle;
      s.ns_per_op = static_cast<double>(op_cycles) * ns_per_cycle / kW4Ops;
      const uint64_t limit = static_cast<uint64_t>(100e3 / ns_per_cycle);
      uint64_t kept_cycles = 0, kept = 0;
      for (uint32_t c : cycles) {
        if (c < limit) {
          kept_cycles += c;
          ++kept;
        }
      }
      s.trimmed_ns_per_op =
          kept == 0 ? 0 : static_cast<double>(kept_cycles) * ns_per_cycle / kept;
      s.rss_ratio =
          static_cast<double>(peak_rss) / static_cast<double>(peak_live);
      W4Results()[Policy::kName] = s;
      state.counters["ns_per_op"] = s.ns_per_op;
      state.counters["trimmed_ns_per_op"] = s.trimmed_ns_per_op;
      state.counters["p50_ns"] = s.p50;
      state.counters["p99_ns"] = s.p99;
      state.counters["p999_ns"] = s.p999;
      state.counters["max_ns"] = s.max;
      state.counters["rss_over_live"] = s.rss_ratio;
    }
    malloc_trim(0);
  }
}

BENCHMARK_TEMPLATE(BM_W1, GlibcMalloc, false)->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(BM_W1, GlibcAligned64, false)->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(BM_W1, TlsfHandles, false)->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(BM_W1, TlsfPointers, false)->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(BM_W1, TlsfNoCache, false)->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(BM_W1, GlibcMalloc, true)->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(BM_W1, GlibcAligned64, true)->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(BM_W1, TlsfHandles, true)->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(BM_W1, TlsfPointers, true)->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(BM_W1, TlsfNoCache, true)->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(BM_RoundTrip64, GlibcMalloc)->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(BM_RoundTrip64, TlsfFinal)->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(BM_RoundTrip64, TlsfPointers)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(BM_W3, GlibcMalloc)->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(BM_W3, TlsfHandles)->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(BM_W3, TlsfPointers)->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(BM_W3, TlsfNoCache)->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(BM_W4, GlibcMalloc)
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(BM_W4, TlsfHandles)
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(BM_W4, TlsfPointers)
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(BM_W4, TlsfNoCache)
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

void PrintSummary() {
  const auto& r = Results();
  auto ratio = [&](const std::string& a, const std::string& b) {
    auto ia = r.find(a), ib = r.find(b);
    return ia == r.end() || ib == r.end() ? 0.0 : ia->second / ib->second;
  };
  std::printf("\n== TLSF arena vs glibc (same run; ratio = tlsf / glibc) ==\n");
  for (const char* variant : {"untouched", "touched"}) {
    const std::string base = std::string("W1_") + variant + "_";
    std::printf(
        "W1 %-9s  glibc %6.1f ns  aligned64 %6.1f ns  tlsf %6.1f ns "
        "(%.2fx, goal <= 0.15x)  tlsf_ptr %6.1f ns (%.2fx)  tlsf_nocache %6.1f ns "
        "(%.2fx)\n",
        variant, r.count(base + "glibc") ? r.at(base + "glibc") : 0.0,
        r.count(base + "glibc_aligned64") ? r.at(base + "glibc_aligned64") : 0.0,
        r.count(base + "tlsf") ? r.at(base + "tlsf") : 0.0,
        ratio(base + "tlsf", base + "glibc"),
        r.count(base + "tlsf_ptr") ? r.at(base + "tlsf_ptr") : 0.0,
        ratio(base + "tlsf_ptr", base + "glibc"),
        r.count(base + "tlsf_nocache") ? r.at(base + "tlsf_nocache") : 0.0,
        ratio(base + "tlsf_nocache", base + "glibc"));
  }
  if (r.count("W3_glibc") != 0) {
    std::printf(
        "W3 churn      glibc %6.1f ns  tlsf %6.1f ns (%.2fx, goal <= 1.0x)  "
        "tlsf_ptr %6.1f ns (%.2fx)  tlsf_nocache %6.1f ns (%.2fx)\n",
        r.at("W3_glibc"), r.count("W3_tlsf") ? r.at("W3_tlsf") : 0.0,
        ratio("W3_tlsf", "W3_glibc"),
        r.count("W3_tlsf_ptr") ? r.at("W3_tlsf_ptr") : 0.0,
        ratio("W3_tlsf_ptr", "W3_glibc"),
        r.count("W3_tlsf_nocache") ? r.at("W3_tlsf_nocache") : 0.0,
        ratio("W3_tlsf_nocache", "W3_glibc"));
  }
  if (r.count("RT64_glibc") != 0) {
    std::printf(
        "RT 64 B       glibc %6.1f ns  tlsf_final %6.1f ns (%.2fx)  tlsf_ptr "
        "%6.1f ns (%.2fx)   (generic Allocate/Deallocate)\n",
        r.at("RT64_glibc"),
        r.count("RT64_tlsf_final") ? r.at("RT64_tlsf_final") : 0.0,
        ratio("RT64_tlsf_final", "RT64_glibc"),
        r.count("RT64_tlsf_ptr") ? r.at("RT64_tlsf_ptr") : 0.0,
        ratio("RT64_tlsf_ptr", "RT64_glibc"));
  }
  const auto& w4 = W4Results();
  for (const auto& [name, s] : w4) {
    std::printf(
        "W4 %-12s %7.1f ns/op (%6.1f without ops > 100 us)  p50 %6.1f  p99 "
        "%7.1f  p99.9 %8.1f  max %11.1f ns  p99.9/p50 %.2f  peak RSS/live "
        "%.3f\n",
        name.c_str(), s.ns_per_op, s.trimmed_ns_per_op, s.p50, s.p99, s.p999,
        s.max,
        s.p50 > 0 ? s.p999 / s.p50 : 0.0, s.rss_ratio);
  }
  for (const char* tlsf : {"tlsf", "tlsf_ptr", "tlsf_nocache"}) {
    if (w4.count("glibc") == 0 || w4.count(tlsf) == 0) continue;
    const LatencySummary& t = w4.at(tlsf);
    const LatencySummary& g = w4.at("glibc");
    std::printf(
        "W4 %s/glibc ns/op %.2fx (trimmed %.2fx; goal <= 0.5x), p99.9/p50 "
        "%.2f (goal <= 4), RSS/live %.3f (goal <= 1.06)\n",
        tlsf, t.ns_per_op / g.ns_per_op,
        t.trimmed_ns_per_op / g.trimmed_ns_per_op, t.p999 / t.p50,
        t.rss_ratio);
  }
}

}  // namespace
}  // namespace tessera

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  tessera::PrintSummary();
  return 0;
}
