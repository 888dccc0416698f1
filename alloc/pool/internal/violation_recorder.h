// Copyright 2026 The Tessera Authors.
//
// Test helper: records contract violations instead of aborting, for the
// lifetime of a `ViolationRecorder`. Process-wide (the handler is), so tests
// that use it must not run violations from several threads at once.

#ifndef TESSERA_ALLOC_POOL_INTERNAL_VIOLATION_RECORDER_H_
#define TESSERA_ALLOC_POOL_INTERNAL_VIOLATION_RECORDER_H_

#include <string>
#include <vector>

#include "alloc/allocator.h"

namespace tessera {
namespace pool_internal {

struct RecordedViolation {
  std::string allocator;
  ContractViolation violation;
  const void* ptr;
  std::string detail;
};

class ViolationRecorder {
 public:
  ViolationRecorder() {
    Current() = &violations_;
    previous_ = SetContractViolationHandler(
        [](absl::string_view name, ContractViolation violation,
           const void* ptr, absl::string_view detail) {
          Current()->push_back(
              {std::string(name), violation, ptr, std::string(detail)});
        });
  }
  ~ViolationRecorder() {
    SetContractViolationHandler(previous_);
    Current() = nullptr;
  }
  ViolationRecorder(const ViolationRecorder&) = delete;
  ViolationRecorder& operator=(const ViolationRecorder&) = delete;

  const std::vector<RecordedViolation>& violations() const {
    return violations_;
  }
  void Clear() { violations_.clear(); }

 private:
  static std::vector<RecordedViolation>*& Current() {
    static std::vector<RecordedViolation>* current = nullptr;
    return current;
  }

  std::vector<RecordedViolation> violations_;
  ContractViolationHandler previous_;
};

}  // namespace pool_internal
}  // namespace tessera

#endif  // TESSERA_ALLOC_POOL_INTERNAL_VIOLATION_RECORDER_H_
