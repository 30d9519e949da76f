#pragma once
// The SVG of `jitctl bench-threads --plot F.svg`: two panels, p50 latency and throughput against
// intra-op threads, one line per number of callers (and inter-op count, when several were
// measured), axes labelled, the recommended points ringed, points where threads x callers exceed
// the cores drawn hollow, a dashed line at the core count. Readable in any browser or SVG viewer.
//
// The file carries a mark (data-generator on the root element) so that a later run may replace a
// plot it wrote, and nothing else: check_plot_target() refuses any other existing file.
#include <string>
#include <vector>

#include "lib/bench/recommend.h"
#include "lib/bench/sweep.h"

namespace jitctl {

struct PlotLabels {
  std::string model;  // titled by its file name
  std::string cpu;
  int cores = 1;
};

std::string sweep_plot_svg(const PlotLabels& labels, const std::vector<BenchRow>& rows, const Recommendation& rec);

// The mark sweep_plot_svg() puts in the first line of its output.
inline constexpr const char* kPlotMark = "data-generator=\"jitctl bench-threads\"";

// Throws InvalidInput (one line naming `path`) unless `path` may receive a plot: it ends in
// ".svg", is not one of `inputs` (the model, the inputs file), and is either absent or a regular
// file whose beginning carries kPlotMark.
void check_plot_target(const std::string& path, const std::vector<std::string>& inputs);

}  // namespace jitctl
