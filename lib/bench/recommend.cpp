#include "lib/bench/recommend.h"

#include <functional>

namespace jitctl {
namespace {

// `better(a, b)`: a's value beats b's. `rounds_of` gives the per-round values, oriented so that
// smaller is better for the test.
Pick pick_best(const std::vector<BenchRow>& rows, const std::vector<size_t>& measured,
               const std::function<double(const BenchRow&)>& value, bool lower_is_better,
               const std::function<std::vector<double>(const BenchRow&)>& rounds_lower_better) {
  auto better = [&](size_t a, size_t b) {
    const double va = value(rows[a]), vb = value(rows[b]);
    return lower_is_better ? va < vb : va > vb;
  };
  size_t best = measured.front();
  for (size_t i : measured)
    if (better(i, best)) best = i;
  Pick p;
  p.row = best;
  p.value = value(rows[best]);
  for (size_t i : measured)
    if (i != best && (!p.runner_up || better(i, *p.runner_up))) p.runner_up = i;
  if (!p.runner_up) return p;
  p.runner_up_value = value(rows[*p.runner_up]);
  if (p.runner_up_value != 0)
    p.margin_pct = (lower_is_better ? p.runner_up_value - p.value : p.value - p.runner_up_value) / p.runner_up_value * 100.0;
  const std::vector<double> a = rounds_lower_better(rows[best]), b = rounds_lower_better(rows[*p.runner_up]);
  if (a.size() <= 12 && b.size() <= 12) p.p_value = permutation_p_less(a, b);
  p.beyond_noise = p.p_value <= kNoiseAlpha;
  return p;
}

}  // namespace

Recommendation recommend(const std::vector<BenchRow>& rows) {
  std::vector<size_t> measured;
  for (size_t i = 0; i < rows.size(); ++i)
    if (rows[i].measured) measured.push_back(i);
  Recommendation r;
  if (measured.empty()) return r;
  r.latency = pick_best(
      rows, measured, [](const BenchRow& x) { return x.latency_ms.p50; }, true,
      [](const BenchRow& x) { return x.round_p50_ms; });
  r.throughput = pick_best(
      rows, measured, [](const BenchRow& x) { return x.throughput_per_s; }, false,
      [](const BenchRow& x) {
        std::vector<double> v;
        for (double t : x.round_throughput_per_s) v.push_back(-t);
        return v;
      });
  return r;
}

bool oversubscribes(const BenchSetting& s, int cores) {
  return static_cast<long long>(s.intra_op_threads) * s.concurrency > cores;
}

std::vector<size_t> oversubscribed_rows(const std::vector<BenchRow>& rows, int cores) {
  std::vector<size_t> out;
  for (size_t i = 0; i < rows.size(); ++i)
    if (oversubscribes(rows[i].setting, cores)) out.push_back(i);
  return out;
}

}  // namespace jitctl
