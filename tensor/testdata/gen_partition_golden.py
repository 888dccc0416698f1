#!/usr/bin/python3
"""Prints inputs of np.partition / np.argpartition with the fully sorted
result NumPy's partition must agree with, stretch by stretch.

Regenerate the golden file with:
  /usr/bin/python3 tensor/testdata/gen_partition_golden.py > tensor/testdata/partition_golden.txt
Each line is one case, space-separated key=value fields:
  op=<partition|argpartition> axis=<none | n> kth=<k,k,..>
  dtype=.. shape=.. values=..  => dtype=.. shape=.. values=..
where the output is np.sort(a, axis): NumPy's order inside each stretch
between kths is unspecified, so partition_golden_test.cc sorts each stretch
of its result (after gathering, for argpartition) and compares with it. Each
case is run through NumPy first, and "=> error" is printed when NumPy raises.
"""
import numpy as np

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16",
          "uint32", "uint64", "float32", "float64"]


def fmt_value(x, dtype):
    if dtype.kind == "b":
        return "1" if x else "0"
    if dtype.kind == "f":
        return repr(float(x))
    return str(int(x))


def fmt(a):
    a = np.asarray(a)
    shape = ",".join(str(n) for n in a.shape)
    values = ",".join(fmt_value(x, a.dtype) for x in a.ravel())
    return "dtype=%s shape=%s values=%s" % (a.dtype.name, shape,
                                           values if values else "-")


def case(op, a, kth, axis):
    head = "op=%s axis=%s kth=%s %s" % (
        op, "none" if axis is None else axis,
        ",".join(str(k) for k in kth), fmt(a))
    try:
        getattr(np, op)(a, kth, axis=axis)
    except (ValueError, np.AxisError):
        print(head + " => error")
        return
    print(head + " => " + fmt(np.sort(a, axis=axis)))


def main():
    rng = np.random.default_rng(21)
    for d in DTYPES:
        a = rng.integers(-20, 20, size=(4, 9)).astype(d)
        for op in ("partition", "argpartition"):
            case(op, a, [4], -1)
            case(op, a, [0, -1], -1)
            case(op, a, [2, 5, 7], None)
            case(op, a, [9], -1)  # out of bounds
        case("partition", a, [1, 2], 0)
        case("partition", a, [-4], 0)
        case("partition", a, [-5], 0)
    for d in ("float32", "float64"):
        f = (rng.standard_normal((3, 11)) * 10).astype(d)
        f[0, 3] = np.nan
        f[1, ::3] = np.nan
        f[2, 5] = np.inf
        f[2, 6] = -np.inf
        f[2, 7] = -0.0
        for op in ("partition", "argpartition"):
            case(op, f, [5], -1)
            case(op, f, [10], -1)
            case(op, f, [0, 3, 8], -1)
            case(op, f, [6, 30], None)
        case("partition", f, [1], 0)
    big = rng.integers(0, 1000, size=300).astype(np.int32)
    case("partition", big, [150], 0)
    case("argpartition", big, [0, 77, 299], 0)
    case("partition", np.array(3.5), [0], None)
    case("partition", np.array(3.5), [0], 0)
    case("partition", np.zeros((0, 3), np.float32), [0], 0)
    case("partition", np.ones((2, 1, 3), np.int16), [0], 1)


if __name__ == "__main__":
    main()
