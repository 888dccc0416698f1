// Copyright 2026 The Tessera Authors.
//
// Measure(): picks the subject (catalog.h), validates the workload on it,
// then times it. Each workload family lives in a header of its own under
// internal/ (round trips, batches and churn, fragmentation, threads, trace
// replay, tensor); the table in Runner() below is the one place that names
// them, with their sizes at each scale.

#include "bench/shootout/workloads.h"

#include <dlfcn.h>
#include <malloc.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "alloc/malloc/tessera_malloc.h"
#include "alloc/pool/buffer_cache.h"
#include "alloc/pool/size_class_pool.h"
#include "alloc/pool/stacked_pool.h"
#include "alloc/system/system_allocator.h"
#include "alloc/tlsf/locked_tlsf_arena.h"
#include "alloc/tlsf/tlsf_arena.h"
#include "bench/shootout/arena_map.h"
#include "bench/shootout/catalog.h"
#include "bench/shootout/internal/batch_churn.h"
#include "bench/shootout/internal/fragmentation.h"
#include "bench/shootout/internal/process_clock.h"
#include "bench/shootout/internal/round_trip.h"
#include "bench/shootout/internal/subjects.h"
#include "bench/shootout/internal/tensor_workloads.h"
#include "bench/shootout/internal/threads.h"
#include "bench/shootout/internal/trace_replay.h"
#include "bench/shootout/internal/workload_params.h"
#include "tools/alloc_trace/trace_reader.h"

namespace tessera {
namespace shootout {
namespace {

using internal::GlobalMalloc;
using internal::LockedSubject;
using internal::Params;
using internal::PoolSubject;
using internal::RunContext;
using internal::TesseraSubject;
using internal::Validating;

// ---- The workload table. ----

// The sizes of one workload at each scale (quick = full / 8 unless stated).
struct Sizes {
  Params validate, quick, full;
};

Sizes Iterations(int64_t validate, int64_t quick) {
  Sizes s;
  s.validate.iters = validate;
  s.quick.iters = quick;
  s.full.iters = quick * 8;
  return s;
}

Sizes W1Sizes() {
  Sizes s;
  s.validate.batches = 2;
  s.validate.passes = 1;
  s.quick.batches = 64;
  s.quick.passes = 1;
  s.full.batches = 256;
  s.full.passes = 2;
  return s;
}

Sizes W4Sizes() {
  Sizes s;
  s.validate.live = 500;
  s.validate.ops = 5000;
  s.quick.live = 5000;
  s.quick.ops = 30000;
  s.full.live = 30000;
  s.full.ops = 300000;
  return s;
}

template <typename S>
struct Runner {
  absl::string_view name;  // as in catalog.h's AllWorkloads()
  Sizes sizes;
  absl::StatusOr<Metrics> (*run)(S& s, const Params& p, const RunContext& c);
};

// Every allocator workload on subject type S (the tensor workloads run on
// the allocator itself, not a subject: internal/tensor_workloads.h).
template <typename S>
const Runner<S>* FindRunner(absl::string_view workload) {
  using Result = absl::StatusOr<Metrics>;
  static const Runner<S> kRunners[] = {
      {"rt_64", Iterations(2000, 500000),
       [](S& s, const Params& p, const RunContext&) {
         return internal::RoundTrip(s, 64, p);
       }},
      {"rt_1k", Iterations(2000, 500000),
       [](S& s, const Params& p, const RunContext&) {
         return internal::RoundTrip(s, 1024, p);
       }},
      {"rt_100k", Iterations(200, 100000),
       [](S& s, const Params& p, const RunContext&) {
         return internal::RoundTrip(s, 100 << 10, p);
       }},
      // Between the largest class and a segment: huge blocks a program frees
      // and takes again (a per-request buffer). A cache that purged every
      // such mapping at free faulted its pages in every round trip.
      {"rt_1m", Iterations(20, 20000),
       [](S& s, const Params& p, const RunContext&) {
         return internal::RoundTrip(s, 1 << 20, p);
       }},
      {"rt_10m", Iterations(4, 400),
       [](S& s, const Params& p, const RunContext&) {
         return internal::RoundTrip(s, 10000000, p);
       }},
      {"w1", W1Sizes(),
       [](S& s, const Params& p, const RunContext&) {
         return internal::W1(s, /*touch=*/false, p);
       }},
      {"w1_touched", W1Sizes(),
       [](S& s, const Params& p, const RunContext&) {
         return internal::W1(s, /*touch=*/true, p);
       }},
      {"w3", Iterations(20000, 500000),
       [](S& s, const Params& p, const RunContext&) {
         return internal::W3(s, p);
       }},
      {"w4", W4Sizes(),
       [](S& s, const Params& p, const RunContext& c) {
         return internal::W4(s, p, c.snapshot);
       }},
      {"pool", Iterations(100, 10000),
       [](S& s, const Params& p, const RunContext&) {
         return internal::Pool(s, p);
       }},
      {"two_thread", Iterations(5000, 100000),
       [](S& s, const Params& p, const RunContext&) {
         return internal::TwoThread(s, p);
       }},
      {"xthread", Iterations(2048, 200000),
       [](S& s, const Params& p, const RunContext&) {
         return internal::CrossThread(s, p);
       }},
      {"larson", Iterations(2000, 100000),
       [](S& s, const Params& p, const RunContext&) {
         return internal::Larson(s, p);
       }},
      {"trace", Sizes{},
       [](S& s, const Params&, const RunContext& c) -> Result {
         if (c.trace == nullptr) {
           return absl::InvalidArgumentError(
               "workload 'trace' needs --trace=FILE");
         }
         return internal::Replay(s, *c.trace);
       }},
      {"trace_threads", Sizes{},
       [](S& s, const Params&, const RunContext& c) -> Result {
         if (c.trace == nullptr) {
           return absl::InvalidArgumentError(
               "workload 'trace_threads' needs --trace=FILE");
         }
         return internal::ReplayThreaded(s, *c.trace);
       }},
  };
  for (const Runner<S>& runner : kRunners) {
    if (runner.name == workload) return &runner;
  }
  return nullptr;
}

// ---- One measurement. ----

// What Measure was asked for.
struct Request {
  absl::string_view workload;
  Scale scale = Scale::kQuick;
  double size_factor = 1.0;  // multiplies the timed run's counts
  RunContext context;
};

Params Scaled(Params p, double factor) {
  auto scale = [factor](auto n) {
    using T = decltype(n);
    return n == 0 ? n : std::max<T>(1, static_cast<T>(double(n) * factor));
  };
  p.iters = scale(p.iters);
  p.batches = scale(p.batches);
  p.ops = scale(p.ops);
  p.live = scale(p.live);
  return p;
}

// Runs the workload on `s` at `scale`; the validation pass is never scaled.
template <typename S>
absl::StatusOr<Metrics> RunWorkload(S& s, const Request& r, Scale scale) {
  const Runner<S>* runner = FindRunner<S>(r.workload);
  if (runner == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown workload '", r.workload, "'"));
  }
  const Params p = scale == Scale::kValidate ? runner->sizes.validate
                   : scale == Scale::kQuick
                       ? Scaled(runner->sizes.quick, r.size_factor)
                       : Scaled(runner->sizes.full, r.size_factor);
  return runner->run(s, p, r.context);
}

// The trace replays' memory figures: the validation pass's, not the measured
// pass's. The validation pass runs first, after the process's malloc gave
// back the free memory it held (ReleaseFreeMemory; what stays is the parsed
// trace and the replay's own arrays), and writes every page of every block
// (its pattern: every byte up to 4 KiB, one in 509 above), as the recorded
// program wrote them; its bookkeeping lives outside the subject
// (BookkeepingArena). The measured pass writes one byte a block (so a
// block's untouched pages cost nothing where they would have in the
// program) and starts on the heap the validation pass left: its peak was
// that heap's residue, whatever each allocator kept of the validation pass
// (jemalloc, mimalloc and Tessera everything, glibc little), not the
// program's footprint (found 2026-12-06). Where the validation pass differs
// from the program: its realloc is a new block and a free (never in place,
// so both are live and written at once), and its checks make it several
// times slower, so allocators that purge on a timer purge more of what is
// freed during it than at the program's speed.
bool IsMemoryFigureOfValidation(const Request& r, const std::string& name) {
  return (r.workload == "trace" || r.workload == "trace_threads") &&
         (name == "peak_rss_growth_bytes" || name == "rss_over_live");
}

template <typename S>
absl::StatusOr<Metrics> ValidateThenRun(S& s, const Request& r) {
  Metrics from_validation;
  {
    Validating<S> checked(
        s, r.context.trace != nullptr ? r.context.trace->slots : 0);
    absl::StatusOr<Metrics> dry = RunWorkload(checked, r, Scale::kValidate);
    absl::Status status = checked.status();
    if (!status.ok()) return status;
    if (!dry.ok()) return dry.status();
    for (const auto& [name, value] : *dry) {
      if (IsMemoryFigureOfValidation(r, name)) {
        from_validation.push_back({name, value});
      }
    }
  }
  if (r.scale == Scale::kValidate) return Metrics{};
  absl::StatusOr<Metrics> metrics = RunWorkload(s, r, r.scale);
  if (!metrics.ok()) return metrics;
  for (auto& [name, value] : *metrics) {
    for (const auto& [kept, kept_value] : from_validation) {
      if (name == kept) value = kept_value;
    }
  }
  return metrics;
}

template <typename A>
absl::StatusOr<Metrics> RunOn(absl::StatusOr<std::unique_ptr<A>> allocator,
                              const Request& r, bool thread_safe = true) {
  if (!allocator.ok()) return allocator.status();
  TesseraSubject<A> subject{allocator->get()};
  absl::StatusOr<Metrics> metrics;
  if (IsTensorWorkload(r.workload)) {
    metrics =
        internal::RunTensor(**allocator, r.workload, r.scale, r.size_factor);
  } else if (r.workload == "trace_threads" && !thread_safe) {
    LockedSubject<TesseraSubject<A>> locked(subject);
    metrics = ValidateThenRun(locked, r);
  } else {
    metrics = ValidateThenRun(subject, r);
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

TlsfArenaOptions TensorArenaOptions() {
  TlsfArenaOptions options = ArenaOptions();
  // 1e7 float32 elements are 40 MB plus the storage header.
  options.max_block_size = size_t{64} << 20;
  return options;
}

// Before a trace replay: the process's malloc gives back the free memory it
// holds. Parsing the trace freed tens of MB into it, and what an allocator
// kept of that resident was memory the validation pass reused without
// growing RSS (tcmalloc's cc1plus figure read 0.02 for it, 2026-12-06).
// Each call is the allocator's documented one, found by name, so only the
// one in the process runs: tcmalloc's MallocExtension_ReleaseFreeMemory,
// jemalloc's mallctl("arena.<all>.purge"), mimalloc's mi_collect(true), and
// malloc_trim(0), glibc's or Tessera's override's (the peers do not define
// it, so under them it trims glibc's unused heap, harmlessly).
void ReleaseFreeMemory() {
  if (auto* release = reinterpret_cast<void (*)()>(
          dlsym(RTLD_DEFAULT, "MallocExtension_ReleaseFreeMemory"))) {
    release();
  }
  if (auto* mallctl = reinterpret_cast<int (*)(const char*, void*, size_t*,
                                               void*, size_t)>(
          dlsym(RTLD_DEFAULT, "mallctl"))) {
    mallctl("arena.4096.purge", nullptr, nullptr, nullptr, 0);  // all arenas
  }
  if (auto* collect =
          reinterpret_cast<void (*)(bool)>(dlsym(RTLD_DEFAULT, "mi_collect"))) {
    collect(true);
  }
  malloc_trim(0);
}

}  // namespace

absl::StatusOr<Metrics> Measure(absl::string_view subject_name,
                                absl::string_view workload, Scale scale,
                                const alloc_trace::Trace* trace,
                                double size_factor,
                                ArenaSnapshot* arena_snapshot) {
  Request r;
  r.workload = workload;
  r.scale = scale;
  r.size_factor = size_factor;
  r.context.trace = trace;
  if (trace != nullptr) ReleaseFreeMemory();
  const SubjectInfo* subject = FindSubject(subject_name);
  if (subject == nullptr || FindWorkload(workload) == nullptr ||
      !Supports(*subject, workload) || subject_name == kNumpy) {
    return absl::InvalidArgumentError(absl::StrCat(
        "no measurement '", workload, "' on '", subject_name, "'"));
  }
  if (subject_name == "tlsf" && workload == "w4") {
    ArenaSnapshot local;
    r.context.snapshot = arena_snapshot != nullptr ? arena_snapshot : &local;
    absl::StatusOr<Metrics> metrics =
        RunOn(TlsfArena::Create(ArenaOptions()), r);
    const ArenaSnapshot* taken = r.context.snapshot;
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
    return RunOn(TlsfArena::Create(TensorArenaOptions()), r);
  }
  if (subject->is_peer) {
    GlobalMalloc global;
    return ValidateThenRun(global, r);
  }
  if (subject_name == "tessera") {
    return RunOn(absl::StatusOr<std::unique_ptr<TesseraMalloc>>(
                     std::make_unique<TesseraMalloc>()),
                 r);
  }
  if (subject_name == "malloc") {
    return RunOn(absl::StatusOr<std::unique_ptr<MallocAllocator>>(
                     std::make_unique<MallocAllocator>()),
                 r);
  }
  if (subject_name == "aligned64") {
    return RunOn(AlignedAllocator::Create(64), r);
  }
  if (subject_name == "zeroed") {
    return RunOn(absl::StatusOr<std::unique_ptr<ZeroedAllocator>>(
                     std::make_unique<ZeroedAllocator>()),
                 r);
  }
  if (subject_name == "tlsf") {
    return RunOn(TlsfArena::Create(ArenaOptions()), r, subject->thread_safe);
  }
  if (subject_name == "tlsf_locked") {
    return RunOn(LockedTlsfArena::Create(ArenaOptions()), r);
  }
  if (subject_name == "size_class") {
    return RunOn(SizeClassPool::Create(), r, subject->thread_safe);
  }
  if (subject_name == "buffer_cache") {
    return RunOn(BufferCache::Create(), r);
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
    absl::StatusOr<Metrics> metrics = ValidateThenRun(subject, r);
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
