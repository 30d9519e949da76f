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

  // Wall time of one call per caller: round 1 goes by the slowest measured so far (before any, the
  // caller's estimate), later rounds by the setting's own round 1.
  double slowest_call_s = 0;
  std::vector<double> own_call_s(n, 0);
  auto predicted_call_s = [&] { return slowest_call_s > 0 ? slowest_call_s : opt.first_call_estimate_s; };
  constexpr double kEstimateMargin = 1.1;  // rounds take a little longer than round 1 said
  // Measured rows still in the running after round 1: near the best p50 or the best throughput.
  auto contenders = [&] {
    double best_p50 = 0, best_tp = 0;
    bool any = false;
    for (size_t i = 0; i < n; ++i) {
      if (!res.rows[i].measured) continue;
      const double p = res.rows[i].round_p50_ms.front(), t = res.rows[i].round_throughput_per_s.front();
      best_p50 = any ? std::min(best_p50, p) : p;
      best_tp = std::max(best_tp, t);
      any = true;
    }
    std::vector<bool> c(n, false);
    for (size_t i = 0; i < n; ++i)
      c[i] = res.rows[i].measured && (res.rows[i].round_p50_ms.front() <= kContenderFactor * best_p50 ||
                                      res.rows[i].round_throughput_per_s.front() * kContenderFactor >= best_tp);
    return c;
  };
  // What the later rounds of the contenders so far would take: round 1 keeps it back.
  auto reserve_s = [&] {
    const std::vector<bool> c = contenders();
    double s = 0;
    for (size_t i = 0; i < n; ++i)
      if (c[i]) s += round1_seconds[i];
    return s * static_cast<double>(rounds - 1) * kEstimateMargin;
  };
  // Cheapest first: fewest threads x callers (then the listed order). The settings most likely to
  // be recommended are measured before the oversubscribed ones, which are the slowest and the
  // likeliest to exhaust a budget.
  std::vector<size_t> cost_order(n);
  std::iota(cost_order.begin(), cost_order.end(), size_t{0});
  std::stable_sort(cost_order.begin(), cost_order.end(), [&](size_t a, size_t b) {
    return settings[a].intra_op_threads * settings[a].concurrency < settings[b].intra_op_threads * settings[b].concurrency;
  });
  std::vector<bool> repeat(n, false);  // rows the rounds after the first measure
  bool beyond_share = false;           // round 1: a setting did not fit its share, so no costlier one does
  size_t unit = 0, units = n * static_cast<size_t>(rounds);
  for (int r = 0; r < rounds; ++r) {
    if (r == 1) {
      // Every measured row when all of their later rounds fit, else the contenders only.
      const std::vector<bool> c = contenders();
      double all_s = 0;
      size_t n_measured = 0, n_contenders = 0;
      for (size_t i = 0; i < n; ++i) {
        if (!res.rows[i].measured) continue;
        all_s += round1_seconds[i];
        ++n_measured;
        if (c[i]) ++n_contenders;
      }
      const double later_s = all_s * static_cast<double>(rounds - 1) * kEstimateMargin;
      const bool narrow = budgeted && later_s > left_s() && n_contenders < n_measured;
      for (size_t i = 0; i < n; ++i) repeat[i] = res.rows[i].measured && (!narrow || c[i]);
      if (narrow) {
        res.narrowed = fmt::format(
            "rounds 2-{} repeated only the {} of {} measured settings within {:g}x of round 1's best latency or throughput: "
            "repeating all would take about {:.1f} s and {:.1f} s of --max-seconds {:g} were left",
            rounds, n_contenders, n_measured, kContenderFactor, later_s, std::max(0.0, left_s()), opt.max_seconds);
        for (size_t i = 0; i < n; ++i)
          if (res.rows[i].measured && !c[i]) {
            res.rows[i].not_repeated = fmt::format("round 1 only: more than {:g}x behind the best of round 1 in latency and in throughput",
                                                   kContenderFactor);
            finish(i);
          }
      }
      units = unit + static_cast<size_t>(std::count(repeat.begin(), repeat.end(), true)) * static_cast<size_t>(rounds - 1);
    }
    const size_t in_play = r == 0 ? n : static_cast<size_t>(std::count(repeat.begin(), repeat.end(), true));
    if (in_play == 0) break;
    if (r > 0) {
      double estimate = 0;
      for (size_t i = 0; i < n; ++i)
        if (repeat[i]) estimate += round1_seconds[i];
      if (budgeted && estimate * kEstimateMargin > left_s()) {
        res.stopped = fmt::format("round {} of {} would take about {:.1f} s and {:.1f} s of --max-seconds {:g} were left",
                                  r + 1, rounds, estimate, std::max(0.0, left_s()), opt.max_seconds);
        break;
      }
    }
    // Rounds alternate direction, the last one forward, so that drift does not favour a position.
    std::vector<size_t> order = cost_order;
    if ((rounds - 1 - r) % 2 != 0) std::reverse(order.begin(), order.end());
    bool ran = false;
    size_t done_this_round = 0;
    for (size_t i : order) {
      BenchRow& row = res.rows[i];
      if (r > 0 && !repeat[i]) continue;
      const int it = iters_in(r);
      // With a budget each unit gets at most twice its fair share of what is left, so that one
      // pathological setting (one call taking seconds) cannot starve the rest: its round stops
      // early and says so.
      auto unit_deadline = deadline;
      double share = 0;
      if (budgeted) {
        const double call_s = r == 0 ? predicted_call_s() : own_call_s[i];
        std::string skip;
        if (left_s() <= 0) {
          skip = fmt::format("not started: --max-seconds {:g} used up", opt.max_seconds);
        } else if (call_s > left_s()) {
          skip = fmt::format("not started: one call may take {:.1f} s, {:.1f} s of --max-seconds {:g} left", call_s, left_s(),
                             opt.max_seconds);
        } else if (r == 0 && beyond_share) {
          skip = fmt::format("not started: a cheaper setting already did not fit its share of --max-seconds {:g}", opt.max_seconds);
        } else if (r == 0 && slowest_call_s > 0) {
          // The time left after the later rounds of the contenders, shared by the settings round 1
          // has still to visit.
          const double fair = (left_s() - reserve_s()) / static_cast<double>(in_play - done_this_round);
          if (call_s > fair) {
            beyond_share = true;
            skip = fmt::format("not started: one call may take {:.1f} s (the slowest setting so far), more than its {:.1f} s share "
                               "of --max-seconds {:g} after the repeats of the leading settings",
                               call_s, std::max(0.0, fair), opt.max_seconds);
          }
        }
        if (!skip.empty()) {
          if (r > 0) break;  // rows keep the rounds they have
          row.skipped = skip;
          ++unit;
          ++done_this_round;
          finish(i);
          continue;
        }
        const size_t units_left = (in_play - done_this_round) + static_cast<size_t>(rounds - r - 1) * in_play;
        // ... but never less than the first call and one timed call need.
        share = std::max(2.0 * left_s() / static_cast<double>(std::max<size_t>(1, units_left)), 2.5 * call_s);
        unit_deadline = std::min(deadline, BenchClock::now() + std::chrono::duration_cast<BenchClock::duration>(
                                                                   std::chrono::duration<double>(share)));
      }
      if (events.progress)
        events.progress({unit, units, r + 1, rounds, row.setting, seconds_between(start, BenchClock::now()), opt.max_seconds});
      ++unit;
      ++done_this_round;
      const RoundResult rr = measure_round(call, row.setting, opt.warmup, it, unit_deadline);
      ran = true;
      row.seconds += rr.seconds;
      const size_t calls_made = rr.latencies_ms.size() / static_cast<size_t>(std::max(1, row.setting.concurrency)) + 1;
      const double per_call = std::max(rr.first_call_ms / 1000.0, rr.seconds / static_cast<double>(calls_made));
      slowest_call_s = std::max(slowest_call_s, per_call);
      if (r == 0) own_call_s[i] = per_call;
      if (rr.cut_short) row.cut_short = true;
      if (rr.latencies_ms.empty()) {
        if (r == 0) {
          row.skipped = fmt::format("cut off by --max-seconds {:g}: its first call alone took {:.1f} ms of a {:.1f} s share",
                                    opt.max_seconds, rr.first_call_ms, share);
          row.first_call_ms = rr.first_call_ms;
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
