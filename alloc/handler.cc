// Copyright 2026 The Tessera Authors.

#include "alloc/handler.h"

namespace tessera {

AllocatorHandler MakeHandler(Allocator& allocator) {
  AllocatorHandler handler;
  handler.name = allocator.name().data();
  handler.ctx = &allocator;
  handler.malloc = [](void* ctx, size_t bytes, size_t alignment) {
    return static_cast<Allocator*>(ctx)->Allocate(bytes, alignment);
  };
  handler.calloc = [](void* ctx, size_t bytes, size_t alignment) {
    return static_cast<Allocator*>(ctx)->AllocateZeroed(bytes, alignment);
  };
  handler.realloc = [](void* ctx, void* ptr, size_t old_bytes,
                       size_t new_bytes, size_t alignment) {
    return static_cast<Allocator*>(ctx)->Reallocate(ptr, old_bytes, new_bytes,
                                                    alignment);
  };
  handler.free = [](void* ctx, void* ptr, size_t bytes, size_t alignment) {
    static_cast<Allocator*>(ctx)->Deallocate(ptr, bytes, alignment);
  };
  return handler;
}

HandlerAllocator::HandlerAllocator(const AllocatorHandler& handler)
    : Allocator(handler.name != nullptr ? handler.name : "handler"),
      handler_(handler) {}

void* HandlerAllocator::DoAllocate(size_t bytes, size_t alignment) noexcept {
  void* ptr = handler_.malloc(handler_.ctx, bytes, alignment);
  if (ptr == nullptr) return CountFailure();
  stats_.RecordAllocation(bytes);
  return ptr;
}

void* HandlerAllocator::DoAllocateZeroed(size_t bytes,
                                         size_t alignment) noexcept {
  if (handler_.calloc == nullptr) return Allocator::DoAllocateZeroed(bytes, alignment);
  void* ptr = handler_.calloc(handler_.ctx, bytes, alignment);
  if (ptr == nullptr) return CountFailure();
  stats_.RecordAllocation(bytes);
  return ptr;
}

void* HandlerAllocator::DoReallocate(void* ptr, size_t old_bytes,
                                     size_t new_bytes,
                                     size_t alignment) noexcept {
  if (handler_.realloc == nullptr) {
    return Allocator::DoReallocate(ptr, old_bytes, new_bytes, alignment);
  }
  void* fresh = handler_.realloc(handler_.ctx, ptr, old_bytes, new_bytes, alignment);
  if (fresh == nullptr) return CountFailure();
  stats_.RecordReallocation(old_bytes, new_bytes);
  return fresh;
}

void HandlerAllocator::DoDeallocate(void* ptr, size_t bytes,
                                    size_t alignment) noexcept {
  stats_.RecordDeallocation(bytes);
  handler_.free(handler_.ctx, ptr, bytes, alignment);
}

}  // namespace tessera
