#!/usr/bin/env python3
"""Same-run A/B of preloaded malloc libraries in the shootout's child.

    tools/malloc_ab.py [--nothp] [--metric=ns_per_op] [--trace=FILE] \\
        WORKLOAD RUNS SUBJECT [SUBJECT...]

SUBJECT is a path to a build of libtessera_malloc.so (copy it out of
bazel-bin first: a rebuild replaces it) or a peer: jemalloc, mimalloc,
tcmalloc. Every run starts one shootout child per subject
(`shootout --subject=S --peer=S --workloads=WORKLOAD`, the library
preloaded, proven active by the child), subjects alternating, and prints
each subject's median, mean and range over the runs and its median as a
ratio to the first subject's (below 1: faster).

Why not just alternate: a process's layout moves these loops by more than
the changes under test. The length of the environment moves the stack and
what it aliases, so run i gives every subject the same padding, whose
length changes with i, and each subject is measured over the same set of
layouts. The libraries are copied to paths of equal length for the same
reason (LD_PRELOAD is in the environment too). What this does not sample
is code layout: two builds are one placement of the code each, and builds
whose hot paths are byte-identical have read 5% apart on rt_64
(docs/benchmarks.md, 2026-12-07 15:21-). Read smaller differences as ties.

--nothp runs the children under PR_SET_THP_DISABLE (no transparent huge
pages). Build the shootout first: tools/bazel build --config=opt
//bench/shootout:shootout.
"""
import argparse
import ctypes
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

PEERS = {
    "jemalloc": "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2",
    "mimalloc": "/usr/lib/x86_64-linux-gnu/libmimalloc.so.2",
    "tcmalloc": "/usr/lib/x86_64-linux-gnu/libtcmalloc_minimal.so.4",
}
SHOOTOUT = "bazel-out/k8-opt/bin/bench/shootout/shootout"
PR_SET_THP_DISABLE = 41


def disable_thp():
    """preexec_fn: the child and what it execs get no huge pages."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_THP_DISABLE)")


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("workload")
    parser.add_argument("runs", type=int)
    parser.add_argument("subjects", nargs="+")
    parser.add_argument("--metric", default="ns_per_op")
    parser.add_argument("--trace", default=None)
    parser.add_argument("--nothp", action="store_true")
    args = parser.parse_args()
    if not os.path.exists(SHOOTOUT):
        sys.exit(f"{SHOOTOUT} not found: run from the workspace root after "
                 "tools/bazel build --config=opt //bench/shootout:shootout")

    staging = tempfile.mkdtemp(prefix="malloc_ab.")
    # (label, shootout subject, library to preload)
    subjects = []
    for i, s in enumerate(args.subjects):
        if s in PEERS:
            subjects.append((s, s, PEERS[s]))
            continue
        if not os.path.isfile(s):
            sys.exit(f"{s}: neither a peer ({', '.join(PEERS)}) nor a file")
        # The child proves the library by its name; equal-length paths.
        directory = os.path.join(staging, f"{i:02d}")
        os.mkdir(directory)
        copy = os.path.join(directory, "libtessera_malloc.so")
        shutil.copy(s, copy)
        subjects.append((s, "tessera_preload", copy))

    values = {label: [] for label, _, _ in subjects}
    try:
        for run in range(args.runs):
            padding = "p" * ((run * 104729) % 4093)
            for label, subject, library in subjects:
                env = dict(os.environ, LD_PRELOAD=library,
                           TESSERA_AB_PADDING=padding)
                command = [SHOOTOUT, f"--subject={subject}",
                           f"--peer={subject}", f"--workloads={args.workload}"]
                if args.trace:
                    command.append(f"--trace={args.trace}")
                result = subprocess.run(
                    command, env=env, capture_output=True, text=True,
                    preexec_fn=disable_thp if args.nothp else None)
                lines = result.stdout.strip().splitlines()
                try:
                    metrics = json.loads(lines[-1])["metrics"]
                except (IndexError, ValueError, KeyError):
                    sys.exit(f"{label}: no metrics from the child "
                             f"(exit {result.returncode}): "
                             f"{(result.stdout + result.stderr)[-400:]}")
                if args.metric not in metrics:
                    sys.exit(f"{label}: no metric {args.metric!r} "
                             f"(has {', '.join(metrics)})")
                values[label].append(metrics[args.metric])
    finally:
        shutil.rmtree(staging)

    first = statistics.median(values[subjects[0][0]])
    print(f"{args.workload} {args.metric}, {args.runs} runs"
          f"{' without huge pages' if args.nothp else ''}:")
    for label, _, _ in subjects:
        v = values[label]
        median = statistics.median(v)
        print(f"  {label:48s} median {median:9.3f}  mean "
              f"{statistics.mean(v):9.3f}  range {min(v):.3f}-{max(v):.3f}  "
              f"{median / first:.3f}x")


if __name__ == "__main__":
    main()
