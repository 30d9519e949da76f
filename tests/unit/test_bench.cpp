// lib/bench: latency statistics (numpy's percentile), the measuring engine on a small graph, and
// the SVG plot.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "lib/bench/latency_plot.h"
#include "lib/bench/measure.h"
#include "lib/bench/statistics.h"
#include "lib/ir/graph_parser.h"
#include "lib/runtime/threads.h"

using namespace jitctl;

TEST_CASE("bench statistics: percentiles interpolate as numpy's default") {
  // np.percentile([1..10], [50, 90, 99]) == [5.5, 9.1, 9.91]
  std::vector<double> v{10, 9, 8, 7, 6, 5, 4, 3, 2, 1};
  const LatencySummary s = summarize_latencies(v);
  CHECK(s.p50 == doctest::Approx(5.5));
  CHECK(s.p90 == doctest::Approx(9.1));
  CHECK(s.p99 == doctest::Approx(9.91));
  CHECK(s.min == 1);
  CHECK(s.mean == doctest::Approx(5.5));
  CHECK(percentile({}, 50) == 0);
  CHECK(summarize_latencies({}).mean == 0);
  CHECK(percentile({4}, 99) == 4);
}

TEST_CASE("bench measure: every caller's timed calls are counted, the setting is applied") {
  init_threads(0, 0);
  auto g = std::make_shared<Graph>();
  parse_graph_into(R"(graph(%a : int, %b : int):
  %c : int = aten::add(%a, %b)
  return (%c)
)",
                   *g);
  const Method m = plan_graph(g);
  const std::vector<IValue> args{IValue(int64_t(2)), IValue(int64_t(3))};
  for (int callers : {1, 3}) {
    CAPTURE(callers);
    const BenchRow r = measure(m, args, {1, 1, callers}, 2, 5);
    CHECK(r.setting.concurrency == callers);
    CHECK(get_num_threads() == 1);
    CHECK(r.latency_ms.min >= 0);
    CHECK(r.latency_ms.min <= r.latency_ms.p50);
    CHECK(r.latency_ms.p50 <= r.latency_ms.p99);
    CHECK(r.throughput_per_s > 0);
    CHECK(r.first_call_ms >= 0);
  }
  const auto bad = plan_graph(g);
  CHECK_THROWS(measure(bad, {IValue(int64_t(1))}, {1, 1, 2}, 1, 1));  // a wrong argument count rethrows
}

TEST_CASE("bench plot: one line per (inter-op threads, callers) pair, titled with the model's file name") {
  std::vector<BenchRow> rows;
  for (int inter : {1, 2})
    for (int t : {1, 2, 4}) {
      BenchRow r;
      r.setting = {t, inter, 1};
      r.latency_ms.p50 = 1.0 / t;
      rows.push_back(r);
    }
  const std::string svg = latency_plot_svg("models/m.pt", rows);
  CHECK(svg.rfind("<svg", 0) == 0);
  CHECK(svg.find("m.pt") != std::string::npos);
  CHECK(svg.find("models/") == std::string::npos);
  size_t lines = 0;
  for (size_t at = svg.find("<polyline"); at != std::string::npos; at = svg.find("<polyline", at + 1)) ++lines;
  CHECK(lines == 2);
  CHECK(svg.find("inter-op 2, callers 1") != std::string::npos);
}
