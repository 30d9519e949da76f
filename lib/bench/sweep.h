#pragma once
// The sweep of `jitctl bench-threads`: every setting measured over several rounds, interleaved so
// that slow drift of the machine (other load, clocks, caches) does not favour the settings that
// happen to come first:
//   settings are visited cheapest first (fewest intra-op threads x callers, then as listed), so
//   the settings likeliest to be recommended are measured before the oversubscribed ones; round 1
//   runs them in that order, the rounds before the last alternate direction and the last one runs
//   forward; each setting warms up again in every round (switching thread counts changes the
//   OpenMP teams and what is in the caches).
// A row's latencies pool all its rounds; its spread is how much the per-round p50 (and
// throughput) moved between rounds, the noise the recommendation is judged against
// (lib/bench/recommend.h). Rows are reported in the listed order, each as soon as it and every
// row before it are final.
//
// --max-seconds: a setting's round does not start when one call (the slowest seen so far; later
// rounds: the setting's own) would not fit in what is left. Round 1 keeps back the time the later
// rounds of the contenders measured so far would take (contenders: within kContenderFactor of
// round 1's best p50 or best throughput), and a setting whose call is expected to take more than
// its fair share of the rest is not started (nor any costlier one after it): the rounds that let
// the recommendation be judged against the noise come before settings that cannot win. Rounds
// after the first repeat every measured setting when all of them fit, else only the contenders
// (the others keep round 1, marked not_repeated), else stop; repeated rows keep equal rounds.
// Each round of a setting gets at most twice its fair share of the time left (left / units still
// planned, but enough for two calls), so that a pathological setting -- one call taking seconds --
// is cut short (and flagged) instead of starving the others. Within a round no call starts that
// would end past the round's deadline (measure_round); the first call of a setting never measured
// before is the one thing that can overrun. Skipped settings stay in the result with the reason.
#include <functional>
#include <string>
#include <vector>

#include "lib/bench/measure.h"
#include "lib/bench/statistics.h"

namespace jitctl {

// A setting stays in the running for the later rounds of a budgeted sweep while its round-1 p50
// is at most this many times the best, or its throughput at least the best's share 1/this.
inline constexpr double kContenderFactor = 2.0;

struct SweepOptions {
  int warmup = 3;            // untimed calls per caller per round (at least the first call)
  int iters = 20;            // timed calls per caller, split over the rounds
  int rounds = 3;            // at most iters; 1 disables interleaving
  double max_seconds = 0;    // budget for the whole sweep; 0: none
  // What one call is expected to take before anything was measured (seconds), for the first
  // setting's budget estimate; 0: unknown (the first setting always runs).
  double first_call_estimate_s = 0;
};

struct BenchRow {
  BenchSetting setting;
  bool measured = false;
  std::string skipped;             // why not measured ("" when measured)
  std::string not_repeated;        // why a measured row kept round 1 only ("" otherwise)
  int rounds = 0;                  // rounds measured
  bool cut_short = false;          // the deadline stopped a round early
  size_t timed_calls = 0;          // over all callers and rounds
  double first_call_ms = 0;        // round 1's first call after the setting took effect
  LatencySummary latency_ms;       // over every timed call of every round
  double throughput_per_s = 0;     // timed calls / timed wall time, all rounds
  std::vector<double> round_p50_ms, round_throughput_per_s;
  double p50_spread_pct = 0, throughput_spread_pct = 0;  // statistics.h spread_pct
  int64_t peak_memory_bytes = -1;  // the largest of its rounds
  double seconds = 0;              // time spent on it, warm-up included
};

// Where the sweep is, for a progress line.
struct SweepProgress {
  size_t unit = 0, units = 0;  // (setting, round) pairs done so far / planned
  int round = 1, rounds = 1;
  BenchSetting setting;        // about to be measured
  double elapsed_s = 0, budget_s = 0;
};

struct SweepEvents {
  std::function<void(const SweepProgress&)> progress;                // before each unit of work
  std::function<void(size_t index, const BenchRow& row)> row_final;  // rows in order, each once, as soon as final
};

struct SweepResult {
  std::vector<BenchRow> rows;  // one per setting, in the order given
  int rounds_planned = 1, rounds_run = 0;
  std::string stopped;         // why fewer rounds ran than planned ("" when all did)
  std::string narrowed;        // why the later rounds repeated only the contenders ("" when all)
  double seconds = 0;
};

SweepResult run_sweep(const std::vector<BenchSetting>& settings, const CallFn& call, const SweepOptions& options,
                      const SweepEvents& events = {});

// The settings in the order rows are listed: every inter-op count, then every concurrency, then
// every intra-op count (so a plot line -- one concurrency -- is a run of consecutive rows).
std::vector<BenchSetting> all_settings(const std::vector<int>& intra, const std::vector<int>& inter,
                                       const std::vector<int>& concurrency);

// `--threads sweep`: 1, 2, 4, ... below `cores`, `cores` itself, and one step past it (the next
// power of two above it): 1,2,4 for 2 cores; 1,2,4,6,8 for 6; 1,2,4,8,16 for 8.
std::vector<int> sweep_thread_counts(int cores);

}  // namespace jitctl
