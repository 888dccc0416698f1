#!/usr/bin/python3
"""Writes the .npy / .npz files that npy_test.cc loads, with NumPy itself.

Regenerate (deterministic: same NumPy, same bytes) with:
  /usr/bin/python3 tensor/testdata/gen_npy_files.py tensor/testdata/npy
It writes, into that folder:
  * <case>.npy for every dtype, C and Fortran order, little and big endian,
    0-d, empty and 4-d shapes, format versions 1.0, 2.0 and 3.0;
  * arrays.npz (np.savez: stored members, zip64 local headers) and
    compressed.npz (np.savez_compressed: deflated, which Tessera rejects);
  * object.npy (an object array, pickled: Tessera rejects it) and
    complex.npy (complex64, rejected as unsupported);
  * manifest.txt: one line per readable array, space-separated key=value
    fields: file=<name> [member=<npz key>] dtype=<numpy name> shape=<a,b>
    fortran=<0|1> big_endian=<0|1> version=<major> values=<C-order list>.
Values are spelled as gen_reduce_golden.py spells them (bools 0/1, floats
repr(), nan/inf), so tensor/testing/golden.h reads them.
"""
import os
import sys

import numpy as np

from golden_format import DTYPES as GOLDEN_DTYPES, fmt_values as values_of

# The goldens' dtypes and float16, which .npy files carry as '<f2'.
DTYPES = GOLDEN_DTYPES + ["float16"]


def base(dtype, shape):
    """Distinct values that exercise every byte: negatives wrap for unsigned,
    extremes of the type, NaN and inf for floats."""
    n = int(np.prod(shape)) if shape else 1
    d = np.dtype(dtype)
    if d.kind == "b":
        flat = (np.arange(n) % 3 == 0)
    elif d.kind == "f":
        flat = (np.arange(n, dtype=np.float64) * 1.25 - 3.5).astype(d)
        special = [np.nan, np.inf, -np.inf, -0.0, np.finfo(d).max,
                   np.finfo(d).tiny]
        for i, s in enumerate(special[:max(0, n - 1)]):
            flat[i + 1] = s
    else:
        info = np.iinfo(d)
        flat = (np.arange(n, dtype=np.int64) * 37 - 11).astype(d)
        if n > 2:
            flat[1] = info.max
            flat[2] = info.min
    return np.asarray(flat).reshape(shape)


def main(out):
    os.makedirs(out, exist_ok=True)
    lines = []

    def record(name, a, version, member=None):
        fortran = a.flags.f_contiguous and not a.flags.c_contiguous
        big = a.dtype.byteorder == ">"
        fields = ["file=%s" % name]
        if member is not None:
            fields.append("member=%s" % member)
        fields += ["dtype=%s" % a.dtype.newbyteorder("=").name,
                   "shape=%s" % ",".join(str(n) for n in a.shape),
                   "fortran=%d" % fortran, "big_endian=%d" % big,
                   "version=%d" % version, "values=%s" % values_of(a)]
        lines.append(" ".join(fields))

    def save(name, a, version=None):
        with open(os.path.join(out, name), "wb") as f:
            np.lib.format.write_array(f, a, version=version,
                                      allow_pickle=False)
        record(name, a, version[0] if version else 1)

    for dt in DTYPES:
        a = base(dt, (2, 3))
        save("%s_c.npy" % dt, a)
        save("%s_f.npy" % dt, np.asfortranarray(base(dt, (3, 4))))
        if np.dtype(dt).itemsize > 1:
            save("%s_be.npy" % dt, a.astype(np.dtype(dt).newbyteorder(">")))
            save("%s_be_f.npy" % dt, np.asfortranarray(
                base(dt, (3, 4)).astype(np.dtype(dt).newbyteorder(">"))))
    save("scalar_f64.npy", np.array(2.5))
    save("scalar_bool.npy", np.array(True))
    save("empty_0x3_i32.npy", np.zeros((0, 3), np.int32))
    save("empty_1d_f32.npy", np.zeros((0,), np.float32))
    save("vector_i64.npy", base("int64", (7,)))
    save("four_d_u16.npy", base("uint16", (2, 3, 1, 4)))
    save("four_d_f_f32.npy", np.asfortranarray(base("float32", (2, 3, 1, 4))))
    save("v2_f32.npy", base("float32", (3, 2)), version=(2, 0))
    save("v3_i16.npy", base("int16", (2, 2)), version=(3, 0))
    save("v2_be_f_f64.npy", np.asfortranarray(
        base("float64", (2, 5)).astype(">f8")), version=(2, 0))

    members = {"x": base("float32", (2, 3)), "counts": base("int64", (4,)),
               "mask": base("bool", (3, 2)),
               "fcol": np.asfortranarray(base("float64", (3, 2))),
               "scalar": np.array(7, np.uint8)}
    np.savez(os.path.join(out, "arrays.npz"), **members)
    for key, a in members.items():
        record("arrays.npz", a, 1, member=key)
    np.savez_compressed(os.path.join(out, "compressed.npz"),
                        x=base("float32", (2, 3)))

    np.save(os.path.join(out, "object.npy"),
            np.array([1, "two", None], dtype=object), allow_pickle=True)
    np.save(os.path.join(out, "complex.npy"),
            np.arange(4, dtype=np.complex64))

    with open(os.path.join(out, "manifest.txt"), "w") as f:
        f.write("# Written by tensor/testdata/gen_npy_files.py with NumPy %s.\n"
                % np.__version__)
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "tensor/testdata/npy")
