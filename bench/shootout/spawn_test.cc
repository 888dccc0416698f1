// Copyright 2026 The Tessera Authors.

#include "bench/shootout/spawn.h"

#include <sys/wait.h>

#include <set>
#include <string>

#include "gtest/gtest.h"

namespace tessera {
namespace shootout {
namespace {

TEST(LayoutArgv0Test, EachOfTheFirstRoundsHasItsOwnLengthUnderTheName) {
  std::set<size_t> lengths;
  for (int round = 0; round < 8; ++round) {
    const std::string argv0 = LayoutArgv0("shootout", round);
    ASSERT_EQ(argv0.rfind("shootout", 0), 0u) << argv0;
    EXPECT_EQ(argv0.find_first_not_of('_', 8), std::string::npos) << argv0;
    EXPECT_LT(argv0.size(), 8u + 128u) << "round " << round;
    lengths.insert(argv0.size());
  }
  EXPECT_EQ(lengths.size(), 8u) << "two of the first 8 rounds share a layout";
  EXPECT_EQ(LayoutArgv0("shootout", 0), "shootout");
  EXPECT_EQ(LayoutArgv0("shootout", -3), "shootout");
  // The pad depends on the round alone, not on the name: every child of a
  // round gets the same one.
  for (int round = 0; round < 8; ++round) {
    EXPECT_EQ(LayoutArgv0("x", round).size() - 1,
              LayoutArgv0("shootout", round).size() - 8)
        << "round " << round;
  }
}

TEST(SpawnTest, TheChildSeesThePaddedArgv0AsItsOwn) {
  // cat prints its own command line: argv[0] is the first NUL-ended field.
  const std::string argv0 = LayoutArgv0("layout-probe", 4);
  std::string output;
  int status = -1;
  ASSERT_TRUE(
      Spawn("/bin/cat", {argv0, "/proc/self/cmdline"}, "", &output, &status)
          .ok());
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  EXPECT_EQ(output.substr(0, output.find('\0')), argv0);
}

TEST(SpawnTest, AProgramThatCannotStartIsAnErrorNamingIt) {
  std::string output;
  int status = 0;
  const absl::Status spawned =
      Spawn("/nonexistent/program", {"program"}, "", &output, &status);
  EXPECT_FALSE(spawned.ok());
  EXPECT_NE(spawned.message().find("/nonexistent/program"), std::string::npos)
      << spawned;
}

}  // namespace
}  // namespace shootout
}  // namespace tessera
