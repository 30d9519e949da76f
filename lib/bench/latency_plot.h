#pragma once
// An SVG chart of benchmark rows: p50 latency against intra-op threads, one line per
// (inter-op threads, callers) pair (`jitctl bench-threads --plot`).
#include <string>
#include <vector>

#include "lib/bench/measure.h"

namespace jitctl {

// `model` titles the chart (its file name is shown).
std::string latency_plot_svg(const std::string& model, const std::vector<BenchRow>& rows);

}  // namespace jitctl
