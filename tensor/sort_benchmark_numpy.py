#!/usr/bin/python3
"""NumPy's side of sort_benchmark.cc: np.sort and np.argsort of 1e6 random
float32 and int32 (default kind), CPU time per call.

  /usr/bin/python3 tensor/sort_benchmark_numpy.py
Median of 5 rounds.
"""
import time

import numpy as np

N = 1_000_000
rng = np.random.default_rng(1)
raw = (rng.integers(-2**31, 2**31, size=N) // 16).astype(np.int32)
for name, a in (("float32", raw.astype(np.float32)), ("int32", raw)):
    for op in (np.sort, np.argsort):
        rounds = []
        for _ in range(5):
            start = time.process_time()
            for _ in range(5):
                op(a)
            rounds.append((time.process_time() - start) / 5)
        rounds.sort()
        print("%-8s %-8s n=%d %8.2f ms" % (op.__name__, name, N,
                                           rounds[2] * 1e3))
