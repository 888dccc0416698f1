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
// "trace_threads" replays it with one thread per recorded thread, each in
// its recorded order; an operation on a block waits until the previous
// operation on that block (on whatever thread) is done, so a block freed on
// another thread is handed over after its allocation, never before. It is
// timed in wall time. Allocators that are not thread-safe (tlsf,
// size_class) run behind one std::mutex taken per call, and the report says
// so; `tlsf_locked` is the arena's own locked form.
//
// The tensor workloads ("tensor_<op>_<n>") call Tessera's public tensor API
// (tensor.h, binary.h, reduce.h) with the subject as the allocator of every
// tensor: `op` TensorIterations() times at n float32 elements, process CPU
// time per call (the thread pool's workers included). Their validation pass runs the operation once at full size
// and checks every element of the result (arange: i; zeros: 0; a + b with
// a = arange, b = ones: i + 1; sum: n(n-1)/2 within 1e-4), then the
// allocator's CheckIntegrity. NumPy's side is numpy_child.h.

#ifndef TESSERA_BENCH_SHOOTOUT_WORKLOADS_H_
#define TESSERA_BENCH_SHOOTOUT_WORKLOADS_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "bench/shootout/arena_map.h"
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
// W4 on "tlsf" snapshots the arena before its teardown (arena_map.h), adds
// the snapshot's figures ("arena_*") to the metrics, and stores it in
// `arena_snapshot` when that is not null.
absl::StatusOr<Metrics> Measure(absl::string_view subject,
                                absl::string_view workload, Scale scale,
                                const alloc_trace::Trace* trace = nullptr,
                                double size_factor = 1.0,
                                ArenaSnapshot* arena_snapshot = nullptr);

// Calls per timed run of tensor workload `op` ("zeros", "add", ...) of
// `elements` elements; the same on both sides (the parent passes it to
// NumPy's child).
int64_t TensorIterations(absl::string_view op, int64_t elements, Scale scale,
                         double size_factor);

}  // namespace shootout
}  // namespace tessera

#endif  // TESSERA_BENCH_SHOOTOUT_WORKLOADS_H_
