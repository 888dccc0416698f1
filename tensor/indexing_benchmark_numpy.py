#!/usr/bin/python3
"""NumPy's side of indexing_benchmark.cc: a[mask] of 1e6 float32 with a
random mask (half true) and np.take of 1e6 random indices, CPU time per call.

  /usr/bin/python3 tensor/indexing_benchmark_numpy.py
Median of 5 rounds.
"""
import numpy as np
from numpy_timing import median_per_call

N = 1_000_000
rng = np.random.default_rng(1)
t = np.arange(N, dtype=np.float32)
mask = rng.integers(0, 2, size=N).astype(bool)
idx = rng.integers(0, N, size=N).astype(np.int64)

for name, fn in (("masked_select", lambda: t[mask]),
                 ("take", lambda: np.take(t, idx))):
    print("%-14s float32 n=%d %12.1f ns" %
          (name, N, median_per_call(fn, 50) * 1e9))
