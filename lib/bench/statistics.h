#pragma once
// Summaries of measured latencies, as benchmark tables and DESIGN.md's JSON contract report them,
// and the noise test that decides whether one setting really beats another.
#include <vector>

namespace jitctl {

// Linear interpolation between order statistics (numpy's default; p50 is the median). `sorted`
// ascending; 0 when empty.
double percentile(const std::vector<double>& sorted, double p);

struct LatencySummary {
  double p50 = 0, p90 = 0, p99 = 0, min = 0, mean = 0;
};

// All zero for no samples.
LatencySummary summarize_latencies(std::vector<double> samples);

// Spread of one setting's per-round values: (max - min) / median, in percent; 0 for fewer than
// two values or a zero median.
double spread_pct(std::vector<double> per_round);

// One-sided exact permutation test (Mann-Whitney U, ties counting one half) that the values of
// `a` are smaller than those of `b`: the fraction of all ways of splitting the pooled values into
// groups of |a| and |b| whose U (pairs with a's value below b's) is at least the observed one. With three rounds each, only complete
// separation (every round of `a` below every round of `b`) reaches p = 1/20 = 0.05. Returns 1 when
// either side is empty; at most 12 values a side (C(24, 12) splits), else throws std::invalid_argument.
double permutation_p_less(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace jitctl
