#!/usr/bin/python3
"""Prints NumPy's type promotion table for Tessera's 12 dtypes.

Regenerate the golden file with:
  /usr/bin/python3 tensor/testdata/gen_promotion.py > tensor/testdata/promotion_table.txt
Each line is "<a> <b> <np.result_type(a, b)>"; dtype_test.cc reads it.
"""
import numpy as np

NAMES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16",
         "uint32", "uint64", "float32", "float64", "float16"]

print("# np.result_type(a, b), NumPy %s" % np.__version__)
for a in NAMES:
    for b in NAMES:
        print(a, b, np.result_type(np.dtype(a), np.dtype(b)).name)
