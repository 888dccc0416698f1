// Copyright 2026 The Tessera Authors.
//
// -----------------------------------------------------------------------------
// File: internal/tensor_workloads.h
// -----------------------------------------------------------------------------
//
// The tensor workloads ("tensor_<op>_<n>", catalog.h) call Tessera's public
// tensor API (tensor.h, binary.h, reduce.h) with the measured allocator as
// the allocator of every tensor: `op` TensorIterations() times at n float32
// elements, process CPU time per call (the thread pool's workers count). The validation pass runs the operation
// once at full size and checks every element of the result (arange: i;
// zeros: 0; a + b with a = arange, b = ones: i + 1; sum: n(n-1)/2 within
// 1e-4), then the allocator's CheckIntegrity. NumPy's side is numpy_child.h.

#ifndef TESSERA_BENCH_SHOOTOUT_INTERNAL_TENSOR_WORKLOADS_H_
#define TESSERA_BENCH_SHOOTOUT_INTERNAL_TENSOR_WORKLOADS_H_

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "alloc/allocator.h"
#include "bench/shootout/workloads.h"

namespace tessera {
namespace shootout {
namespace internal {

// Validates, then (unless `scale` is kValidate) times the tensor workload
// `workload` with every tensor on `allocator`. InvalidArgument for a name
// that is not a tensor workload; Internal naming the element that is wrong.
absl::StatusOr<Metrics> RunTensor(Allocator& allocator,
                                  absl::string_view workload, Scale scale,
                                  double size_factor);

}  // namespace internal
}  // namespace shootout
}  // namespace tessera

#endif  // TESSERA_BENCH_SHOOTOUT_INTERNAL_TENSOR_WORKLOADS_H_
