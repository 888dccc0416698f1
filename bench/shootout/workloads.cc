// Copyright 2026 The Tessera Authors.

#include "bench/shootout/workloads.h"

#include <time.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "alloc/pool/buffer_cache.h"
#include "alloc/pool/size_class_pool.h"
#include "alloc/pool/stacked_pool.h"
#include "alloc/system/system_allocator.h"
#include "alloc/tlsf/locked_tlsf_arena.h"
#include "alloc/tlsf/tlsf_arena.h"
#include "bench/shootout/arena_map.h"
#include "bench/shootout/catalog.h"
#include "tensor/binary.h"
#include "tensor/reduce.h"
#include "tensor/tensor.h"
#include "tools/alloc_trace/trace_reader.h"

namespace tessera {
namespace shootout {
namespace {

// ---- Clocks and memory figures. ----

int64_t ThreadCpuNs() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return int64_t{ts.tv_sec} * 1000000000 + ts.tv_nsec;
}

int64_t MonotonicNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t{ts.tv_sec} * 1000000000 + ts.tv_nsec;
}

// A /proc/self/status field in bytes ("VmRSS", "VmHWM"), or -1.
int64_t ProcStatusBytes(const char* field) {
  std::ifstream status("/proc/self/status");
  std::string line;
  const size_t n = std::strlen(field);
  while (std::getline(status, line)) {
    if (line.compare(0, n, field) == 0 && line.size() > n && line[n] == ':') {
      return std::strtoll(line.c_str() + n + 1, nullptr, 10) * 1024;
    }
  }
  return -1;
}

// Resets VmHWM to the current RSS (Linux >= 4.0), so that the peak measured
// afterwards is the workload's, not the validation pass's.
bool ResetPeakRss() {
  FILE* f = std::fopen("/proc/self/clear_refs", "w");
  if (f == nullptr) return false;
  const bool ok = std::fputs("5", f) >= 0;
  return std::fclose(f) == 0 && ok;
}

// ---- Subjects: what a workload calls. ----

// The process's malloc: glibc, or the peer LD_PRELOAD put in its place.
// Every subject writes into its blocks through Touch, so that the validation
// wrapper can keep its pattern intact while the workload writes.
inline void TouchBytes(void* p, size_t offset, size_t len) {
  volatile char* bytes = static_cast<volatile char*>(p) + offset;
  for (size_t i = 0; i < len; ++i) bytes[i] = 1;
}

// Trace replay also needs aligned allocation and realloc; the other
// workloads only Alloc/Free at the default alignment.
struct GlobalMalloc {
  void* Alloc(size_t n, size_t alignment = kDefaultAlignment) {
    if (alignment <= kDefaultAlignment) return std::malloc(n);
    void* p = nullptr;
    return posix_memalign(&p, alignment, n) == 0 ? p : nullptr;
  }
  void Free(void* p, size_t, size_t = kDefaultAlignment) { std::free(p); }
  void* Realloc(void* p, size_t, size_t n, size_t) {
    return std::realloc(p, n);
  }
  void Touch(void* p, size_t offset, size_t len) { TouchBytes(p, offset, len); }
};

// A Tessera allocator through the Allocator interface. `A` is the final
// class, so the calls devirtualise as they would in a caller that knows it.
template <typename A>
struct TesseraSubject {
  A* allocator;
  void* Alloc(size_t n, size_t alignment = kDefaultAlignment) {
    return allocator->Allocate(n, alignment);
  }
  void Free(void* p, size_t n, size_t alignment = kDefaultAlignment) {
    allocator->Deallocate(p, n, alignment);
  }
  void* Realloc(void* p, size_t old_n, size_t n, size_t alignment) {
    return allocator->Reallocate(p, old_n, n, alignment);
  }
  void Touch(void* p, size_t offset, size_t len) { TouchBytes(p, offset, len); }
};

struct PoolSubject {
  static constexpr size_t kCell = 64;
  StackedPool* pool;
  void* Alloc(size_t n, size_t alignment = kDefaultAlignment) {
    return n <= kCell && alignment <= 16 ? pool->Take() : nullptr;
  }
  void Free(void* p, size_t, size_t = kDefaultAlignment) { pool->Return(p); }
  void* Realloc(void*, size_t, size_t, size_t) { return nullptr; }  // cells
  void Touch(void* p, size_t offset, size_t len) { TouchBytes(p, offset, len); }
};

// A single-threaded subject behind one mutex, for the threaded trace replay.
template <typename S>
class LockedSubject {
 public:
  explicit LockedSubject(S& inner) : inner_(inner) {}
  void* Alloc(size_t n, size_t alignment = kDefaultAlignment) {
    std::lock_guard<std::mutex> lock(mu_);
    return inner_.Alloc(n, alignment);
  }
  void Free(void* p, size_t n, size_t alignment = kDefaultAlignment) {
    std::lock_guard<std::mutex> lock(mu_);
    inner_.Free(p, n, alignment);
  }
  void* Realloc(void* p, size_t old_n, size_t n, size_t alignment) {
    std::lock_guard<std::mutex> lock(mu_);
    return inner_.Realloc(p, old_n, n, alignment);
  }
  void Touch(void* p, size_t offset, size_t len) { inner_.Touch(p, offset, len); }

 private:
  S& inner_;
  std::mutex mu_;
};

// Wraps a subject for the validation pass: writes a pattern over every block,
// checks it is intact at free, and checks each new block against the live
// ones. Thread-safe (a mutex around the bookkeeping) for two_thread.
template <typename S>
class Validating {
 public:
  explicit Validating(S& inner) : inner_(inner) {}

  void* Alloc(size_t n, size_t alignment = kDefaultAlignment) {
    void* p = inner_.Alloc(n, alignment);
    std::lock_guard<std::mutex> lock(mu_);
    if (p == nullptr) {
      Fail(absl::StrFormat("allocation of %d bytes returned nullptr", n));
      return nullptr;
    }
    const uintptr_t a = reinterpret_cast<uintptr_t>(p);
    // malloc owes a block only the alignment an object of its size can
    // need: jemalloc and mimalloc give 8-byte requests 8-byte alignment.
    size_t need = alignment;
    if (alignment == kDefaultAlignment) {
      while (need > 1 && need > n) need >>= 1;
    }
    if (a % need != 0) {
      Fail(absl::StrFormat("block %p (%d bytes) is not aligned to %d", p, n,
                           need));
    }
    auto next = live_.upper_bound(a);
    if (next != live_.end() && next->first < a + n) {
      Fail(absl::StrFormat("block %p+%d overlaps live block at %#x", p, n,
                           next->first));
    }
    if (next != live_.begin()) {
      auto prev = std::prev(next);
      if (prev->first + prev->second > a) {
        Fail(absl::StrFormat("block %p+%d overlaps live block %#x+%d", p, n,
                             prev->first, prev->second));
      }
    }
    live_[a] = n;
    Pattern(p, n, /*write=*/true);
    return p;
  }

  // Validation needs no in-place growth: a new block, then the old freed.
  void* Realloc(void* p, size_t old_n, size_t n, size_t alignment) {
    void* q = Alloc(n, alignment);
    if (q != nullptr) Free(p, old_n, alignment);
    return q;
  }

  void Free(void* p, size_t n, size_t alignment = kDefaultAlignment) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = live_.find(reinterpret_cast<uintptr_t>(p));
      if (it == live_.end() || it->second != n) {
        Fail(absl::StrFormat("free of %p (%d bytes) that is not live", p, n));
        return;
      }
      if (!Pattern(p, n, /*write=*/false)) {
        Fail(absl::StrFormat(
            "block %p (%d bytes) was overwritten while live", p, n));
      }
      live_.erase(it);
    }
    inner_.Free(p, n, alignment);
  }

  // The workload's writes keep the pattern: each byte written is the byte
  // the pattern wants there, so overlap and corruption remain detectable.
  void Touch(void* p, size_t offset, size_t len) {
    auto* bytes = static_cast<unsigned char*>(p);
    const uintptr_t a = reinterpret_cast<uintptr_t>(p);
    for (size_t i = offset; i < offset + len; ++i) bytes[i] = PatternByte(a, i);
  }

  absl::Status status() const {
    std::lock_guard<std::mutex> lock(mu_);
    if (!error_.empty()) return absl::InternalError(error_);
    if (!live_.empty()) {
      return absl::InternalError(absl::StrFormat(
          "%d blocks still live after the workload", live_.size()));
    }
    return absl::OkStatus();
  }

 private:
  void Fail(std::string why) {
    if (error_.empty()) error_ = absl::StrCat("validation: ", why);
  }
  // Every byte of small blocks, every 509th byte and the last of large ones.
  static unsigned char PatternByte(uintptr_t block, size_t i) {
    return static_cast<unsigned char>((block >> 4) + i * 7);
  }
  static bool Pattern(void* p, size_t n, bool write) {
    auto* bytes = static_cast<unsigned char*>(p);
    const uintptr_t a = reinterpret_cast<uintptr_t>(p);
    const size_t step = n <= 4096 ? 1 : 509;
    bool ok = true;
    auto visit = [&](size_t i) {
      const unsigned char want = PatternByte(a, i);
      if (write) {
        bytes[i] = want;
      } else if (bytes[i] != want) {
        ok = false;
      }
    };
    for (size_t i = 0; i < n; i += step) visit(i);
    if (n != 0) visit(n - 1);
    return ok;
  }

  S& inner_;
  mutable std::mutex mu_;
  std::map<uintptr_t, size_t> live_;
  std::string error_;
};

// ---- Workload sizes per scale. ----

struct Params {
  int64_t iters = 0;   // round trips / iterations / pool batches / per thread
  int batches = 0;     // W1
  int passes = 0;      // W1 passes over the batches
  int live = 0;        // W4 live blocks
  int64_t ops = 0;     // W4 operations
};

Params ParamsFor(absl::string_view workload, Scale scale) {
  const int k = scale == Scale::kFull ? 8 : 1;  // quick = full / 8
  const bool validate = scale == Scale::kValidate;
  Params p;
  if (workload == "rt_64" || workload == "rt_1k") {
    p.iters = validate ? 2000 : 500000 * k;
  } else if (workload == "rt_100k") {
    p.iters = validate ? 200 : 100000 * k;
  } else if (workload == "rt_10m") {
    p.iters = validate ? 4 : 400 * k;
  } else if (workload == "w1" || workload == "w1_touched") {
    p.batches = validate ? 2 : (scale == Scale::kFull ? 256 : 64);
    p.passes = validate ? 1 : (scale == Scale::kFull ? 2 : 1);
  } else if (workload == "w3") {
    p.iters = validate ? 20000 : 500000 * k;
  } else if (workload == "w4") {
    p.live = validate ? 500 : (scale == Scale::kFull ? 30000 : 5000);
    p.ops = validate ? 5000 : (scale == Scale::kFull ? 300000 : 30000);
  } else if (workload == "pool") {
    p.iters = validate ? 100 : 10000 * k;
  } else if (workload == "two_thread") {
    p.iters = validate ? 5000 : 100000 * k;
  }
  return p;
}

double g_size_factor = 1.0;  // set by Measure

Params Scaled(Params p) {
  auto scale = [](auto n) {
    using T = decltype(n);
    return n == 0 ? n
                  : std::max<T>(1, static_cast<T>(double(n) * g_size_factor));
  };
  p.iters = scale(p.iters);
  p.batches = scale(p.batches);
  p.ops = scale(p.ops);
  p.live = scale(p.live);
  return p;
}

absl::Status AllocFailed(size_t n) {
  return absl::ResourceExhaustedError(
      absl::StrFormat("allocation of %d bytes failed", n));
}

// ---- The workloads. ----

template <typename S>
absl::StatusOr<Metrics> RoundTrip(S& s, size_t bytes, const Params& p) {
  const int64_t t0 = ThreadCpuNs();
  for (int64_t i = 0; i < p.iters; ++i) {
    void* block = s.Alloc(bytes);
    if (block == nullptr) return AllocFailed(bytes);
    s.Touch(block, 0, 1);
    s.Free(block, bytes);
  }
  const int64_t t1 = ThreadCpuNs();
  return Metrics{{"ns_per_op", double(t1 - t0) / double(p.iters)}};
}

struct W1Plan {
  std::vector<uint32_t> sizes;  // batches x 2048
  std::vector<uint16_t> order;  // free order within each batch
};
constexpr int kW1Batch = 2048;

W1Plan MakeW1Plan(int batches) {
  W1Plan plan;
  std::mt19937 rng(20240601);
  const uint32_t choices[] = {64, 100, 200, 400, 1024, 4096};
  plan.sizes.resize(size_t(batches) * kW1Batch);
  plan.order.resize(size_t(batches) * kW1Batch);
  for (int b = 0; b < batches; ++b) {
    for (int i = 0; i < kW1Batch; ++i) {
      plan.sizes[b * kW1Batch + i] = choices[rng() % 6];
      plan.order[b * kW1Batch + i] = static_cast<uint16_t>(i);
    }
    std::shuffle(plan.order.begin() + b * kW1Batch,
                 plan.order.begin() + (b + 1) * kW1Batch, rng);
  }
  return plan;
}

template <typename S>
absl::StatusOr<Metrics> W1(S& s, bool touch, const Params& p) {
  const W1Plan plan = MakeW1Plan(p.batches);
  std::vector<void*> live(kW1Batch);
  const int64_t t0 = ThreadCpuNs();
  for (int pass = 0; pass < p.passes; ++pass) {
    for (int b = 0; b < p.batches; ++b) {
      const uint32_t* sizes = &plan.sizes[size_t(b) * kW1Batch];
      const uint16_t* order = &plan.order[size_t(b) * kW1Batch];
      for (int i = 0; i < kW1Batch; ++i) {
        live[i] = s.Alloc(sizes[i]);
        if (live[i] == nullptr) return AllocFailed(sizes[i]);
        if (touch) {
          s.Touch(live[i], 0, 8);
          s.Touch(live[i], sizes[i] - 8, 8);
        }
      }
      for (int i = 0; i < kW1Batch; ++i) {
        s.Free(live[order[i]], sizes[order[i]]);
      }
    }
  }
  const int64_t t1 = ThreadCpuNs();
  const double pairs = double(p.passes) * p.batches * kW1Batch;
  return Metrics{{"ns_per_op", double(t1 - t0) / pairs}};
}

std::vector<uint32_t> UniformSizes(size_t count, uint32_t lo, uint32_t hi,
                                   uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<uint32_t> dist(lo, hi);
  std::vector<uint32_t> sizes(count);
  for (uint32_t& s : sizes) s = dist(rng);
  return sizes;
}

template <typename S>
absl::StatusOr<Metrics> W3(S& s, const Params& p) {
  constexpr int kRing = 64;
  const std::vector<uint32_t> sizes = UniformSizes(4096, 16, 64, 3);
  void* ring[kRing];
  uint32_t ring_size[kRing];
  for (int i = 0; i < kRing; ++i) {
    ring_size[i] = sizes[i];
    if ((ring[i] = s.Alloc(sizes[i])) == nullptr) return AllocFailed(sizes[i]);
  }
  const int64_t t0 = ThreadCpuNs();
  for (int64_t i = 0; i < p.iters; ++i) {
    const int slot = static_cast<int>(i & (kRing - 1));
    s.Free(ring[slot], ring_size[slot]);
    const uint32_t n = sizes[i & 4095];
    void* block = s.Alloc(n);
    if (block == nullptr) return AllocFailed(n);
    s.Touch(block, 0, 1);
    ring[slot] = block;
    ring_size[slot] = n;
  }
  const int64_t t1 = ThreadCpuNs();
  for (int i = 0; i < kRing; ++i) s.Free(ring[i], ring_size[i]);
  return Metrics{{"ns_per_op", double(t1 - t0) / double(p.iters)}};
}

template <typename S>
void TouchPages(S& s, void* p, size_t n) {
  for (size_t off = 0; off < n; off += 4096) s.Touch(p, off, 1);
  s.Touch(p, n - 1, 1);
}

ArenaSnapshot* g_snapshot = nullptr;  // set by Measure for W4 on tlsf

// W4 calls this with its blocks still live: only the TLSF arena itself (not
// its validating wrapper) is pictured.
template <typename S>
void SnapshotArena(S&) {}
void SnapshotArena(TesseraSubject<TlsfArena>& s) {
  if (g_snapshot != nullptr) TakeArenaSnapshot(*s.allocator, g_snapshot);
}

template <typename S>
absl::StatusOr<Metrics> W4(S& s, const Params& p) {
  std::mt19937 rng(4);
  std::uniform_real_distribution<double> log_size(std::log(16.0),
                                                  std::log(65536.0));
  std::vector<uint32_t> sizes(size_t(p.live + p.ops));
  for (uint32_t& n : sizes) n = static_cast<uint32_t>(std::exp(log_size(rng)));
  std::vector<uint32_t> victims(size_t(p.ops));
  for (uint32_t& v : victims) v = rng() % uint32_t(p.live);
  std::vector<void*> blocks(size_t(p.live));
  std::vector<uint32_t> block_size(size_t(p.live));
  std::vector<int64_t> latency(size_t(p.ops));

  const bool reset = ResetPeakRss();
  const int64_t rss_before = ProcStatusBytes("VmRSS");
  uint64_t live_bytes = 0, peak_live = 0;
  for (int i = 0; i < p.live; ++i) {
    block_size[i] = sizes[i];
    if ((blocks[i] = s.Alloc(sizes[i])) == nullptr) return AllocFailed(sizes[i]);
    TouchPages(s, blocks[i], sizes[i]);
    live_bytes += sizes[i];
  }
  peak_live = live_bytes;
  int64_t rss_peak_sampled = ProcStatusBytes("VmRSS");
  const int64_t t0 = ThreadCpuNs();
  for (int64_t i = 0; i < p.ops; ++i) {
    const uint32_t v = victims[i];
    const uint32_t n = sizes[size_t(p.live + i)];
    const int64_t a = MonotonicNs();
    s.Free(blocks[v], block_size[v]);
    void* block = s.Alloc(n);
    const int64_t b = MonotonicNs();
    if (block == nullptr) return AllocFailed(n);
    latency[size_t(i)] = b - a;
    live_bytes = live_bytes - block_size[v] + n;
    peak_live = std::max(peak_live, live_bytes);
    blocks[v] = block;
    block_size[v] = n;
    TouchPages(s, block, n);
    if (!reset && (i & 4095) == 0) {
      rss_peak_sampled = std::max(rss_peak_sampled, ProcStatusBytes("VmRSS"));
    }
  }
  const int64_t t1 = ThreadCpuNs();
  const int64_t rss_peak =
      reset ? ProcStatusBytes("VmHWM")
            : std::max(rss_peak_sampled, ProcStatusBytes("VmRSS"));
  SnapshotArena(s);
  for (int i = 0; i < p.live; ++i) s.Free(blocks[i], block_size[i]);

  std::sort(latency.begin(), latency.end());
  auto pct = [&](double q) {
    const size_t idx = std::min(latency.size() - 1,
                                size_t(q * double(latency.size())));
    return double(latency[idx]);
  };
  const double growth = double(rss_peak - rss_before);
  return Metrics{{"ns_per_op", double(t1 - t0) / double(p.ops)},
                 {"p50_ns", pct(0.50)},
                 {"p99_ns", pct(0.99)},
                 {"p999_ns", pct(0.999)},
                 {"max_ns", double(latency.back())},
                 {"peak_rss_growth_bytes", growth},
                 {"peak_live_bytes", double(peak_live)},
                 {"rss_over_live", growth / double(peak_live)}};
}

template <typename S>
absl::StatusOr<Metrics> Pool(S& s, const Params& p) {
  constexpr int kBatch = 32;
  void* cells[kBatch];
  const int64_t t0 = ThreadCpuNs();
  for (int64_t b = 0; b < p.iters; ++b) {
    for (int i = 0; i < kBatch; ++i) {
      if ((cells[i] = s.Alloc(64)) == nullptr) return AllocFailed(64);
      s.Touch(cells[i], 0, 1);
    }
    for (int i = kBatch - 1; i >= 0; --i) s.Free(cells[i], 64);
  }
  const int64_t t1 = ThreadCpuNs();
  return Metrics{{"ns_per_op", double(t1 - t0) / double(p.iters * kBatch)}};
}

template <typename S>
absl::StatusOr<Metrics> TwoThread(S& s, const Params& p) {
  constexpr int kRing = 256;
  std::atomic<int> ready{0};
  std::atomic<bool> go{false};
  std::atomic<bool> failed{false};
  auto body = [&](uint32_t seed) {
    const std::vector<uint32_t> sizes = UniformSizes(4096, 16, 512, seed);
    std::vector<void*> ring(kRing, nullptr);
    std::vector<uint32_t> ring_size(kRing, 0);
    ready.fetch_add(1);
    while (!go.load(std::memory_order_acquire)) {
    }
    for (int64_t i = 0; i < p.iters && !failed.load(std::memory_order_relaxed);
         ++i) {
      const int slot = static_cast<int>(i & (kRing - 1));
      if (ring[slot] != nullptr) s.Free(ring[slot], ring_size[slot]);
      const uint32_t n = sizes[i & 4095];
      ring[slot] = s.Alloc(n);
      ring_size[slot] = n;
      if (ring[slot] == nullptr) {
        failed.store(true);
        break;
      }
      s.Touch(ring[slot], 0, 1);
    }
    for (int i = 0; i < kRing; ++i) {
      if (ring[i] != nullptr) s.Free(ring[i], ring_size[i]);
    }
  };
  std::thread a(body, 11), b(body, 12);
  while (ready.load() != 2) std::this_thread::yield();
  const int64_t t0 = MonotonicNs();
  go.store(true, std::memory_order_release);
  a.join();
  b.join();
  const int64_t t1 = MonotonicNs();
  if (failed.load()) return AllocFailed(512);
  return Metrics{{"ns_per_op", double(t1 - t0) / double(p.iters)}};
}

// RSS of the child before the validation pass: the trace replays measure
// their peak against it, since the validation pass replays the same trace
// first and the heap it leaves (what glibc keeps, an arena's touched pages)
// is part of what the program costs on that allocator.
int64_t g_rss_at_start = -1;

// Replays a recorded trace on one thread, in the recorded order. Every block
// gets one byte written (as the program would have), so that first touch is
// paid as it was.
template <typename S>
absl::StatusOr<Metrics> Replay(S& s, const alloc_trace::Trace& trace) {
  std::vector<void*> blocks(trace.slots, nullptr);
  std::vector<uint64_t> sizes(trace.slots, 0);
  std::vector<size_t> aligns(trace.slots, kDefaultAlignment);
  uint64_t allocations = 0, frees = 0, reallocs = 0;
  uint64_t live = 0, peak_live = 0;
  const bool reset = ResetPeakRss();
  const int64_t rss_before = g_rss_at_start >= 0 ? g_rss_at_start
                                                : ProcStatusBytes("VmRSS");
  const int64_t t0 = ThreadCpuNs();
  for (const alloc_trace::ReplayOp& op : trace.ops) {
    switch (op.kind) {
      case alloc_trace::ReplayOp::Kind::kAlloc: {
        const size_t alignment =
            std::max(kDefaultAlignment, size_t{1} << op.align_log2);
        void* p = s.Alloc(op.size, alignment);
        if (p == nullptr) return AllocFailed(op.size);
        if (op.size != 0) s.Touch(p, 0, 1);
        blocks[op.slot] = p;
        sizes[op.slot] = op.size;
        aligns[op.slot] = alignment;
        live += op.size;
        ++allocations;
        break;
      }
      case alloc_trace::ReplayOp::Kind::kFree:
        s.Free(blocks[op.slot], sizes[op.slot], aligns[op.slot]);
        live -= sizes[op.slot];
        ++frees;
        break;
      case alloc_trace::ReplayOp::Kind::kRealloc: {
        // The block keeps the alignment it was allocated with.
        const size_t alignment = aligns[op.old_slot];
        void* p = s.Realloc(blocks[op.old_slot], sizes[op.old_slot], op.size,
                            alignment);
        if (p == nullptr) return AllocFailed(op.size);
        if (op.size != 0) s.Touch(p, 0, 1);
        live = live - sizes[op.old_slot] + op.size;
        blocks[op.slot] = p;
        sizes[op.slot] = op.size;
        aligns[op.slot] = alignment;
        ++reallocs;
        break;
      }
    }
    peak_live = std::max(peak_live, live);
  }
  const int64_t t1 = ThreadCpuNs();
  const int64_t rss_peak =
      reset ? ProcStatusBytes("VmHWM") : ProcStatusBytes("VmRSS");
  const double growth = double(rss_peak - rss_before);
  const double ops = std::max<double>(1, double(trace.ops.size()));
  return Metrics{{"ns_per_op", double(t1 - t0) / ops},
                 {"allocations", double(allocations)},
                 {"reallocs", double(reallocs)},
                 {"frees", double(frees)},
                 {"peak_live_bytes", double(peak_live)},
                 {"peak_rss_growth_bytes", growth},
                 {"rss_over_live",
                  peak_live == 0 ? 0.0 : growth / double(peak_live)}};
}

// Replays a trace with one thread per recorded thread. Each operation
// carries, per block slot it touches, how many earlier operations (in the
// recorded global order) touched that slot; it waits until that many are
// done. Every thread's operations are in global order, so every wait is for
// an earlier operation and the replay cannot deadlock.
template <typename S>
absl::StatusOr<Metrics> ReplayThreaded(S& s, const alloc_trace::Trace& trace) {
  const size_t threads = std::max<size_t>(1, trace.thread_ids.size());
  struct Step {
    uint32_t op;        // index into trace.ops
    uint32_t slot_seq;  // operations on op.slot before this one
    uint32_t old_seq;   // the same for op.old_slot (realloc)
  };
  std::vector<std::vector<Step>> plan(threads);
  {
    std::vector<uint32_t> seen(trace.slots, 0);
    for (size_t i = 0; i < trace.ops.size(); ++i) {
      const alloc_trace::ReplayOp& op = trace.ops[i];
      Step step{static_cast<uint32_t>(i), seen[op.slot], 0};
      if (op.kind == alloc_trace::ReplayOp::Kind::kRealloc &&
          op.old_slot != op.slot) {
        step.old_seq = seen[op.old_slot]++;
      }
      ++seen[op.slot];
      plan[std::min<size_t>(op.thread, threads - 1)].push_back(step);
    }
  }
  std::vector<void*> blocks(trace.slots, nullptr);
  std::vector<uint64_t> sizes(trace.slots, 0);
  std::vector<size_t> aligns(trace.slots, kDefaultAlignment);
  std::unique_ptr<std::atomic<uint32_t>[]> done(
      new std::atomic<uint32_t>[std::max<uint32_t>(1, trace.slots)]);
  for (uint32_t i = 0; i < trace.slots; ++i) done[i].store(0);
  std::atomic<uint64_t> allocations{0}, frees{0}, reallocs{0};
  std::atomic<bool> failed{false};
  std::atomic<size_t> ready{0};
  std::atomic<bool> go{false};
  auto wait_for = [&](uint32_t slot, uint32_t seq) {
    for (int spins = 0; done[slot].load(std::memory_order_acquire) != seq;
         ++spins) {
      if (failed.load(std::memory_order_relaxed)) return false;
      if (spins > 64) std::this_thread::yield();
    }
    return true;
  };
  auto body = [&](size_t t) {
    uint64_t my_allocs = 0, my_frees = 0, my_reallocs = 0;
    ready.fetch_add(1);
    while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
    for (const Step& step : plan[t]) {
      const alloc_trace::ReplayOp& op = trace.ops[step.op];
      const bool realloc = op.kind == alloc_trace::ReplayOp::Kind::kRealloc;
      const bool two_slots = realloc && op.old_slot != op.slot;
      if (!wait_for(op.slot, step.slot_seq)) return;
      if (two_slots && !wait_for(op.old_slot, step.old_seq)) return;
      switch (op.kind) {
        case alloc_trace::ReplayOp::Kind::kAlloc: {
          const size_t alignment =
              std::max(kDefaultAlignment, size_t{1} << op.align_log2);
          void* p = s.Alloc(op.size, alignment);
          if (p == nullptr) {
            failed.store(true);
            return;
          }
          if (op.size != 0) s.Touch(p, 0, 1);
          blocks[op.slot] = p;
          sizes[op.slot] = op.size;
          aligns[op.slot] = alignment;
          ++my_allocs;
          break;
        }
        case alloc_trace::ReplayOp::Kind::kFree:
          s.Free(blocks[op.slot], sizes[op.slot], aligns[op.slot]);
          ++my_frees;
          break;
        case alloc_trace::ReplayOp::Kind::kRealloc: {
          const size_t alignment = aligns[op.old_slot];
          void* p = s.Realloc(blocks[op.old_slot], sizes[op.old_slot],
                              op.size, alignment);
          if (p == nullptr) {
            failed.store(true);
            return;
          }
          if (op.size != 0) s.Touch(p, 0, 1);
          blocks[op.slot] = p;
          sizes[op.slot] = op.size;
          aligns[op.slot] = alignment;
          ++my_reallocs;
          break;
        }
      }
      if (two_slots) {
        done[op.old_slot].store(step.old_seq + 1, std::memory_order_release);
      }
      done[op.slot].store(step.slot_seq + 1, std::memory_order_release);
    }
    allocations += my_allocs;
    frees += my_frees;
    reallocs += my_reallocs;
  };
  const bool reset = ResetPeakRss();
  const int64_t rss_before = g_rss_at_start >= 0 ? g_rss_at_start
                                                : ProcStatusBytes("VmRSS");
  std::vector<std::thread> pool;
  for (size_t t = 0; t < threads; ++t) pool.emplace_back(body, t);
  while (ready.load() != threads) std::this_thread::yield();
  const int64_t t0 = MonotonicNs();
  go.store(true, std::memory_order_release);
  for (std::thread& t : pool) t.join();
  const int64_t t1 = MonotonicNs();
  if (failed.load()) {
    // Give back what the replay still holds, so the allocator's integrity
    // check and teardown see a consistent state.
    return absl::ResourceExhaustedError(
        "an allocation failed during the threaded replay");
  }
  const int64_t rss_peak =
      reset ? ProcStatusBytes("VmHWM") : ProcStatusBytes("VmRSS");
  const double ops = std::max<double>(1, double(trace.ops.size()));
  return Metrics{{"ns_per_op", double(t1 - t0) / ops},
                 {"threads", double(threads)},
                 {"allocations", double(allocations.load())},
                 {"reallocs", double(reallocs.load())},
                 {"frees", double(frees.load())},
                 {"cross_thread_frees", double(trace.cross_thread_frees)},
                 {"peak_rss_growth_bytes", double(rss_peak - rss_before)}};
}

const alloc_trace::Trace* g_trace = nullptr;  // set by Measure for "trace"

template <typename S>
absl::StatusOr<Metrics> RunWorkload(S& s, absl::string_view workload,
                                    const Params& p) {
  if (workload == "trace") {
    if (g_trace == nullptr) {
      return absl::InvalidArgumentError("workload 'trace' needs --trace=FILE");
    }
    return Replay(s, *g_trace);
  }
  if (workload == "trace_threads") {
    if (g_trace == nullptr) {
      return absl::InvalidArgumentError(
          "workload 'trace_threads' needs --trace=FILE");
    }
    return ReplayThreaded(s, *g_trace);
  }
  if (workload == "rt_64") return RoundTrip(s, 64, p);
  if (workload == "rt_1k") return RoundTrip(s, 1024, p);
  if (workload == "rt_100k") return RoundTrip(s, 100 << 10, p);
  if (workload == "rt_10m") return RoundTrip(s, 10000000, p);
  if (workload == "w1") return W1(s, false, p);
  if (workload == "w1_touched") return W1(s, true, p);
  if (workload == "w3") return W3(s, p);
  if (workload == "w4") return W4(s, p);
  if (workload == "pool") return Pool(s, p);
  if (workload == "two_thread") return TwoThread(s, p);
  return absl::InvalidArgumentError(
      absl::StrCat("unknown workload '", workload, "'"));
}

template <typename S>
absl::StatusOr<Metrics> ValidateThenRun(S& s, absl::string_view workload,
                                        Scale scale) {
  {
    Validating<S> checked(s);
    absl::StatusOr<Metrics> dry =
        RunWorkload(checked, workload, ParamsFor(workload, Scale::kValidate));
    absl::Status status = checked.status();
    if (!status.ok()) return status;
    if (!dry.ok()) return dry.status();
  }
  if (scale == Scale::kValidate) return Metrics{};
  return RunWorkload(s, workload, Scaled(ParamsFor(workload, scale)));
}

absl::StatusOr<Metrics> RunTensor(Allocator& allocator,
                                  absl::string_view workload, Scale scale);

template <typename A>
absl::StatusOr<Metrics> RunOn(absl::StatusOr<std::unique_ptr<A>> allocator,
                              absl::string_view workload, Scale scale,
                              bool thread_safe = true) {
  if (!allocator.ok()) return allocator.status();
  TesseraSubject<A> subject{allocator->get()};
  absl::StatusOr<Metrics> metrics;
  if (IsTensorWorkload(workload)) {
    metrics = RunTensor(**allocator, workload, scale);
  } else if (workload == "trace_threads" && !thread_safe) {
    LockedSubject<TesseraSubject<A>> locked(subject);
    metrics = ValidateThenRun(locked, workload, scale);
  } else {
    metrics = ValidateThenRun(subject, workload, scale);
  }
  if (metrics.ok()) {
    absl::Status integrity = (*allocator)->CheckIntegrity();
    if (!integrity.ok()) return integrity;
  }
  return metrics;
}

TlsfArenaOptions ArenaOptions() {
  TlsfArenaOptions options;
  options.arena_bytes = size_t{256} << 20;
  options.grow = true;
  options.growth_region_bytes = size_t{256} << 20;
  return options;
}

// ---- Tensor workloads. ----

absl::Status CheckTensor(const Tensor& t, int64_t n, const std::string& op) {
  if (t.dtype() != DType::kFloat32) {
    return absl::InternalError(
        absl::StrCat("validation: ", op, " returned ", t.DebugString()));
  }
  if (op == "sum") {
    absl::StatusOr<double> total = t.item<double>();
    if (!total.ok()) return total.status();
    const double want = double(n) * double(n - 1) / 2;
    if (std::fabs(*total - want) > 1e-4 * want) {
      return absl::InternalError(absl::StrFormat(
          "validation: sum of arange(%d) gave %.10g, want %.10g", n, *total,
          want));
    }
    return absl::OkStatus();
  }
  if (t.ndim() != 1 || t.size() != n || !t.c_contiguous()) {
    return absl::InternalError(absl::StrCat("validation: ", op, " returned ",
                                            t.DebugString()));
  }
  const float* v = static_cast<const float*>(t.data());
  for (int64_t i = 0; i < n; ++i) {
    const float want = op == "zeros" ? 0.0f
                       : op == "add" ? static_cast<float>(i + 1)
                                     : static_cast<float>(i);
    if (v[i] != want) {
      return absl::InternalError(absl::StrFormat(
          "validation: %s element %d is %g, want %g", op, i, v[i], want));
    }
  }
  return absl::OkStatus();
}

double g_tensor_size_factor = 1.0;

absl::StatusOr<Metrics> RunTensor(Allocator& allocator,
                                  absl::string_view workload, Scale scale) {
  std::string op;
  int64_t n = 0;
  if (!ParseTensorWorkload(workload, &op, &n)) {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown tensor workload '", workload, "'"));
  }
  Tensor a, b;
  if (op == "add" || op == "sum") {
    absl::StatusOr<Tensor> made = arange(0, n, 1, DType::kFloat32, &allocator);
    if (!made.ok()) return made.status();
    a = *std::move(made);
    made = ones({n}, DType::kFloat32, &allocator);
    if (!made.ok()) return made.status();
    b = *std::move(made);
  }
  std::function<absl::StatusOr<Tensor>()> call;
  if (op == "arange") {
    call = [&] { return arange(0, n, 1, DType::kFloat32, &allocator); };
  } else if (op == "zeros") {
    call = [&] { return zeros({n}, DType::kFloat32, &allocator); };
  } else if (op == "add") {
    call = [&] { return add(a, b, &allocator); };
  } else {
    call = [&] { return sum(a, std::nullopt, false, &allocator); };
  }
  {
    absl::StatusOr<Tensor> first = call();
    if (!first.ok()) return first.status();
    absl::Status checked = CheckTensor(*first, n, op);
    if (!checked.ok()) return checked;
  }
  absl::Status integrity = allocator.CheckIntegrity();
  if (!integrity.ok()) return integrity;
  if (scale == Scale::kValidate) return Metrics{};
  const int64_t iters = TensorIterations(n, scale, g_tensor_size_factor);
  const int64_t t0 = ThreadCpuNs();
  for (int64_t i = 0; i < iters; ++i) {
    absl::StatusOr<Tensor> result = call();
    if (!result.ok()) return result.status();
  }
  const int64_t t1 = ThreadCpuNs();
  return Metrics{{"ns_per_op", double(t1 - t0) / double(iters)},
                 {"calls", double(iters)}};
}

TlsfArenaOptions TensorArenaOptions() {
  TlsfArenaOptions options = ArenaOptions();
  // 1e7 float32 elements are 40 MB plus the storage header.
  options.max_block_size = size_t{64} << 20;
  return options;
}

}  // namespace

int64_t TensorIterations(int64_t elements, Scale scale, double size_factor) {
  const int64_t full = elements <= 1000 ? 20000 : elements <= 100000 ? 400 : 8;
  const int64_t n =
      scale == Scale::kFull ? full : std::max<int64_t>(2, full / 8);
  return std::max<int64_t>(1, static_cast<int64_t>(double(n) * size_factor));
}

absl::StatusOr<Metrics> Measure(absl::string_view subject_name,
                                absl::string_view workload, Scale scale,
                                const alloc_trace::Trace* trace,
                                double size_factor,
                                ArenaSnapshot* arena_snapshot) {
  g_trace = trace;
  g_size_factor = size_factor;
  g_rss_at_start = ProcStatusBytes("VmRSS");
  g_tensor_size_factor = size_factor;
  const SubjectInfo* subject = FindSubject(subject_name);
  if (subject == nullptr || FindWorkload(workload) == nullptr ||
      !Supports(*subject, workload) || subject_name == kNumpy) {
    return absl::InvalidArgumentError(absl::StrCat(
        "no measurement '", workload, "' on '", subject_name, "'"));
  }
  if (subject_name == "tlsf" && workload == "w4") {
    ArenaSnapshot local;
    g_snapshot = arena_snapshot != nullptr ? arena_snapshot : &local;
    absl::StatusOr<Metrics> metrics =
        RunOn(TlsfArena::Create(ArenaOptions()), workload, scale);
    ArenaSnapshot* taken = g_snapshot;
    g_snapshot = nullptr;
    if (metrics.ok() && taken->taken) {
      const ArenaFigures f = FiguresOf(*taken);
      metrics->push_back({"arena_fragmentation", f.fragmentation});
      metrics->push_back({"arena_hole_share", f.hole_share});
      metrics->push_back({"arena_hole_fragmentation", f.hole_fragmentation});
      metrics->push_back({"arena_free_blocks", double(f.free_blocks)});
      metrics->push_back({"arena_largest_hole_bytes", double(f.largest_hole)});
      metrics->push_back({"arena_metadata_bytes", double(f.metadata_bytes)});
    }
    return metrics;
  }
  if (IsTensorWorkload(workload) && subject_name == "tlsf") {
    return RunOn(TlsfArena::Create(TensorArenaOptions()), workload, scale);
  }
  if (subject->is_peer) {
    GlobalMalloc global;
    return ValidateThenRun(global, workload, scale);
  }
  if (subject_name == "malloc") {
    return RunOn(absl::StatusOr<std::unique_ptr<MallocAllocator>>(
                     std::make_unique<MallocAllocator>()),
                 workload, scale);
  }
  if (subject_name == "aligned64") {
    return RunOn(AlignedAllocator::Create(64), workload, scale);
  }
  if (subject_name == "zeroed") {
    return RunOn(absl::StatusOr<std::unique_ptr<ZeroedAllocator>>(
                     std::make_unique<ZeroedAllocator>()),
                 workload, scale);
  }
  if (subject_name == "tlsf") {
    return RunOn(TlsfArena::Create(ArenaOptions()), workload, scale,
                 subject->thread_safe);
  }
  if (subject_name == "tlsf_locked") {
    return RunOn(LockedTlsfArena::Create(ArenaOptions()), workload, scale);
  }
  if (subject_name == "size_class") {
    return RunOn(SizeClassPool::Create(), workload, scale,
                 subject->thread_safe);
  }
  if (subject_name == "buffer_cache") {
    return RunOn(BufferCache::Create(), workload, scale);
  }
  if (subject_name == "stacked_pool") {
    StackedPoolOptions options;
    options.cell_size = PoolSubject::kCell;
    options.alignment = 16;
    options.cells_per_block = 256;
    absl::StatusOr<std::unique_ptr<StackedPool>> pool =
        StackedPool::Create(options);
    if (!pool.ok()) return pool.status();
    PoolSubject subject{pool->get()};
    absl::StatusOr<Metrics> metrics = ValidateThenRun(subject, workload, scale);
    if (metrics.ok()) {
      absl::Status integrity = (*pool)->CheckIntegrity();
      if (!integrity.ok()) return integrity;
    }
    return metrics;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("no factory for subject '", subject_name, "'"));
}

}  // namespace shootout
}  // namespace tessera
