#!/usr/bin/python3
"""Prints NumPy's results for joining and splitting ops, inputs included.

Regenerate the golden file with:
  /usr/bin/python3 tensor/testdata/gen_join_golden.py > tensor/testdata/join_golden.txt
Each line is one case, space-separated key=value fields:
  op=<name> axis=<none | n> param=<op's integer list> n=<inputs>
  dtype<i>=.. shape<i>=.. values<i>=..   (each input, C order)
  => count=<outputs> dtype<j>=.. shape<j>=.. values<j>=..
or "=> error" when NumPy raises. `param` is: split/array_split the sections
(one number) or the indices (several, or "i:" for a one-index list), tile
the reps, repeat the repeats, pad the (before:after) pairs, with the pad
value in `value=`. Values are spelled as golden_format.py spells them.
join_golden_test.cc reads it.
"""
import numpy as np

import golden_format
from golden_format import DTYPES


def fmt(a, i):
    """Input or output number `i`: dtype<i>=.. shape<i>=.. values<i>=..."""
    return golden_format.fmt(a, suffix=str(i))


def arr(shape, dtype="int32", start=0):
    n = int(np.prod(shape)) if shape else 1
    return (np.arange(start, start + n) % 7 - 2).astype(dtype).reshape(shape)


def case(op, inputs, axis="none", param="", value=None):
    fields = ["op=%s" % op, "axis=%s" % axis, "param=%s" % (param or "-"),
              "n=%d" % len(inputs)]
    if value is not None:
        fields.append("value=%r" % value)
    fields += [fmt(a, i) for i, a in enumerate(inputs)]
    ax = None if axis == "none" else int(axis)
    try:
        with np.errstate(all="ignore"):
            if op == "concatenate":
                out = [np.concatenate(inputs, axis=ax)]
            elif op == "stack":
                out = [np.stack(inputs, axis=ax)]
            elif op == "hstack":
                out = [np.hstack(inputs)]
            elif op == "vstack":
                out = [np.vstack(inputs)]
            elif op in ("split", "array_split"):
                p = param
                if p.endswith(":"):
                    p = [int(p[:-1])]
                elif "," in p:
                    p = [int(x) for x in p.split(",")]
                else:
                    p = int(p)
                out = getattr(np, op)(inputs[0], p, axis=ax)
            elif op == "tile":
                out = [np.tile(inputs[0], [int(x) for x in param.split(",")]
                               if param else [])]
            elif op == "repeat":
                r = [int(x) for x in param.split(",")]
                out = [np.repeat(inputs[0], r if len(r) > 1 else r[0], axis=ax)]
            elif op == "pad":
                pairs = [tuple(int(x) for x in p.split(":"))
                         for p in param.split(",")]
                out = [np.pad(inputs[0], pairs, mode="constant",
                              constant_values=value)]
    except (ValueError, TypeError, IndexError, ZeroDivisionError,
            np.AxisError):
        print(" ".join(fields) + " => error")
        return
    print(" ".join(fields) + " => count=%d " % len(out) +
          " ".join(fmt(o, j) for j, o in enumerate(out)))


def main():
    # concatenate: every dtype with itself and with float32 (promotion), on
    # each axis of a 2-D pair, axis=None, 3-D, empty pieces, errors.
    for d in DTYPES:
        case("concatenate", [arr((2, 3), d), arr((1, 3), d, 5)], axis="0")
        case("concatenate", [arr((2, 3), d), arr((2, 2), "float32", 1)],
             axis="1")
    for d1, d2 in [("int8", "uint8"), ("int64", "float32"), ("bool", "int32"),
                   ("uint64", "int64"), ("uint16", "int8")]:
        case("concatenate", [arr((4,), d1), arr((3,), d2, 2)], axis="0")
    for ax in ["0", "1", "2", "-1", "-3", "none"]:
        case("concatenate", [arr((2, 3, 2)), arr((2, 3, 2), "int32", 3),
                             arr((2, 3, 2), "int32", 6)], axis=ax)
    case("concatenate", [arr((0, 3)), arr((2, 3)), arr((0, 3))], axis="0")
    case("concatenate", [arr((2, 0)), arr((2, 0))], axis="1")
    case("concatenate", [arr((2, 3)), arr((2, 2))], axis="0")       # error
    case("concatenate", [arr((2, 3)), arr((3,))], axis="0")         # error
    case("concatenate", [arr((2, 3)), arr((2, 3))], axis="2")       # error
    case("concatenate", [arr(()), arr(())], axis="0")               # error
    case("concatenate", [arr(()), arr((2,))], axis="none")
    case("concatenate", [arr((3,), "float64")], axis="0")
    # stack
    for ax in ["0", "1", "2", "-1", "-3", "3"]:
        case("stack", [arr((2, 3)), arr((2, 3), "int32", 2)], axis=ax)
    case("stack", [arr(()), arr((), "float32", 3)], axis="0")
    case("stack", [arr((2, 3)), arr((3, 2))], axis="0")             # error
    case("stack", [arr((0, 2), "uint8"), arr((0, 2), "int8")], axis="1")
    # hstack / vstack
    for inputs in [[arr((3,)), arr((2,), "int32", 4)],
                   [arr((2, 3)), arr((2, 1), "float64", 1)],
                   [arr(()), arr((2,))],
                   [arr((2, 2, 2)), arr((2, 1, 2))],
                   [arr((2, 3)), arr((3, 3))]]:
        case("hstack", inputs)
    for inputs in [[arr((3,)), arr((3,), "int32", 4)],
                   [arr((2, 3)), arr((3,), "uint8", 1)],
                   [arr(()), arr(())],
                   [arr((1, 2, 2)), arr((3, 2, 2))],
                   [arr((3,)), arr((2,))]]:
        case("vstack", inputs)
    # split / array_split
    t = arr((6, 4), "float32")
    for op, ax, p in [("split", "0", "3"), ("split", "0", "2,5"),
                      ("split", "0", "-1:"), ("split", "0", "4,2"),
                      ("split", "1", "2"), ("split", "1", "0,10"),
                      ("split", "0", "4"), ("split", "-1", "1,3"),
                      ("split", "2", "2"), ("split", "0", "0"),
                      ("array_split", "0", "4"), ("array_split", "1", "3"),
                      ("array_split", "0", "8"), ("array_split", "0", "0")]:
        case(op, [t], axis=ax, param=p)
    case("array_split", [arr((0,), "int8")], axis="0", param="3")
    # tile
    for p in ["2", "2,1", "1,3", "2,2,2", "0", "3,0", ""]:
        case("tile", [arr((2, 3), "int16")], param=p)
    case("tile", [arr((), "float64")], param="3")
    case("tile", [arr((3,), "bool")], param="2,2")
    case("tile", [arr((2, 3), "int16")], param="-1")                # error
    # repeat
    for ax, p in [("none", "2"), ("0", "2"), ("1", "3"), ("0", "1,0,2"),
                  ("1", "0,2"), ("-1", "1"), ("none", "0"), ("2", "2"),
                  ("0", "1,2"), ("0", "-1")]:
        case("repeat", [arr((3, 2), "uint32")], axis=ax, param=p)
    case("repeat", [arr((), "float32")], axis="none", param="3")
    case("repeat", [arr((2, 2, 3), "float64")], axis="1", param="2,1")
    # pad
    for d, p, v in [("int32", "1:2", 0), ("float32", "0:1,2:0", 7.5),
                    ("int8", "1:1", 1.5), ("float64", "2:1", float("nan")),
                    ("bool", "1:0,0:1", 1), ("uint8", "0:0", 3),
                    ("int32", "1:2,3:4,5:6", 0), ("int32", "-1:2", 0)]:
        case("pad", [arr((2, 3), d)], param=p, value=v)
    case("pad", [arr((2, 0, 2), "int16")], param="1:1", value=9)
    case("pad", [arr((3,), "uint64")], param="2:3", value=5)


if __name__ == "__main__":
    main()
