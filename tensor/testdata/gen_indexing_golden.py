#!/usr/bin/python3
"""Prints NumPy's take, put, boolean-mask selection and assignment, compress,
nonzero and argwhere results, inputs included.

Regenerate the golden file with:
  /usr/bin/python3 tensor/testdata/gen_indexing_golden.py > tensor/testdata/indexing_golden.txt
Each line is one case, space-separated key=value fields:
  op=<take|put|select|assign|compress|nonzero|argwhere> axis=<none | n>
  mode=<raise|wrap|clip> dtype=.. shape=.. values=..  (the tensor)
  idtype=.. ishape=.. ivalues=..  (index array, mask or condition)
  vdtype=.. vshape=.. vvalues=..  (values of put/assign)
  => dtype=.. shape=.. values=..
or "=> error" when NumPy raises. put and assign print the tensor after the
call; nonzero prints np.array(np.nonzero(a)), shape (ndim, count).
Index arrays of every integer dtype int8..uint64 go through a[..., idx] and
a.flat[idx] = v (as np.take and np.put, which refuse uint64 only by their
casting rule).
"""
import numpy as np

from golden_format import DTYPES, fmt, fmt_axis, print_case

INDEX_DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16",
                "uint32", "uint64"]


def take(a, idx, axis, mode):
    if mode != "raise" or idx.dtype.kind == "b":
        return np.take(a, idx, axis=axis, mode=mode)
    if axis is None:
        return a.ravel()[idx]
    return a[(slice(None),) * (axis % a.ndim) + (idx,)]


def case(op, a, idx, axis=None, mode="raise", values=None):
    head = "op=%s axis=%s mode=%s %s %s %s" % (
        op, fmt_axis(axis), mode, fmt(a), fmt(idx, "i"),
        fmt(values if values is not None else np.zeros(0, np.int64), "v"))

    def result():
        if op == "take":
            return take(a, idx, axis, mode)
        if op == "put":
            r = a.copy()
            if idx.dtype == np.uint64 and mode == "raise":
                r.flat[idx] = values  # np.put's same-kind cast refuses it
            else:
                np.put(r, idx, values, mode=mode)
            return r
        if op == "select":
            return a[idx]
        if op == "assign":
            r = a.copy()
            r[idx] = values
            return r
        if op == "compress":
            return np.compress(idx, a, axis=axis)
        if op == "nonzero":
            return np.array(np.nonzero(a), dtype=np.int64).reshape(
                max(a.ndim, 1), -1)
        return np.argwhere(a)

    print_case(head, result, (IndexError, ValueError, TypeError, np.AxisError))


def main():
    rng = np.random.default_rng(13)
    none = np.zeros(0, np.int64)
    for d in DTYPES:
        a = rng.integers(-3, 4, size=(3, 4)).astype(d)
        for axis in (None, 0, 1, -1):
            case("take", a, np.array([2, 0, -1, 2]), axis)
        case("take", a, np.array([[3, 0], [1, -4]]), 1)
        case("take", a, np.array([3]), 0)
        m = rng.integers(0, 2, size=(3, 4)).astype(bool)
        case("select", a, m)
        case("select", a, np.array([True, False, True]))
        case("assign", a, m, values=np.array(7, np.int64))
        case("assign", a, m, values=np.arange(int(m.sum()), dtype=np.int32))
        case("assign", a, np.array([True, False, True]),
             values=np.array([1, 2, 3, 4], np.int16))
        case("put", a, np.array([0, 5, -1, 5]),
             values=np.array([9, 8, 7], np.int8))
        case("compress", a, np.array([0, 1, 1]), 0)
        case("compress", a, np.array([1, 0, 1, 1]), 1)
        case("compress", a, np.array([0, 1, 0, 0, 0, 1]), None)
        case("nonzero", a, none)
        case("argwhere", a, none)
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    for d in INDEX_DTYPES:
        idx = np.array([[2, 0], [1, 1]]).astype(d)
        case("take", a, idx, 1)
        case("take", a, idx, None)
        case("take", a, np.array([3]).astype(d), 1)   # out of range
        case("put", a, idx, values=np.array([-1.5]))
    case("take", a, np.array([True, False, True]), 2)  # 0/1 in np.take
    case("take", a, np.array([-3, -1]), 1)
    case("take", a, np.array([-4]), 1)
    case("take", a, np.array([0.0, 1.0]), 1)
    case("take", a, np.array(2), 2)  # 0-d index drops the axis
    for mode in ("wrap", "clip"):
        case("take", a, np.array([-7, -1, 3, 8]), 1, mode)
        case("take", a, np.array([-1, 30]), None, mode)
        case("put", a, np.array([-1, 30, 5]), mode=mode,
             values=np.array([100.0, 200.0]))
    case("put", a, np.array([24]), values=np.array([1.0]))
    case("put", a, np.array([-25]), values=np.array([1.0]))
    case("select", a, a > 10.5)
    case("select", a, np.array([[True, False, True], [False, False, True]]))
    case("select", a, np.array([False, True]))
    case("select", a, np.zeros((2, 3, 4), bool))
    case("select", a, np.array([True, False, True]))       # wrong shape
    case("select", a, np.ones((2, 4), bool))               # wrong shape
    case("assign", a, a > 20, values=np.array([1.0, 2.0]))  # 3 selected
    case("assign", a, np.array([[True, False, True], [False, False, False]]),
         values=np.array([1.0, 2.0, 3.0, 4.0]))
    case("assign", a, np.array([True, True]), values=np.array([0.5]))
    case("compress", a, np.array([True]), 1)
    case("compress", a, np.array([False, False, False, True]), 1)  # too long
    case("compress", a, np.array([0, 0, 0, 0, 0]), 2)  # false past the end
    case("compress", a, np.array([True, True]), 3)
    for d in ("float32", "float64"):
        f = np.array([0.0, -0.0, np.nan, 1.5, np.inf, 0.0]).astype(d)
        case("nonzero", f, none)
        case("argwhere", f.reshape(2, 3), none)
    case("nonzero", np.array(3, np.int32), none)
    case("nonzero", np.array(0, np.int32), none)
    case("argwhere", np.array(3, np.int32), none)
    case("nonzero", np.zeros((2, 0, 3), np.uint8), none)
    case("argwhere", np.zeros((0, 2), np.float64), none)
    case("nonzero", rng.integers(0, 2, size=(2, 3, 2)).astype(bool), none)
    case("take", np.zeros((0, 3)), np.array([0]), 0)
    case("take", np.zeros((0, 3)), np.zeros(0, np.int64), 0)


if __name__ == "__main__":
    main()
