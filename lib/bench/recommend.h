#pragma once
// What `jitctl bench-threads` recommends from its rows, and which rows oversubscribe the machine.
//
// For latency the best row is the one with the lowest p50; for throughput the one with the most
// calls per second over all callers. Each is compared with the runner-up (the next best row of
// any other setting): the margin is their difference in percent of the runner-up's value, and
// whether it is beyond the noise is decided on the rounds, not on the pooled calls (calls within
// a round are not independent: they share the round's machine state, so pooling them would call
// every drift "significant"). The per-round values (p50, or throughput) of the two rows go
// through a one-sided exact permutation test (statistics.h permutation_p_less): beyond the noise
// when p <= 0.05. Three rounds each reach that only when every round of the best beats every
// round of the runner-up; with fewer than three rounds no margin can be called beyond the noise.
#include <optional>
#include <string>
#include <vector>

#include "lib/bench/sweep.h"

namespace jitctl {

struct Pick {
  size_t row = 0;                   // index into the rows
  double value = 0;                 // p50 ms, or calls/s
  std::optional<size_t> runner_up;  // none when only one row was measured
  double runner_up_value = 0;
  double margin_pct = 0;            // how much better than the runner-up, in percent of the runner-up's value
  double p_value = 1;               // the permutation test's; 1 without a runner-up
  bool beyond_noise = false;        // p_value <= kNoiseAlpha
};

inline constexpr double kNoiseAlpha = 0.05;

struct Recommendation {
  std::optional<Pick> latency, throughput;  // none when no row was measured
};

Recommendation recommend(const std::vector<BenchRow>& rows);

// Rows whose intra-op threads x callers exceed `cores` (skipped rows included: the warning is
// about the setting), in row order.
std::vector<size_t> oversubscribed_rows(const std::vector<BenchRow>& rows, int cores);
bool oversubscribes(const BenchSetting& s, int cores);

}  // namespace jitctl
