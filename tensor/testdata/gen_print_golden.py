#!/usr/bin/python3
"""Prints NumPy's repr() and str() of a set of arrays, inputs included.

Regenerate the golden file with:
  /usr/bin/python3 tensor/testdata/gen_print_golden.py > tensor/testdata/print_golden.txt
Each case is three lines:
  case dtype=<name> shape=<a,b> values=<C-order list>
  repr <repr(array)>
  str <str(array)>
with newlines inside repr/str written as the two characters \\n. Bools are
0/1 and floats repr() of their exact value (nan, inf). print_test.cc reads it.
"""
import numpy as np

from golden_format import fmt


def cases():
    f32, f64 = np.float32, np.float64
    rng = np.random.default_rng(5)
    yield np.array([1.0, 2.0, 3.0])
    yield np.array([[1.0, 2.0], [3.0, 4.0]], dtype=f32)
    yield np.array([0.1, 0.25, 1 / 3])
    yield np.array([0.1, 0.25, 1 / 3], dtype=f32)
    yield np.array([1e-5, 1.0, 1e5])
    yield np.array([1e8, 1.0])
    yield np.array([1e10, -3.5, 2.0], dtype=f32)
    yield np.array([1.5e-300, 2.5e300])
    yield np.array([np.nan, 1.5, -np.inf])
    yield np.array([np.nan, np.inf])
    yield np.array([np.nan, -np.inf], dtype=f32)
    yield np.array([1e-7, np.nan, 123.0])
    yield np.array([-0.0, 0.0])
    yield np.zeros((2, 2))
    yield np.array([100.0, 0.125, -7.0])
    yield np.array([12345678.9, 0.5])
    yield np.array([999.0, 1.0, 0.001])
    yield rng.standard_normal((3, 4))
    yield rng.standard_normal((2, 3)).astype(f32)
    yield (rng.standard_normal(9) * 1000).astype(f32)
    yield np.array(1.5)
    yield np.array(0.1, dtype=f32)
    yield np.array(1 / 3, dtype=f32)
    yield np.array(1e20)
    yield np.array(1e16)
    yield np.array(1e15)
    yield np.array(1e-5)
    yield np.array(0.0001)
    yield np.array(-2.0)
    yield np.array(np.nan)
    yield np.array(-np.inf, dtype=f32)
    yield np.array(7, dtype=np.int32)
    yield np.array(-3)
    yield np.array(True)
    yield np.array([-128, 0, 127], dtype=np.int8)
    yield np.array([0, 2**64 - 1], dtype=np.uint64)
    yield np.array([5, -12345, 7], dtype=np.int16)
    yield np.arange(12).reshape(3, 4)
    yield np.arange(24, dtype=np.int32).reshape(2, 3, 4)
    yield np.arange(16, dtype=np.uint8).reshape(2, 2, 2, 2)
    yield np.array([True, False])
    yield np.array([[True, True], [True, True]])
    yield np.array([[False], [False]])
    yield np.zeros((0,))
    yield np.zeros((0, 3), dtype=np.int32)
    yield np.zeros((2, 0), dtype=f32)
    yield np.zeros((0,), dtype=bool)
    yield np.arange(40.0)
    yield np.linspace(0, 1, 30)
    yield np.arange(30, dtype=f32) * f32(1234.5)
    yield np.arange(100, dtype=np.int64) * 1000003
    yield np.arange(1000)
    yield np.arange(1001, dtype=f32) * f32(0.1)
    yield np.arange(2000)
    yield np.arange(1500).reshape(50, 30)
    yield (np.arange(1100) % 17 == 0).reshape(11, 10, 10)
    yield np.arange(1100.0).reshape(11, 100) / 7
    yield np.arange(2002, dtype=np.int8).reshape(2, 1001)
    for n in range(5, 16):
        yield np.arange(n, dtype=f32) + f32(0.5)
    for n in (6, 7, 8, 9):
        yield (np.arange(n, dtype=np.int16) * 1111).reshape(1, n)
    # Random magnitudes: positional and scientific, rounding at 8 digits.
    for scale in range(-7, 11, 2):
        for dtype in (f32, f64):
            a = rng.standard_normal(1 + (scale + 7) % 5) * 10.0 ** scale
            yield a.astype(dtype)
    yield np.array([0.5, 0.999999999, 2.0])
    yield np.array([9.9999999999, 1.0])
    yield np.array([1.23456789012e-9, 1.0])


def main():
    print("# NumPy %s repr/str; see gen_print_golden.py" % np.__version__)
    for a in cases():
        print("case " + fmt(a))
        print("repr " + repr(a).replace("\n", "\\n"))
        print("str " + str(a).replace("\n", "\\n"))


main()
