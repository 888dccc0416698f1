// Copyright 2026 The Tessera Authors.
//
// `AllocatorHandler`: the allocator interface as plain function pointers and
// an opaque context, in the shape of NumPy's `PyDataMem_Handler` (NEP 49) and
// Highway's `AllocPtr`/`FreePtr` pair. It lets C code, or a library that only
// understands callbacks, use any Tessera allocator, and lets a foreign
// allocator given as callbacks be used wherever a `tessera::Allocator` is
// expected (`HandlerAllocator`).

#ifndef TESSERA_ALLOC_HANDLER_H_
#define TESSERA_ALLOC_HANDLER_H_

#include <cstddef>

#include "alloc/allocator.h"
#include "alloc/internal/stats_recorder.h"

namespace tessera {

struct AllocatorHandler {
  const char* name;  // static storage, like NEP 49's `name`
  void* ctx;
  void* (*malloc)(void* ctx, size_t bytes, size_t alignment);
  void* (*calloc)(void* ctx, size_t bytes, size_t alignment);
  void* (*realloc)(void* ctx, void* ptr, size_t old_bytes, size_t new_bytes,
                   size_t alignment);
  void (*free)(void* ctx, void* ptr, size_t bytes, size_t alignment);
};

// A handler whose callbacks forward to `allocator` (which must outlive it).
// `name` points into the allocator's own name.
AllocatorHandler MakeHandler(Allocator& allocator);

// A Tessera allocator over a handler's callbacks. It validates arguments and
// keeps statistics (thread-safe counters); whether the callbacks themselves
// are thread-safe is the handler's business.
class HandlerAllocator final : public Allocator {
 public:
  explicit HandlerAllocator(const AllocatorHandler& handler);

  AllocatorStats stats() const override { return stats_.stats(); }

 protected:
  void* DoAllocate(size_t bytes, size_t alignment) noexcept override;
  void* DoAllocateZeroed(size_t bytes, size_t alignment) noexcept override;
  void* DoReallocate(void* ptr, size_t old_bytes, size_t new_bytes,
                     size_t alignment) noexcept override;
  void DoDeallocate(void* ptr, size_t bytes, size_t alignment) noexcept override;
  void* CountFailure() noexcept override {
    stats_.RecordFailure();
    return nullptr;
  }

 private:
  AllocatorHandler handler_;
  internal::ConcurrentStatsRecorder stats_;
};

}  // namespace tessera

#endif  // TESSERA_ALLOC_HANDLER_H_
