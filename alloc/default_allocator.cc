// Copyright 2026 The Tessera Authors.

#include "alloc/default_allocator.h"

#include "alloc/system/system_allocator.h"

namespace tessera {
namespace {

// nullptr means "no scope set": the process-wide malloc allocator.
thread_local Allocator* tls_default_allocator = nullptr;

}  // namespace

Allocator& DefaultAllocator() {
  Allocator* allocator = tls_default_allocator;
  return allocator != nullptr ? *allocator : GlobalMallocAllocator();
}

ScopedDefaultAllocator::ScopedDefaultAllocator(Allocator& allocator)
    : previous_(tls_default_allocator) {
  tls_default_allocator = &allocator;
}

ScopedDefaultAllocator::~ScopedDefaultAllocator() {
  tls_default_allocator = previous_;
}

}  // namespace tessera
