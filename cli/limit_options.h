#pragma once
// --timeout SECONDS and --max-memory SIZE, the limits of every command that runs a model (run,
// check-trace, bench-threads): registered alike everywhere, and made into lib/core's RunLimits
// (lib/core/run_limits.h says what each limit holds and how a model is stopped).
#include <CLI/CLI.hpp>

#include <string>

#include "lib/core/run_limits.h"

namespace jitctl::cli {

struct LimitOptions {
  std::string max_memory;  // as typed; empty: the default (half the memory available)
  double timeout_s = 0;    // 0: none
};

void add_limit_options(CLI::App& cmd, LimitOptions& o);

// The limits for a command on `subject` (the model's path, which messages start with).
RunLimits run_limits(const LimitOptions& o, const std::string& subject);

}  // namespace jitctl::cli
