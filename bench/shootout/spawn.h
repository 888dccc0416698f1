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
#include "absl/strings/string_view.h"

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

// argv[0] for a measurement child of round `round` (from 0): `name` and
// (41 * round) mod 128 underscores, so each round measures in another
// process layout and every child of a round in the same one. A fixed layout
// is a lottery that no number of rounds averages away: with nothing else
// changed, the length of argv[0] alone moved mimalloc's 64-byte round trip
// between 2.6 and 5.9 ns, Tessera malloc's between 2.7 and 4.6 and
// tcmalloc's W1 between 7.2 and 14.3, while the runs of one layout agreed
// within a few percent (sweeps of 12-32 lengths, 2026-12-07: see
// docs/benchmarks.md). A negative round is taken as 0.
std::string LayoutArgv0(absl::string_view name, int round);

}  // namespace shootout
}  // namespace tessera

#endif  // TESSERA_BENCH_SHOOTOUT_SPAWN_H_
