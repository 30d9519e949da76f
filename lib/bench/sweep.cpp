#include "lib/bench/sweep.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

namespace jitctl {
namespace {

double seconds_between(BenchClock::time_point a, BenchClock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

}  // namespace

std::vector<BenchSetting> all_settings(const std::vector<int>& intra, const std::vector<int>& inter,
                                       const std::vector<int>& concurrency) {
  std::vector<BenchSetting> out;
  for (int io : inter)
    for (int c : concurrency)
      for (int t : intra) out.push_back({t, io, c});
  return out;
}

std::vector<int> sweep_thread_counts(int cores) {
  cores = std::max(1, cores);
  std::vector<int> out;
  int p = 1;
  for (; p < cores; p *= 2) out.push_back(p);
  out.push_back(cores);
  out.push_back(p > cores ? p : cores * 2);
  return out;
}

SweepResult run_sweep(const std::vector<BenchSetting>& settings, const CallFn& call, const SweepOptions& opt,
                      const SweepEvents& events) {
  const auto start = BenchClock::now();
  const bool budgeted = opt.max_seconds > 0;
  const auto deadline = budgeted ? start + std::chrono::duration_cast<BenchClock::duration>(
                                               std::chrono::duration<double>(opt.max_seconds))
                                 : BenchClock::time_point::max();
  const size_t n = settings.size();
  const int iters = std::max(1, opt.iters);
  const int rounds = std::clamp(opt.rounds, 1, iters);
  const int warm_calls = std::max(1, opt.warmup);
  auto iters_in = [&](int r) { return iters / rounds + (r < iters % rounds ? 1 : 0); };

  SweepResult res;
  res.rounds_planned = rounds;
  res.rows.resize(n);
  for (size_t i = 0; i < n; ++i) res.rows[i].setting = settings[i];
  std::vector<std::vector<double>> pooled(n);
  std::vector<double> timed_wall_ms(n, 0), round1_seconds(n, 0);
  std::vector<bool> final(n, false);
  size_t next_to_report = 0;

  auto finish = [&](size_t i) {
    BenchRow& row = res.rows[i];
    if (row.measured) {
      row.timed_calls = pooled[i].size();
      row.latency_ms = summarize_latencies(pooled[i]);
      row.throughput_per_s = timed_wall_ms[i] > 0 ? static_cast<double>(pooled[i].size()) / (timed_wall_ms[i] / 1000.0) : 0;
      row.p50_spread_pct = spread_pct(row.round_p50_ms);
      row.throughput_spread_pct = spread_pct(row.round_throughput_per_s);
    }
    final[i] = true;
    while (next_to_report < n && final[next_to_report]) {
      if (events.row_final) events.row_final(next_to_report, res.rows[next_to_report]);
      ++next_to_report;
    }
  };
  auto left_s = [&] { return seconds_between(BenchClock::now(), deadline); };

  // Wall time of one call per caller, the slowest seen: what round-1 estimates go by.
  double slowest_call_s = opt.first_call_estimate_s;
  size_t unit = 0;
  const size_t units = n * static_cast<size_t>(rounds);
  for (int r = 0; r < rounds; ++r) {
    if (r > 0) {
      double estimate = 0;
      bool any = false;
      for (size_t i = 0; i < n; ++i)
        if (res.rows[i].measured) {
          estimate += round1_seconds[i];
          any = true;
        }
      if (!any) break;
      if (budgeted && estimate * 1.1 > left_s()) {
        res.stopped = fmt::format("round {} of {} would take about {:.1f} s and {:.1f} s of --max-seconds {:g} were left",
                                  r + 1, rounds, estimate, std::max(0.0, left_s()), opt.max_seconds);
        break;
      }
    }
    // The last round runs in the listed order, the ones before alternate.
    const bool forward = (rounds - 1 - r) % 2 == 0;
    std::vector<size_t> order(n);
    std::iota(order.begin(), order.end(), size_t{0});
    if (!forward) std::reverse(order.begin(), order.end());
    bool ran = false;
    for (size_t i : order) {
      BenchRow& row = res.rows[i];
      if (r > 0 && !row.measured) continue;
      const int it = iters_in(r);
      const double estimate = slowest_call_s * (warm_calls + it);
      if (r == 0 && budgeted && (left_s() <= 0 || estimate > left_s())) {
        row.skipped = left_s() <= 0 ? fmt::format("not started: --max-seconds {:g} used up", opt.max_seconds)
                                    : fmt::format("not started: would take about {:.1f} s, {:.1f} s of --max-seconds {:g} left",
                                                  estimate, left_s(), opt.max_seconds);
        ++unit;
        finish(i);
        continue;
      }
      if (r > 0 && budgeted && left_s() <= 0) break;  // rows keep the rounds they have
      if (events.progress)
        events.progress({unit, units, r + 1, rounds, row.setting, seconds_between(start, BenchClock::now()), opt.max_seconds});
      ++unit;
      const RoundResult rr = measure_round(call, row.setting, opt.warmup, it, deadline);
      ran = true;
      row.seconds += rr.seconds;
      slowest_call_s = std::max(slowest_call_s, rr.seconds / (warm_calls + it));
      if (rr.cut_short) row.cut_short = true;
      if (rr.latencies_ms.empty()) {
        if (r == 0) {
          row.skipped = fmt::format("cut off by --max-seconds {:g} before its first timed call", opt.max_seconds);
          finish(i);
        }
        continue;
      }
      if (r == 0) {
        row.measured = true;
        row.first_call_ms = rr.first_call_ms;
        round1_seconds[i] = rr.seconds;
      }
      ++row.rounds;
      std::vector<double> sorted = rr.latencies_ms;
      std::sort(sorted.begin(), sorted.end());
      row.round_p50_ms.push_back(percentile(sorted, 50));
      row.round_throughput_per_s.push_back(rr.throughput_per_s);
      row.peak_memory_bytes = std::max(row.peak_memory_bytes, rr.peak_memory_bytes);
      pooled[i].insert(pooled[i].end(), rr.latencies_ms.begin(), rr.latencies_ms.end());
      timed_wall_ms[i] += rr.wall_ms;
      if (r == rounds - 1) finish(i);
    }
    if (ran) res.rounds_run = r + 1;
    if (budgeted && left_s() <= 0 && r + 1 < rounds && res.stopped.empty())
      res.stopped = fmt::format("--max-seconds {:g} ran out in round {} of {}", opt.max_seconds, r + 1, rounds);
    if (!res.stopped.empty()) break;
  }
  for (size_t i = 0; i < n; ++i)
    if (!final[i]) finish(i);
  res.seconds = seconds_between(start, BenchClock::now());
  return res;
}

}  // namespace jitctl
