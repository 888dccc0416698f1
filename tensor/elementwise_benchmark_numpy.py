#!/usr/bin/python3
"""NumPy's side of tensor/elementwise_benchmark.cc: the same cases, same
inputs, into an existing output. Prints the median of 5 rounds of CPU time
per call (process time, robust to other tenants of the machine)."""
import time

import numpy as np
from numpy_timing import median_per_call


def values(n, dtype=np.float32):
    scale = 100.0 / n
    return np.arange(-50.0, 50.0 - scale / 2, scale, dtype=dtype)


def timed(fn, n):
    # Enough calls for ~0.1 s, 5 rounds, median ns per call.
    calls = max(1, int(2e7 // max(n, 1000)))
    return median_per_call(fn, calls, time.process_time_ns)


def cases(n):
    a = values(n)
    half = np.full(n, 0.5, np.float32)
    three = np.full(n, 3.0, np.float32)
    out = np.empty(n, np.float32)
    flags = np.empty(n, np.bool_)
    ia = np.arange(n, dtype=np.int32)
    seven = np.full(n, 7, np.int32)
    iout = np.empty(n, np.int32)
    ie = np.remainder(ia, 4)
    mask = a < 0
    return [
        ("Less", lambda: np.less(a, half, out=flags)),
        ("Fmax", lambda: np.fmax(a, half, out=out)),
        ("FloorDivide", lambda: np.floor_divide(a, three, out=out)),
        ("RemainderInt32", lambda: np.remainder(ia, seven, out=iout)),
        ("PowerInt32", lambda: np.power(ia, ie, out=iout)),
        ("abs", lambda: np.abs(a, out=out)),
        ("sqrt", lambda: np.sqrt(a, out=out)),
        ("exp", lambda: np.exp(a, out=out)),
        ("sin", lambda: np.sin(a, out=out)),
        ("tanh", lambda: np.tanh(a, out=out)),
        ("isnan", lambda: np.isnan(a, out=flags)),
        ("Where", lambda: np.where(mask, a, np.float32(0))),
        ("Clip", lambda: np.clip(a, -1.0, 1.0, out=out)),
    ]


def main():
    print("NumPy %s, median CPU ns per call" % np.__version__)
    with np.errstate(all="ignore"):
        for n in (1000, 1000000):
            for name, fn in cases(n):
                print("%-16s n=%-8d %12.0f ns" % (name, n, timed(fn, n)))


if __name__ == "__main__":
    main()
