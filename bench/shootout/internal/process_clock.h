// Copyright 2026 The Tessera Authors.
//
// -----------------------------------------------------------------------------
// File: internal/process_clock.h
// -----------------------------------------------------------------------------
//
// The clocks and memory figures every workload reads. Single-threaded
// allocator workloads time themselves in thread CPU time (the machine is
// shared; wall time would charge other processes' slices to the allocator),
// threaded ones in monotonic wall time (a lock that blocks costs wall time
// but no CPU). Tensor workloads use process CPU time: the engine hands large
// operations to its thread pool, whose work the calling thread's clock would
// not see.

#ifndef TESSERA_BENCH_SHOOTOUT_INTERNAL_PROCESS_CLOCK_H_
#define TESSERA_BENCH_SHOOTOUT_INTERNAL_PROCESS_CLOCK_H_

#include <cstdint>

namespace tessera {
namespace shootout {
namespace internal {

// CPU time of the calling thread, in nanoseconds.
int64_t ThreadCpuNs();

// CPU time of every thread of the process, in nanoseconds.
int64_t ProcessCpuNs();

// CLOCK_MONOTONIC, in nanoseconds.
int64_t MonotonicNs();

// A /proc/self/status field in bytes ("VmRSS", "VmHWM"), or -1.
int64_t ProcStatusBytes(const char* field);

// Resets VmHWM to the current RSS (Linux >= 4.0), so that the peak measured
// afterwards is the workload's, not the validation pass's. False when the
// kernel does not allow it (then callers sample VmRSS instead).
bool ResetPeakRss();

}  // namespace internal
}  // namespace shootout
}  // namespace tessera

#endif  // TESSERA_BENCH_SHOOTOUT_INTERNAL_PROCESS_CLOCK_H_
