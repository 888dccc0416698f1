#!/usr/bin/python3
"""Prints NumPy's astype results for a table of values and every dtype pair.

Regenerate the golden file with:
  /usr/bin/python3 tensor/testdata/gen_cast_golden.py > tensor/testdata/cast_golden.txt
Each line is "<from> <to> <value> <result>": `value` of dtype `from`
converted with `np.array([value], from).astype(to)`. Bools are 0/1, floats
repr() (nan, inf). Integers wrap; floats truncate toward zero.

NumPy leaves float -> integer undefined (a C cast) for NaN, inf and values
outside the target's range, so those pairs are left out; convert.h documents
what Tessera does there (0 for NaN, saturation otherwise).
cast_golden_test in reduce_golden_test.cc reads it.
"""
import math
import numpy as np

import golden_format
from golden_format import fmt_value

DTYPES = golden_format.DTYPES + ["float16"]

INTS = [0, 1, -1, 7, 127, 128, -128, -129, 255, 256, 300, -300, 32767, 32768,
        -32769, 65535, 65536, 2**31 - 1, 2**31, -2**31 - 1, 2**32 - 1, 2**32 + 5,
        2**53 + 1, 2**62 + 3, 2**63 - 1, -2**63, 2**64 - 1, 2**63 + 12345]
FLOATS = [0.0, -0.0, 0.5, -0.5, 0.9999, -0.9999, 1.5, -1.5, 2.7, -2.7, 100.9,
          127.5, 128.25, -128.75, -129.5, 255.99, 256.5, 1e4 + 0.75,
          -32768.9, 65535.5, 2.5e9, -2.1e9, 4.2e9, 1e15 + 0.5, -9.2e18,
          1.8e19, 0.1, 1.0 / 3, 1e-40, 1e-50, 3.4e38, 3.5e38, 1e300,
          float("nan"), float("inf"), float("-inf"),
          # float16 rounding: the largest finite value, the overflow edge
          # (65520 is the tie to infinity), ties to even at 2048 (ulp 2) and
          # at 1 (ulp 2^-10), the subnormal edge 2^-24 and the tie 2^-25,
          # and a float64 just above a tie that float32 would round onto it
          # (NumPy rounds float64 -> float16 once).
          65504.0, 65519.0, 65519.99, 65520.0, 2049.0, 2051.0, 2050.5,
          1.0 + 2.0**-11, 1.0 + 3 * 2.0**-11, 1.0 + 2.0**-11 + 2.0**-40,
          2.0**-24, 2.0**-25, 3 * 2.0**-25, 2.0**-25 * (1 + 2.0**-20),
          6.1e-5, 2.0**-14, 2.0**-14 - 2.0**-24, -2.0**-26]


def in_range(value, to):
    if math.isnan(value) or math.isinf(value):
        return False
    info = np.iinfo(to)
    t = math.trunc(value)
    return info.min <= t <= info.max


def main():
    np.seterr(all="ignore")
    print("# NumPy %s astype; see gen_cast_golden.py" % np.__version__)
    for src in DTYPES:
        s = np.dtype(src)
        if s.kind == "b":
            values = [np.array([v], dtype=s) for v in (False, True)]
        elif s.kind in "iu":
            info = np.iinfo(s)
            values = [np.array([v], dtype=s) for v in INTS
                      if info.min <= v <= info.max]
        else:
            values = [np.array([v], dtype=s) for v in FLOATS]
        for dst in DTYPES:
            d = np.dtype(dst)
            for a in values:
                if s.kind == "f" and d.kind in "iu" and not in_range(
                        float(a[0]), d):
                    continue
                r = a.astype(d)
                print(src, dst, fmt_value(a[0], s), fmt_value(r[0], d))


main()
