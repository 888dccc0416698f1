#!/usr/bin/python3
"""Prints NumPy's cumsum, cumprod and diff results, inputs included.

Regenerate the golden file with:
  /usr/bin/python3 tensor/testdata/gen_scan_golden.py > tensor/testdata/scan_golden.txt
Each line is one case, space-separated key=value fields:
  op=<cumsum|cumprod|diff> axis=<none | n> n=<diff order> acc=<dtype | default>
  dtype=.. shape=.. values=..  => dtype=.. shape=.. values=..
or "=> error" when NumPy raises. Floats are repr() of NumPy's sequential
accumulation; scan_golden_test.cc compares them exactly.
"""
import numpy as np

from golden_format import DTYPES, fmt, fmt_axis, print_case


def case(op, a, axis, n=1, acc=None):
    head = "op=%s axis=%s n=%d acc=%s %s" % (
        op, fmt_axis(axis), n, acc or "default", fmt(a))

    def result():
        with np.errstate(all="ignore"):
            if op == "diff":
                return np.diff(a, n=n, axis=-1 if axis is None else axis)
            return getattr(np, op)(a, axis=axis, dtype=acc)

    print_case(head, result, (ValueError, np.AxisError))


def main():
    rng = np.random.default_rng(7)
    for d in DTYPES:
        a = rng.integers(-3, 4, size=(3, 4)).astype(d)
        if np.dtype(d).kind in "iu":
            a.flat[5] = np.iinfo(d).max  # wraps in narrow accumulators
        for axis in (None, 0, 1, -1, 2):
            case("cumsum", a, axis)
            case("cumprod", a, axis)
        for n in (0, 1, 2, 5):
            case("diff", a, 1, n)
        case("diff", a, 0, 1)
        case("cumsum", a, 1, acc=d)
    for d in ("float32", "float64"):
        a = (rng.standard_normal(200) * 1e3).astype(d)
        a[17] = np.nan
        a[50] = np.inf
        case("cumsum", a, None)
        case("cumsum", a[:40].reshape(4, 10), 0)
        case("cumprod", (1 + a[60:90] / 1e4).astype(d), None)
        case("diff", a[:20], 0, 3)
    case("cumsum", np.arange(12, dtype=np.int32).reshape(2, 3, 2), 1,
         acc="float32")
    case("cumsum", np.array(5, np.int8), None)
    case("cumsum", np.array(5, np.int8), 0)
    case("diff", np.array(5, np.int8), 0)
    case("diff", np.arange(4, dtype=np.int32), 0, -1)
    case("cumsum", np.zeros((0, 3), np.float32), 0)
    case("diff", np.zeros((2, 0), np.int16), 1)


if __name__ == "__main__":
    main()
