// Copyright 2026 The Tessera Authors.
//
// Graded internal checks for Tessera's allocators, after mimalloc's
// `mi_assert_internal` / `mi_assert_expensive`, worded as sentences after
// mattconte's `insist(x && "blocks should have coalesced")`.
//
//   TESSERA_DCHECK(cond, "sentence")            debug and sanitizer builds
//   TESSERA_DCHECK_EXPENSIVE(cond, "sentence")  sanitizer builds only
//   TESSERA_DCHECK_EXPENSIVE_OK(status, "sentence")
//       sanitizer builds only; also prints the status's message, for
//       `CheckIntegrity()` walks that say which numbered invariant broke
//
// A check states an invariant that the code right after it relies on (a block
// being unlinked is on the list it is unlinked from; a block being freed is
// live). It is not input validation: bad input from a caller gets a Status or
// a counted nullptr/false at the API edge in every build. A failed check
// prints `file:line: TESSERA_DCHECK failed: <sentence> (<condition>)` to
// stderr and aborts, without allocating.
//
// Off (`--config=opt`, which defines NDEBUG), the condition is still parsed and
// type-checked but never evaluated, so the check costs nothing and a variable
// used only by checks is not "unused". The expensive level, for whole-structure
// walks such as `CheckIntegrity()`, is on in sanitizer builds
// (`--define=tessera_sanitizer=1`, set by --config=asan/ubsan/tsan/libfuzzer),
// which this target's `defines` forward as TESSERA_SANITIZER_BUILD.

#ifndef TESSERA_ALLOC_INTERNAL_DCHECK_H_
#define TESSERA_ALLOC_INTERNAL_DCHECK_H_

#include <cstddef>
#include <cstdint>

#include "absl/base/attributes.h"
#include "absl/base/optimization.h"

namespace tessera {
namespace internal {

// Cheap checks: on in debug and sanitizer builds, off when NDEBUG is defined.
#if !defined(NDEBUG) || defined(TESSERA_SANITIZER_BUILD)
inline constexpr bool kTesseraInternalChecks = true;
#else
inline constexpr bool kTesseraInternalChecks = false;
#endif

// Expensive checks (whole-structure walks): on in sanitizer builds only, where
// the run is slow anyway and a corruption is best caught near its cause.
#if defined(TESSERA_SANITIZER_BUILD)
inline constexpr bool kTesseraExpensiveChecks = true;
#else
inline constexpr bool kTesseraExpensiveChecks = false;
#endif

// How often an allocator with expensive checks on walks itself from a hot path
// (every this-many frees). A power of two; a full walk is O(heap).
inline constexpr uint32_t kExpensiveCheckPeriod = 64;

// Prints `file:line: TESSERA_DCHECK failed: message (condition)` and aborts.
[[noreturn]] ABSL_ATTRIBUTE_NOINLINE ABSL_ATTRIBUTE_COLD void DcheckFailed(
    const char* file, int line, const char* condition, const char* message);

// As DcheckFailed, with `detail` (`detail_size` bytes, e.g. a Status
// message) in place of the condition's text.
[[noreturn]] ABSL_ATTRIBUTE_NOINLINE ABSL_ATTRIBUTE_COLD void
DcheckFailedWithDetail(const char* file, int line, const char* message,
                       const char* detail, size_t detail_size);

// Counts calls and answers true every kExpensiveCheckPeriod-th one, for
// "walk the structure every N-th free". Always false when expensive checks
// are off, so the call folds away.
class ExpensiveCheckCountdown {
 public:
  bool Tick() {
    if constexpr (!kTesseraExpensiveChecks) {
      return false;
    } else {
      return (++calls_ & (kExpensiveCheckPeriod - 1)) == 0;
    }
  }

 private:
  uint32_t calls_ = 0;
};

}  // namespace internal
}  // namespace tessera

// The `constant && ...` keeps `cond` compiled (so it cannot rot) and
// unevaluated when the level is off.
#define TESSERA_DCHECK(cond, message)                                        \
  do {                                                                       \
    if (::tessera::internal::kTesseraInternalChecks &&                       \
        ABSL_PREDICT_FALSE(!(cond))) {                                       \
      ::tessera::internal::DcheckFailed(__FILE__, __LINE__, #cond, message); \
    }                                                                        \
  } while (false)

#define TESSERA_DCHECK_EXPENSIVE(cond, message)                              \
  do {                                                                       \
    if (::tessera::internal::kTesseraExpensiveChecks &&                      \
        ABSL_PREDICT_FALSE(!(cond))) {                                       \
      ::tessera::internal::DcheckFailed(__FILE__, __LINE__, #cond, message); \
    }                                                                        \
  } while (false)

// `status` is anything with ok() and message() (absl::Status). It is
// evaluated only when expensive checks are on.
#define TESSERA_DCHECK_EXPENSIVE_OK(status, sentence)                        \
  do {                                                                      \
    if (::tessera::internal::kTesseraExpensiveChecks) {                     \
      const auto& tessera_dcheck_status = (status);                         \
      if (ABSL_PREDICT_FALSE(!tessera_dcheck_status.ok())) {                \
        ::tessera::internal::DcheckFailedWithDetail(                        \
            __FILE__, __LINE__, sentence,                                   \
            tessera_dcheck_status.message().data(),                         \
            tessera_dcheck_status.message().size());                        \
      }                                                                     \
    }                                                                       \
  } while (false)

#endif  // TESSERA_ALLOC_INTERNAL_DCHECK_H_
