#pragma once
// Summaries of measured latencies, as benchmark tables and DESIGN.md's JSON contract report them.
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

}  // namespace jitctl
