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

from golden_format import DTYPES, fmt, fmt_axis, print_case


def case(op, a, kth, axis):
    head = "op=%s axis=%s kth=%s %s" % (
        op, fmt_axis(axis), ",".join(str(k) for k in kth), fmt(a))

    def sorted_once_numpy_partitions():
        getattr(np, op)(a, kth, axis=axis)
        return np.sort(a, axis=axis)

    print_case(head, sorted_once_numpy_partitions, (ValueError, np.AxisError))


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
