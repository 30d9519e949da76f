#pragma once
// The measuring engine of `jitctl bench-threads`, the C++ side of the torch.set_num_threads sweep
// in shared/reference/cpu_threading.txt: one row per thread setting and number of callers.
//   first_call_ms  the first call after the row's settings took effect (the first row's includes
//                  loading weights lazily and starting OpenMP's threads; planning is done before)
//   latency        p50/p90/p99/min/mean over the timed calls of every caller
//   throughput     calls finished per second of wall time, all callers together
// Each of the `concurrency` callers is its own thread running the same planned method, as several
// inference threads share one model in a server.
#include <vector>

#include "lib/bench/statistics.h"
#include "lib/core/ivalue.h"
#include "lib/runtime/interpreter.h"

namespace jitctl {

struct BenchSetting {
  int intra_op_threads = 1, inter_op_threads = 1, concurrency = 1;
};

struct BenchRow {
  BenchSetting setting;
  double first_call_ms = 0;
  LatencySummary latency_ms;
  double throughput_per_s = 0;
};

// Applies the setting's thread counts (process-wide, as torch.set_num_threads does), then lets
// every caller make `warmup` untimed calls (the first one timed as first_call_ms) and `iters`
// timed ones, all callers starting their timed calls together. Rethrows what a call throws.
BenchRow measure(const Method& m, const std::vector<IValue>& args, const BenchSetting& setting, int warmup, int iters);

}  // namespace jitctl
