#!/usr/bin/python3
"""NumPy's side of join_benchmark.cc: np.concatenate of two float32 arrays
(1e3 and 1e7 each) and np.stack(axis=1), wall time per call.

  /usr/bin/python3 tensor/join_benchmark_numpy.py
Median of 5 rounds.
"""
import time

import numpy as np
from numpy_timing import median_per_call


def median_time(fn, calls):
    return median_per_call(fn, calls, time.perf_counter)


for n in (1000, 10_000_000):
    a = np.arange(n, dtype=np.float32)
    b = np.arange(n, 2 * n, dtype=np.float32)
    calls = 20000 if n == 1000 else 10
    t = median_time(lambda: np.concatenate([a, b]), calls)
    print("concatenate n=%-9d %12.1f ns" % (n, t * 1e9))
for n in (1000, 1_000_000):
    a = np.arange(n, dtype=np.float32)
    calls = 20000 if n == 1000 else 50
    t = median_time(lambda: np.stack([a, a], axis=1), calls)
    print("stack(axis=1) n=%-9d %10.1f ns" % (n, t * 1e9))
