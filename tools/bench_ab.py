#!/usr/bin/env python3
"""Same-run A/B of two builds of a Google Benchmark binary.

    tools/bench_ab.py ROUNDS FILTER OLD_BINARY NEW_BINARY [extra flags...]

Runs the two binaries alternately (ABBA: old, new, new, old, ...), each
round running every benchmark that matches FILTER once
(--benchmark_repetitions=1, --benchmark_min_time=0.2, JSON out), and prints
per benchmark the new/old ratio of the medians over the rounds and of the
minimums, with each side's range, then the geometric means. On a shared
machine a round can be 1.5x slower than the next; alternating puts both
binaries in the same weather, and the minimum is the statistic such noise
disturbs least. Below 1: the new binary is faster.

TESSERA_NUM_THREADS defaults to 1 (the tensor engine's thread pool off), and
tensor_benchmark gets --numpy=0 (its NumPy half is not part of an A/B).
Copy the old binary out of bazel-bin first: a rebuild replaces it.
"""
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile


def run_once(binary, benchmark_filter, extra, env):
    """CPU time per benchmark name of one run of `binary`."""
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        command = [binary, "--benchmark_filter=" + benchmark_filter,
                   "--benchmark_min_time=0.2",
                   "--benchmark_repetitions=1",
                   "--benchmark_report_aggregates_only=false",
                   "--benchmark_out=" + out.name,
                   "--benchmark_out_format=json"]
        if os.path.basename(binary) == "tensor_benchmark":
            command.append("--numpy=0")
        subprocess.run(command + extra, env=env, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        report = json.load(open(out.name))
    return {b["name"]: b["cpu_time"] for b in report["benchmarks"]
            if b.get("run_type") != "aggregate"}


def main(argv):
    if len(argv) < 5:
        sys.exit(__doc__)
    rounds, benchmark_filter = int(argv[1]), argv[2]
    binaries, extra = argv[3:5], argv[5:]
    env = dict(os.environ)
    env.setdefault("TESSERA_NUM_THREADS", "1")
    times = [{}, {}]
    for r in range(rounds):
        for side in ((0, 1) if r % 2 == 0 else (1, 0)):
            for name, t in run_once(binaries[side], benchmark_filter, extra,
                                    env).items():
                times[side].setdefault(name, []).append(t)
    names = sorted(set(times[0]) & set(times[1]))
    if not names:
        sys.exit("no benchmark ran in both binaries")
    median_logs, min_logs = [], []
    for name in names:
        old, new = times[0][name], times[1][name]
        median_ratio = statistics.median(new) / statistics.median(old)
        min_ratio = min(new) / min(old)
        median_logs.append(math.log(median_ratio))
        min_logs.append(math.log(min_ratio))
        print(f"{name:48s} old {statistics.median(old):12.1f} "
              f"new {statistics.median(new):12.1f}  medians {median_ratio:.3f}"
              f"  minimums {min_ratio:.3f}  old [{min(old):.0f}-{max(old):.0f}]"
              f" new [{min(new):.0f}-{max(new):.0f}]")
    mean = lambda logs: math.exp(sum(logs) / len(logs))
    print(f"geometric mean new/old over {len(names)}: medians "
          f"{mean(median_logs):.3f}, minimums {mean(min_logs):.3f}")


if __name__ == "__main__":
    main(sys.argv)
