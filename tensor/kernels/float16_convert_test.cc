// Copyright 2026 The Tessera Authors.
//
// Runs the float16 conversions of every compiled Highway target against the
// scalar reference of tensor/float16.h, bit for bit: all 65536 float16 values
// one way, a spread of float32 bit patterns (every 4099th one, plus every
// pattern around the subnormal and overflow boundaries) the other way, at
// misaligned starts and lengths that leave a scalar tail.

#include <cstdint>
#include <cstring>
#include <vector>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "tensor/kernels/float16_convert_test.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/highway.h"
#include "hwy/tests/hwy_gtest.h"
#include "tensor/float16.h"
#include "tensor/kernels/float16_convert-inl.h"
#include "tensor/kernels/float16_convert.h"
#include "tensor/testing/misaligned_buffer.h"

HWY_BEFORE_NAMESPACE();
namespace tessera {
namespace kernels {
namespace HWY_NAMESPACE {
namespace {

using kernel_testing::MisalignedBuffer;

uint32_t FloatBits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, sizeof(b));
  return b;
}

float FromBits(uint32_t b) {
  float f;
  std::memcpy(&f, &b, sizeof(f));
  return f;
}

void TestEveryFloat16WidensLikeTheScalarReference() {
  std::vector<uint16_t> all(65536);
  for (uint32_t h = 0; h < 65536; ++h) all[h] = static_cast<uint16_t>(h);
  for (size_t shift : {size_t{0}, size_t{1}, size_t{3}}) {
    const size_t n = all.size() - shift;  // also leaves a tail
    MisalignedBuffer<uint16_t> in(n, shift);
    std::memcpy(in.data(), all.data(), n * sizeof(uint16_t));
    MisalignedBuffer<float> out(n, (shift + 1) % 4);
    Float16ToFloat32Impl(in.data(), out.data(), n);
    for (size_t i = 0; i < n; ++i) {
      const uint32_t want = FloatBits(Float16BitsToFloat(all[i]));
      ASSERT_EQ(FloatBits(out.data()[i]), want)
          << "float16 0x" << std::hex << all[i] << " shift " << shift;
    }
  }
}

void TestEveryFloat16RoundTripsThroughFloat32() {
  std::vector<uint16_t> in(65536);
  for (uint32_t h = 0; h < 65536; ++h) in[h] = static_cast<uint16_t>(h);
  std::vector<float> wide(in.size());
  std::vector<uint16_t> back(in.size());
  Float16ToFloat32Impl(in.data(), wide.data(), in.size());
  Float32ToFloat16Impl(wide.data(), back.data(), in.size());
  for (uint32_t h = 0; h < 65536; ++h) {
    const bool nan = (h & 0x7C00u) == 0x7C00u && (h & 0x3FFu) != 0;
    // A NaN comes back with its payload and the quiet bit set.
    const uint32_t want = nan ? (h | 0x200u) : h;
    ASSERT_EQ(back[h], want) << "float16 0x" << std::hex << h;
  }
}

std::vector<float> FloatSamples() {
  std::vector<float> samples;
  for (uint64_t b = 0; b <= 0xFFFFFFFFull; b += 4099) {
    samples.push_back(FromBits(static_cast<uint32_t>(b)));
  }
  // Every pattern near 2^-25 (the rounding edge to zero), across the
  // smallest subnormals, at the subnormal/normal edge and at 65504..65536.
  for (uint32_t base : {0x33000000u, 0x33800000u, 0x38800000u, 0x477FE000u,
                        0x477FF000u, 0x7F800000u}) {
    for (uint32_t d = 0; d < 0x4000u; ++d) {
      samples.push_back(FromBits(base - 0x2000u + d));
      samples.push_back(FromBits((base - 0x2000u + d) | 0x80000000u));
    }
  }
  return samples;
}

void TestFloat32NarrowsLikeTheScalarReference() {
  const std::vector<float> samples = FloatSamples();
  for (size_t shift : {size_t{0}, size_t{2}}) {
    const size_t n = samples.size() - shift;
    MisalignedBuffer<float> in(n, shift);
    std::memcpy(in.data(), samples.data(), n * sizeof(float));
    MisalignedBuffer<uint16_t> out(n, (shift + 5) % 8);
    Float32ToFloat16Impl(in.data(), out.data(), n);
    for (size_t i = 0; i < n; ++i) {
      ASSERT_EQ(out.data()[i], FloatToFloat16Bits(samples[i]))
          << "float32 0x" << std::hex << FloatBits(samples[i]) << " ("
          << samples[i] << ") shift " << std::dec << shift;
    }
  }
}

// Short lengths: only the first n outputs are written.
void TestShortLengthsWriteOnlyTheirRange() {
  for (size_t n = 0; n <= 3 * HWY_MAX_BYTES / 2; ++n) {
    std::vector<float> in(n + 4, 1.5f);
    std::vector<uint16_t> out(n + 4, 0xAAAAu);
    Float32ToFloat16Impl(in.data(), out.data(), n);
    for (size_t i = 0; i < n + 4; ++i) {
      ASSERT_EQ(out[i], i < n ? 0x3E00u : 0xAAAAu) << "n=" << n << " i=" << i;
    }
    std::vector<uint16_t> h(n + 4, 0x3C00u);
    std::vector<float> wide(n + 4, -7.0f);
    Float16ToFloat32Impl(h.data(), wide.data(), n);
    for (size_t i = 0; i < n + 4; ++i) {
      ASSERT_EQ(wide[i], i < n ? 1.0f : -7.0f) << "n=" << n << " i=" << i;
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

HWY_BEFORE_TEST(Float16ConvertTest);
HWY_EXPORT_AND_TEST_P(Float16ConvertTest,
                      TestEveryFloat16WidensLikeTheScalarReference);
HWY_EXPORT_AND_TEST_P(Float16ConvertTest,
                      TestEveryFloat16RoundTripsThroughFloat32);
HWY_EXPORT_AND_TEST_P(Float16ConvertTest,
                      TestFloat32NarrowsLikeTheScalarReference);
HWY_EXPORT_AND_TEST_P(Float16ConvertTest, TestShortLengthsWriteOnlyTheirRange);

}  // namespace kernels
}  // namespace tessera
#endif  // HWY_ONCE
