#pragma once
// How `jitctl bench-threads` prints what it measured: a text table, CSV, or DESIGN.md's JSON
// contract ({"model", "machine": {...}, "rows": [{"intra_op_threads", "inter_op_threads",
// "concurrency", "latency_ms": {"p50", "p90", "p99", "min", "mean"}, "throughput_per_s",
// "first_call_ms"}]}), extended with more keys and never renamed. Text and CSV rows are printed
// one at a time as the sweep finishes them; the recommendation and the oversubscription warning
// come last.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "lib/bench/machine.h"
#include "lib/bench/recommend.h"
#include "lib/bench/sweep.h"

namespace jitctl {

struct BenchReport {
  std::string model, method;
  double load_before = -1, load_after = -1;  // load_average_1min() around the sweep
  SweepOptions options;
  int cores = 1;                     // usable_cores() when measured
  std::string own_instances_because; // Callers::own_instances_because
  double cold_first_call_ms = 0;     // the very first call after loading (weights mapped on demand)
  SweepResult sweep;
  Recommendation recommendation;
};

// "--threads 2 --interop-threads 1, 2 callers"
std::string setting_label(const BenchSetting& s);

// Text: the lines above the table (model, machine, method of measuring), the column header, one
// row (skipped rows say why), and the lines after (recommendation, stopped early).
std::string text_preamble(const std::string& model, const std::string& method, const SweepOptions& options,
                          const std::string& own_instances_because, double cold_first_call_ms);
std::string text_header();
std::string text_row(const BenchRow& row, int cores);
std::string text_summary(const BenchReport& report);

// CSV: the header (the first ten columns as before, then the additions) and one row per setting.
std::string csv_header();
std::string csv_row(const BenchRow& row, int cores);

// "warning: threads x callers exceed the 2 cores in 3 of 6 settings: --threads 4, 1 caller; ..."
// (one line), or "" when no row does.
std::string oversubscription_warning(const std::vector<BenchRow>& rows, int cores);

nlohmann::ordered_json report_json(const BenchReport& report);

// "warning: the load average (17.3) exceeds the 2 usable cores: ..." when `load` > `cores`, else "".
std::string load_warning(double load, int cores);

}  // namespace jitctl
