#pragma once
// Number options with plain messages: `--threads 0: must be a whole number from 1 to 4096`, never
// CLI11's own "Value 0 not in range 0.000000 to 1797...(309 digits)".
#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>

namespace jitctl::cli {

// Whole numbers in [lo, hi] (decimal, optional sign; no fractions, no trailing text).
CLI::Validator whole_number(int64_t lo, int64_t hi);
// Any uint64_t (a seed): 0 to 2^64-1.
CLI::Validator unsigned_number();

// Thread counts: 1 to kMaxThreads, as bench-threads' lists allow.
inline constexpr int64_t kMaxThreads = 4096;

// Replaces the messages of CLI11's PositiveNumber and NonNegativeNumber validators on every
// option of `app` and its subcommands with plain ones (whole numbers for INT options), so that
// subcommands written with CLI11's validators still answer plainly.
void plain_number_messages(CLI::App& app);

}  // namespace jitctl::cli
