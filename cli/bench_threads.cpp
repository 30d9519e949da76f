// jitctl bench-threads M ...: latency and throughput across thread settings, the C++ side of the
// torch.set_num_threads sweep in shared/reference/cpu_threading.txt. One row per combination of
// --interop-threads, --threads and --concurrency:
//   first_call_ms  the first call after the row's settings took effect (the first row's includes
//                  loading weights lazily and starting OpenMP's threads; compiling is done before)
//   latency_ms     p50/p90/p99/min/mean over the --iters timed calls of every caller
//   throughput_per_s  calls finished per second of wall time, all callers together
// Each of the --concurrency callers is its own thread running the same compiled method, as
// several inference threads share one model in a server.
#include <fmt/format.h>

#include <algorithm>
#include <barrier>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cli/commands.h"
#include "cli/model_inputs.h"
#include "lib/core/error.h"
#include "lib/core/output_file.h"
#include "lib/runtime/interop_pool.h"
#include "lib/runtime/interpreter.h"
#include "lib/runtime/parallel_info.h"
#include "lib/runtime/threads.h"

namespace jitctl::cli {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

struct Row {
  int intra = 0, inter = 0, concurrency = 1;
  double first_call_ms = 0, p50 = 0, p90 = 0, p99 = 0, min = 0, mean = 0, throughput = 0;
};

// Linear interpolation between order statistics (numpy's default; p50 is the median).
double percentile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  const double pos = p / 100.0 * static_cast<double>(sorted.size() - 1);
  const size_t lo = static_cast<size_t>(pos);
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - static_cast<double>(lo));
}

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

Row measure(const Method& m, const std::vector<IValue>& args, int intra, int inter, int concurrency, int warmup, int iters) {
  set_num_interop_threads(inter);
  set_num_threads(intra);
  Row row{intra, inter, concurrency};
  const size_t n = static_cast<size_t>(concurrency);
  std::vector<std::vector<double>> lat(n);
  std::vector<double> first(n);
  std::vector<std::exception_ptr> errors(n);
  std::vector<Clock::time_point> began(n), ended(n);
  // Callers warm up, then all start their timed calls together. The timed phase's wall time, from
  // the first caller's start to the last one's end, gives the throughput; the callers stamp it
  // themselves (a separate timing thread could wake late on a busy machine and miss the work).
  std::barrier warmed(concurrency);
  auto warm = [&](size_t c) {
    try {
      const auto t0 = Clock::now();
      m(args);
      first[c] = ms_since(t0);
      for (int i = 1; i < warmup; ++i) m(args);
    } catch (...) {
      errors[c] = std::current_exception();
    }
  };
  auto timed = [&](size_t c) {
    began[c] = Clock::now();
    if (!errors[c]) {
      try {
        lat[c].reserve(static_cast<size_t>(iters));
        for (int i = 0; i < iters; ++i) {
          const auto t0 = Clock::now();
          m(args);
          lat[c].push_back(ms_since(t0));
        }
      } catch (...) {
        errors[c] = std::current_exception();
      }
    }
    ended[c] = Clock::now();
  };
  if (concurrency == 1) {  // on this thread, as `m(*inputs)` in a Python loop
    warm(0);
    timed(0);
  } else {
    std::vector<std::thread> callers;
    for (size_t c = 0; c < n; ++c)
      callers.emplace_back([&, c] {
        apply_num_threads_here();  // OpenMP's thread count is per thread
        warm(c);
        warmed.arrive_and_wait();
        timed(c);
      });
    for (auto& t : callers) t.join();
  }
  const double wall_ms =
      std::chrono::duration<double, std::milli>(*std::max_element(ended.begin(), ended.end()) -
                                                *std::min_element(began.begin(), began.end()))
          .count();
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);

  std::vector<double> all;
  for (const auto& l : lat) all.insert(all.end(), l.begin(), l.end());
  std::sort(all.begin(), all.end());
  row.first_call_ms = *std::max_element(first.begin(), first.end());
  row.p50 = percentile(all, 50);
  row.p90 = percentile(all, 90);
  row.p99 = percentile(all, 99);
  row.min = all.empty() ? 0 : all.front();
  double sum = 0;
  for (double v : all) sum += v;
  row.mean = all.empty() ? 0 : sum / static_cast<double>(all.size());
  row.throughput = wall_ms > 0 ? static_cast<double>(all.size()) / (wall_ms / 1000.0) : 0;
  return row;
}

std::string cpu_model() {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("model name", 0) == 0) {
      const size_t colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
    }
  return "unknown";
}

double round4(double v) { return std::round(v * 1e4) / 1e4; }

nlohmann::ordered_json to_json(const std::string& model, const std::vector<Row>& rows, int warmup, int iters) {
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
    j["rows"].push_back({{"intra_op_threads", r.intra},
                         {"inter_op_threads", r.inter},
                         {"concurrency", r.concurrency},
                         {"latency_ms", {{"p50", round4(r.p50)}, {"p90", round4(r.p90)}, {"p99", round4(r.p99)},
                                         {"min", round4(r.min)}, {"mean", round4(r.mean)}}},
                         {"throughput_per_s", round4(r.throughput)},
                         {"first_call_ms", round4(r.first_call_ms)}});
  return j;
}

// Latency (p50) against intra-op threads, one line per (inter-op, concurrency) pair.
std::string svg_plot(const std::string& model, const std::vector<Row>& rows) {
  const double W = 640, H = 400, L = 70, R = 170, T = 40, B = 50;
  int max_t = 1;
  double max_ms = 0;
  for (const auto& r : rows) {
    max_t = std::max(max_t, r.intra);
    max_ms = std::max(max_ms, r.p50);
  }
  if (max_ms <= 0) max_ms = 1;
  auto x = [&](int t) { return L + (max_t == 1 ? 0.5 : (t - 1.0) / (max_t - 1.0)) * (W - L - R); };
  auto y = [&](double ms) { return H - B - ms / (max_ms * 1.1) * (H - T - B); };
  std::string s = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" font-family=\"sans-serif\" font-size=\"12\">\n"
      "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      "<text x=\"{}\" y=\"20\" font-size=\"14\">p50 latency vs intra-op threads: {}</text>\n"
      "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"black\"/>\n"
      "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"black\"/>\n"
      "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">intra-op threads</text>\n"
      "<text x=\"15\" y=\"{}\" transform=\"rotate(-90 15 {})\" text-anchor=\"middle\">ms</text>\n",
      W, H, L, std::filesystem::path(model).filename().string(), L, H - B, W - R, H - B, L, T, L, H - B, (L + W - R) / 2,
      H - 10, (T + H - B) / 2, (T + H - B) / 2);
  for (int t = 1; t <= max_t; t = (t == max_t ? t + 1 : std::min(max_t, t * 2)))
    s += fmt::format("<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", x(t), H - B + 16, t);
  for (int i = 0; i <= 4; ++i) {
    const double ms = max_ms * 1.1 * i / 4;
    s += fmt::format("<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{:.3g}</text>\n", L - 6, y(ms) + 4, ms);
  }
  static const char* colors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b"};
  std::vector<std::pair<int, int>> series;
  for (const auto& r : rows)
    if (std::find(series.begin(), series.end(), std::make_pair(r.inter, r.concurrency)) == series.end())
      series.emplace_back(r.inter, r.concurrency);
  for (size_t k = 0; k < series.size(); ++k) {
    std::vector<Row> pts;
    for (const auto& r : rows)
      if (std::make_pair(r.inter, r.concurrency) == series[k]) pts.push_back(r);
    std::sort(pts.begin(), pts.end(), [](const Row& a, const Row& b) { return a.intra < b.intra; });
    const char* c = colors[k % 6];
    std::string poly;
    for (const auto& p : pts) {
      poly += fmt::format("{:.1f},{:.1f} ", x(p.intra), y(p.p50));
      s += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3\" fill=\"{}\"/>\n", x(p.intra), y(p.p50), c);
    }
    s += fmt::format("<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"/>\n", poly, c);
    s += fmt::format("<text x=\"{}\" y=\"{}\" fill=\"{}\">inter-op {}, callers {}</text>\n", W - R + 10,
                     T + 16 * static_cast<double>(k), c, series[k].first, series[k].second);
  }
  s += "</svg>\n";
  return s;
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
    std::vector<Row> rows;
    for (int io : inter)
      for (int c : conc)
        for (int t : intra) rows.push_back(measure(call.method, call.args, t, io, c, a.warmup, a.iters));

    if (a.format == "json") {
      fmt::print("{}\n", to_json(a.model, rows, a.warmup, a.iters).dump(1));
    } else if (a.format == "csv") {
      fmt::print("intra_op_threads,inter_op_threads,concurrency,p50_ms,p90_ms,p99_ms,min_ms,mean_ms,throughput_per_s,first_call_ms\n");
      for (const auto& r : rows)
        fmt::print("{},{},{},{:.4f},{:.4f},{:.4f},{:.4f},{:.4f},{:.2f},{:.4f}\n", r.intra, r.inter, r.concurrency, r.p50,
                   r.p90, r.p99, r.min, r.mean, r.throughput, r.first_call_ms);
    } else {
      fmt::print("{}  ({}, {} warm-up + {} timed calls per caller)\n", a.model, cpu_model(), a.warmup, a.iters);
      fmt::print("{:>7} {:>7} {:>7} {:>10} {:>10} {:>10} {:>10} {:>10} {:>11} {:>11}\n", "intra", "inter", "callers",
                 "p50 ms", "p90 ms", "p99 ms", "min ms", "mean ms", "calls/s", "first ms");
      for (const auto& r : rows)
        fmt::print("{:>7} {:>7} {:>7} {:>10.3f} {:>10.3f} {:>10.3f} {:>10.3f} {:>10.3f} {:>11.1f} {:>11.3f}\n", r.intra,
                   r.inter, r.concurrency, r.p50, r.p90, r.p99, r.min, r.mean, r.throughput, r.first_call_ms);
    }
    if (!a.plot.empty()) write_file_atomically(a.plot, svg_plot(a.model, rows));
  });
}

}  // namespace jitctl::cli
