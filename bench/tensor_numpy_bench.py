#!/usr/bin/python3
"""Times NumPy on the cases of bench/tensor_benchmark.cc, float32 at 1e3/1e5/1e7.

  /usr/bin/python3 bench/tensor_numpy_bench.py [tessera.json]

Without an argument it prints NumPy's times. With the JSON output of
`tools/bazel run --config=opt //bench:tensor_benchmark -- --benchmark_format=json`
it prints both, and NumPy time / Tessera time (above 1: Tessera is faster).
Run both back to back: the machine is shared, only ratios from one sitting
mean anything. Both sides report CPU time of the process (user + system,
which includes page faults), not wall time: on a loaded 2-core machine wall
time mostly measures the other tenants.
"""
import json
import sys
import time
import timeit

import numpy as np

SIZES = [1000, 100000, 10000000]


def cases(n):
    a = np.arange(n, dtype=np.float32)
    b = np.ones(n, dtype=np.float32)
    out = np.empty(n, dtype=np.float32)
    return {
        "BM_AddInto": lambda: np.add(a, b, out=out),
        "BM_AddAllocating": lambda: a + b,
        "BM_Sum": lambda: a.sum(),
        "BM_Arange": lambda: np.arange(0, n, 1, dtype=np.float32),
        "BM_Zeros": lambda: np.zeros(n, dtype=np.float32),
    }


def time_ns(fn):
    """Best of 5 repeats of a loop sized to take ~0.1 s CPU, in ns per call."""
    timer = timeit.Timer(fn, timer=time.process_time)
    number, _ = timer.autorange()
    number = max(1, number // 2)
    best = min(timer.repeat(number=number, repeat=5))
    return best / number * 1e9


def main():
    tessera = {}
    if len(sys.argv) > 1:
        with open(sys.argv[1]) as f:
            for bench in json.load(f)["benchmarks"]:
                unit = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[bench["time_unit"]]
                tessera[bench["name"]] = bench["cpu_time"] * unit
    print("NumPy %s; CPU ns per call" % np.__version__)
    print("%-26s %14s %14s %8s" % ("case", "numpy", "tessera", "ratio"))
    for n in SIZES:
        for name, fn in cases(n).items():
            key = "%s/%d" % (name, n)
            numpy_ns = time_ns(fn)
            if key in tessera:
                print("%-26s %14.0f %14.0f %8.2f" %
                      (key, numpy_ns, tessera[key], numpy_ns / tessera[key]))
            else:
                print("%-26s %14.0f" % (key, numpy_ns))


if __name__ == "__main__":
    main()
