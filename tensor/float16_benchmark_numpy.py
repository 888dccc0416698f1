#!/usr/bin/python3
"""NumPy's side of tensor/float16_benchmark.cc: the same cases, same inputs.
Prints the median of 5 rounds of CPU time per call (process time, robust to
other tenants of the machine)."""
import time

import numpy as np
from numpy_timing import median_per_call


def values(n, dtype):
    scale = 100.0 / n
    return np.arange(-50.0, 50.0 - scale / 2, scale,
                     dtype=np.float32).astype(dtype)


def timed(fn, n):
    # Enough calls for ~0.1 s, 5 rounds, median ns per call.
    calls = max(1, int(2e7 // max(n, 1000)) // 10)
    return median_per_call(fn, calls, time.process_time_ns)


def cases(n):
    a = values(n, np.float16)
    b = np.full(n, 0.3, np.float16)
    out = np.empty(n, np.float16)
    a32 = values(n, np.float32)
    return [
        ("AddFloat16Into", lambda: np.add(a, b, out=out)),
        ("AddFloat16", lambda: np.add(a, b)),
        ("Float32ToFloat16", lambda: a32.astype(np.float16)),
        ("Float16ToFloat32", lambda: a.astype(np.float32)),
        ("SumFloat16", lambda: np.sum(a)),
    ]


def main():
    print("NumPy %s, median CPU ns per call" % np.__version__)
    for n in (1000, 1000000):
        for name, fn in cases(n):
            print("%-18s n=%-8d %12.0f ns" % (name, n, timed(fn, n)))


if __name__ == "__main__":
    main()
