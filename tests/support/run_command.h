#pragma once
// Runs a command as a child process with a time limit, capturing its output; for tests that check
// exit codes and messages exactly as a user (or a CI script) would see them.
#include <string>
#include <vector>

namespace jitctl::test {

struct CommandResult {
  int exit_code = -1;  // -1 when killed by a signal
  int signal = 0;      // the signal that ended it, if any
  bool timed_out = false;
  std::string out, err;
};

CommandResult run_command(const std::vector<std::string>& argv, double timeout_s = 30);

}  // namespace jitctl::test
