#!/usr/bin/python3
"""NumPy's per-call CPU time for the cases of reduce_benchmark.cc.

  /usr/bin/python3 tensor/reduce_benchmark_numpy.py
Median of 5 rounds of process CPU time per call, float32, axis=None.
"""
import time

import numpy as np

OPS = ["sum", "prod", "min", "max", "mean", "var", "all", "any", "argmin",
       "argmax"]

for n in (1000, 1000000):
    t = np.arange(1.0, 2.0, 1.0 / n).astype(np.float32)
    for name in OPS:
        fn = getattr(np, name)
        calls = max(10, int(2e5 / n * 20))
        rounds = []
        for _ in range(5):
            start = time.process_time()
            for _ in range(calls):
                fn(t)
            rounds.append((time.process_time() - start) / calls)
        rounds.sort()
        print("%-7s n=%-8d %10.0f ns" % (name, n, rounds[2] * 1e9))
