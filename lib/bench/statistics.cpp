#include "lib/bench/statistics.h"

#include <algorithm>
#include <cstdint>
#include <stdexcept>

namespace jitctl {
namespace {

// Mann-Whitney U of `a` against `b`: pairs where a's value is below b's, ties counting 1/2.
double u_less(const std::vector<double>& pooled, uint32_t mask_a) {
  double u = 0;
  for (size_t i = 0; i < pooled.size(); ++i) {
    if (!(mask_a >> i & 1u)) continue;
    for (size_t j = 0; j < pooled.size(); ++j) {
      if (mask_a >> j & 1u) continue;
      u += pooled[i] < pooled[j] ? 1.0 : pooled[i] == pooled[j] ? 0.5 : 0.0;
    }
  }
  return u;
}

}  // namespace

double percentile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  const double pos = p / 100.0 * static_cast<double>(sorted.size() - 1);
  const size_t lo = static_cast<size_t>(pos);
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - static_cast<double>(lo));
}

LatencySummary summarize_latencies(std::vector<double> samples) {
  std::sort(samples.begin(), samples.end());
  LatencySummary s;
  s.p50 = percentile(samples, 50);
  s.p90 = percentile(samples, 90);
  s.p99 = percentile(samples, 99);
  s.min = samples.empty() ? 0 : samples.front();
  double sum = 0;
  for (double v : samples) sum += v;
  s.mean = samples.empty() ? 0 : sum / static_cast<double>(samples.size());
  return s;
}

double spread_pct(std::vector<double> per_round) {
  if (per_round.size() < 2) return 0;
  std::sort(per_round.begin(), per_round.end());
  const double median = percentile(per_round, 50);
  return median > 0 ? (per_round.back() - per_round.front()) / median * 100.0 : 0;
}

double permutation_p_less(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.empty() || b.empty()) return 1;
  if (a.size() > 12 || b.size() > 12) throw std::invalid_argument("permutation_p_less: more than 12 values a side");
  std::vector<double> pooled(a);
  pooled.insert(pooled.end(), b.begin(), b.end());
  const uint32_t n = static_cast<uint32_t>(pooled.size());
  const uint32_t observed_mask = (1u << a.size()) - 1;  // a's values come first
  // U counts pairs where a is below b: large U favours "a smaller". The p-value is the share of
  // splits whose U is at least the observed one.
  const double observed = u_less(pooled, observed_mask);
  uint64_t total = 0, as_extreme = 0;
  for (uint32_t mask = 0; mask < (1u << n); ++mask) {
    if (static_cast<size_t>(__builtin_popcount(mask)) != a.size()) continue;
    ++total;
    if (u_less(pooled, mask) >= observed - 1e-9) ++as_extreme;
  }
  return static_cast<double>(as_extreme) / static_cast<double>(total);
}

}  // namespace jitctl
