// Copyright 2026 The Tessera Authors.
//
// -----------------------------------------------------------------------------
// File: parallel.h
// -----------------------------------------------------------------------------
//
// How many threads the tensor engine may use for one large operation.
// Elementwise operations on contiguous operands, `sum`, and `arange` split
// arrays of at least `kParallelMinBytes` into chunks that run on a small
// process-wide thread pool (tensor/internal/thread_pool.h) and on the calling
// thread. Below that size, or with one thread, everything runs on the caller:
// waking a sleeping worker costs ~5-50 us, which only pays for itself on
// arrays of megabytes (a 1e7-element float32 add is ~3.5 ms on one core here,
// and memory bandwidth roughly doubles with the second core).
//
// The thread count is, in order of precedence: the last `SetNumThreads(n)`
// with n >= 1; the environment variable TESSERA_NUM_THREADS (read once, when
// the pool is first needed); `std::thread::hardware_concurrency()`. It is
// capped at `kMaxThreads`. One thread means "no pool": nothing is started.
//
// Results do not depend on the thread count: elementwise chunks are
// independent, and sums split along the same pairwise tree as the serial sum
// (see tensor/internal/parallel_ops.h), so `sum` is bit-identical with 1 or N
// threads.
//
// Thread safety: all functions may be called from any thread. An operation
// that finds the pool busy (another thread's large operation, or a call from
// inside a worker) runs on its caller alone instead of waiting.

#ifndef TESSERA_TENSOR_PARALLEL_H_
#define TESSERA_TENSOR_PARALLEL_H_

#include <cstddef>

namespace tessera {

// Most threads the pool runs (caller included).
inline constexpr int kMaxThreads = 64;

// Operations touching fewer bytes than this (summed over their operands) run
// on the calling thread only.
inline constexpr size_t kParallelMinBytes = size_t{4} << 20;

// The number of threads (caller included) large operations use; >= 1.
int NumThreads();

// Sets the number of threads large operations use (1 turns the pool off);
// `n <= 0` goes back to the default (TESSERA_NUM_THREADS, else the hardware
// concurrency). Values above `kMaxThreads` are capped. Waits for a running
// parallel operation to finish, then stops the old workers; new ones start
// lazily on the next large operation.
void SetNumThreads(int n);

}  // namespace tessera

#endif  // TESSERA_TENSOR_PARALLEL_H_
