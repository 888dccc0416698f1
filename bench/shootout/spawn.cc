// Copyright 2026 The Tessera Authors.

#include "bench/shootout/spawn.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

extern char** environ;

namespace tessera {
namespace shootout {

absl::Status Spawn(const std::string& program, std::vector<std::string> args,
                   const std::string& preload, std::string* output,
                   int* wait_status, const std::string& stderr_path) {
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  // The environment minus any LD_PRELOAD of our own caller, plus the peer's.
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    if (!absl::StartsWith(*e, "LD_PRELOAD=")) env.push_back(*e);
  }
  if (!preload.empty()) env.push_back("LD_PRELOAD=" + preload);
  std::vector<char*> envp;
  for (std::string& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);

  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return absl::InternalError("pipe failed");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  if (!stderr_path.empty()) {
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO,
                                     stderr_path.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0600);
  }
  pid_t pid;
  const int rc = posix_spawn(&pid, program.c_str(), &actions, nullptr,
                             argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  if (rc != 0) {
    close(fds[0]);
    return absl::InternalError(
        absl::StrCat("cannot start ", program, ": ", std::strerror(rc)));
  }
  output->clear();
  char buffer[4096];
  ssize_t n;
  while ((n = read(fds[0], buffer, sizeof buffer)) > 0) {
    output->append(buffer, n);
  }
  close(fds[0]);
  *wait_status = 0;
  waitpid(pid, wait_status, 0);
  return absl::OkStatus();
}

std::string LayoutArgv0(absl::string_view name, int round) {
  const int pad = round > 0 ? static_cast<int>((int64_t{41} * round) % 128) : 0;
  return absl::StrCat(name, std::string(static_cast<size_t>(pad), '_'));
}

}  // namespace shootout
}  // namespace tessera
