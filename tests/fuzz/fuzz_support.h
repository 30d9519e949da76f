#pragma once
// What every fuzz target shares: the contract check around one input, and helpers that touch a
// loaded value everywhere (so that lazy storages and deep values are really read).
//
// The contract (README, Safety): on any bytes, jitctl either succeeds or throws a jitctl::Error
// (InvalidInput, exit 2; Unsupported, exit 3) with a non-empty message, or, running under limits
// (RunLimits below), a LimitReached (exit 2). Anything else -- another
// exception type, an empty message, a sanitizer report, a signal -- is a bug, and the target
// aborts so that libFuzzer (or tests/fuzz/replay_main.cpp) reports it.
#include <signal.h>
#include <sys/time.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "lib/core/ivalue.h"

namespace jitctl::fuzz {

// Runs `body`; returns normally when it succeeds or throws a jitctl::Error with a message, and
// aborts naming the target otherwise.
void expect_clean(const char* target, const std::function<void()>& body);

// Reads every tensor's bytes (lazy storages included) and every nested value of `v`; returns a
// checksum so that the compiler keeps the reads. Bounded: stops after `max_values` values.
uint64_t touch(const IValue& v, size_t max_values = 100000);

// Bounds one run of a fuzzed model (fuzz_run.cpp) in time and memory while it lives, so that a
// model that loops or allocates without end ends as a jitctl error, as `run --timeout
// --max-memory` ends it.
// The limits' watchdog takes SIGALRM and the real-time timer, which libFuzzer uses for its own
// -timeout: they are given back to libFuzzer when the run ends.
struct RunLimits {
  RunLimits();
  ~RunLimits();
  RunLimits(const RunLimits&) = delete;
  RunLimits& operator=(const RunLimits&) = delete;

 private:
  struct sigaction fuzzer_alarm_ {};
  itimerval fuzzer_timer_{};
};

// The input as text (the bytes as they are; code records are bytes too).
inline std::string_view as_text(const uint8_t* data, size_t size) {
  return std::string_view(reinterpret_cast<const char*>(data), size);
}

}  // namespace jitctl::fuzz
