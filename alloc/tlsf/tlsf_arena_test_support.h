// Copyright 2026 The Tessera Authors.
//
// What the TlsfArena test files share: arenas made for a test, caller memory
// for CreateOver, system memory that counts its calls, and a recorder of
// contract violations. Test-only.

#ifndef TESSERA_ALLOC_TLSF_TLSF_ARENA_TEST_SUPPORT_H_
#define TESSERA_ALLOC_TLSF_TLSF_ARENA_TEST_SUPPORT_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "alloc/allocator.h"
#include "alloc/pool/internal/violation_recorder.h"
#include "alloc/tlsf/tlsf_arena.h"
#include "gtest/gtest.h"

#if defined(__SANITIZE_ADDRESS__)
#define TLSF_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TLSF_TEST_ASAN 1
#endif
#endif
#ifdef TLSF_TEST_ASAN
#include <sanitizer/asan_interface.h>
#endif

namespace tessera {
namespace tlsf_test {

inline constexpr size_t kKiB = 1024;
inline constexpr size_t kMiB = 1024 * 1024;

inline bool IsAligned(const void* ptr, size_t alignment) {
  return (reinterpret_cast<uintptr_t>(ptr) & (alignment - 1)) == 0;
}

inline std::string Message(const absl::Status& status) {
  return std::string(status.message());
}

// Records contract violations instead of aborting, for the duration of a test
// (the allocators' shared test recorder).
using pool_internal::ViolationRecorder;

inline std::unique_ptr<TlsfArena> MakeArena(size_t bytes,
                                     TlsfArenaOptions options = {}) {
  options.arena_bytes = bytes;
  absl::StatusOr<std::unique_ptr<TlsfArena>> arena = TlsfArena::Create(options);
  EXPECT_TRUE(arena.ok()) << arena.status();
  return arena.ok() ? *std::move(arena) : nullptr;
}

// The TLSF core alone: tests of merging and of its statistics turn the
// quick cache (on by default) off, since it holds small freed blocks
// unmerged.
inline TlsfArenaOptions Uncached() {
  TlsfArenaOptions options;
  options.quick_cache_depth = 0;
  return options;
}

// Caller memory for CreateOver, 4096-aligned.
struct Buffer {
  explicit Buffer(size_t bytes)
      : storage(new std::byte[bytes + 4096]),
        data(reinterpret_cast<std::byte*>(
            (reinterpret_cast<uintptr_t>(storage.get()) + 4095) &
            ~uintptr_t{4095})),
        size(bytes) {}
  std::unique_ptr<std::byte[]> storage;
  std::byte* data;
  size_t size;
};

// System memory that counts its calls.
struct CountingSystem {
  int maps = 0;
  int unmaps = 0;
  SystemMemory hooks() {
    return SystemMemory{
        [](size_t bytes, void* self) {
          ++static_cast<CountingSystem*>(self)->maps;
          return DefaultSystemMemory().map(bytes, nullptr);
        },
        [](void* ptr, size_t bytes, void* self) {
          ++static_cast<CountingSystem*>(self)->unmaps;
          DefaultSystemMemory().unmap(ptr, bytes, nullptr);
        },
        this};
  }
};

}  // namespace tlsf_test
}  // namespace tessera

#endif  // TESSERA_ALLOC_TLSF_TLSF_ARENA_TEST_SUPPORT_H_
