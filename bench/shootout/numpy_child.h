// Copyright 2026 The Tessera Authors.
//
// -----------------------------------------------------------------------------
// File: numpy_child.h
// -----------------------------------------------------------------------------
//
// NumPy's side of the tensor workloads: a short Python program, run by the
// interpreter given with --python (default /usr/bin/python3, Debian's
// python3-numpy) in its own process, that does what workloads.h does for
// Tessera: the same operation on float32 at the same size, validated once
// at full size (every element checked), then called the same number of
// times, timed in process CPU time (`time.process_time_ns`). It prints one
// line of JSON in the shape of a shootout child's report; the Python loop
// and call overhead per call is part of NumPy's figure, as it is for a
// NumPy user.
//
// When NumPy cannot be imported the program prints {"error": ...} naming
// the interpreter and the package to install, and exits 3: the parent
// probes for it first (NumpyProbeArgs) and reports the tensor workloads'
// NumPy column as skipped.

#ifndef TESSERA_BENCH_SHOOTOUT_NUMPY_CHILD_H_
#define TESSERA_BENCH_SHOOTOUT_NUMPY_CHILD_H_

#include <cstdint>
#include <string>
#include <vector>

namespace tessera {
namespace shootout {

inline constexpr char kDefaultPython[] = "/usr/bin/python3";

// argv (argv[0] = `python`) that measures `workload` (a tensor workload).
std::vector<std::string> NumpyChildArgs(const std::string& python,
                                        const std::string& workload,
                                        const std::string& op,
                                        int64_t elements, int64_t calls);

// argv that imports NumPy and prints its version and path as JSON, or
// {"error": ...} and exit 3.
std::vector<std::string> NumpyProbeArgs(const std::string& python);

}  // namespace shootout
}  // namespace tessera

#endif  // TESSERA_BENCH_SHOOTOUT_NUMPY_CHILD_H_
