// Copyright 2026 The Tessera Authors.
//
// -----------------------------------------------------------------------------
// File: workloads.h
// -----------------------------------------------------------------------------
//
// One measurement: one workload on one subject, in the calling process (a
// child of the shootout). First a validation pass at a small scale through a
// checking wrapper (every block written with a pattern and checked on free,
// every new block checked against an interval set of the live ones, every
// block freed by the end), then the timed run. Single-threaded workloads are
// timed in thread CPU time (the machine is shared; wall time would charge
// other processes' slices to the allocator); two_thread in wall time, since
// a lock that blocks costs wall time but no CPU.
//
// The "trace" workload replays a recording of a real program (tools/
// alloc_trace) on one thread in the recorded order; realloc is the subject's
// own (in place where it can), aligned calls keep their alignment.

#ifndef TESSERA_BENCH_SHOOTOUT_WORKLOADS_H_
#define TESSERA_BENCH_SHOOTOUT_WORKLOADS_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "tools/alloc_trace/trace_reader.h"

namespace tessera {
namespace shootout {

// Named figures of one measurement. The first is always "ns_per_op" (lower
// is better); W4 adds latency percentiles and memory figures.
using Metrics = std::vector<std::pair<std::string, double>>;

enum class Scale { kValidate, kQuick, kFull };

// Validates, then measures `workload` on `subject` (names from catalog.h).
// InvalidArgument for an unknown or unsupported pair; Internal naming the
// failed check when validation finds a bad block or an allocation fails.
// `trace` is the compiled trace for the "trace" workload (nullptr otherwise).
// `size_factor` multiplies the timed run's iteration counts (tests use a
// small one; the validation pass is never scaled).
absl::StatusOr<Metrics> Measure(absl::string_view subject,
                                absl::string_view workload, Scale scale,
                                const alloc_trace::Trace* trace = nullptr,
                                double size_factor = 1.0);

}  // namespace shootout
}  // namespace tessera

#endif  // TESSERA_BENCH_SHOOTOUT_WORKLOADS_H_
