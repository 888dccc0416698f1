// Copyright 2026 The Tessera Authors.
//
// Misaligned buffers for the kernel tests, after Highway's ForeachMisalign:
// a kernel's contiguous path must give the same answer whether its operands
// start on a vector boundary or not, and must not read past their end.
//
//   for (size_t shift : MisalignmentsFor(hn::Lanes(hn::ScalableTag<T>()))) {
//     MisalignedBuffer<T> in(n, shift);  // in.data() is `shift` elements
//     ...                                // past a vector-aligned address
//   }

#ifndef TESSERA_TENSOR_TESTING_MISALIGNED_BUFFER_H_
#define TESSERA_TENSOR_TESTING_MISALIGNED_BUFFER_H_

#include <algorithm>
#include <cstddef>
#include <new>
#include <vector>

#include "hwy/base.h"

namespace tessera {
namespace kernel_testing {

// n elements of T starting `shift` elements past an address aligned to the
// widest vector any target uses (HWY_MAX_BYTES). The allocation ends right
// after element n - 1, so under ASan a read or write past the end is
// reported. Elements are value-initialised.
template <typename T>
class MisalignedBuffer {
 public:
  MisalignedBuffer(size_t n, size_t shift) : n_(n), shift_(shift) {
    raw_ = static_cast<T*>(::operator new(
        std::max<size_t>((shift + n) * sizeof(T), 1), kAlignment));
    for (size_t i = 0; i < shift + n; ++i) new (raw_ + i) T();
  }
  MisalignedBuffer(const std::vector<T>& values, size_t shift)
      : MisalignedBuffer(values.size(), shift) {
    std::copy(values.begin(), values.end(), data());
  }
  MisalignedBuffer(const MisalignedBuffer&) = delete;
  MisalignedBuffer& operator=(const MisalignedBuffer&) = delete;
  ~MisalignedBuffer() { ::operator delete(raw_, kAlignment); }

  T* data() { return raw_ + shift_; }
  const T* data() const { return raw_ + shift_; }
  char* bytes() { return reinterpret_cast<char*>(data()); }
  size_t size() const { return n_; }
  T& operator[](size_t i) { return data()[i]; }
  const T& operator[](size_t i) const { return data()[i]; }

 private:
  static constexpr std::align_val_t kAlignment{HWY_MAX_BYTES};
  size_t n_;
  size_t shift_;
  T* raw_;
};

// The element offsets from vector alignment worth trying for vectors of
// `lanes` elements: aligned, one element off, half a vector, one short of a
// vector (fewer when the vector is short).
inline std::vector<size_t> MisalignmentsFor(size_t lanes) {
  std::vector<size_t> shifts = {0};
  for (size_t s : {size_t{1}, lanes / 2, lanes - 1}) {
    if (s > 0 && s < lanes &&
        std::find(shifts.begin(), shifts.end(), s) == shifts.end()) {
      shifts.push_back(s);
    }
  }
  return shifts;
}

}  // namespace kernel_testing
}  // namespace tessera

#endif  // TESSERA_TENSOR_TESTING_MISALIGNED_BUFFER_H_
