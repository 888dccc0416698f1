// Copyright 2026 The Tessera Authors.
//
// DType::kFloat16 through the tensor engine: storage and casts, NumPy's
// promotion (array and Python-scalar operands), arithmetic computed in
// float32 and rounded once, reductions, scans (cumsum stays float16 and
// rounds every step), ordering with NaN last, min/max NaN propagation,
// printing with float16's shortest digits, .npy files, and the operations
// that refuse float16 with a status naming it. Value-by-value agreement with
// NumPy is in cast_golden_test and elementwise_golden_test (float16 lines).

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tensor/binary.h"
#include "tensor/dtype.h"
#include "tensor/float16.h"
#include "tensor/linalg.h"
#include "tensor/npy.h"
#include "tensor/print.h"
#include "tensor/reduce.h"
#include "tensor/scan.h"
#include "tensor/sort.h"
#include "tensor/tensor.h"
#include "tensor/ternary.h"
#include "tensor/unary.h"
#include "tensor/view.h"

namespace tessera {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr float kNan = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

Tensor Half(const std::vector<float>& values) {
  return *astype(*FromVector<float>(values), DType::kFloat16);
}

std::vector<float> Values(const absl::StatusOr<Tensor>& t) {
  EXPECT_TRUE(t.ok()) << t.status();
  if (!t.ok()) return {};
  EXPECT_EQ(t->dtype(), DType::kFloat16);
  return t->ToVector<float>();
}

TEST(Float16TensorTest, StoresTwoBytesAndCastsBothWays) {
  const Tensor h = Half({1.0f, 0.1f, 65520.0f, -2.0f, 1e-8f});
  EXPECT_EQ(h.itemsize(), 2u);
  EXPECT_EQ(DTypeName(h.dtype()), "float16");
  EXPECT_EQ(*DTypeFromName("float16"), DType::kFloat16);
  const std::vector<float> v = h.ToVector<float>();
  EXPECT_EQ(v[0], 1.0f);
  EXPECT_EQ(v[1], 0.0999755859375f);  // the nearest float16 to 0.1
  EXPECT_EQ(v[2], kInf);              // 65520 rounds up to infinity
  EXPECT_EQ(v[3], -2.0f);
  EXPECT_EQ(v[4], 0.0f);              // below half the smallest subnormal
  EXPECT_THAT(astype(h, DType::kInt32)->ToVector<int32_t>()[3], -2);
  auto f = full({3}, 2.5, DType::kFloat16);
  EXPECT_THAT(f->ToVector<double>(), ElementsAre(2.5, 2.5, 2.5));
  EXPECT_EQ(*f->item<double>({1}), 2.5);
  EXPECT_THAT(zeros({2}, DType::kFloat16)->ToVector<float>(),
              ElementsAre(0.0f, 0.0f));
}

TEST(Float16TensorTest, ArangeFillsInFloat32AndRoundsEachValue) {
  auto a = arange(0.0, 1.0, 0.25, DType::kFloat16);
  EXPECT_THAT(Values(a), ElementsAre(0.0f, 0.25f, 0.5f, 0.75f));
  // 2048 and up are spaced by 2: 2049 rounds to the even 2048.
  auto big = arange(2047, 2051, 1, DType::kFloat16);
  EXPECT_THAT(Values(big), ElementsAre(2047.0f, 2048.0f, 2048.0f, 2050.0f));
}

TEST(Float16TensorTest, PromotesAsNumPy) {
  EXPECT_EQ(ResultType(DType::kFloat16, DType::kInt8), DType::kFloat16);
  EXPECT_EQ(ResultType(DType::kUInt8, DType::kFloat16), DType::kFloat16);
  EXPECT_EQ(ResultType(DType::kFloat16, DType::kInt16), DType::kFloat32);
  EXPECT_EQ(ResultType(DType::kFloat16, DType::kUInt16), DType::kFloat32);
  EXPECT_EQ(ResultType(DType::kFloat16, DType::kInt32), DType::kFloat64);
  EXPECT_EQ(ResultType(DType::kFloat16, DType::kFloat32), DType::kFloat32);
  EXPECT_EQ(ResultType(DType::kFloat64, DType::kFloat16), DType::kFloat64);
  EXPECT_EQ(ResultType(DType::kBool, DType::kFloat16), DType::kFloat16);
  EXPECT_TRUE(CanCastSafely(DType::kFloat16, DType::kFloat32));
  EXPECT_FALSE(CanCastSafely(DType::kFloat32, DType::kFloat16));
  const Tensor h = Half({1.0f, 2.0f});
  EXPECT_EQ(add(h, *FromVector<int8_t>({1, 2}))->dtype(), DType::kFloat16);
  EXPECT_EQ(add(h, *FromVector<int16_t>({1, 2}))->dtype(), DType::kFloat32);
  EXPECT_EQ(add(h, *FromVector<float>({1, 2}))->dtype(), DType::kFloat32);
  // Python scalars do not widen a float16 array (NumPy 1.24's rules).
  EXPECT_EQ(add(h, 0.5)->dtype(), DType::kFloat16);
  EXPECT_EQ(multiply(3, h)->dtype(), DType::kFloat16);
  // An int8 array and a float scalar: float64, as for any non-float array.
  EXPECT_EQ(add(*FromVector<int8_t>({1}), 0.5)->dtype(), DType::kFloat64);
}

TEST(Float16TensorTest, ArithmeticIsFloat32RoundedOnce) {
  // 2048 + 1 = 2049 is a tie between 2048 and 2050: even wins.
  EXPECT_THAT(Values(add(Half({2048, 2048, 65504, 65504}),
                         Half({1, 3, 16, 15}))),
              ElementsAre(2048.0f, 2052.0f, kInf, 65504.0f));
  // float16(0.1) + float16(0.2) in float32, rounded: 0.2998046875 (NumPy).
  EXPECT_THAT(Values(add(Half({0.1f}), Half({0.2f}))),
              ElementsAre(0.2998046875f));
  // The scalar is rounded to float16 first, as NumPy casts it.
  EXPECT_THAT(Values(add(Half({0.0f}), 0.1)), ElementsAre(0.0999755859375f));
  // Subnormal products: 2^-12 * 2^-13 = 2^-25 is a tie to zero.
  EXPECT_THAT(Values(multiply(Half({std::ldexp(1.0f, -12)}),
                              Half({std::ldexp(1.0f, -13)}))),
              ElementsAre(0.0f));
  EXPECT_THAT(Values(divide(Half({1.0f}), Half({3.0f}))),
              ElementsAre(0.333251953125f));
  // Non-contiguous and broadcast operands take the same route.
  const Tensor column = *reshape(Half({1, 2}), {2, 1});
  EXPECT_THAT(Values(subtract(column, Half({0.5f, 0.25f}))),
              ElementsAre(0.5f, 0.75f, 1.5f, 1.75f));
}

TEST(Float16TensorTest, ComparisonsAndPredicatesSeeExactValues) {
  const Tensor a = Half({1.0f, kNan, -0.0f, kInf});
  const Tensor b = Half({1.0f, kNan, 0.0f, 65504.0f});
  EXPECT_THAT(equal(a, b)->ToVector<bool>(),
              ElementsAre(true, false, true, false));
  EXPECT_THAT(greater(a, b)->ToVector<bool>(),
              ElementsAre(false, false, false, true));
  EXPECT_THAT(isnan(a)->ToVector<bool>(), ElementsAre(false, true, false, false));
  EXPECT_THAT(isfinite(a)->ToVector<bool>(),
              ElementsAre(true, false, true, false));
  EXPECT_THAT(logical_not(a)->ToVector<bool>(),
              ElementsAre(false, false, true, false));
}

TEST(Float16TensorTest, UnaryFunctionsComputeInFloat32AndRoundOnce) {
  EXPECT_THAT(Values(sqrt(Half({2.0f, 4.0f, -1.0f}))),
              ElementsAre(1.4140625f, 2.0f, ::testing::IsNan()));
  EXPECT_THAT(Values(negative(Half({1.5f, -0.0f}))), ElementsAre(-1.5f, 0.0f));
  // One-byte integers and bool: NumPy's float16 loops.
  EXPECT_THAT(Values(sqrt(*FromVector<uint8_t>({2}))), ElementsAre(1.4140625f));
}

TEST(Float16TensorTest, IntoAnExistingOutputConvertsOnce) {
  Tensor out = *empty({2}, DType::kFloat16);
  ASSERT_TRUE(add(Half({2048, 1}), Half({1, 1}), out).ok());
  EXPECT_THAT(out.ToVector<float>(), ElementsAre(2048.0f, 2.0f));
  // In place.
  ASSERT_TRUE(add(out, out, out).ok());
  EXPECT_THAT(out.ToVector<float>(), ElementsAre(4096.0f, 4.0f));
  Tensor wide = *empty({2}, DType::kFloat32);
  ASSERT_TRUE(multiply(Half({1.5f, 2}), Half({2, 2}), wide).ok());
  EXPECT_THAT(wide.ToVector<float>(), ElementsAre(3.0f, 4.0f));
  // float32 into float16 is a same-kind cast, as NumPy allows.
  ASSERT_TRUE(add(*FromVector<float>({0.1f}), *FromVector<float>({0.2f}),
                  *slice(out, 0, Slice(0, 1, 1)))
                  .ok());
  EXPECT_EQ(out.ToVector<float>()[0], 0.300048828125f);  // float32 0.3, rounded
}

TEST(Float16TensorTest, ReductionsAccumulateInFloat32) {
  // 2048 + 1 + 1 in float32 is 2050; in float16 steps it would stay 2048.
  EXPECT_THAT(Values(sum(Half({2048, 1, 1}))), ElementsAre(2050.0f));
  EXPECT_THAT(Values(prod(Half({256, 256, 0.5f}))), ElementsAre(32768.0f));
  EXPECT_THAT(Values(mean(Half({1, 2, 4}))), ElementsAre(2.333984375f));
  EXPECT_THAT(Values(max(Half({1, kNan, 3}))), ElementsAre(::testing::IsNan()));
  EXPECT_THAT(Values(min(Half({1, -kInf, 3}))), ElementsAre(-kInf));
  EXPECT_THAT(Values(max(Half({1, 5, 3}))), ElementsAre(5.0f));
  EXPECT_EQ(*argmax(Half({1, 5, kNan, 7}))->item<int64_t>(), 2);
  EXPECT_EQ(*argmin(Half({1, -5, 3}))->item<int64_t>(), 1);
  EXPECT_EQ(all(Half({1, kNan}))->dtype(), DType::kBool);
  EXPECT_TRUE(*any(Half({0, -0.0f, 1}))->item<bool>());
  // Along axis 0 of a matrix the rows go into the output one at a time,
  // each step rounded to float16 as NumPy's half loop stores it.
  const Tensor m = *reshape(Half({2048, 1, 1, 1, 1, 1}), {3, 2});
  EXPECT_THAT(Values(sum(m, 0)), ElementsAre(2048.0f, 3.0f));
  EXPECT_THAT(Values(sum(m, 1)), ElementsAre(2048.0f, 2.0f, 2.0f));
  EXPECT_THAT(Values(sum(*zeros({0}, DType::kFloat16))), ElementsAre(0.0f));
  EXPECT_EQ(var(Half({1, 3}))->dtype(), DType::kFloat16);
  EXPECT_THAT(Values(stddev(Half({1, 3}))), ElementsAre(1.0f));
}

TEST(Float16TensorTest, CumsumStaysFloat16AndRoundsEveryStep) {
  EXPECT_EQ(AccumulatorDType(DType::kFloat16), DType::kFloat16);
  // NumPy: np.cumsum(np.float16([2048, 1, 1, 1])) is [2048, 2048, 2048, 2048].
  EXPECT_THAT(Values(cumsum(Half({2048, 1, 1, 1}))),
              ElementsAre(2048.0f, 2048.0f, 2048.0f, 2048.0f));
  EXPECT_THAT(Values(cumprod(Half({300, 300, 0.5f}))),
              ElementsAre(300.0f, kInf, kInf));
  EXPECT_THAT(Values(diff(Half({1, 4, 9}))), ElementsAre(3.0f, 5.0f));
  const Tensor m = *reshape(Half({1, 2, 3, 4}), {2, 2});
  EXPECT_THAT(Values(cumsum(m, 0)), ElementsAre(1.0f, 2.0f, 4.0f, 6.0f));
}

TEST(Float16TensorTest, SortsWithNanLastAndKeepsTheBits) {
  const Tensor t = Half({3, kNan, -1, kInf, -0.0f, -kInf, 0.5f});
  EXPECT_THAT(Values(sort(t)),
              ElementsAre(-kInf, -1.0f, -0.0f, 0.5f, 3.0f, kInf,
                          ::testing::IsNan()));
  EXPECT_THAT(argsort(t)->ToVector<int64_t>(), ElementsAre(5, 2, 4, 6, 0, 3, 1));
  auto u = unique(Half({2, 1, 2, kNan, 1, kNan}));
  ASSERT_TRUE(u.ok());
  EXPECT_EQ(u->values.dtype(), DType::kFloat16);
  EXPECT_THAT(u->values.ToVector<float>(),
              ElementsAre(1.0f, 2.0f, ::testing::IsNan()));
  EXPECT_THAT(u->counts.ToVector<int64_t>(), ElementsAre(2, 2, 2));
  auto at = searchsorted(Half({1, 2, 3}), Half({2.5f, 0}));
  EXPECT_THAT(at->ToVector<int64_t>(), ElementsAre(2, 0));
}

TEST(Float16TensorTest, WhereAndClipKeepFloat16) {
  const Tensor cond = *FromVector<bool>({true, false});
  auto w = where(cond, Half({1, 2}), Half({3, 4}));
  EXPECT_THAT(Values(w), ElementsAre(1.0f, 4.0f));
  auto c = clip(Half({-5, 0.5f, 70000}), 0.0, 1.0);
  EXPECT_THAT(Values(c), ElementsAre(0.0f, 0.5f, 1.0f));
}

TEST(Float16TensorTest, PrintsFloat16sShortestDigits) {
  EXPECT_EQ(repr(Half({0.1f, 0.2f, 1.5f})),
            "array([0.1, 0.2, 1.5], dtype=float16)");
  EXPECT_EQ(repr(Half({65504, kInf, kNan})),
            "array([65504.,    inf,    nan], dtype=float16)");
  EXPECT_EQ(str(*astype(*full({}, 0.1, DType::kFloat32), DType::kFloat16)),
            "0.1");
  EXPECT_EQ(repr(Half({1e-5f, 1.5f})),
            "array([1.0e-05, 1.5e+00], dtype=float16)");
}

TEST(Float16TensorTest, NpyRoundTripsAsLittleEndianF2) {
  const Tensor t = Half({1, -2, kInf, kNan, 0.1f});
  auto bytes = SerializeNpy(t);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  EXPECT_THAT(*bytes, HasSubstr("'descr': '<f2'"));
  auto back = ParseNpy(*bytes);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->dtype(), DType::kFloat16);
  EXPECT_EQ(*SerializeNpy(*back), *bytes);
}

TEST(Float16TensorTest, MatmulRefusesFloat16ByName) {
  auto r = matmul(*reshape(Half({1, 2, 3, 4}), {2, 2}),
                  *reshape(Half({1, 0, 0, 1}), {2, 2}));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(r.status().message(), HasSubstr("float16"));
  EXPECT_FALSE(bitwise_and(Half({1}), Half({1})).ok());
}

}  // namespace
}  // namespace tessera
