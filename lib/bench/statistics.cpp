#include "lib/bench/statistics.h"

#include <algorithm>

namespace jitctl {

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

}  // namespace jitctl
