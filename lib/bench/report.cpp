#include "lib/bench/report.h"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>

#include "lib/bench/machine_report.h"
#include "lib/bench/peak_memory.h"

namespace jitctl {
namespace {

double round4(double v) { return std::round(v * 1e4) / 1e4; }

std::string callers_word(int n) { return fmt::format("{} caller{}", n, n == 1 ? "" : "s"); }

double mib(int64_t bytes) { return static_cast<double>(bytes) / (1024.0 * 1024.0); }

std::string environment_summary(const MachineInfo& m) {
  if (m.environment.empty()) return "no OMP_/MKL_/GOMP_/KMP_/OPENBLAS_ variables set";
  std::string s;
  for (const auto& [k, v] : m.environment) s += (s.empty() ? "" : " ") + k + "=" + v;
  return s;
}

// 4 significant digits, plain up to a million: 0.09537, 62.29, 10092.
std::string plain(double v) {
  if (std::fabs(v) >= 1000 && std::fabs(v) < 1e6) return fmt::format("{:.0f}", v);
  return fmt::format("{:.4g}", v);
}

std::string pick_text(const char* what, const Pick& p, const std::vector<BenchRow>& rows, const char* unit, bool latency) {
  const BenchRow& best = rows[p.row];
  std::string s = fmt::format("recommended for {}: {}: {}{} {}", what, setting_label(best.setting), latency ? "p50 " : "",
                              plain(p.value), unit);
  if (!p.runner_up) return s + " (the only measured setting)\n";
  // Past a doubling a ratio reads better than a percentage.
  const double ratio = latency ? p.runner_up_value / p.value : p.value / p.runner_up_value;
  const std::string margin = ratio >= 2 ? fmt::format("{:.3g}x {}", ratio, latency ? "faster" : "higher")
                                        : fmt::format("{:.1f}% {}", p.margin_pct, latency ? "lower" : "higher");
  s += fmt::format(", {} than {} ({} {}); ", margin, setting_label(rows[*p.runner_up].setting), plain(p.runner_up_value), unit);
  const int rounds = std::min(best.rounds, rows[*p.runner_up].rounds);
  if (rounds < 3 && !rows[*p.runner_up].not_repeated.empty() && best.rounds >= 3)
    s += fmt::format("noise not judged: the runner-up ran round 1 only (more than {:g}x behind, not repeated)", kContenderFactor);
  else if (rounds < 3)
    s += fmt::format("noise not judged: {} round{} (3 needed)", rounds, rounds == 1 ? "" : "s");
  else
    s += p.beyond_noise ? fmt::format("beyond the round-to-round noise (p = {:.3g})", p.p_value)
                        : fmt::format("within the round-to-round noise (p = {:.3g}); either will do", p.p_value);
  return s + "\n";
}

nlohmann::ordered_json setting_json(const BenchSetting& s) {
  return {{"intra_op_threads", s.intra_op_threads}, {"inter_op_threads", s.inter_op_threads}, {"concurrency", s.concurrency}};
}

nlohmann::ordered_json pick_json(const Pick& p, const std::vector<BenchRow>& rows) {
  nlohmann::ordered_json j;
  j["row"] = p.row;
  j["setting"] = setting_json(rows[p.row].setting);
  j["value"] = round4(p.value);
  if (p.runner_up) {
    j["runner_up"] = {{"row", *p.runner_up}, {"setting", setting_json(rows[*p.runner_up].setting)},
                      {"value", round4(p.runner_up_value)}};
    j["margin_pct"] = round4(p.margin_pct);
  } else {
    j["runner_up"] = nullptr;
    j["margin_pct"] = nullptr;
  }
  j["p_value"] = round4(p.p_value);
  j["beyond_noise"] = p.beyond_noise;
  return j;
}

}  // namespace

std::string setting_label(const BenchSetting& s) {
  return fmt::format("--threads {} --interop-threads {}, {}", s.intra_op_threads, s.inter_op_threads, callers_word(s.concurrency));
}

std::string text_preamble(const std::string& model, const std::string& method, const SweepOptions& o,
                          const std::string& own_instances_because, double cold_first_call_ms) {
  const MachineInfo& m = machine_info();
  std::string s = fmt::format("{} ({})\n", model, method);
  s += fmt::format("machine: {}; {} core{} x {} thread{} per core ({} usable); {}; {}; {}\n", m.cpu, m.physical_cores,
                   m.physical_cores == 1 ? "" : "s", m.threads_per_core, m.threads_per_core == 1 ? "" : "s",
                   m.available_cpus, m.isa, m.openmp_runtime, environment_summary(m));
  const int rounds = std::clamp(o.rounds, 1, std::max(1, o.iters));
  s += fmt::format("method: {} round{} over the settings (interleaved, each setting warmed up again every round), "
                   "{} warm-up + {} timed calls per caller per setting in all",
                   rounds, rounds == 1 ? "" : "s", std::max(1, o.warmup) * rounds, o.iters);
  if (o.max_seconds > 0) s += fmt::format(", within --max-seconds {:g}", o.max_seconds);
  s += fmt::format("; first call after loading {:.3f} ms\n", cold_first_call_ms);
  if (!own_instances_because.empty())
    s += fmt::format("callers: one model instance each, because the method writes state: {}\n", own_instances_because);
  return s;
}

std::string text_header() {
  return fmt::format("{:>6} {:>6} {:>7} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>8} {:>9}\n", "intra", "inter",
                     "callers", "p50 ms", "p90 ms", "p99 ms", "min ms", "mean ms", "calls/s", "first ms", "spread", "peak MiB");
}

std::string text_row(const BenchRow& r, int cores) {
  const BenchSetting& st = r.setting;
  if (!r.measured)
    return fmt::format("{:>6} {:>6} {:>7}  skipped: {}\n", st.intra_op_threads, st.inter_op_threads, st.concurrency, r.skipped);
  std::string note;
  if (oversubscribes(st, cores)) note += fmt::format("  ! {} threads on {} cores", st.intra_op_threads * st.concurrency, cores);
  if (r.cut_short) note += "  (cut short by --max-seconds)";
  if (!r.not_repeated.empty()) note += "  (round 1 only)";
  const std::string spread = r.rounds >= 2 ? fmt::format("{:.1f}%", r.p50_spread_pct) : "-";  // one round: no spread
  return fmt::format("{:>6} {:>6} {:>7} {:>10.3f} {:>10.3f} {:>10.3f} {:>10.3f} {:>10.3f} {:>10.1f} {:>10.3f} {:>8} {:>9}{}\n",
                     st.intra_op_threads, st.inter_op_threads, st.concurrency, r.latency_ms.p50, r.latency_ms.p90,
                     r.latency_ms.p99, r.latency_ms.min, r.latency_ms.mean, r.throughput_per_s, r.first_call_ms, spread, r.peak_memory_bytes >= 0 ? fmt::format("{:.1f}", mib(r.peak_memory_bytes)) : "-", note);
}

std::string load_warning(double load, int cores) {
  if (load <= cores) return "";
  return fmt::format("warning: the load average ({:.1f}) exceeds the {} usable core{}: other processes compete for them, and "
                     "settings with more threads suffer most (a team waits for its slowest thread); measure on a quiet "
                     "machine before trusting the comparison",
                     load, cores, cores == 1 ? "" : "s");
}

std::string text_summary(const BenchReport& rep) {
  std::string s;
  if (rep.load_before >= 0)
    s += fmt::format("load average (1 min): {:.2f} before, {:.2f} after, on {} usable core{}\n", rep.load_before, rep.load_after,
                     rep.cores, rep.cores == 1 ? "" : "s");
  const auto& rows = rep.sweep.rows;
  if (!rep.sweep.stopped.empty())
    s += fmt::format("stopped after {} of {} rounds: {}\n", rep.sweep.rounds_run, rep.sweep.rounds_planned, rep.sweep.stopped);
  if (!rep.sweep.narrowed.empty()) s += rep.sweep.narrowed + "\n";
  s += fmt::format("spread: how far the per-round p50 moved between rounds ((max - min) / median); {:.1f} s in all\n",
                   rep.sweep.seconds);
  if (rep.recommendation.latency) s += pick_text("latency", *rep.recommendation.latency, rows, "ms", true);
  if (rep.recommendation.throughput)
    s += pick_text("throughput", *rep.recommendation.throughput, rows, "calls/s", false);
  if (!rep.recommendation.latency) s += "no setting was measured: nothing to recommend\n";
  return s;
}

std::string csv_header() {
  return "intra_op_threads,inter_op_threads,concurrency,p50_ms,p90_ms,p99_ms,min_ms,mean_ms,throughput_per_s,first_call_ms,"
         "rounds,timed_calls,p50_spread_pct,throughput_spread_pct,peak_memory_mib,oversubscribed,status\n";
}

std::string csv_row(const BenchRow& r, int cores) {
  const BenchSetting& st = r.setting;
  const bool over = oversubscribes(st, cores);
  if (!r.measured) return fmt::format("{},{},{},,,,,,,,0,0,,,,{},skipped\n", st.intra_op_threads, st.inter_op_threads, st.concurrency, over ? 1 : 0);
  const bool spread = r.rounds >= 2;
  return fmt::format("{},{},{},{:.4f},{:.4f},{:.4f},{:.4f},{:.4f},{:.2f},{:.4f},{},{},{},{},{},{},{}\n", st.intra_op_threads,
                     st.inter_op_threads, st.concurrency, r.latency_ms.p50, r.latency_ms.p90, r.latency_ms.p99, r.latency_ms.min,
                     r.latency_ms.mean, r.throughput_per_s, r.first_call_ms, r.rounds, r.timed_calls,
                     spread ? fmt::format("{:.2f}", r.p50_spread_pct) : "",
                     spread ? fmt::format("{:.2f}", r.throughput_spread_pct) : "", r.peak_memory_bytes >= 0 ? fmt::format("{:.1f}", mib(r.peak_memory_bytes)) : "",
                     over ? 1 : 0, r.cut_short ? "cut_short" : "measured");
}

std::string oversubscription_warning(const std::vector<BenchRow>& rows, int cores) {
  const std::vector<size_t> over = oversubscribed_rows(rows, cores);
  if (over.empty()) return "";
  std::string s = fmt::format("warning: intra-op threads x callers exceed the {} core{} in {} of {} settings (oversubscribed, "
                              "threads wait for cores):",
                              cores, cores == 1 ? "" : "s", over.size(), rows.size());
  for (size_t k = 0; k < over.size(); ++k)
    s += fmt::format("{} {} ({} threads)", k ? ";" : "", setting_label(rows[over[k]].setting),
                     rows[over[k]].setting.intra_op_threads * rows[over[k]].setting.concurrency);
  return s;
}

nlohmann::ordered_json report_json(const BenchReport& rep) {
  nlohmann::ordered_json j;
  j["model"] = rep.model;
  j["machine"] = machine_json(machine_info());
  j["method"] = rep.method;
  j["warmup"] = rep.options.warmup;
  j["iters"] = rep.options.iters;
  j["rounds"] = rep.sweep.rounds_planned;
  j["rounds_run"] = rep.sweep.rounds_run;
  j["max_seconds"] = rep.options.max_seconds > 0 ? nlohmann::ordered_json(rep.options.max_seconds) : nlohmann::ordered_json(nullptr);
  j["stopped"] = rep.sweep.stopped.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(rep.sweep.stopped);
  j["narrowed"] = rep.sweep.narrowed.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(rep.sweep.narrowed);
  j["seconds"] = round4(rep.sweep.seconds);
  j["usable_cores"] = rep.cores;
  j["callers_share_model"] = rep.own_instances_because.empty();
  j["own_instances_because"] = rep.own_instances_because.empty() ? nlohmann::ordered_json(nullptr)
                                                                 : nlohmann::ordered_json(rep.own_instances_because);
  j["cold_first_call_ms"] = round4(rep.cold_first_call_ms);
  j["load_average"] = {{"before", rep.load_before}, {"after", rep.load_after}};
  j["peak_memory_per_setting"] = peak_memory_is_per_setting();
  j["rows"] = nlohmann::ordered_json::array();
  for (const auto& r : rep.sweep.rows) {
    nlohmann::ordered_json row = setting_json(r.setting);
    auto num_or_null = [&](double v) { return r.measured ? nlohmann::ordered_json(round4(v)) : nlohmann::ordered_json(nullptr); };
    row["latency_ms"] = {{"p50", num_or_null(r.latency_ms.p50)}, {"p90", num_or_null(r.latency_ms.p90)},
                         {"p99", num_or_null(r.latency_ms.p99)}, {"min", num_or_null(r.latency_ms.min)},
                         {"mean", num_or_null(r.latency_ms.mean)}};
    row["throughput_per_s"] = num_or_null(r.throughput_per_s);
    row["first_call_ms"] = num_or_null(r.first_call_ms);
    row["status"] = r.measured ? (r.cut_short ? "cut_short" : "measured") : "skipped";
    row["skipped_reason"] = r.measured ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(r.skipped);
    row["not_repeated"] = r.not_repeated.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(r.not_repeated);
    row["rounds"] = r.rounds;
    row["timed_calls"] = r.timed_calls;
    nlohmann::ordered_json p50s = nlohmann::ordered_json::array(), tps = nlohmann::ordered_json::array();
    for (double v : r.round_p50_ms) p50s.push_back(round4(v));
    for (double v : r.round_throughput_per_s) tps.push_back(round4(v));
    row["round_p50_ms"] = p50s;
    row["round_throughput_per_s"] = tps;
    auto spread = [&](double v) { return r.rounds >= 2 ? nlohmann::ordered_json(round4(v)) : nlohmann::ordered_json(nullptr); };
    row["spread_pct"] = {{"p50", spread(r.p50_spread_pct)}, {"throughput", spread(r.throughput_spread_pct)}};
    row["peak_memory_mib"] = r.peak_memory_bytes >= 0 ? nlohmann::ordered_json(round4(mib(r.peak_memory_bytes)))
                                                      : nlohmann::ordered_json(nullptr);
    row["threads_total"] = r.setting.intra_op_threads * r.setting.concurrency;
    row["oversubscribed"] = oversubscribes(r.setting, rep.cores);
    j["rows"].push_back(std::move(row));
  }
  nlohmann::ordered_json rec = nlohmann::ordered_json::object();
  rec["latency"] = rep.recommendation.latency ? pick_json(*rep.recommendation.latency, rep.sweep.rows) : nlohmann::ordered_json(nullptr);
  rec["throughput"] =
      rep.recommendation.throughput ? pick_json(*rep.recommendation.throughput, rep.sweep.rows) : nlohmann::ordered_json(nullptr);
  rec["noise_test"] = fmt::format("one-sided exact permutation test on per-round values, beyond the noise when p <= {}", kNoiseAlpha);
  j["recommendation"] = rec;
  j["oversubscribed_rows"] = oversubscribed_rows(rep.sweep.rows, rep.cores);
  nlohmann::ordered_json warnings = nlohmann::ordered_json::array();
  if (std::string w = oversubscription_warning(rep.sweep.rows, rep.cores); !w.empty()) warnings.push_back(w);
  if (std::string w = load_warning(std::max(rep.load_before, rep.load_after), rep.cores); !w.empty()) warnings.push_back(w);
  j["warnings"] = warnings;
  return j;
}

}  // namespace jitctl
