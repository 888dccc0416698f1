"""How the gen_*_golden.py scripts beside this file spell NumPy arrays.

Every golden line names an array as space-separated key=value fields,
  dtype=<numpy name> shape=<a,b> values=<C-order list, "-" when empty>
with each value spelled one way: bools 0/1, integers in decimal, floats as
Python's repr() of the float64 (nan, inf, -inf; float32 and float16 widen
exactly). tensor/testing/golden.h reads that spelling, so it lives here once.

The scripts run as `/usr/bin/python3 tensor/testdata/gen_<name>_golden.py`,
which puts this folder on sys.path: they `import golden_format`.
"""
import numpy as np

# The dtypes the golden tables cover, in Tessera's DType order. float16 has
# tables of its own where NumPy's float16 rules matter (cast, elementwise).
DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16",
          "uint32", "uint64", "float32", "float64"]


def fmt_value(x, dtype):
    """One element `x` of an array of `dtype`."""
    if dtype.kind == "b":
        return "1" if x else "0"
    if dtype.kind == "f":
        return repr(float(x))
    return str(int(x))


def fmt_values(a):
    """The C-order values of `a`, comma-separated, or "-" when it is empty."""
    values = ",".join(fmt_value(x, a.dtype) for x in a.ravel())
    return values if values else "-"


def fmt(a, prefix="", suffix=""):
    """`a` as its dtype=, shape= and values= fields. `prefix` and `suffix`
    go around each key, to tell apart several arrays on one line
    (prefix "i" gives idtype=, suffix "2" gives dtype2=)."""
    a = np.asarray(a)
    shape = ",".join(str(n) for n in a.shape)
    return "%sdtype%s=%s %sshape%s=%s %svalues%s=%s" % (
        prefix, suffix, a.dtype.name, prefix, suffix, shape, prefix, suffix,
        fmt_values(a))


def fmt_axis(axis):
    """An axis= field's value: "none" for a flattened op, else the number."""
    return "none" if axis is None else str(axis)


def print_case(head, compute, errors):
    """Prints one golden line: `head`, then "=> " and the array `compute()`
    returns, or "=> error" when it raises one of `errors` (as NumPy refuses
    the case)."""
    try:
        result = compute()
    except errors:
        print(head + " => error")
        return
    print(head + " => " + fmt(result))
