#!/usr/bin/python3
"""NumPy's side of npy_benchmark.cc: np.load of a 400 MB float32 .npy (from
the page cache), np.load(mmap_mode='r') and np.save, wall time.

  /usr/bin/python3 tensor/npy_benchmark_numpy.py
Median of 5 rounds (each round the mean of a few calls).
"""
import os
import time

import numpy as np
from numpy_timing import median_per_call

N = 100_000_000
PATH = "/tmp/tessera_npy_bench.npy"

if not os.path.exists(PATH) or os.path.getsize(PATH) != 128 + 4 * N:
    np.save(PATH, np.arange(N, dtype=np.float32))


def median_time(fn, calls):
    return median_per_call(fn, calls, time.perf_counter)


load = median_time(lambda: np.load(PATH), 3)
mmap = median_time(lambda: np.load(PATH, mmap_mode="r"), 200)
a = np.arange(N, dtype=np.float32)
save = median_time(lambda: np.save("/tmp/tessera_npy_bench_out.npy", a), 2)
print("np.load 400MB                %8.1f ms" % (load * 1e3))
print("np.load(mmap_mode='r') 400MB %8.1f us" % (mmap * 1e6))
print("np.save 400MB                %8.1f ms" % (save * 1e3))
