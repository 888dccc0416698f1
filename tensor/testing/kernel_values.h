// Copyright 2026 The Tessera Authors.
//
// Values for the kernel tests, the same in every one: the lane types each op
// is checked on, visited in one fixed order (`ForEachLaneType`, and
// `ForEachIntegerLaneType` for the integer ones), random operands that reach
// NaN, -inf and the whole integer range (`RandomValue`), and the comparison
// of a result with its scalar reference in which NaN matches NaN
// (`SameValue`). Target-independent: include it beside the -inl.h under test.

#ifndef TESSERA_TENSOR_TESTING_KERNEL_VALUES_H_
#define TESSERA_TENSOR_TESTING_KERNEL_VALUES_H_

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <type_traits>

namespace tessera {
namespace kernel_testing {

// Calls fn(T()) for every integer lane type: signed by width, then unsigned
// by width. The order is fixed so that a test drawing from one generator sees
// the same operands on every run.
template <typename Fn>
void ForEachIntegerLaneType(Fn&& fn) {
  fn(int8_t());
  fn(int16_t());
  fn(int32_t());
  fn(int64_t());
  fn(uint8_t());
  fn(uint16_t());
  fn(uint32_t());
  fn(uint64_t());
}

// Calls fn(T()) for every lane type the kernels implement: the integers in
// ForEachIntegerLaneType's order, then float and double.
template <typename Fn>
void ForEachLaneType(Fn&& fn) {
  ForEachIntegerLaneType(fn);
  fn(float());
  fn(double());
}

// A random operand: for floats NaN one time in 16, -inf one in 16, otherwise
// uniform in [-100, 100); for integers the full range, so that arithmetic
// wraps around.
template <typename T>
T RandomValue(std::mt19937_64& rng) {
  if constexpr (std::is_floating_point<T>::value) {
    const uint64_t pick = rng() % 16;
    if (pick == 0) return std::numeric_limits<T>::quiet_NaN();
    if (pick == 1) return -std::numeric_limits<T>::infinity();
    std::uniform_real_distribution<double> dist(-100.0, 100.0);
    return static_cast<T>(dist(rng));
  } else {
    return static_cast<T>(rng());
  }
}

// `actual` is `expected`, or both are NaN.
template <typename T>
bool SameValue(T expected, T actual) {
  if constexpr (std::is_floating_point<T>::value) {
    if (std::isnan(expected)) return std::isnan(actual);
  }
  return expected == actual;
}

}  // namespace kernel_testing
}  // namespace tessera

#endif  // TESSERA_TENSOR_TESTING_KERNEL_VALUES_H_
