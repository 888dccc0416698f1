#!/usr/bin/python3
"""Times NumPy on the cases of bench/tensor_benchmark.cc and prints both.

  tools/bazel run --config=opt //bench:tensor_benchmark     (runs this too)
  /usr/bin/python3 bench/tensor_numpy_bench.py [tessera.json]

Float32 at 1e3/1e5/1e7 elements. Without an argument it prints NumPy's times.
With Google Benchmark JSON from tensor_benchmark (the binary writes it and
calls this script; `--benchmark_format=json` output works too, medians taken
when there are repetitions) it prints both sides and the ratios NumPy time /
Tessera time (above 1: Tessera is faster).

Noise: the machine is shared. Each case is timed in 5 rounds, the cases
interleaved within each round, and the median per case is reported. Two
clocks: wall time (perf_counter) and process CPU time (process_time: user +
system of all threads, which includes page faults). NumPy runs these cases on
one thread; Tessera uses both cores for arrays of megabytes, so its CPU time
there is the total over threads and the wall ratio is the one to read. For
single-threaded cases the CPU ratio is the one robust to other tenants.
"""
import json
import statistics
import sys
import time

import numpy as np

SIZES = [1000, 100000, 10000000]
ROUNDS = 5


def rows(n):
    """The 2-D shape of the broadcast cases (same table as the C++ file)."""
    return {1000: (40, 25), 100000: (400, 250)}.get(n, (4000, n // 4000))


def cases(n):
    a = np.arange(n, dtype=np.float32)
    b = np.ones(n, dtype=np.float32)
    out = np.empty(n, dtype=np.float32)
    r, c = rows(n)
    col = np.arange(r, dtype=np.float32).reshape(r, 1)
    row = np.arange(c, dtype=np.float32).reshape(1, c)
    m = np.arange(r * c, dtype=np.float32).reshape(r, c)
    row1 = np.ones(c, dtype=np.float32)
    at = np.arange(r * c, dtype=np.float32).reshape(c, r).T
    b2 = np.ones((r, c), dtype=np.float32)
    return {
        "BM_AddInto": lambda: np.add(a, b, out=out),
        "BM_AddAllocating": lambda: a + b,
        "BM_Sum": lambda: a.sum(),
        "BM_Arange": lambda: np.arange(0, n, 1, dtype=np.float32),
        "BM_Zeros": lambda: np.zeros(n, dtype=np.float32),
        "BM_AddRowColumn": lambda: col + row,
        "BM_AddMatrixRow": lambda: m + row1,
        "BM_AddTransposed": lambda: at + b2,
    }


def calibrate(fn):
    """Calls per sample so that one sample takes ~20 ms of wall time."""
    number = 1
    while True:
        start = time.perf_counter()
        for _ in range(number):
            fn()
        if time.perf_counter() - start > 0.02 or number >= 1 << 20:
            return number
        number *= 2


def sample(fn, number):
    w0, c0 = time.perf_counter(), time.process_time()
    for _ in range(number):
        fn()
    w1, c1 = time.perf_counter(), time.process_time()
    return (w1 - w0) / number * 1e9, (c1 - c0) / number * 1e9


def time_all():
    """{name: (median wall ns, median cpu ns)} over interleaved rounds."""
    results = {}
    for n in SIZES:
        fns = {"%s/%d" % (k, n): f for k, f in cases(n).items()}
        numbers = {k: calibrate(f) for k, f in fns.items()}
        samples = {k: [] for k in fns}
        for _ in range(ROUNDS):
            for k, f in fns.items():
                samples[k].append(sample(f, numbers[k]))
        for k, s in samples.items():
            results[k] = (statistics.median(x[0] for x in s),
                          statistics.median(x[1] for x in s))
    return results


def load_tessera(path):
    """{name: (wall ns, cpu ns)} from Google Benchmark-style JSON."""
    unit = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}
    plain, medians = {}, {}
    with open(path) as f:
        for bench in json.load(f)["benchmarks"]:
            scale = unit[bench.get("time_unit", "ns")]
            times = (bench["real_time"] * scale, bench["cpu_time"] * scale)
            if bench.get("run_type") == "aggregate":
                if bench.get("aggregate_name") == "median":
                    medians[bench["run_name"]] = times
                continue
            name = bench.get("run_name", bench["name"])
            plain.setdefault(name, times)
    plain.update(medians)
    # Strip Google Benchmark's suffixes (/real_time, /process_time).
    return {"/".join(p for p in k.split("/")
                     if p not in ("real_time", "process_time",
                                  "manual_time")): v
            for k, v in plain.items()}


def fmt(ns):
    if ns >= 1e6:
        return "%.2f ms" % (ns / 1e6)
    if ns >= 1e3:
        return "%.1f us" % (ns / 1e3)
    return "%.0f ns" % ns


def main():
    tessera = load_tessera(sys.argv[1]) if len(sys.argv) > 1 else {}
    numpy_times = time_all()
    print()
    print("NumPy %s vs Tessera, float32; medians of %d interleaved rounds; "
          "ratio = NumPy time / Tessera time" % (np.__version__, ROUNDS))
    print("%-24s %11s %11s %7s   %11s %11s %7s" %
          ("case", "numpy wall", "tessera", "ratio", "numpy cpu", "tessera",
           "ratio"))
    for name, (nw, nc) in numpy_times.items():
        if name in tessera:
            tw, tc = tessera[name]
            print("%-24s %11s %11s %6.2fx   %11s %11s %6.2fx" %
                  (name, fmt(nw), fmt(tw), nw / tw, fmt(nc), fmt(tc),
                   nc / tc))
        else:
            print("%-24s %11s %11s %7s   %11s" % (name, fmt(nw), "", "",
                                                   fmt(nc)))


if __name__ == "__main__":
    main()
