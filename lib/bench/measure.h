#pragma once
// One round of one thread setting of `jitctl bench-threads`, the C++ side of the
// torch.set_num_threads sweep in shared/reference/cpu_threading.txt (lib/bench/sweep.h runs the
// rounds and settings):
//   - the setting's thread counts take effect (process-wide, as torch.set_num_threads does; each
//     caller thread then applies the intra-op count to its own OpenMP team, since OpenMP keeps the
//     count per thread);
//   - every caller makes its warm-up calls (the first one timed: first_call_ms), then all callers
//     start their timed calls together;
//   - latency is each timed call's own time; throughput is the timed calls of all callers over the
//     wall time from the first caller's start to the last one's end; the process's peak resident
//     memory over the round is read back.
// With concurrency 1 the one caller is the calling thread (as `m(*inputs)` in a Python loop);
// otherwise each caller is its own thread.
#include <chrono>
#include <cstdint>
#include <functional>
#include <vector>

namespace jitctl {

struct BenchSetting {
  int intra_op_threads = 1, inter_op_threads = 1, concurrency = 1;
  bool operator==(const BenchSetting&) const = default;
};

// One call made by caller `c` (0 <= c < concurrency); may throw.
using CallFn = std::function<void(size_t c)>;

using BenchClock = std::chrono::steady_clock;

struct RoundResult {
  std::vector<double> latencies_ms;  // every timed call of every caller
  double first_call_ms = 0;          // the slowest caller's first call after the setting took effect
  double wall_ms = 0;                // timed phase, all callers
  double throughput_per_s = 0;       // latencies_ms.size() / wall
  double seconds = 0;                // the whole round, warm-up included
  int64_t peak_memory_bytes = -1;    // process peak resident memory during the round; -1 unknown
  bool cut_short = false;            // the deadline stopped some caller before its `iters` timed calls
};

// Runs `warmup` untimed calls per caller (at least one: the first call) and `iters` timed ones.
// After the first call, a call does not start when it would end after `deadline` if it took as
// long as the caller's previous call (a warm-up call: when one timed call would not fit after it); callers stopped that way set cut_short (a round can end
// with no timed call at all when its first call alone used up the time).
// Rethrows what a call throws, after every caller has stopped.
RoundResult measure_round(const CallFn& call, const BenchSetting& setting, int warmup, int iters,
                          BenchClock::time_point deadline = BenchClock::time_point::max());

}  // namespace jitctl
