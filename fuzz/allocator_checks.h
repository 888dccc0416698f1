// Copyright 2026 The Tessera Authors.
//
// Checks every allocator harness makes the same way: the contract-violation
// log (installed as the ContractViolationHandler so misuse is counted, not
// aborted on), the integrity check, and the comparison of an allocator's
// AllocatorStats with the harness's model of them.

#ifndef TESSERA_FUZZ_ALLOCATOR_CHECKS_H_
#define TESSERA_FUZZ_ALLOCATOR_CHECKS_H_

#include <cstddef>
#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "alloc/allocator.h"
#include "fuzz/byte_reader.h"
#include "fuzz/fuzz_check.h"

namespace tessera {
namespace fuzzing {

// What ReportContractViolation reported since the log was last reset.
struct ViolationLog {
  int count = 0;
  ContractViolation last = ContractViolation::kDoubleFree;
  const void* last_ptr = nullptr;
};
inline ViolationLog g_violations;

// A ContractViolationHandler that records into g_violations.
inline void RecordViolation(absl::string_view, ContractViolation violation,
                            const void* ptr, absl::string_view) {
  ++g_violations.count;
  g_violations.last = violation;
  g_violations.last_ptr = ptr;
}

inline void CheckIntegrityOk(const absl::Status& integrity, const char* when) {
  TESSERA_FUZZ_CHECK(integrity.ok(), "%s: CheckIntegrity: %s", when,
                     integrity.ToString().c_str());
}

// The counters a harness models; `bytes_in_use` comes from its shadow heap.
inline void CheckStatsMatchModel(const AllocatorStats& s,
                                 const AllocatorStats& model,
                                 const char* when) {
  using ull = unsigned long long;
  TESSERA_FUZZ_CHECK(
      s.allocations == model.allocations &&
          s.deallocations == model.deallocations &&
          s.reallocations == model.reallocations &&
          s.failed_requests == model.failed_requests &&
          s.bytes_in_use == model.bytes_in_use &&
          s.peak_bytes_in_use == model.peak_bytes_in_use,
      "%s: stats (alloc %llu, dealloc %llu, realloc %llu, failed %llu, "
      "in use %llu, peak %llu) != model (%llu, %llu, %llu, %llu, %llu, %llu)",
      when, static_cast<ull>(s.allocations), static_cast<ull>(s.deallocations),
      static_cast<ull>(s.reallocations), static_cast<ull>(s.failed_requests),
      static_cast<ull>(s.bytes_in_use), static_cast<ull>(s.peak_bytes_in_use),
      static_cast<ull>(model.allocations),
      static_cast<ull>(model.deallocations),
      static_cast<ull>(model.reallocations),
      static_cast<ull>(model.failed_requests),
      static_cast<ull>(model.bytes_in_use),
      static_cast<ull>(model.peak_bytes_in_use));
}

// The body of every allocator harness's LLVMFuzzerTestOneInput: contract
// violations are recorded (not aborted on) into a log that starts empty for
// each input, and `Harness(reader).Run()` executes the input's program.
template <typename Harness>
int RunAllocatorHarness(const uint8_t* data, size_t size) {
  static const bool installed =
      (SetContractViolationHandler(&RecordViolation), true);
  (void)installed;
  g_violations = ViolationLog();
  ByteReader reader(data, size);
  Harness(reader).Run();
  return 0;
}

}  // namespace fuzzing
}  // namespace tessera

#endif  // TESSERA_FUZZ_ALLOCATOR_CHECKS_H_
