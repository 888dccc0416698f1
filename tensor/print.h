// Copyright 2026 The Tessera Authors.
//
// -----------------------------------------------------------------------------
// File: print.h
// -----------------------------------------------------------------------------
//
// Tensors printed as NumPy 1.24 prints arrays with its default options:
//
//   repr(t)  ->  array([[1., 2.],
//                       [3., 4.]], dtype=float32)
//   str(t)   ->  [[1. 2.]
//                 [3. 4.]]
//
// What is reproduced (np.array_repr / np.array_str, legacy=False):
//   * floats: the shortest digits that round-trip in the element's own type
//     (float32 prints as float32), at most `precision` (8) fractional digits,
//     trailing zeros dropped but the '.' kept ("1."), every element padded to
//     one common width per tensor; scientific notation ("1.e-05") when a
//     nonzero magnitude is >= 1e8, < 1e-4, or the largest is over 1000 times
//     the smallest; nan and inf right-aligned in the same width;
//   * integers right-aligned to the widest; bools " True"/"False";
//   * nested brackets, lines wrapped at `linewidth` (75) with NumPy's hanging
//     indent, blank lines between blocks of 3-d and higher tensors;
//   * tensors of more than `threshold` (1000) elements summarised: `edgeitems`
//     (3) at each end of every longer axis with "..." between, widths taken
//     from the shown elements only;
//   * repr's "dtype=" suffix except for the dtypes NumPy implies (float64,
//     int64, bool), on its own line when it would pass the line width; empty
//     tensors as "array([], shape=(0, 3), dtype=int32)";
//   * str of a 0-d tensor is the scalar's str ("1.0", "1e+20", "True").
// tensor/testdata/print_golden.txt (gen_print_golden.py) holds NumPy's own
// output for a set of arrays; print_test.cc compares against every one.

#ifndef TESSERA_TENSOR_PRINT_H_
#define TESSERA_TENSOR_PRINT_H_

#include <cstdint>
#include <ostream>
#include <string>

#include "tensor/tensor.h"

namespace tessera {

// NumPy's print options (np.set_printoptions), defaults as NumPy's.
struct PrintOptions {
  int precision = 8;        // maximum fractional digits of floats
  int64_t threshold = 1000;  // summarise above this many elements
  int64_t edgeitems = 3;    // elements kept at each end when summarising
  int linewidth = 75;       // characters per line
};

// np.array_repr: "array([...], dtype=...)".
std::string repr(const Tensor& t, const PrintOptions& options = {});

// np.array_str: the bracketed elements alone.
std::string str(const Tensor& t, const PrintOptions& options = {});

// Streams str(t).
std::ostream& operator<<(std::ostream& os, const Tensor& t);

}  // namespace tessera

#endif  // TESSERA_TENSOR_PRINT_H_
