// Copyright 2026 The Tessera Authors.
//
// -----------------------------------------------------------------------------
// File: spawn.h
// -----------------------------------------------------------------------------
//
// How the shootouts start a measurement in its own process: one peer's
// malloc preloaded (LD_PRELOAD), none of the caller's own, stdout read back
// whole. Used by the shootout (each child and the NumPy probe) and by
// bench/gmp_shootout.

#ifndef TESSERA_BENCH_SHOOTOUT_SPAWN_H_
#define TESSERA_BENCH_SHOOTOUT_SPAWN_H_

#include <string>
#include <vector>

#include "absl/status/status.h"

namespace tessera {
namespace shootout {

// Runs `program` with `args` (argv[0] included) in the caller's environment
// minus any LD_PRELOAD of its own, plus LD_PRELOAD=`preload` when that is not
// empty, and waits for it: what it printed on stdout goes to *output, its
// wait status to *wait_status. Its stderr goes to the file `stderr_path`
// (created or truncated) when that is not empty, else to the caller's.
// Fails (InternalError) only when the pipe or the process cannot be made;
// how the child ended is the caller's to judge.
absl::Status Spawn(const std::string& program, std::vector<std::string> args,
                   const std::string& preload, std::string* output,
                   int* wait_status, const std::string& stderr_path = "");

}  // namespace shootout
}  // namespace tessera

#endif  // TESSERA_BENCH_SHOOTOUT_SPAWN_H_
