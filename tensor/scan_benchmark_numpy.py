#!/usr/bin/python3
"""NumPy's side of scan_benchmark.cc: np.cumsum of float32 (1e3 and 1e7),
CPU time per call.

  /usr/bin/python3 tensor/scan_benchmark_numpy.py
Median of 5 rounds.
"""
import time

import numpy as np

for n in (1000, 10_000_000):
    t = np.arange(0.0, 1.0, 1.0 / n, dtype=np.float32)
    calls = 20000 if n == 1000 else 5
    rounds = []
    for _ in range(5):
        start = time.process_time()
        for _ in range(calls):
            np.cumsum(t)
        rounds.append((time.process_time() - start) / calls)
    rounds.sort()
    print("cumsum float32 n=%-9d %12.1f ns" % (n, rounds[2] * 1e9))
