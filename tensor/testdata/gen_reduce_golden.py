#!/usr/bin/python3
"""Prints NumPy's results for a table of reductions, inputs included.

Regenerate the golden file with:
  /usr/bin/python3 tensor/testdata/gen_reduce_golden.py > tensor/testdata/reduce_golden.txt
Each line is one case, space-separated key=value fields:
  op=<name> ddof=<n> dtype=<input dtype> shape=<a,b> values=<C-order list>
  axis=<none | a,b,...> keepdims=<0|1> => dtype=<result> shape=<...> values=<...>
or "=> error" when NumPy raises. Bools are 0/1, floats are repr() (nan, inf).
reduce_golden_test.cc reads it.
"""
import math
import numpy as np

from golden_format import DTYPES, fmt, print_case


def inputs():
    """(array) cases: every dtype on small ints (negatives wrap for unsigned),
    a 3-D block, empties, floats with NaN and inf."""
    base = np.array([[3, -1, 4], [1, -5, 9]])
    for name in DTYPES:
        yield base.astype(name)
        yield (np.arange(24).reshape(2, 3, 4) % 7 - 2).astype(name)
        yield np.zeros((0, 3), dtype=name)
    for name in ["float32", "float64"]:
        yield np.array([[1.5, np.nan, -2.0], [4.0, 0.25, -np.inf]], dtype=name)
        yield np.array([[0.1, 0.2, 0.3, 0.4], [1e3, -1e3, 7.0, 0.0]], dtype=name)
    yield np.array([[True, False, True], [True, True, True]])
    yield np.array(7, dtype="int32")  # 0-d


def axes_for(a):
    yield None
    for k in range(a.ndim):
        yield k
    if a.ndim >= 2:
        yield -1
        yield (0, a.ndim - 1)
    if a.ndim == 3:
        yield (1,)
        yield (0, 1, 2)


OPS = [
    ("sum", lambda a, ax, kd, dd: np.sum(a, axis=ax, keepdims=kd)),
    ("prod", lambda a, ax, kd, dd: np.prod(a, axis=ax, keepdims=kd)),
    ("min", lambda a, ax, kd, dd: np.min(a, axis=ax, keepdims=kd)),
    ("max", lambda a, ax, kd, dd: np.max(a, axis=ax, keepdims=kd)),
    ("mean", lambda a, ax, kd, dd: np.mean(a, axis=ax, keepdims=kd)),
    ("var", lambda a, ax, kd, dd: np.var(a, axis=ax, keepdims=kd, ddof=dd)),
    ("std", lambda a, ax, kd, dd: np.std(a, axis=ax, keepdims=kd, ddof=dd)),
    ("all", lambda a, ax, kd, dd: np.all(a, axis=ax, keepdims=kd)),
    ("any", lambda a, ax, kd, dd: np.any(a, axis=ax, keepdims=kd)),
    ("argmin", lambda a, ax, kd, dd: np.argmin(a, axis=ax, keepdims=kd)),
    ("argmax", lambda a, ax, kd, dd: np.argmax(a, axis=ax, keepdims=kd)),
]


def main():
    np.seterr(all="ignore")
    print("# NumPy %s reductions; see gen_reduce_golden.py" % np.__version__)
    import warnings
    warnings.simplefilter("ignore")
    for a in inputs():
        for name, fn in OPS:
            for ax in axes_for(a):
                if name.startswith("arg") and isinstance(ax, tuple):
                    continue  # NumPy's argmin/argmax take one axis
                keepdims_list = [False, True] if ax in (None, 0) else [False]
                ddofs = [0, 1] if name in ("var", "std") and ax is None else [0]
                for kd in keepdims_list:
                    for dd in ddofs:
                        axis = "none" if ax is None else ",".join(
                            str(k) for k in np.atleast_1d(ax))
                        head = "op=%s ddof=%d %s axis=%s keepdims=%d" % (
                            name, dd, fmt(a), axis, int(kd))
                        print_case(head, lambda: fn(a, ax, kd, dd),
                                   (ValueError, TypeError, np.AxisError))


main()
