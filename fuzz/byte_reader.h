// Copyright 2026 The Tessera Authors.
//
// -----------------------------------------------------------------------------
// File: byte_reader.h
// -----------------------------------------------------------------------------
//
// `ByteReader` turns a fuzzer's input into the values an op-program harness
// decodes: small integers in a range, booleans, picks from a table. It plays
// the role of LLVM's `FuzzedDataProvider`, which ships only with clang, so
// that every harness also builds (and replays its corpus) with gcc.
//
// Unlike `FuzzedDataProvider`, everything is read front to back, one byte at
// a time for small ranges, so a byte of the input is one decision of the
// program: libFuzzer's mutations and dictionary entries then edit the program
// op by op, and a seed file written by hand reads as the program it encodes.
//
// Exhaustion is not an error: once the input runs out every read returns the
// smallest value of its range (0, false, the first entry), and `empty()` says
// so, so a harness loops `while (!reader.empty())`.
//
// Complexity: O(1) per read. Never allocates.

#ifndef TESSERA_FUZZ_BYTE_READER_H_
#define TESSERA_FUZZ_BYTE_READER_H_

#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace tessera {
namespace fuzzing {

class ByteReader {
 public:
  ByteReader(const uint8_t* data, size_t size) : data_(data), size_(size) {}

  bool empty() const { return pos_ >= size_; }
  size_t remaining_bytes() const { return empty() ? 0 : size_ - pos_; }

  // The next byte, or 0 once the input is exhausted.
  uint8_t ConsumeByte() { return empty() ? 0 : data_[pos_++]; }

  bool ConsumeBool() { return (ConsumeByte() & 1) != 0; }

  // A value in [min, max] (inclusive; requires min <= max). Reads as few
  // bytes as the width of the range needs, little-endian, and reduces modulo
  // the range width: a slight bias that does not matter for fuzzing and keeps
  // every byte value meaningful.
  template <typename T>
  T ConsumeIntegralInRange(T min, T max) {
    static_assert(std::is_integral<T>::value, "integral types only");
    using U = typename std::make_unsigned<T>::type;
    const uint64_t span = static_cast<uint64_t>(static_cast<U>(max) -
                                                static_cast<U>(min));
    if (span == 0) return min;
    uint64_t raw = 0;
    int shift = 0;
    // Read bytes until they cover the span (one byte for spans < 256).
    while (shift < 64 && (span >> shift) != 0) {
      raw |= static_cast<uint64_t>(ConsumeByte()) << shift;
      shift += 8;
    }
    const uint64_t offset = span == UINT64_MAX ? raw : raw % (span + 1);
    return static_cast<T>(static_cast<U>(min) + static_cast<U>(offset));
  }

  // A full-width value of T.
  template <typename T>
  T ConsumeIntegral() {
    return ConsumeIntegralInRange<T>(std::numeric_limits<T>::min(),
                                     std::numeric_limits<T>::max());
  }

  // One of the `n` entries of `table`.
  template <typename T, size_t n>
  const T& PickValueInArray(const T (&table)[n]) {
    static_assert(n > 0, "empty table");
    return table[ConsumeIntegralInRange<size_t>(0, n - 1)];
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

}  // namespace fuzzing
}  // namespace tessera

#endif  // TESSERA_FUZZ_BYTE_READER_H_
