#!/usr/bin/python3
"""Prints NumPy's answers for Tessera's elementwise ufuncs.

Regenerate the golden file with:
  /usr/bin/python3 tensor/testdata/gen_elementwise.py > tensor/testdata/elementwise_table.txt
elementwise_golden_test.cc reads it. Lines (fields separated by one space):

  dtype binary <op> <a> <b> <result dtype or "error">
  dtype unary <op> <a> <result dtype or "error">
  value binary <op> <dtype> <x> <y> <result dtype> <result or "error">
  value unary <op> <dtype> <x> <result dtype> <result>

Result dtypes come from arrays (never scalars, so no value-based casting).
Values are exact: integers in decimal, floats as Python's repr of the float64
(nan, inf, -inf; float32 results widened exactly), bools as 0/1.
"""
import itertools
import numpy as np

NAMES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16",
         "uint32", "uint64", "float32", "float64", "float16"]

BINARY = ["add", "subtract", "multiply", "divide", "floor_divide",
          "remainder", "power", "maximum", "minimum", "fmax", "fmin",
          "bitwise_and", "bitwise_or", "bitwise_xor", "logical_and",
          "logical_or", "logical_xor", "equal", "not_equal", "less",
          "less_equal", "greater", "greater_equal"]

UNARY = ["negative", "absolute", "sign", "square", "sqrt", "exp", "log",
         "sin", "cos", "tanh", "floor", "ceil", "isnan", "isfinite",
         "logical_not"]

# Value cases: the ops whose results depend on edge cases, over values that
# include zero divisors, signed zeros, infinities and NaN.
FLOAT_VALUES = [-7.0, -2.5, -0.0, 0.0, 0.5, 2.5, float("inf"),
                float("-inf"), float("nan")]
INT_VALUES = {
    "int8": [-128, -7, -1, 0, 2, 127],
    "int32": [-2147483648, -7, -1, 0, 3, 2147483647],
    "int64": [-9223372036854775808, -7, -1, 0, 2, 9223372036854775807],
    "uint8": [0, 1, 2, 7, 200, 255],
    "uint64": [0, 1, 7, 18446744073709551615],
}
FLOAT_VALUE_OPS = ["divide", "floor_divide", "remainder", "power", "maximum",
                   "minimum", "fmax", "fmin", "less", "not_equal"]
INT_VALUE_OPS = ["floor_divide", "remainder", "power", "maximum",
                 "bitwise_and", "bitwise_xor"]
UNARY_FLOAT_VALUES = FLOAT_VALUES + [1.0, 1e-300, 100.0, 800.0, 1e5]
# Finite operands for floor_divide and remainder, appended to their value
# lines: elementwise_golden_test.cc also evaluates each op and dtype's lines
# as one row, and these fill whole SIMD vectors (the special values above
# send theirs to the scalar form).
DIVMOD_ROW_DTYPES = ["float32", "float64", "float16", "int32"]


def divmod_row(dtype):
    """Operand pairs: for floats, integral values, tenths, exact multiples
    and their neighbours (remainders of zero and of one ulp), and quotients
    far beyond the mantissa (where fmod matters); for int32, small and
    full-range values, zero divisors and min // -1."""
    rng = np.random.default_rng(5)
    sign = lambda n: rng.choice([-1, 1], n)
    if dtype.kind == "f":
        small_b = (sign(96) * rng.integers(1, 10, 96)).astype(dtype)
        tenth_b = (sign(32) * rng.integers(1, 100, 32) / 10).astype(dtype)
        b = np.concatenate([small_b, tenth_b, small_b[:64]])
        k = rng.integers(-1000, 1000, 64).astype(dtype)
        multiples = (k * b[:64]).astype(dtype)
        a = np.concatenate([
            (sign(32) * rng.integers(0, 61, 32)).astype(dtype),
            (sign(32) * rng.integers(0, 1000, 32) / 10).astype(dtype),
            multiples[:32],
            np.nextafter(multiples[32:48], dtype.type(np.inf)),
            np.nextafter(multiples[48:64], dtype.type(-np.inf)),
            (sign(64) * rng.uniform(1, 2, 64)
             * 2.0 ** rng.integers(-20, 100, 64)).astype(dtype),
        ])
    else:
        b = np.concatenate([
            rng.integers(-20, 21, 96),
            rng.integers(-2**31, 2**31, 32),
            [-1, -1, 0, 0, 7, -7, 1, -2**31],
        ]).astype(dtype)
        a = np.concatenate([
            rng.integers(-1000, 1001, 64),
            rng.integers(-2**31, 2**31, 64),
            [-2**31, 2**31 - 1, 5, -5, -2**31, 2**31 - 1, -2**31, -2**31],
        ]).astype(dtype)
    return list(zip(a.tolist(), b.tolist()))


def float16_rounding_pairs():
    """float16 operand pairs whose float32 result rounds to float16 at a tie,
    past the overflow edge or into the subnormals, plus random finite bit
    patterns (NumPy computes each op in float32 and rounds once)."""
    h = np.float16
    pairs = [(2048.0, 1.0), (2048.0, 3.0), (65504.0, 16.0), (65504.0, 15.0),
             (-65504.0, -16.0), (1.0, 2.0**-11), (1.0 + 2.0**-10, 2.0**-11),
             (2.0**-24, 2.0**-24), (2.0**-12, 2.0**-13),
             (3 * 2.0**-13, 2.0**-12), (2.0**-14, -2.0**-24), (0.1, 0.2),
             (1.0 / 3, 3.0), (255.9, 256.1), (-0.0, 0.0), (1e-3, 1e4)]
    rng = np.random.default_rng(16)
    bits = rng.integers(0, 0x7C00, (96, 2)).astype(np.uint16)
    signs = rng.integers(0, 2, (96, 2)).astype(np.uint16) << 15
    randoms = (bits | signs).view(np.float16)
    pairs += [(float(a), float(b)) for a, b in randoms]
    return [(float(h(a)), float(h(b))) for a, b in pairs]


FLOAT16_ROUNDING_OPS = ["add", "subtract", "multiply", "divide"]


def fmt(value, dtype):
    if dtype.kind == "b":
        return "1" if value else "0"
    if dtype.kind in "iu":
        return str(int(value))
    return repr(float(value))


def result_dtype(fn, *dtypes):
    try:
        return fn(*[np.ones(1, d) for d in dtypes]).dtype.name
    except (TypeError, ValueError, np.core._exceptions.UFuncTypeError):
        return "error"


def main():
    print("# NumPy %s elementwise ufuncs, from gen_elementwise.py"
          % np.__version__)
    for op in BINARY:
        fn = getattr(np, op)
        for a, b in itertools.product(NAMES, NAMES):
            print("dtype binary", op, a, b, result_dtype(fn, a, b))
    for op in UNARY:
        fn = getattr(np, op)
        for a in NAMES:
            print("dtype unary", op, a, result_dtype(fn, a))

    with np.errstate(all="ignore"):
        for dtype_name in ["float32", "float64", "float16"] + list(INT_VALUES):
            dtype = np.dtype(dtype_name)
            values = (FLOAT_VALUES if dtype.kind == "f"
                      else INT_VALUES[dtype_name])
            ops = FLOAT_VALUE_OPS if dtype.kind == "f" else INT_VALUE_OPS
            for op in ops:
                fn = getattr(np, op)
                for x, y in itertools.product(values, values):
                    ax, ay = np.array([x], dtype), np.array([y], dtype)
                    try:
                        r = fn(ax, ay)
                    except (TypeError, ValueError):
                        print("value binary", op, dtype_name, fmt(x, dtype),
                              fmt(y, dtype), "error error")
                        continue
                    print("value binary", op, dtype_name, fmt(x, dtype),
                          fmt(y, dtype), r.dtype.name, fmt(r[0], r.dtype))
                if op in ("floor_divide", "remainder") and \
                        dtype_name in DIVMOD_ROW_DTYPES:
                    for x, y in divmod_row(dtype):
                        r = fn(np.array([x], dtype), np.array([y], dtype))
                        print("value binary", op, dtype_name, fmt(x, dtype),
                              fmt(y, dtype), r.dtype.name,
                              fmt(r[0], r.dtype))
        f16 = np.dtype("float16")
        for op in FLOAT16_ROUNDING_OPS:
            fn = getattr(np, op)
            for x, y in float16_rounding_pairs():
                r = fn(np.array([x], f16), np.array([y], f16))
                print("value binary", op, "float16", fmt(x, f16), fmt(y, f16),
                      r.dtype.name, fmt(r[0], r.dtype))
        for dtype_name in ["float32", "float64", "float16", "int8", "uint8",
                           "int64"]:
            dtype = np.dtype(dtype_name)
            values = (UNARY_FLOAT_VALUES if dtype.kind == "f"
                      else INT_VALUES[dtype_name])
            for op in UNARY:
                fn = getattr(np, op)
                for x in values:
                    ax = np.array([x], dtype)
                    if dtype_name in ("float32", "float16") and \
                            not np.isfinite(ax[0]) and np.isfinite(x):
                        continue  # 1e300-style values do not fit
                    r = fn(ax)
                    print("value unary", op, dtype_name, fmt(ax[0], dtype),
                          r.dtype.name, fmt(r[0], r.dtype))


if __name__ == "__main__":
    main()
