// Copyright 2026 The Tessera Authors.

#include "tensor/tensor.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "alloc/default_allocator.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tensor/testing/counting_allocator.h"

namespace tessera {
namespace {

using ::tessera::testing::CountingAllocator;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string Message(const absl::Status& status) {
  return std::string(status.message());
}

TEST(StorageTest, FreesThroughTheAllocatorThatMadeIt) {
  CountingAllocator made_it;
  CountingAllocator scoped;
  {
    auto storage = Storage::Allocate(100, made_it, /*zeroed=*/false);
    ASSERT_TRUE(storage.ok()) << storage.status();
    EXPECT_EQ(made_it.stats().live_allocations(), 1u);
    EXPECT_EQ(&(*storage)->allocator(), &made_it);
    ScopedDefaultAllocator other_default(scoped);
    StorageRef second = *storage;  // a second reference
    EXPECT_EQ(second->ref_count(), 2);
  }
  EXPECT_EQ(made_it.stats().live_allocations(), 0u);
  EXPECT_EQ(made_it.stats().bytes_in_use, 0u);
  EXPECT_EQ(made_it.size_mismatches(), 0u);
  EXPECT_EQ(scoped.stats().allocations, 0u);
}

TEST(StorageTest, LargeDataIsCacheLineAlignedAndFreedWithItsAlignment) {
  CountingAllocator allocator;
  for (bool zeroed : {false, true}) {
    for (size_t bytes : {size_t{1}, Storage::kLargeBytes - 1,
                         Storage::kLargeBytes, size_t{4000}, size_t{100000}}) {
      auto storage = Storage::Allocate(bytes, allocator, zeroed);
      ASSERT_TRUE(storage.ok());
      const size_t want =
          bytes >= Storage::kLargeBytes ? 64 : kDefaultAlignment;
      EXPECT_EQ(reinterpret_cast<uintptr_t>((*storage)->data()) % want, 0u)
          << bytes << " bytes, zeroed " << zeroed;
      // The data fits in the block after the header.
      std::memset((*storage)->data(), 0xab, bytes);
    }
  }
  // Every block went back with the size and alignment it was made with.
  EXPECT_EQ(allocator.stats().live_allocations(), 0u);
  EXPECT_EQ(allocator.alignment_mismatches(), 0u);
  EXPECT_EQ(allocator.size_mismatches(), 0u);
}

TEST(StorageTest, ZeroedStorageUsesTheZeroedPathAndReadsZero) {
  CountingAllocator allocator;
  auto storage = Storage::Allocate(4096, allocator, /*zeroed=*/true);
  ASSERT_TRUE(storage.ok());
  EXPECT_EQ(allocator.zeroed_allocations(), 1u);
  const unsigned char* p =
      static_cast<const unsigned char*>((*storage)->data());
  for (int i = 0; i < 4096; ++i) ASSERT_EQ(p[i], 0) << i;
}

TEST(StorageTest, AllocationFailureIsResourceExhaustedNamingTheAllocator) {
  CountingAllocator allocator;
  allocator.set_fail_above_bytes(1000);
  auto storage = Storage::Allocate(5000, allocator, false);
  EXPECT_EQ(storage.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(Message(storage.status()), HasSubstr("5000"));
  EXPECT_THAT(Message(storage.status()), HasSubstr("counting"));
  EXPECT_EQ(allocator.stats().live_allocations(), 0u);
}

TEST(StorageTest, WrappedMemoryRunsItsReleaseCallbackOnce) {
  CountingAllocator allocator;
  std::vector<float> caller(6, 1.5f);
  int released = 0;
  void* released_ptr = nullptr;
  {
    auto t = FromBuffer(caller.data(), DType::kFloat32, {2, 3}, std::nullopt,
                        [&](void* p) {
                          ++released;
                          released_ptr = p;
                        },
                        true, &allocator);
    ASSERT_TRUE(t.ok()) << t.status();
    EXPECT_FALSE(t->owns_data());
    EXPECT_FALSE(t->storage()->owns_data());
    Tensor view = *t;
    EXPECT_EQ(*view.item<float>({1, 2}), 1.5f);
    EXPECT_EQ(released, 0);
  }
  EXPECT_EQ(released, 1);
  EXPECT_EQ(released_ptr, caller.data());
  EXPECT_EQ(allocator.stats().live_allocations(), 0u);
}

TEST(StorageTest, WrappedMemoryWithNegativeStridesStaysInsideTheBuffer) {
  std::vector<int32_t> caller = {0, 1, 2, 3, 4, 5};
  // Element 0 at the last int, walking backwards: [5, 4, 3, 2, 1, 0].
  auto t = FromBuffer(caller.data() + 5, DType::kInt32, {6}, Strides{-4});
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_THAT(t->ToVector<int32_t>(), ElementsAre(5, 4, 3, 2, 1, 0));
  EXPECT_EQ(t->storage()->data(), caller.data());
  EXPECT_EQ(t->storage()->size_bytes(), 24u);
}

TEST(CreationTest, EmptyIsCContiguousAndOwnsItsData) {
  auto t = empty({2, 3, 4}, DType::kInt16);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->ndim(), 3);
  EXPECT_EQ(t->size(), 24);
  EXPECT_EQ(t->nbytes(), 48);
  EXPECT_THAT(t->strides(), ElementsAre(24, 8, 2));
  EXPECT_TRUE(t->c_contiguous());
  EXPECT_FALSE(t->f_contiguous());
  EXPECT_TRUE(t->owns_data());
  EXPECT_TRUE(t->writeable());
  EXPECT_EQ(t->DebugString(), "int16 (2, 3, 4)");
}

TEST(CreationTest, ZeroDAndZeroSizeTensorsAreBothContiguous) {
  auto scalar = empty({}, DType::kFloat32);
  ASSERT_TRUE(scalar.ok());
  EXPECT_EQ(scalar->size(), 1);
  EXPECT_TRUE(scalar->c_contiguous() && scalar->f_contiguous());
  auto nothing = zeros({3, 0, 2});
  ASSERT_TRUE(nothing.ok());
  EXPECT_EQ(nothing->size(), 0);
  EXPECT_TRUE(nothing->c_contiguous() && nothing->f_contiguous());
  EXPECT_TRUE(nothing->ToVector<double>().empty());
}

// The creation fast path sets strides and flags itself; they must be what
// the general view machinery (ViewOf, which recomputes them) finds.
TEST(CreationTest, NewTensorsHaveTheStridesAndFlagsOfTheGeneralPath) {
  const std::vector<std::vector<int64_t>> shapes = {
      {}, {0}, {7}, {1, 5, 1}, {2, 3}, {3, 1}, {1, 1}, {4, 0, 3}, {2, 3, 4}};
  for (const auto& shape : shapes) {
    for (DType dtype : {DType::kBool, DType::kInt16, DType::kFloat64}) {
      auto t = empty(shape, dtype);
      ASSERT_TRUE(t.ok());
      EXPECT_EQ(t->strides(), ContiguousStrides(shape, DTypeSize(dtype)));
      auto general = Tensor::ViewOf(t->storage(), dtype, t->shape(),
                                    t->strides(), 0);
      ASSERT_TRUE(general.ok());
      EXPECT_EQ(t->size(), general->size()) << ShapeString(shape);
      EXPECT_EQ(t->c_contiguous(), general->c_contiguous())
          << ShapeString(shape);
      EXPECT_EQ(t->f_contiguous(), general->f_contiguous())
          << ShapeString(shape);
      EXPECT_TRUE(t->owns_data() && t->writeable());
    }
  }
}

TEST(CreationTest, ZerosGoesThroughTheZeroedPath) {
  CountingAllocator allocator;
  auto t = zeros({100}, DType::kFloat64, &allocator);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(allocator.zeroed_allocations(), 1u);
  for (double v : t->ToVector<double>()) EXPECT_EQ(v, 0.0);
}

TEST(CreationTest, OnesAndFullConvertTheValueToTheDType) {
  EXPECT_THAT(ones({3}, DType::kInt32)->ToVector<int32_t>(),
              ElementsAre(1, 1, 1));
  // np.full(3, 3.7, dtype=int8) -> [3 3 3]
  EXPECT_THAT(full({3}, 3.7, DType::kInt8)->ToVector<int>(),
              ElementsAre(3, 3, 3));
  EXPECT_THAT(full({2}, -1, DType::kUInt8)->ToVector<int>(),
              ElementsAre(255, 255));
  EXPECT_THAT(full({2}, 2.0, DType::kBool)->ToVector<int>(),
              ElementsAre(1, 1));
}

TEST(CreationTest, NegativeExtentIsNamed) {
  auto t = empty({2, -3});
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(t.status()), HasSubstr("-3"));
  EXPECT_THAT(Message(t.status()), HasSubstr("(2, -3)"));
}

TEST(CreationTest, OverflowingElementCountIsRejectedBeforeAllocating) {
  CountingAllocator allocator;
  const int64_t big = int64_t{1} << 32;
  auto t = empty({big, big}, DType::kFloat32, &allocator);
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(t.status()), HasSubstr("4294967296"));
  // Count fits int64 but bytes do not.
  auto u = empty({int64_t{1} << 61}, DType::kFloat64, &allocator);
  EXPECT_EQ(u.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(allocator.stats().allocations + allocator.stats().failed_requests,
            0u);
  // A zero extent makes any shape valid.
  EXPECT_TRUE(empty({big, big, 0}, DType::kFloat32, &allocator).ok());
}

TEST(CreationTest, AllocationFailureIsResourceExhaustedWithShape) {
  CountingAllocator allocator;
  allocator.set_fail_above_bytes(1 << 20);
  auto t = zeros({1024, 1024}, DType::kFloat32, &allocator);
  EXPECT_EQ(t.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(Message(t.status()), HasSubstr("(1024, 1024)"));
  EXPECT_THAT(Message(t.status()), HasSubstr("float32"));
  EXPECT_EQ(allocator.stats().failed_requests, 1u);
  EXPECT_EQ(allocator.stats().live_allocations(), 0u);
}

TEST(CreationTest, CreatorsUseTheScopedDefaultWhenNoAllocatorIsGiven) {
  CountingAllocator allocator;
  {
    ScopedDefaultAllocator scope(allocator);
    auto a = ones({10});
    auto b = arange(5);
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ(&a->allocator(), &allocator);
    EXPECT_EQ(allocator.stats().live_allocations(), 2u);
  }
  EXPECT_EQ(allocator.stats().live_allocations(), 0u);
}

TEST(ArangeTest, IntegerArangeFollowsNumPysLengthRule) {
  // np.arange(10, 0, -3) -> [10 7 4 1]; np.arange(-5, 5, 3) -> [-5 -2 1 4]
  auto down = arange(10, 0, -3);
  ASSERT_TRUE(down.ok());
  EXPECT_EQ(down->dtype(), DType::kInt64);
  EXPECT_THAT(down->ToVector<int64_t>(), ElementsAre(10, 7, 4, 1));
  EXPECT_THAT(arange(-5, 5, 3)->ToVector<int64_t>(), ElementsAre(-5, -2, 1, 4));
  EXPECT_EQ(arange(5, 0)->size(), 0);
  EXPECT_EQ(arange(0, 10, 1)->size(), 10);
}

TEST(ArangeTest, FloatArangeHasNumPysFloatingPointLength) {
  // np.arange(1, 1.3, 0.1) famously has 4 elements: [1. 1.1 1.2 1.3].
  auto t = arange(1.0, 1.3, 0.1);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->dtype(), DType::kFloat64);
  ASSERT_EQ(t->size(), 4);
  EXPECT_NEAR(*t->item<double>({3}), 1.3, 1e-12);
}

TEST(ArangeTest, ExplicitIntegerDTypeFillsFromTheFirstTwoValues) {
  // np.arange(0, 5, 1.5, dtype=np.int32) -> [0 1 2 3]
  auto t = arange(0.0, 5.0, 1.5, DType::kInt32);
  ASSERT_TRUE(t.ok());
  EXPECT_THAT(t->ToVector<int32_t>(), ElementsAre(0, 1, 2, 3));
}

TEST(ArangeTest, Float32ValuesAreExactForSmallIntegers) {
  auto t = arange(0, 1000, 1, DType::kFloat32);
  ASSERT_TRUE(t.ok());
  const auto v = t->ToVector<float>();
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(v[i], static_cast<float>(i));
}

TEST(ArangeTest, ZeroStepIsAnError) {
  EXPECT_EQ(arange(0, 10, 0).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(arange(0.0, 1.0, 0.0).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(arange(0, 10, 0).status()), HasSubstr("step"));
}

TEST(LinspaceTest, MatchesNumPyWithAndWithoutEndpoint) {
  EXPECT_THAT(linspace(0, 1, 5)->ToVector<double>(),
              ElementsAre(0, 0.25, 0.5, 0.75, 1));
  EXPECT_THAT(linspace(0, 1, 4, /*endpoint=*/false)->ToVector<double>(),
              ElementsAre(0, 0.25, 0.5, 0.75));
  // np.linspace(-1.5, 3.5, 6, dtype=np.int32) -> [-2 -1 0 1 2 3] (floor).
  EXPECT_THAT(linspace(-1.5, 3.5, 6, true, DType::kInt32)->ToVector<int>(),
              ElementsAre(-2, -1, 0, 1, 2, 3));
  EXPECT_THAT(linspace(2, 3, 1)->ToVector<double>(), ElementsAre(2));
  EXPECT_EQ(linspace(2, 3, 0)->size(), 0);
  EXPECT_EQ(linspace(0, 1, -1).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(LinspaceTest, EndpointIsExactlyStop) {
  auto t = linspace(0.1, 0.7, 7);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(*t->item<double>({6}), 0.7);
}

TEST(EyeTest, PlacesOnesOnTheKthDiagonal) {
  auto t = eye(3, 4, 1);
  ASSERT_TRUE(t.ok());
  EXPECT_THAT(t->shape(), ElementsAre(3, 4));
  EXPECT_THAT(t->ToVector<int>(),
              ElementsAre(0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1));
  EXPECT_THAT(eye(3, std::nullopt, -1)->ToVector<int>(),
              ElementsAre(0, 0, 0, 1, 0, 0, 0, 1, 0));
}

TEST(FromVectorTest, KeepsValuesAndChecksTheShape) {
  auto t = FromVector<int16_t>({1, 2, 3, 4, 5, 6}, Shape{2, 3});
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->dtype(), DType::kInt16);
  EXPECT_EQ(*t->item<int>({1, 0}), 4);
  EXPECT_EQ(*t->item<int>({-1, -1}), 6);
  auto bad = FromVector<float>({1, 2, 3}, Shape{2, 2});
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(bad.status()), HasSubstr("(2, 2)"));
  auto bools = FromVector<bool>({true, false, true});
  EXPECT_EQ(bools->dtype(), DType::kBool);
  EXPECT_THAT(bools->ToVector<int>(), ElementsAre(1, 0, 1));
}

TEST(FromVectorTest, ItemRejectsOutOfRangeIndices) {
  auto t = FromVector<int32_t>({1, 2, 3});
  auto out = t->item<int>({3});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(out.status()), HasSubstr("index 3"));
  EXPECT_EQ(t->item<int>({0, 0}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(CopyTest, CopyIsIndependentAndAstypeConverts) {
  auto t = FromVector<double>({1.9, -1.9, 300.5, std::nan("")});
  ASSERT_TRUE(t.ok());
  auto c = copy(*t);
  ASSERT_TRUE(c.ok());
  EXPECT_NE(c->data(), t->data());
  *t->mutable_ptr<double>({0}) = 7;
  EXPECT_EQ(*c->item<double>({0}), 1.9);
  // Truncation toward zero; 300 wraps in int8 only via int, saturates here
  // from float; NaN becomes 0 (see convert.h).
  auto i = astype(*c, DType::kInt32);
  ASSERT_TRUE(i.ok());
  EXPECT_THAT(i->ToVector<int32_t>(), ElementsAre(1, -1, 300, 0));
  auto b = astype(*c, DType::kBool);
  EXPECT_THAT(b->ToVector<int>(), ElementsAre(1, 1, 1, 1));
  auto wrapped = astype(*FromVector<int32_t>({300, -1}), DType::kUInt8);
  EXPECT_THAT(wrapped->ToVector<int>(), ElementsAre(44, 255));
}

TEST(ConvertTest, FloatToIntegerSaturatesInsteadOfUndefinedBehaviour) {
  EXPECT_EQ(ConvertValue<int8_t>(1e10), 127);
  EXPECT_EQ(ConvertValue<int8_t>(-1e10), -128);
  EXPECT_EQ(ConvertValue<uint64_t>(-1.0), 0u);
  EXPECT_EQ(ConvertValue<int64_t>(9.3e18), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(ConvertValue<uint64_t>(1.8e19), uint64_t{18000000000000000000u});
  EXPECT_EQ(ConvertValue<int32_t>(std::numeric_limits<double>::infinity()),
            std::numeric_limits<int32_t>::max());
}

TEST(ViewOfTest, RejectsLayoutsReachingOutsideTheStorage) {
  auto t = zeros({4}, DType::kInt32);
  ASSERT_TRUE(t.ok());
  auto ok = Tensor::ViewOf(t->storage(), DType::kInt32, {2}, {8}, 0);
  EXPECT_TRUE(ok.ok()) << ok.status();
  EXPECT_FALSE(ok->owns_data());
  auto bad = Tensor::ViewOf(t->storage(), DType::kInt32, {3}, {8}, 0);
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(bad.status()), HasSubstr("outside storage of 16 bytes"));
  EXPECT_FALSE(Tensor::ViewOf(t->storage(), DType::kInt32, {2}, {-4}, 0).ok());
  // Strides whose byte span overflows int64 are rejected, not wrapped.
  EXPECT_FALSE(Tensor::ViewOf(t->storage(), DType::kInt32, {4},
                              {int64_t{1} << 62}, 0)
                   .ok());
  int32_t buffer[4] = {};
  EXPECT_FALSE(FromBuffer(buffer, DType::kInt32, {3}, Strides{INT64_MAX / 2})
                   .ok());
}

TEST(CopyIntoTest, OverlappingCopyGoesThroughATemporary) {
  auto t = FromVector<int32_t>({0, 1, 2, 3, 4, 5});
  ASSERT_TRUE(t.ok());
  // dst = t[1:6], src = t[0:5]: a naive forward loop would smear t[0].
  auto src = Tensor::ViewOf(t->storage(), DType::kInt32, {5}, {4}, 0);
  auto dst = Tensor::ViewOf(t->storage(), DType::kInt32, {5}, {4}, 4);
  ASSERT_TRUE(src.ok() && dst.ok());
  // Strided element-wise path with the overlap: use a reversed source.
  auto rev = Tensor::ViewOf(t->storage(), DType::kInt32, {5}, {-4}, 16);
  ASSERT_TRUE(rev.ok());
  ASSERT_TRUE(CopyInto(*rev, *dst).ok());
  EXPECT_THAT(t->ToVector<int32_t>(), ElementsAre(0, 4, 3, 2, 1, 0));
  EXPECT_TRUE(MayShareMemory(*src, *dst));
}

TEST(CopyIntoTest, ReadOnlyDestinationIsRefused) {
  auto t = zeros({3});
  auto ro = Tensor::ViewOf(t->storage(), DType::kFloat64, {3}, {8}, 0,
                           /*writeable=*/false);
  ASSERT_TRUE(ro.ok());
  auto status = CopyInto(*ones({3}), *ro);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
}

TEST(ScalarTest, WeakScalarsFollowNep50) {
  EXPECT_EQ(*WeakResultType(DType::kFloat32, 1.5), DType::kFloat32);
  EXPECT_EQ(*WeakResultType(DType::kInt8, 1), DType::kInt8);
  EXPECT_EQ(*WeakResultType(DType::kInt8, 1.5), DType::kFloat64);
  EXPECT_EQ(*WeakResultType(DType::kBool, 1), DType::kInt64);
  EXPECT_EQ(*WeakResultType(DType::kUInt16, true), DType::kUInt16);
  auto overflow = WeakResultType(DType::kUInt8, 300);
  EXPECT_EQ(overflow.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(overflow.status()), HasSubstr("300"));
  EXPECT_FALSE(WeakResultType(DType::kUInt8, -1).ok());
}

}  // namespace
}  // namespace tessera
