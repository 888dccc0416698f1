// Copyright 2026 The Tessera Authors.
//
// A registry of live blocks, used by allocators that cannot otherwise tell a
// foreign pointer or a double free from a good one (the system allocators).
// It is a debugging aid: on by default in debug and sanitizer builds
// (`kTrackLiveBlocksByDefault`), off in optimised builds, where it would
// double the cost of a malloc/free pair. It uses the heap for its own tables.

#ifndef TESSERA_ALLOC_INTERNAL_LIVE_BLOCK_REGISTRY_H_
#define TESSERA_ALLOC_INTERNAL_LIVE_BLOCK_REGISTRY_H_

#include <cstddef>
#include <shared_mutex>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "alloc/allocator.h"

namespace tessera {
namespace internal {

#if !defined(NDEBUG) || defined(TESSERA_SANITIZER_BUILD)
inline constexpr bool kTrackLiveBlocksByDefault = true;
#else
inline constexpr bool kTrackLiveBlocksByDefault = false;
#endif

class LiveBlockRegistry {
 public:
  // Records a new live block.
  void Insert(const void* ptr, size_t bytes, size_t alignment);

  // Whether `ptr` is live with these `bytes` and `alignment`. On failure the
  // status says which contract was broken, and `*violation` which kind.
  absl::Status Check(const void* ptr, size_t bytes, size_t alignment,
                     ContractViolation* violation) const;

  // Check, then forget `ptr` and remember it as freed.
  absl::Status Erase(const void* ptr, size_t bytes, size_t alignment,
                     ContractViolation* violation);

  // Moves a live block's record (realloc).
  void Move(const void* from, const void* to, size_t bytes, size_t alignment);

  size_t live_blocks() const;

  // How many freed addresses are remembered to tell a double free from a
  // foreign pointer.
  static constexpr size_t kMaxRememberedFrees = size_t{1} << 16;

 private:
  struct Block {
    size_t bytes;
    size_t alignment;
  };
  // Requires mu_ held exclusively.
  void RememberFreed(const void* ptr);
  // Requires mu_ (shared or exclusive).
  absl::Status CheckLocked(const void* ptr, size_t bytes, size_t alignment,
                           ContractViolation* violation) const;

  // std::shared_mutex rather than absl::Mutex: Debian's Abseil is not built
  // with ThreadSanitizer annotations, so TSan cannot see absl::Mutex's
  // happens-before edges and reports false races; pthread locks it intercepts.
  mutable std::shared_mutex mu_;
  absl::flat_hash_map<const void*, Block> live_;  // guarded by mu_
  // Addresses freed and not handed out again: tells a double free from a
  // foreign pointer. Guarded by mu_.
  absl::flat_hash_set<const void*> freed_;
};

}  // namespace internal
}  // namespace tessera

#endif  // TESSERA_ALLOC_INTERNAL_LIVE_BLOCK_REGISTRY_H_
