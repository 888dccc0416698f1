#!/usr/bin/python3
"""NumPy's side of indexing_benchmark.cc: a[mask] of 1e6 float32 with a
random mask (half true) and np.take of 1e6 random indices, CPU time per call.

  /usr/bin/python3 tensor/indexing_benchmark_numpy.py
Median of 5 rounds.
"""
import time

import numpy as np

N = 1_000_000
rng = np.random.default_rng(1)
t = np.arange(N, dtype=np.float32)
mask = rng.integers(0, 2, size=N).astype(bool)
idx = rng.integers(0, N, size=N).astype(np.int64)

for name, fn in (("masked_select", lambda: t[mask]),
                 ("take", lambda: np.take(t, idx))):
    rounds = []
    for _ in range(5):
        start = time.process_time()
        for _ in range(50):
            fn()
        rounds.append((time.process_time() - start) / 50)
    rounds.sort()
    print("%-14s float32 n=%d %12.1f ns" % (name, N, rounds[2] * 1e9))
