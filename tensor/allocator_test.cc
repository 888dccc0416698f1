// Copyright 2026 The Tessera Authors.
//
// End-to-end allocator plumbing: a whole computation runs with a counting
// allocator as the scoped default, and every byte the tensor engine used must
// have come from it and gone back to it. The process-wide malloc allocator
// (the default outside any scope) must see none of it.

#include <cstdint>
#include <optional>
#include <vector>

#include "alloc/default_allocator.h"
#include "alloc/system/system_allocator.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tensor/binary.h"
#include "tensor/reduce.h"
#include "tensor/tensor.h"
#include "tensor/testing/counting_allocator.h"
#include "tensor/view.h"

namespace tessera {
namespace {

using ::tessera::testing::CountingAllocator;

// A computation touching every creating path: creation, promotion copies,
// broadcasting, scalar operands, out= with overlap (temporaries), reshape
// copies, reductions with keepdims and mean's float64 conversion.
double Compute(std::vector<const Allocator*>& seen) {
  auto a = arange(0, 120, 1, DType::kInt32);
  auto m = reshape(*a, {10, 12});
  auto t = transpose(*m);
  auto flat = ravel(*t);  // transposed: a copy
  auto f = linspace(0, 1, 12, true, DType::kFloat32);
  auto sum_bcast = add(*t, *reshape(*f, {12, 1}));  // int32 + float32 -> f64
  auto scaled = multiply(*sum_bcast, 0.5);
  auto shifted = slice(*scaled, 0, Slice{1});
  auto head = slice(*scaled, 0, Slice{0, 11});
  EXPECT_TRUE(add(*head, *scaled, *shifted).ok() == false);  // shape mismatch
  EXPECT_TRUE(add(*head, *head, *shifted).ok());              // overlapping out
  auto col_max = max(*scaled, 0, /*keepdims=*/true);
  auto avg = mean(*flat);
  auto e = eye(4, std::nullopt, 0, DType::kUInt8);
  auto z = zeros({3, 3});
  auto o = ones({3, 3}, DType::kInt16);
  auto c = astype(*o, DType::kFloat64);
  auto q = divide(*z, *c);
  for (const Tensor* x : {&*a, &*flat, &*f, &*sum_bcast, &*scaled, &*col_max,
                          &*avg, &*e, &*z, &*o, &*c, &*q}) {
    seen.push_back(&x->allocator());
  }
  return *sum(*col_max)->item<double>() + *avg->item<double>() +
         *sum(*q)->item<double>();
}

TEST(AllocatorPlumbingTest, EveryByteComesFromAndReturnsToTheScopedDefault) {
  CountingAllocator counting;
  const AllocatorStats global_before = GlobalMallocAllocator().stats();
  std::vector<const Allocator*> seen;
  double result = 0;
  {
    ScopedDefaultAllocator scope(counting);
    result = Compute(seen);
  }
  EXPECT_GT(result, 0);
  for (const Allocator* allocator : seen) EXPECT_EQ(allocator, &counting);
  const AllocatorStats stats = counting.stats();
  EXPECT_GT(stats.allocations, 15u);
  EXPECT_EQ(stats.live_allocations(), 0u);
  EXPECT_EQ(stats.bytes_in_use, 0u);
  EXPECT_EQ(counting.size_mismatches(), 0u);
  EXPECT_EQ(counting.alignment_mismatches(), 0u);
  EXPECT_EQ(counting.foreign_frees(), 0u);
  EXPECT_TRUE(counting.CheckIntegrity().ok());
  EXPECT_EQ(GlobalMallocAllocator().stats().allocations,
            global_before.allocations);
}

TEST(AllocatorPlumbingTest, TensorsOutliveTheirScopeAndFreeToTheirAllocator) {
  CountingAllocator first, second;
  std::optional<Tensor> kept;
  {
    ScopedDefaultAllocator scope(first);
    kept = *ones({1000}, DType::kFloat32);
  }
  {
    ScopedDefaultAllocator scope(second);
    // Results go to the current default; the input still belongs to `first`.
    auto doubled = add(*kept, *kept);
    ASSERT_TRUE(doubled.ok());
    EXPECT_EQ(&doubled->allocator(), &second);
    EXPECT_EQ(&kept->allocator(), &first);
    kept.reset();  // freed with `second` as the default
    EXPECT_EQ(first.stats().live_allocations(), 0u);
  }
  EXPECT_EQ(second.stats().live_allocations(), 0u);
  EXPECT_EQ(first.size_mismatches() + second.size_mismatches(), 0u);
  EXPECT_EQ(first.foreign_frees() + second.foreign_frees(), 0u);
}

TEST(AllocatorPlumbingTest, ExplicitAllocatorBeatsTheScopedDefault) {
  CountingAllocator scoped, explicit_one;
  ScopedDefaultAllocator scope(scoped);
  auto t = zeros({64}, DType::kInt64, &explicit_one);
  auto s = sum(*t, std::nullopt, false, &explicit_one);
  ASSERT_TRUE(t.ok() && s.ok());
  EXPECT_EQ(scoped.stats().allocations, 0u);
  EXPECT_EQ(explicit_one.stats().live_allocations(), 2u);
}

}  // namespace
}  // namespace tessera
