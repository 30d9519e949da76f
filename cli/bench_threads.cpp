// jitctl bench-threads M ...: latency and throughput across thread settings, one row per
// combination of --interop-threads, --concurrency and --threads, measured over interleaved rounds
// (lib/bench/sweep.h), printed as text, CSV or DESIGN.md's JSON contract (lib/bench/report.h),
// with a recommendation (lib/bench/recommend.h) and an optional SVG plot.
// jitctl bench-threads --op mm|conv --size N: the same sweep over one kernel, in GFLOP/s.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/device_options.h"
#include "cli/limit_options.h"
#include "cli/model_inputs.h"
#include "lib/bench/callers.h"
#include "lib/bench/device_bench.h"
#include "lib/bench/machine.h"
#include "lib/bench/op_sweep.h"
#include "lib/bench/recommend.h"
#include "lib/bench/report.h"
#include "lib/bench/sweep.h"
#include "lib/bench/sweep_plot.h"
#include "lib/core/error.h"
#include "lib/core/output_file.h"
#include "lib/runtime/interop_pool.h"
#include "lib/runtime/threads.h"

namespace jitctl::cli {
namespace {

// "1,2,4" (also given as several values) -> {1, 2, 4}, first occurrence kept; "sweep" (--threads
// only) -> sweep_thread_counts(usable cores).
std::vector<int> parse_counts(const std::vector<std::string>& given, const char* flag, bool allow_sweep) {
  std::vector<int> out;
  for (const auto& item : given) {
    std::stringstream ss(item);
    std::string tok;
    while (std::getline(ss, tok, ',')) {
      if (tok.empty()) continue;
      if (allow_sweep && tok == "sweep") {
        for (int t : sweep_thread_counts(usable_cores())) out.push_back(t);
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
        throw InvalidInput(fmt::format("{} {}: '{}' is not a count from 1 to 4096{}", flag, item, tok,
                                       allow_sweep ? " (or sweep)" : ""));
      out.push_back(v);
    }
  }
  std::vector<int> unique;
  for (int v : out)
    if (std::find(unique.begin(), unique.end(), v) == unique.end()) unique.push_back(v);
  return unique;
}

// The live progress line: on stderr, only when it is a terminal, erased before a row is printed.
class Progress {
 public:
  Progress() : on_(::isatty(STDERR_FILENO) == 1) {}
  void show(const SweepProgress& p) {
    if (!on_) return;
    std::string budget = p.budget_s > 0 ? fmt::format(" of {:g}", p.budget_s) : "";
    fmt::print(stderr, "\r\x1b[K[{}/{}] round {}/{}: {}  ({:.1f}{} s)", p.unit + 1, p.units, p.round, p.rounds,
               setting_label(p.setting), p.elapsed_s, budget);
    std::fflush(stderr);
    shown_ = true;
  }
  void clear() {
    if (!shown_) return;
    fmt::print(stderr, "\r\x1b[K");
    std::fflush(stderr);
    shown_ = false;
  }

 private:
  bool on_, shown_ = false;
};

}  // namespace

void add_bench_threads_command(CLI::App& app) {
  struct Args : ModelInputs {
    std::string format = "text", plot, op;
    DeviceOptions device;
    bool no_graphs = false;
    std::vector<std::string> threads, interop, concurrency;
    int warmup = 3, iters = 20, rounds = 3;
    int64_t size = 0;
    double max_seconds = 0;
    LimitOptions limits;
  };
  static Args a;
  auto* cmd = app.add_subcommand("bench-threads", "Measure latency and throughput across thread settings and recommend one");
  cmd->alias("bench");
  add_model_input_options(*cmd, a, false);
  cmd->add_option("--threads", a.threads, "intra-op thread counts: 1,2,4 or sweep (1, 2, 4, ... one step past the cores; default: as run)");
  cmd->add_option("--interop-threads", a.interop, "inter-op thread counts (default: as run)");
  cmd->add_option("--concurrency", a.concurrency, "numbers of application threads calling the model at once (default 1)");
  cmd->add_option("--warmup", a.warmup, "untimed calls per caller per setting and round, the first one timed as first_call_ms")
      ->check(CLI::NonNegativeNumber)->capture_default_str();
  cmd->add_option("--iters", a.iters, "timed calls per caller per setting, split over the rounds")
      ->check(CLI::PositiveNumber)->capture_default_str();
  cmd->add_option("--rounds", a.rounds, "rounds over all settings, interleaved (1 to 10; 3 or more to judge noise)")
      ->check(CLI::Range(1, 10))->capture_default_str();
  cmd->add_option("--max-seconds", a.max_seconds, "time budget for the whole sweep; settings that do not fit are reported as skipped")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--format", a.format, "text, csv or json")->check(CLI::IsMember({"text", "csv", "json"}))->capture_default_str();
  cmd->add_option("--plot", a.plot, "also write an SVG (F.svg) of latency and throughput against intra-op threads");
  cmd->add_option("--op", a.op, "sweep one kernel instead of a model: mm or conv")->check(CLI::IsMember({"mm", "conv"}));
  cmd->add_option("--size", a.size, "--op size: N for N x N matrices (mm) or N x N images (conv)");
  add_device_options(*cmd, a.device);
  cmd->add_flag("--no-graphs", a.no_graphs, "with --device cuda: launch every kernel on every call instead of replaying a captured CUDA graph");
  add_limit_options(*cmd, a.limits);
  cmd->callback([] {
    resolve_model_and_specs(a);
    const RunLimitsScope limits(run_limits(a.limits, a.model.empty() ? "--op " + a.op : a.model));
    const bool op_mode = !a.op.empty();
    if (a.device.on_cuda()) {
      if (op_mode) throw InvalidInput("--op: sweeps the CPU's kernels; not with --device cuda");
      if (a.model.empty()) throw InvalidInput("bench-threads: give a model M");
      if (!a.threads.empty() || !a.interop.empty() || !a.concurrency.empty() || !a.plot.empty())
        throw InvalidInput("--device cuda times one caller on the GPU: --threads, --interop-threads, --concurrency and --plot are for the CPU");
      if (a.format == "csv") throw InvalidInput("--device cuda: --format text or json");
      select_device(a.device);  // before the method is planned
      const PreparedCall call = prepare_call(a);
      const DeviceBenchResult r = bench_on_device(call.method, call.args,
                                                  {.warmup = a.warmup, .iters = a.iters, .rounds = a.rounds, .graphs = !a.no_graphs, .tf32 = a.device.tf32});
      if (a.format == "json") fmt::print("{}\n", device_bench_json(a.model, a.method, r).dump(1));
      else fmt::print("{}", device_bench_text(a.model, r));
      return;
    }
    if (a.no_graphs) throw InvalidInput("--no-graphs: only with --device cuda");
    if (op_mode && !a.model.empty())
      throw InvalidInput(fmt::format("bench-threads: give a model ({}) or --op {}, not both", a.model, a.op));
    if (!op_mode && a.model.empty()) throw InvalidInput("bench-threads: give a model M, or --op mm|conv --size N");
    if (op_mode && a.size <= 0) throw InvalidInput(fmt::format("--op {}: give --size N (a positive size)", a.op));
    if (!op_mode && a.size != 0) throw InvalidInput("--size: only with --op mm|conv");
    if (!a.plot.empty()) {
      check_output_path(a.plot, {a.model, a.inputs}, false, "--plot", /*forcible=*/false);
      check_plot_target(a.plot, {a.model, a.inputs});
    }

    init_threads(0, 0);
    std::vector<int> intra = parse_counts(a.threads, "--threads", true);
    std::vector<int> inter = parse_counts(a.interop, "--interop-threads", false);
    std::vector<int> conc = parse_counts(a.concurrency, "--concurrency", false);
    if (intra.empty()) intra.push_back(get_num_threads());
    if (inter.empty()) inter.push_back(get_num_interop_threads());
    if (conc.empty()) conc.push_back(1);
    const size_t max_callers = static_cast<size_t>(*std::max_element(conc.begin(), conc.end()));
    const int cores = usable_cores();

    SweepOptions opt;
    opt.warmup = a.warmup;
    opt.iters = a.iters;
    opt.rounds = a.rounds;
    opt.max_seconds = a.max_seconds;
    Progress progress;
    SweepEvents events;
    events.progress = [&](const SweepProgress& p) { progress.show(p); };

    if (op_mode) {
      const OpBench bench = make_op_bench(a.op, a.size, max_callers);
      const double peak = fma_peak_gflops_per_core();
      const int physical = machine_info().physical_cores;
      if (a.format == "text") fmt::print("{}", op_text_header(bench, peak));
      if (a.format == "csv") fmt::print("{}", op_csv_header());
      std::fflush(stdout);
      events.row_final = [&](size_t, const BenchRow& r) {
        progress.clear();
        const OpRow o = op_row(bench, r, peak, physical);
        if (a.format == "text") fmt::print("{}", op_text_row(o, cores));
        if (a.format == "csv") fmt::print("{}", op_csv_row(o));
        std::fflush(stdout);
      };
      const SweepResult res = run_sweep(all_settings(intra, {inter.front()}, conc), bench.call, opt, events);
      progress.clear();
      if (a.format == "json") fmt::print("{}\n", op_report_json(bench, opt, res, peak).dump(1));
      if (a.format == "text" && !res.stopped.empty())
        fmt::print("stopped after {} of {} rounds: {}\n", res.rounds_run, res.rounds_planned, res.stopped);
      if (a.format == "text" && !res.narrowed.empty()) fmt::print("{}\n", res.narrowed);
      if (std::string w = oversubscription_warning(res.rows, cores); !w.empty()) fmt::print(stderr, "{}\n", w);
      if (std::string w = load_warning(load_average_1min(), cores); !w.empty()) fmt::print(stderr, "{}\n", w);
      if (!a.plot.empty())
        write_file_atomically(a.plot, sweep_plot_svg({fmt::format("--op {} --size {}", a.op, a.size), machine_info().cpu, cores},
                                                     res.rows, recommend(res.rows)));
      return;
    }

    const PreparedCall call = prepare_call(a);
    // The very first call, with the first setting's threads: it maps the weights and starts the
    // OpenMP team, so it is reported apart from every row's first call and gives the sweep its
    // first time estimate.
    set_num_threads(intra.front());
    set_num_interop_threads(inter.front());
    const auto t0 = std::chrono::steady_clock::now();
    call.method(call.args);
    const double cold_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    opt.first_call_estimate_s = cold_ms / 1000.0;

    const Callers callers = make_callers(a.model, a.method, call.method, call.args, max_callers);
    for (size_t c = 1; c < callers.size(); ++c)
      if (!callers.own_instances_because.empty()) callers.call(c);  // map each instance's weights before timing

    if (a.format == "text") fmt::print("{}{}", text_preamble(a.model, a.method, opt, callers.own_instances_because, cold_ms), text_header());
    if (a.format == "csv") fmt::print("{}", csv_header());
    std::fflush(stdout);
    events.row_final = [&](size_t, const BenchRow& r) {
      progress.clear();
      if (a.format == "text") fmt::print("{}", text_row(r, cores));
      if (a.format == "csv") fmt::print("{}", csv_row(r, cores));
      std::fflush(stdout);
    };
    BenchReport rep;
    rep.model = a.model;
    rep.method = a.method;
    rep.options = opt;
    rep.cores = cores;
    rep.own_instances_because = callers.own_instances_because;
    rep.cold_first_call_ms = cold_ms;
    rep.load_before = load_average_1min();
    rep.sweep = run_sweep(all_settings(intra, inter, conc), [&](size_t c) { callers.call(c); }, opt, events);
    progress.clear();
    rep.load_after = load_average_1min();
    rep.recommendation = recommend(rep.sweep.rows);

    const nlohmann::ordered_json report = report_json(rep);
    if (a.format == "json") fmt::print("{}\n", report.dump(1));
    if (a.format == "text") fmt::print("{}", text_summary(rep));
    std::fflush(stdout);
    for (const auto& w : report.at("warnings")) fmt::print(stderr, "{}\n", w.get<std::string>());
    if (!a.plot.empty())
      write_file_atomically(a.plot, sweep_plot_svg({a.model, machine_info().cpu, cores}, rep.sweep.rows, rep.recommendation));
  });
}

}  // namespace jitctl::cli
