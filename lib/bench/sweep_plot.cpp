#include "lib/bench/sweep_plot.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <cctype>
#include <functional>
#include <optional>
#include <utility>

#include "lib/core/error.h"
#include "lib/core/output_file.h"
#include "lib/core/string_literal.h"

namespace jitctl {
namespace {


// Tick and point labels: plain digits up to a million (10000, not 1e+04), 4 significant digits.
std::string num(double v) {
  if (std::fabs(v) >= 1000 && std::fabs(v) < 1e6) return fmt::format("{:.0f}", v);
  return fmt::format("{:.4g}", v);
}

// A value axis: linear from 0 with 1-2-5 steps, or decades when the values span more than 20x.
struct Axis {
  bool log = false;
  double lo = 0, hi = 1;
  std::vector<double> ticks;

  static Axis fit(double min_v, double max_v) {
    Axis a;
    if (max_v <= 0) max_v = 1;
    if (min_v > 0 && max_v / min_v > 20) {
      a.log = true;
      a.lo = std::pow(10, std::floor(std::log10(min_v)));
      a.hi = std::pow(10, std::ceil(std::log10(max_v)));
      for (double t = a.lo; t <= a.hi * 1.0001; t *= 10) a.ticks.push_back(t);
      return a;
    }
    const double raw = max_v / 5;
    const double mag = std::pow(10, std::floor(std::log10(raw)));
    double step = mag;
    for (double m : {1.0, 2.0, 5.0, 10.0})
      if (m * mag >= raw) {
        step = m * mag;
        break;
      }
    a.hi = std::ceil(max_v * 1.05 / step) * step;
    for (double t = 0; t <= a.hi * 1.0001; t += step) a.ticks.push_back(t);
    return a;
  }
  // 0 at the bottom, 1 at the top.
  double frac(double v) const {
    if (log) return (std::log10(std::max(v, lo)) - std::log10(lo)) / (std::log10(hi) - std::log10(lo));
    return v / hi;
  }
};

constexpr const char* kColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"};

struct Panel {
  double x0, y0, w, h;  // plotting area
};

}  // namespace

std::string sweep_plot_svg(const PlotLabels& labels, const std::vector<BenchRow>& rows, const Recommendation& rec) {
  const double W = 960, H = 470;
  const Panel panels[2] = {{80, 70, 360, 290}, {560, 70, 360, 290}};

  std::vector<int> threads;
  std::vector<std::pair<int, int>> series;  // (inter-op, callers)
  bool several_inter = false;
  size_t skipped = 0;
  for (const auto& r : rows) {
    // A setting cut off after its first call still tells something: drawn as a cross at that
    // call's time in the latency panel.
    const bool first_only = !r.measured && r.first_call_ms > 0;
    if (!r.measured && !first_only) {
      ++skipped;
      continue;
    }
    if (std::find(threads.begin(), threads.end(), r.setting.intra_op_threads) == threads.end())
      threads.push_back(r.setting.intra_op_threads);
    const auto key = std::make_pair(r.setting.inter_op_threads, r.setting.concurrency);
    if (std::find(series.begin(), series.end(), key) == series.end()) series.push_back(key);
    if (r.setting.inter_op_threads != rows.front().setting.inter_op_threads) several_inter = true;
  }
  std::sort(threads.begin(), threads.end());
  std::sort(series.begin(), series.end());

  std::string s = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" {} width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" "
      "font-family=\"DejaVu Sans, Arial, sans-serif\" font-size=\"12\">\n"
      "<!-- written by jitctl bench-threads (its plot option); a later run may replace this file -->\n"
      "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n",
      kPlotMark, W, H, W, H);
  s += fmt::format("<text x=\"{}\" y=\"24\" font-size=\"15\" font-weight=\"bold\">{}</text>\n", 20,
                   xml_escape(fmt::format("{}: latency and throughput against intra-op threads",
                                          std::filesystem::path(labels.model).filename().string())));
  s += fmt::format("<text x=\"20\" y=\"44\" fill=\"#444\">{}</text>\n",
                   xml_escape(fmt::format("{}, {} core{}; one line per number of callers; hollow points: threads x callers "
                                          "exceed the cores{}",
                                          labels.cpu, labels.cores, labels.cores == 1 ? "" : "s",
                                          skipped ? fmt::format("; {} skipped setting{} not drawn", skipped, skipped == 1 ? "" : "s")
                                                  : "")));
  if (threads.empty()) {
    s += "<text x=\"80\" y=\"200\">no setting was measured</text>\n</svg>\n";
    return s;
  }

  auto x_of = [&](const Panel& p, double t) {
    // Thread counts are evenly spaced in the order of their values; between two of them (the core
    // count, say) linearly.
    const size_t n = threads.size();
    auto pos = [&](size_t i) { return p.x0 + (n == 1 ? p.w / 2 : p.w * 0.06 + static_cast<double>(i) * p.w * 0.88 / static_cast<double>(n - 1)); };
    if (t <= threads.front()) return pos(0);
    for (size_t i = 1; i < n; ++i)
      if (t <= threads[i]) return pos(i - 1) + (pos(i) - pos(i - 1)) * (t - threads[i - 1]) / (threads[i] - threads[i - 1]);
    return pos(n - 1);
  };

  struct Measure {
    const char* title;
    const char* unit_label;
    std::function<double(const BenchRow&)> value;
    std::optional<Pick> pick;
    const char* pick_label;
  };
  const Measure measures[2] = {
      {"p50 latency", "p50 latency per call (ms)", [](const BenchRow& r) { return r.latency_ms.p50; }, rec.latency, "best latency"},
      {"throughput", "throughput, all callers (calls/s)", [](const BenchRow& r) { return r.throughput_per_s; }, rec.throughput,
       "best throughput"}};

  size_t first_only_drawn = 0;
  for (int k = 0; k < 2; ++k) {
    const Panel& p = panels[k];
    const Measure& m = measures[k];
    double lo = 0, hi = 0;
    bool first = true;
    for (const auto& r : rows)
      if (r.measured || (k == 0 && r.first_call_ms > 0)) {
        const double v = r.measured ? m.value(r) : r.first_call_ms;
        lo = first ? v : std::min(lo, v);
        hi = first ? v : std::max(hi, v);
        first = false;
      }
    const Axis axis = Axis::fit(lo, hi);
    auto y_of = [&](double v) { return p.y0 + p.h - axis.frac(v) * p.h; };
    // Frame, grid and tick labels.
    s += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"13\" font-weight=\"bold\" text-anchor=\"middle\">{}{}</text>\n",
                     p.x0 + p.w / 2, p.y0 - 8, m.title, axis.log ? " (log scale)" : "");
    for (double t : axis.ticks) {
      const double y = y_of(t);
      s += fmt::format("<line x1=\"{}\" y1=\"{:.1f}\" x2=\"{}\" y2=\"{:.1f}\" stroke=\"#e4e4e4\"/>\n", p.x0, y, p.x0 + p.w, y);
      s += fmt::format("<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n", p.x0 - 6, y + 4, num(t));
    }
    s += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"black\"/>\n", p.x0, p.y0, p.w, p.h);
    for (int t : threads)
      s += fmt::format("<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", x_of(p, t), p.y0 + p.h + 16, t);
    s += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">intra-op threads (--threads)</text>\n", p.x0 + p.w / 2,
                     p.y0 + p.h + 34);
    s += fmt::format("<text x=\"{0}\" y=\"{1}\" transform=\"rotate(-90 {0} {1})\" text-anchor=\"middle\">{2}</text>\n", p.x0 - 58,
                     p.y0 + p.h / 2, m.unit_label);
    if (labels.cores >= threads.front() && labels.cores <= threads.back()) {
      const double x = x_of(p, labels.cores);
      s += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"#888\" stroke-dasharray=\"5,4\"/>\n", x,
                       p.y0, p.y0 + p.h);
      s += fmt::format("<text x=\"{:.1f}\" y=\"{}\" fill=\"#666\" font-size=\"11\">{} cores</text>\n", x + 4, p.y0 + p.h - 6,
                       labels.cores);  // at the bottom, clear of the recommended labels near the top
    }
    // One line per series.
    for (size_t j = 0; j < series.size(); ++j) {
      const char* color = kColors[j % (sizeof kColors / sizeof *kColors)];
      std::vector<const BenchRow*> pts;
      for (const auto& r : rows)
        if (r.measured && std::make_pair(r.setting.inter_op_threads, r.setting.concurrency) == series[j]) pts.push_back(&r);
      std::sort(pts.begin(), pts.end(),
                [](const BenchRow* a, const BenchRow* b) { return a->setting.intra_op_threads < b->setting.intra_op_threads; });
      std::string poly;
      for (const BenchRow* r : pts) poly += fmt::format("{:.1f},{:.1f} ", x_of(p, r->setting.intra_op_threads), y_of(m.value(*r)));
      s += fmt::format("<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"/>\n", poly, color);
      if (k == 0)
        for (const auto& r : rows) {
          if (r.measured || r.first_call_ms <= 0 || std::make_pair(r.setting.inter_op_threads, r.setting.concurrency) != series[j])
            continue;
          const double x = x_of(p, r.setting.intra_op_threads), y = y_of(r.first_call_ms);
          s += fmt::format("<path d=\"M{:.1f},{:.1f} l10,10 m0,-10 l-10,10\" stroke=\"{}\" stroke-width=\"2.5\"><title>{}</title></path>\n",
                           x - 5, y - 5, color,
                           xml_escape(fmt::format("{} threads, {} caller(s): cut off after its first call, {} ms",
                                                  r.setting.intra_op_threads, r.setting.concurrency, num(r.first_call_ms))));
          ++first_only_drawn;
        }
      for (const BenchRow* r : pts) {
        const bool over = oversubscribes(r->setting, labels.cores);
        s += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"4.5\" fill=\"{}\" stroke=\"{}\" stroke-width=\"2\"><title>{}</title></circle>\n",
                         x_of(p, r->setting.intra_op_threads), y_of(m.value(*r)), over ? "white" : color, color,
                         xml_escape(fmt::format("{} threads, {} caller(s), inter-op {}: {} {}", r->setting.intra_op_threads,
                                                r->setting.concurrency, r->setting.inter_op_threads, num(m.value(*r)),
                                                k == 0 ? "ms" : "calls/s")));
      }
    }
    if (m.pick) {
      const BenchRow& r = rows[m.pick->row];
      const double x = x_of(p, r.setting.intra_op_threads), y = y_of(m.value(r));
      s += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"10\" fill=\"none\" stroke=\"black\" stroke-width=\"2\"/>\n", x, y);
      const bool right = x < p.x0 + p.w * 0.6;
      s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"{}\" font-weight=\"bold\">{}: {} {}</text>\n",
                       right ? x + 14 : x - 14, y < p.y0 + 20 ? y + 18 : y - 10, right ? "start" : "end", m.pick_label,
                       num(m.value(r)), k == 0 ? "ms" : "calls/s");
    }
  }
  // Legend.
  double lx = 80;
  double ly = H - 42;
  for (size_t j = 0; j < series.size(); ++j) {
    const char* color = kColors[j % (sizeof kColors / sizeof *kColors)];
    const std::string label = fmt::format("{} caller{}{}", series[j].second, series[j].second == 1 ? "" : "s",
                                          several_inter ? fmt::format(", inter-op {}", series[j].first) : "");
    s += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"{3}\" stroke-width=\"2\"/>"
                     "<circle cx=\"{4}\" cy=\"{1}\" r=\"4.5\" fill=\"{3}\"/>"
                     "<text x=\"{5}\" y=\"{6}\">{7}</text>\n",
                     lx, ly, lx + 28, color, lx + 14, lx + 34, ly + 4, xml_escape(label));
    lx += 60 + 7.0 * static_cast<double>(label.size());
  }
  lx = 80;  // markers on a second line
  ly = H - 16;
  s += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"4.5\" fill=\"white\" stroke=\"#555\" stroke-width=\"2\"/>"
                   "<text x=\"{}\" y=\"{}\">threads x callers &gt; {} cores</text>\n",
                   lx + 14, ly, lx + 26, ly + 4, labels.cores);
  lx += 220;
  s += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"10\" fill=\"none\" stroke=\"black\" stroke-width=\"2\"/>"
                   "<text x=\"{}\" y=\"{}\">recommended</text>\n",
                   lx + 14, ly, lx + 30, ly + 4);
  if (first_only_drawn) {
    lx += 140;
    s += fmt::format("<path d=\"M{:.1f},{:.1f} l10,10 m0,-10 l-10,10\" stroke=\"#555\" stroke-width=\"2.5\"/>"
                     "<text x=\"{}\" y=\"{}\">first call only (cut off by --max-seconds)</text>\n",
                     lx + 9, ly - 5, lx + 26, ly + 4);
  }
  s += "</svg>\n";
  return s;
}

void check_plot_target(const std::string& path, const std::vector<std::string>& inputs) {
  namespace fs = std::filesystem;
  const std::string ext = fs::path(path).extension().string();
  std::string lower;
  for (char c : ext) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  refuse_overwriting_inputs(path, inputs);
  if (lower != ".svg") throw InvalidInput(fmt::format("--plot {}: the plot is an SVG file; name it F.svg", path));
  std::error_code ec;
  const fs::path folder = fs::path(path).has_parent_path() ? fs::path(path).parent_path() : fs::path(".");
  if (!fs::is_directory(folder, ec))
    throw InvalidInput(fmt::format("--plot {}: the folder {} does not exist", path, folder.string()));
  const auto st = fs::status(path, ec);
  if (ec || st.type() == fs::file_type::not_found) return;
  if (st.type() != fs::file_type::regular)
    throw InvalidInput(fmt::format("--plot {}: exists and is not a regular file; refusing to overwrite it", path));
  std::ifstream f(path, std::ios::binary);
  std::string head(1024, '\0');
  f.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<size_t>(f.gcount()));
  const size_t svg = head.find("<svg");
  if (svg == std::string::npos || head.find(kPlotMark, svg) == std::string::npos)
    throw InvalidInput(fmt::format("--plot {}: exists and is not a plot jitctl wrote; refusing to overwrite it "
                                   "(remove it or choose another name)",
                                   path));
}

}  // namespace jitctl
