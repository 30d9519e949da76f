// jitctl bench-threads M ...: latency and throughput across thread settings (lib/bench/measure.h
// says what is measured), one row per combination of --interop-threads, --threads and
// --concurrency, printed as text, CSV or DESIGN.md's JSON contract.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cli/commands.h"
#include "cli/model_inputs.h"
#include "lib/bench/latency_plot.h"
#include "lib/bench/machine.h"
#include "lib/bench/measure.h"
#include "lib/core/error.h"
#include "lib/core/output_file.h"
#include "lib/runtime/interop_pool.h"
#include "lib/runtime/interpreter.h"
#include "lib/runtime/parallel_info.h"
#include "lib/runtime/threads.h"

namespace jitctl::cli {
namespace {

// "1,2,4" (also given as several values) -> {1, 2, 4}; "sweep" -> 1, 2, 4, ... up to the number
// of hardware threads, which is included.
std::vector<int> parse_counts(const std::vector<std::string>& given, const char* flag, bool allow_sweep) {
  std::vector<int> out;
  for (const auto& item : given) {
    std::stringstream ss(item);
    std::string tok;
    while (std::getline(ss, tok, ',')) {
      if (tok.empty()) continue;
      if (allow_sweep && tok == "sweep") {
        const int hw = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
        for (int t = 1; t < hw; t *= 2) out.push_back(t);
        out.push_back(hw);
        continue;
      }
      size_t used = 0;
      int v = 0;
      try {
        v = std::stoi(tok, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used != tok.size() || v < 1 || v > 4096)
        throw InvalidInput(fmt::format("{} {}: '{}' is not a positive thread count{}", flag, item, tok,
                                       allow_sweep ? " (or sweep)" : ""));
      out.push_back(v);
    }
  }
  std::vector<int> unique;
  for (int v : out)
    if (std::find(unique.begin(), unique.end(), v) == unique.end()) unique.push_back(v);
  return unique;
}

double round4(double v) { return std::round(v * 1e4) / 1e4; }

nlohmann::ordered_json to_json(const std::string& model, const std::vector<BenchRow>& rows, int warmup, int iters) {
  nlohmann::ordered_json j;
  j["model"] = model;
  j["machine"] = {{"cpu", cpu_model()},
                  {"hardware_concurrency", std::thread::hardware_concurrency()},
                  {"default_threads", default_num_threads()},
                  {"openmp", openmp_version()},
                  {"blas", blas_library()},
                  {"jitctl", JITCTL_VERSION}};
  j["warmup"] = warmup;
  j["iters"] = iters;
  j["rows"] = nlohmann::ordered_json::array();
  for (const auto& r : rows)
    j["rows"].push_back({{"intra_op_threads", r.setting.intra_op_threads},
                         {"inter_op_threads", r.setting.inter_op_threads},
                         {"concurrency", r.setting.concurrency},
                         {"latency_ms", {{"p50", round4(r.latency_ms.p50)}, {"p90", round4(r.latency_ms.p90)},
                                         {"p99", round4(r.latency_ms.p99)}, {"min", round4(r.latency_ms.min)},
                                         {"mean", round4(r.latency_ms.mean)}}},
                         {"throughput_per_s", round4(r.throughput_per_s)},
                         {"first_call_ms", round4(r.first_call_ms)}});
  return j;
}

}  // namespace

void add_bench_threads_command(CLI::App& app) {
  struct Args : ModelInputs {
    std::string format = "text", plot;
    std::vector<std::string> threads, interop, concurrency;
    int warmup = 3, iters = 20;
  };
  static Args a;
  auto* cmd = app.add_subcommand("bench-threads", "Measure latency and throughput across thread settings");
  cmd->alias("bench");
  add_model_input_options(*cmd, a);
  cmd->add_option("--threads", a.threads, "intra-op thread counts: 1,2,4 or sweep (default: as run)");
  cmd->add_option("--interop-threads", a.interop, "inter-op thread counts (default: as run)");
  cmd->add_option("--concurrency", a.concurrency, "numbers of concurrent callers (default 1)");
  cmd->add_option("--warmup", a.warmup, "untimed calls per caller before timing, the first included")
      ->check(CLI::NonNegativeNumber)->capture_default_str();
  cmd->add_option("--iters", a.iters, "timed calls per caller")->check(CLI::PositiveNumber)->capture_default_str();
  cmd->add_option("--format", a.format, "text, csv or json")->check(CLI::IsMember({"text", "csv", "json"}))->capture_default_str();
  cmd->add_option("--plot", a.plot, "also write an SVG of p50 latency against intra-op threads");
  cmd->callback([] {
    if (!a.plot.empty()) refuse_overwriting_inputs(a.plot, {a.model, a.inputs});
    init_threads(0, 0);
    std::vector<int> intra = parse_counts(a.threads, "--threads", true);
    std::vector<int> inter = parse_counts(a.interop, "--interop-threads", false);
    std::vector<int> conc = parse_counts(a.concurrency, "--concurrency", false);
    if (intra.empty()) intra.push_back(get_num_threads());
    if (inter.empty()) inter.push_back(get_num_interop_threads());
    if (conc.empty()) conc.push_back(1);

    const PreparedCall call = prepare_call(a);
    std::vector<BenchRow> rows;
    for (int io : inter)
      for (int c : conc)
        for (int t : intra) rows.push_back(measure(call.method, call.args, {t, io, c}, a.warmup, a.iters));

    if (a.format == "json") {
      fmt::print("{}\n", to_json(a.model, rows, a.warmup, a.iters).dump(1));
    } else if (a.format == "csv") {
      fmt::print("intra_op_threads,inter_op_threads,concurrency,p50_ms,p90_ms,p99_ms,min_ms,mean_ms,throughput_per_s,first_call_ms\n");
      for (const auto& r : rows)
        fmt::print("{},{},{},{:.4f},{:.4f},{:.4f},{:.4f},{:.4f},{:.2f},{:.4f}\n", r.setting.intra_op_threads,
                   r.setting.inter_op_threads, r.setting.concurrency, r.latency_ms.p50, r.latency_ms.p90, r.latency_ms.p99,
                   r.latency_ms.min, r.latency_ms.mean, r.throughput_per_s, r.first_call_ms);
    } else {
      fmt::print("{}  ({}, {} warm-up + {} timed calls per caller)\n", a.model, cpu_model(), a.warmup, a.iters);
      fmt::print("{:>7} {:>7} {:>7} {:>10} {:>10} {:>10} {:>10} {:>10} {:>11} {:>11}\n", "intra", "inter", "callers",
                 "p50 ms", "p90 ms", "p99 ms", "min ms", "mean ms", "calls/s", "first ms");
      for (const auto& r : rows)
        fmt::print("{:>7} {:>7} {:>7} {:>10.3f} {:>10.3f} {:>10.3f} {:>10.3f} {:>10.3f} {:>11.1f} {:>11.3f}\n",
                   r.setting.intra_op_threads, r.setting.inter_op_threads, r.setting.concurrency, r.latency_ms.p50,
                   r.latency_ms.p90, r.latency_ms.p99, r.latency_ms.min, r.latency_ms.mean, r.throughput_per_s,
                   r.first_call_ms);
    }
    if (!a.plot.empty()) write_file_atomically(a.plot, latency_plot_svg(a.model, rows));
  });
}

}  // namespace jitctl::cli
