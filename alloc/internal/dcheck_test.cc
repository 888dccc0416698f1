// Copyright 2026 The Tessera Authors.

#include "alloc/internal/dcheck.h"

#include "absl/status/status.h"
#include "gtest/gtest.h"

namespace tessera {
namespace internal {
namespace {

// The levels follow the build: cheap checks whenever NDEBUG is off or the
// build is a sanitizer build, expensive ones only in sanitizer builds.
#if defined(TESSERA_SANITIZER_BUILD)
static_assert(kTesseraInternalChecks && kTesseraExpensiveChecks,
              "sanitizer builds run both levels");
#elif defined(NDEBUG)
static_assert(!kTesseraInternalChecks && !kTesseraExpensiveChecks,
              "optimised builds compile every check out");
#else
static_assert(kTesseraInternalChecks && !kTesseraExpensiveChecks,
              "debug builds run the cheap level only");
#endif
static_assert((kExpensiveCheckPeriod & (kExpensiveCheckPeriod - 1)) == 0,
              "the countdown masks with the period, so it is a power of two");

TEST(DcheckTest, AFailedCheckPrintsFileLineAndTheSentenceAndAborts) {
  if (!kTesseraInternalChecks) GTEST_SKIP() << "checks are off (NDEBUG)";
  EXPECT_DEATH(TESSERA_DCHECK(1 + 1 == 3, "blocks should have coalesced"),
               "dcheck_test\\.cc:[0-9]+: TESSERA_DCHECK failed: blocks should "
               "have coalesced \\(1 \\+ 1 == 3\\)");
}

TEST(DcheckTest, AnExpensiveCheckFiresOnlyInSanitizerBuilds) {
  if (!kTesseraExpensiveChecks) {
    TESSERA_DCHECK_EXPENSIVE(false, "must not fire with expensive checks off");
    SUCCEED();
    return;
  }
  EXPECT_DEATH(TESSERA_DCHECK_EXPENSIVE(false, "the heap should be intact"),
               "TESSERA_DCHECK failed: the heap should be intact");
}

TEST(DcheckTest, AFailedStatusCheckPrintsTheStatusMessage) {
  const absl::Status broken =
      absl::InternalError("tlsf: invariant 3 violated: list (0, 1)");
  if (!kTesseraExpensiveChecks) {
    TESSERA_DCHECK_EXPENSIVE_OK(broken, "must not fire with them off");
    SUCCEED();
    return;
  }
  EXPECT_DEATH(
      TESSERA_DCHECK_EXPENSIVE_OK(broken, "the arena should be intact"),
      "TESSERA_DCHECK failed: the arena should be intact \\(tlsf: "
      "invariant 3 violated: list \\(0, 1\\)\\)");
  TESSERA_DCHECK_EXPENSIVE_OK(absl::OkStatus(), "an ok status passes");
}

TEST(DcheckTest, APassingCheckEvaluatesItsConditionOnceWhenOn) {
  int evaluations = 0;
  TESSERA_DCHECK(++evaluations > 0, "the counter should be positive");
  EXPECT_EQ(evaluations, kTesseraInternalChecks ? 1 : 0);
}

TEST(DcheckTest, AnOffCheckNeverEvaluatesItsCondition) {
  // With the level off the condition is compiled but not run: a failing,
  // side-effecting condition neither aborts nor changes anything.
  int evaluations = 0;
  if (!kTesseraInternalChecks) {
    TESSERA_DCHECK(++evaluations < 0, "never evaluated in NDEBUG builds");
  }
  if (!kTesseraExpensiveChecks) {
    TESSERA_DCHECK_EXPENSIVE(++evaluations < 0, "never evaluated here");
  }
  EXPECT_EQ(evaluations, 0);
}

TEST(DcheckTest, TheCountdownTicksEveryPeriodOnlyWithExpensiveChecks) {
  ExpensiveCheckCountdown countdown;
  int fired = 0;
  for (uint32_t i = 0; i < 3 * kExpensiveCheckPeriod; ++i) {
    fired += countdown.Tick() ? 1 : 0;
  }
  EXPECT_EQ(fired, kTesseraExpensiveChecks ? 3 : 0);
}

}  // namespace
}  // namespace internal
}  // namespace tessera
