#!/usr/bin/python3
"""Prints NumPy's np.sort and np.argsort(kind='stable') results, inputs included.

Regenerate the golden file with:
  /usr/bin/python3 tensor/testdata/gen_sort_golden.py > tensor/testdata/sort_golden.txt
Each line is one case, space-separated key=value fields:
  op=<sort|argsort> axis=<none | n> stable=<0|1> dtype=.. shape=.. values=..
  => dtype=.. shape=.. values=..
or "=> error" when NumPy raises. argsort is always the stable kind (Tessera's
argsort is stable; see sort.h). Values are spelled as golden_format.py
spells them. sort_golden_test.cc reads it.
"""
import numpy as np

from golden_format import DTYPES, fmt, fmt_axis, print_case


def case(op, a, axis, stable):
    head = "op=%s axis=%s stable=%d %s" % (op, fmt_axis(axis), stable, fmt(a))

    def result():
        if op == "sort":
            return np.sort(a, axis=axis, kind="stable" if stable else None)
        return np.argsort(a, axis=axis, kind="stable")

    print_case(head, result, (ValueError, np.AxisError))


def inputs(rng):
    for d in DTYPES:
        info = np.iinfo(d) if np.dtype(d).kind in "iu" else None
        base = rng.integers(-6, 7, size=(3, 5))
        a = base.astype(d)
        if info is not None:
            a.flat[0] = info.max
            a.flat[1] = info.min
        yield a
        # Long lanes (vqsort's vector paths) with many ties.
        yield rng.integers(-50, 50, size=160).astype(d)
    for d in ["float32", "float64"]:
        a = np.array([3.0, np.nan, -0.0, 0.0, -np.inf, np.inf, 1.5, -2.0,
                      np.nan, 0.0, -0.0, 1.5], dtype=d).reshape(3, 4)
        yield a
        big = rng.standard_normal(257).astype(d)
        big[rng.integers(0, 257, size=12)] = np.nan
        big[:5] = -0.0
        yield big
    yield np.arange(24, dtype=np.int32)[::-1].reshape(2, 3, 4)
    yield np.zeros((0, 3), dtype=np.float32)
    yield np.zeros((2, 0), dtype=np.int16)


def main():
    rng = np.random.default_rng(20261203)
    for a in inputs(rng):
        axes = [-1, 0, None] + ([1] if a.ndim >= 2 else []) + [a.ndim]
        for axis in axes:
            for op in ("sort", "argsort"):
                for stable in (0, 1):
                    if op == "argsort" and stable == 0:
                        continue
                    case(op, a, axis, stable)
    case("sort", np.array(3.0), -1, 0)
    case("sort", np.array(3.0), None, 0)
    case("argsort", np.array(3, dtype=np.int8), None, 1)
    unique_cases(rng)
    searchsorted_cases(rng)


def unique_cases(rng):
    """op=unique: => the values, then counts in values2/shape2/dtype2."""
    arrays = [rng.integers(-4, 5, size=(3, 7)).astype(d) for d in DTYPES]
    arrays += [np.array([np.nan, 1.0, -0.0, np.nan, 0.0, np.inf, 1.0], d)
               for d in ("float32", "float64")]
    arrays += [np.zeros((0,), np.int32), np.array(5, np.uint16)]
    for a in arrays:
        v, c = np.unique(a, return_counts=True)
        print("op=unique axis=none stable=0 %s => %s %s" % (
            fmt(a), fmt(v), fmt(c, suffix="2")))


def searchsorted_cases(rng):
    """op=searchsorted: a in dtype/shape/values, v in dtype2/..., side."""
    pairs = []
    for d in DTYPES:
        a = np.sort(rng.integers(-5, 6, size=9).astype(d))
        v = rng.integers(-7, 8, size=(2, 5)).astype(d)
        pairs.append((a, v))
    pairs.append((np.array([-np.inf, -1.0, 0.0, 0.0, 2.5, np.inf, np.nan]),
                  np.array([np.nan, np.inf, 0.0, -0.0, -5.0, 2.5],
                           np.float32)))
    pairs.append((np.array([1, 3, 5], np.uint64),
                  np.array([-1, 3, 6], np.int64)))
    pairs.append((np.array([2, 4], np.int8), np.array(3.5)))
    pairs.append((np.zeros((0,), np.int32), np.array([1, 2], np.int32)))
    pairs.append((np.zeros((2, 2), np.int32), np.array([1], np.int32)))
    for a, v in pairs:
        for side in ("left", "right"):
            head = "op=searchsorted axis=none stable=0 side=%s %s %s" % (
                side, fmt(a), fmt(v, suffix="2"))
            if a.ndim != 1:
                print(head + " => error")
                continue
            print(head + " => " + fmt(np.searchsorted(a, v, side=side)))


if __name__ == "__main__":
    main()
