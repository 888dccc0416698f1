// Copyright 2026 The Tessera Authors.

#include "tensor/internal/parallel_ops.h"

#include <cstring>
#include <type_traits>

#include "tensor/internal/thread_pool.h"
#include "tensor/parallel.h"

namespace tessera {
namespace internal {
namespace {

// Outputs of at least this many bytes are written with non-temporal stores
// (kernels::BinaryContiguousStreaming): well past the 1 MiB L2 of a core,
// where the output would have gone to memory anyway. On the 2-core Zen 4
// machine, float32 a + b of 1e7 elements (40 MB out) takes about 1.4x less
// CPU time with them (bench/tensor_benchmark.cc, BM_AddInto).
constexpr uint64_t kStreamMinBytes = uint64_t{8} << 20;

// Up to 2^kTreeDepth leaves of the pairwise tree run as separate chunks:
// enough for a few chunks per thread on small machines.
constexpr int kTreeDepth = 3;
constexpr int kMaxLeaves = 1 << kTreeDepth;

struct Leaf {
  int64_t begin;
  int64_t length;
};

// The serial kernel's split (kernels/reduce-inl.h, SumFloatPairwise): a line
// longer than one block splits at the multiple of the block nearest its
// middle.
int64_t PairwiseHalf(int64_t n) {
  return ((n / kernels::kSumBlock + 1) / 2) * kernels::kSumBlock;
}

void SplitTree(int64_t begin, int64_t n, int depth, Leaf* leaves,
               int& count) {
  if (depth == 0 || n <= kernels::kSumBlock) {
    leaves[count++] = Leaf{begin, n};
    return;
  }
  const int64_t half = PairwiseHalf(n);
  SplitTree(begin, half, depth - 1, leaves, count);
  SplitTree(begin + half, n - half, depth - 1, leaves, count);
}

// Adds the leaf sums back up the same tree, left + right at each node.
template <typename T>
T CombineTree(int64_t n, int depth, const T* sums, int& next) {
  if (depth == 0 || n <= kernels::kSumBlock) return sums[next++];
  const int64_t half = PairwiseHalf(n);
  const T left = CombineTree<T>(half, depth - 1, sums, next);
  const T right = CombineTree<T>(n - half, depth - 1, sums, next);
  return left + right;
}

template <typename Acc>
void ParallelSum(DType dtype, const char* data, int64_t n, void* out) {
  const int64_t itemsize = static_cast<int64_t>(DTypeSize(dtype));
  Leaf leaves[kMaxLeaves];
  int count = 0;
  SplitTree(0, n, kTreeDepth, leaves, count);
  Acc sums[kMaxLeaves];
  ParallelFor(count, 1, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      kernels::ReduceLine(ReduceOp::kSum, dtype,
                          data + leaves[i].begin * itemsize, itemsize,
                          leaves[i].length, &sums[i]);
    }
  });
  Acc total;
  if constexpr (std::is_floating_point<Acc>::value) {
    int next = 0;
    total = CombineTree<Acc>(n, kTreeDepth, sums, next);
  } else {
    // Integer sums wrap: any grouping gives the serial result.
    uint64_t wrapped = 0;
    for (int i = 0; i < count; ++i) wrapped += static_cast<uint64_t>(sums[i]);
    total = static_cast<Acc>(wrapped);
  }
  std::memcpy(out, &total, sizeof(Acc));
}

}  // namespace

void ContiguousBinary(BinaryOp op, DType dtype, const void* a, const void* b,
                      void* out, int64_t n) {
  const size_t itemsize = DTypeSize(dtype);
  const int64_t size = static_cast<int64_t>(itemsize);
  if (static_cast<uint64_t>(n) * itemsize * 3 < kParallelMinBytes) {
    kernels::BinaryRow(op, dtype, a, size, b, size, out, size, n);
    return;
  }
  const char* pa = static_cast<const char*>(a);
  const char* pb = static_cast<const char*>(b);
  char* po = static_cast<char*>(out);
  // Streaming stores only for a fresh output (an in-place output's lines are
  // read as an operand anyway) that is too large to be read from cache.
  const bool stream = static_cast<uint64_t>(n) * itemsize >= kStreamMinBytes &&
                      out != a && out != b;
  ParallelFor(n, MinChunkElements(itemsize), [&](int64_t begin, int64_t end) {
    const int64_t offset = begin * size;
    if (stream &&
        kernels::BinaryContiguousStreaming(op, dtype, pa + offset, pb + offset,
                                           po + offset, end - begin)) {
      return;
    }
    kernels::BinaryRow(op, dtype, pa + offset, size, pb + offset, size,
                       po + offset, size, end - begin);
  });
}

void ContiguousReduce(ReduceOp op, DType dtype, const void* data, int64_t n,
                      void* out) {
  const size_t itemsize = DTypeSize(dtype);
  const char* p = static_cast<const char*>(data);
  if (op != ReduceOp::kSum ||
      static_cast<uint64_t>(n) * itemsize < kParallelMinBytes ||
      reinterpret_cast<uintptr_t>(p) % itemsize != 0) {
    kernels::ReduceLine(op, dtype, p, static_cast<int64_t>(itemsize), n, out);
    return;
  }
  switch (SumDType(dtype)) {
    case DType::kFloat32: return ParallelSum<float>(dtype, p, n, out);
    case DType::kFloat64: return ParallelSum<double>(dtype, p, n, out);
    case DType::kUInt64: return ParallelSum<uint64_t>(dtype, p, n, out);
    case DType::kInt64: return ParallelSum<int64_t>(dtype, p, n, out);
    default:
      kernels::ReduceLine(op, dtype, p, static_cast<int64_t>(itemsize), n,
                          out);
  }
}

}  // namespace internal
}  // namespace tessera
