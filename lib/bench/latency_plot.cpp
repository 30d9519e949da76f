#include "lib/bench/latency_plot.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <utility>

namespace jitctl {

std::string latency_plot_svg(const std::string& model, const std::vector<BenchRow>& rows) {
  const double W = 640, H = 400, L = 70, R = 170, T = 40, B = 50;
  int max_t = 1;
  double max_ms = 0;
  for (const auto& r : rows) {
    max_t = std::max(max_t, r.setting.intra_op_threads);
    max_ms = std::max(max_ms, r.latency_ms.p50);
  }
  if (max_ms <= 0) max_ms = 1;
  auto x = [&](int t) { return L + (max_t == 1 ? 0.5 : (t - 1.0) / (max_t - 1.0)) * (W - L - R); };
  auto y = [&](double ms) { return H - B - ms / (max_ms * 1.1) * (H - T - B); };
  std::string s = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" font-family=\"sans-serif\" font-size=\"12\">\n"
      "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      "<text x=\"{}\" y=\"20\" font-size=\"14\">p50 latency vs intra-op threads: {}</text>\n"
      "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"black\"/>\n"
      "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"black\"/>\n"
      "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">intra-op threads</text>\n"
      "<text x=\"15\" y=\"{}\" transform=\"rotate(-90 15 {})\" text-anchor=\"middle\">ms</text>\n",
      W, H, L, std::filesystem::path(model).filename().string(), L, H - B, W - R, H - B, L, T, L, H - B, (L + W - R) / 2,
      H - 10, (T + H - B) / 2, (T + H - B) / 2);
  for (int t = 1; t <= max_t; t = (t == max_t ? t + 1 : std::min(max_t, t * 2)))
    s += fmt::format("<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", x(t), H - B + 16, t);
  for (int i = 0; i <= 4; ++i) {
    const double ms = max_ms * 1.1 * i / 4;
    s += fmt::format("<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{:.3g}</text>\n", L - 6, y(ms) + 4, ms);
  }
  static const char* colors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b"};
  std::vector<std::pair<int, int>> series;
  for (const auto& r : rows)
    if (std::find(series.begin(), series.end(), std::make_pair(r.setting.inter_op_threads, r.setting.concurrency)) == series.end())
      series.emplace_back(r.setting.inter_op_threads, r.setting.concurrency);
  for (size_t k = 0; k < series.size(); ++k) {
    std::vector<BenchRow> pts;
    for (const auto& r : rows)
      if (std::make_pair(r.setting.inter_op_threads, r.setting.concurrency) == series[k]) pts.push_back(r);
    std::sort(pts.begin(), pts.end(), [](const BenchRow& a, const BenchRow& b) { return a.setting.intra_op_threads < b.setting.intra_op_threads; });
    const char* c = colors[k % 6];
    std::string poly;
    for (const auto& p : pts) {
      poly += fmt::format("{:.1f},{:.1f} ", x(p.setting.intra_op_threads), y(p.latency_ms.p50));
      s += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3\" fill=\"{}\"/>\n", x(p.setting.intra_op_threads), y(p.latency_ms.p50), c);
    }
    s += fmt::format("<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"/>\n", poly, c);
    s += fmt::format("<text x=\"{}\" y=\"{}\" fill=\"{}\">inter-op {}, callers {}</text>\n", W - R + 10,
                     T + 16 * static_cast<double>(k), c, series[k].first, series[k].second);
  }
  s += "</svg>\n";
  return s;
}

}  // namespace jitctl
