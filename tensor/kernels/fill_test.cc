// Copyright 2026 The Tessera Authors.
//
// Runs the arange fill of every compiled Highway target against the scalar
// expression it must reproduce bit for bit, at lengths and starts around each
// target's vector size, and checks that nothing outside [begin, end) is
// written; the same for the zero fill.

#include <cstdint>
#include <cstring>
#include <vector>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "tensor/kernels/fill_test.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/highway.h"
#include "hwy/tests/hwy_gtest.h"
#include "tensor/kernels/fill-inl.h"
#include "tensor/kernels/fill.h"

HWY_BEFORE_NAMESPACE();
namespace tessera {
namespace kernels {
namespace HWY_NAMESPACE {
namespace {

// The scalar reference, kept out of line so the compiler cannot vectorize it
// into the same code it checks.
HWY_NOINLINE float Reference(int32_t i, float first, float delta) {
  return first + static_cast<float>(i) * delta;
}

void TestArangeMatchesScalarExpression() {
  const float firsts[] = {0.0f, -3.25f, 1e7f};
  const float deltas[] = {1.0f, 0.1f, -2.5f, 1.0f / 3.0f};
  const int32_t begins[] = {0, 1, 2, 7, 33};
  const int32_t lengths[] = {0, 1, 3, 15, 16, 17, 31, 32, 33, 64, 65, 1000};
  constexpr float kCanary = -12345.0f;
  for (float first : firsts) {
    for (float delta : deltas) {
      for (int32_t begin : begins) {
        for (int32_t length : lengths) {
          const int32_t end = begin + length;
          std::vector<float> out(static_cast<size_t>(end) + 8, kCanary);
          ArangeFloat32Impl(out.data(), begin, end, first, delta);
          for (int32_t i = 0; i < static_cast<int32_t>(out.size()); ++i) {
            const float want = i >= begin && i < end
                                   ? Reference(i, first, delta)
                                   : kCanary;
            ASSERT_EQ(std::memcmp(&out[static_cast<size_t>(i)], &want, 4), 0)
                << "i=" << i << " begin=" << begin << " end=" << end
                << " first=" << first << " delta=" << delta << ": got "
                << out[static_cast<size_t>(i)] << ", want " << want;
          }
        }
      }
    }
  }
}

// Every length up to a few vectors and every start offset within a vector:
// the range reads zero and the guard bytes on both sides keep their value.
void TestZeroBytesClearsExactlyTheRange() {
  constexpr size_t kGuard = 64;
  for (size_t bytes = 0; bytes <= 4 * HWY_MAX_BYTES + 3; ++bytes) {
    for (size_t start = 0; start < 65; start += (bytes < 300 ? 1 : 13)) {
      std::vector<uint8_t> buffer(kGuard + start + bytes + kGuard, 0xA5);
      ZeroBytesImpl(buffer.data() + kGuard + start, bytes);
      for (size_t i = 0; i < buffer.size(); ++i) {
        const bool inside = i >= kGuard + start && i < kGuard + start + bytes;
        ASSERT_EQ(buffer[i], inside ? 0 : 0xA5)
            << "bytes=" << bytes << " start=" << start << " i=" << i;
      }
    }
  }
}

}  // namespace
}  // namespace HWY_NAMESPACE
}  // namespace kernels
}  // namespace tessera
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tessera {
namespace kernels {

HWY_BEFORE_TEST(FillKernelTest);
HWY_EXPORT_AND_TEST_P(FillKernelTest, TestArangeMatchesScalarExpression);
HWY_EXPORT_AND_TEST_P(FillKernelTest, TestZeroBytesClearsExactlyTheRange);

}  // namespace kernels
}  // namespace tessera
#endif  // HWY_ONCE
