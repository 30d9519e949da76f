// lib/bench: latency statistics (numpy's percentile) and the noise test, one round of one setting
// (callers, their OpenMP teams), the interleaved sweep and its budget, the recommendation on
// synthetic rows, what callers may share, the SVG plot and where it may be written.
#include <doctest/doctest.h>
#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "lib/bench/callers.h"
#include "lib/bench/machine.h"
#include "lib/bench/measure.h"
#include "lib/bench/recommend.h"
#include "lib/bench/report.h"
#include "lib/bench/statistics.h"
#include "lib/bench/sweep.h"
#include "lib/bench/sweep_plot.h"
#include "lib/core/error.h"
#include "lib/frontend/schema_matching.h"
#include "lib/ir/graph_parser.h"
#include "lib/runtime/interop_pool.h"
#include "lib/runtime/threads.h"

using namespace jitctl;
namespace fs = std::filesystem;

namespace {

size_t count_of(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

// A measured row with the given per-round p50s and throughputs (pooled stats from them).
BenchRow row_of(BenchSetting s, std::vector<double> p50s, std::vector<double> tps) {
  BenchRow r;
  r.setting = s;
  r.measured = true;
  r.rounds = static_cast<int>(p50s.size());
  r.round_p50_ms = p50s;
  r.round_throughput_per_s = tps;
  r.latency_ms = summarize_latencies(p50s);
  double sum = 0;
  for (double t : tps) sum += t;
  r.throughput_per_s = sum / static_cast<double>(tps.size());
  return r;
}

std::shared_ptr<Graph> graph_with_schemas(const char* text) {
  auto g = std::make_shared<Graph>();
  parse_graph_into(text, *g);
  attach_builtin_schemas(g->block());
  return g;
}

std::string testdata(const std::string& rel) { return std::string(JITCTL_SOURCE_ROOT) + "/testdata/" + rel; }

}  // namespace

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

TEST_CASE("bench statistics: round spread and the permutation test") {
  CHECK(spread_pct({10, 11, 12}) == doctest::Approx(200.0 / 11));
  CHECK(spread_pct({5}) == 0);
  // Complete separation of 3 vs 3: 1 of C(6,3) = 20 splits is as extreme.
  CHECK(permutation_p_less({1, 2, 3}, {4, 5, 6}) == doctest::Approx(0.05));
  // The other way round every split is at least as extreme.
  CHECK(permutation_p_less({4, 5, 6}, {1, 2, 3}) == doctest::Approx(1.0));
  // One overlap (U = 8 of 9): splits with U >= 8 are 2 of 20.
  CHECK(permutation_p_less({1, 2, 4.5}, {4, 5, 6}) == doctest::Approx(0.10));
  // Two rounds can never reach 0.05 (1 / C(4,2) = 1/6).
  CHECK(permutation_p_less({1, 2}, {3, 4}) == doctest::Approx(1.0 / 6));
  // Identical values: no evidence.
  CHECK(permutation_p_less({1, 1, 1}, {1, 1, 1}) == doctest::Approx(1.0));
  CHECK(permutation_p_less({}, {1}) == 1);
  // scipy.stats.mannwhitneyu([1,2,3,4],[5,6,7,8], alternative='less', method='exact').pvalue == 1/70
  CHECK(permutation_p_less({1, 2, 3, 4}, {5, 6, 7, 8}) == doctest::Approx(1.0 / 70));
}

TEST_CASE("bench sweep: thread counts go one step past the cores") {
  CHECK(sweep_thread_counts(1) == std::vector<int>{1, 2});
  CHECK(sweep_thread_counts(2) == std::vector<int>{1, 2, 4});
  CHECK(sweep_thread_counts(6) == std::vector<int>{1, 2, 4, 6, 8});
  CHECK(sweep_thread_counts(8) == std::vector<int>{1, 2, 4, 8, 16});
  const auto s = all_settings({1, 2}, {1}, {1, 3});
  REQUIRE(s.size() == 4);
  CHECK(s[1] == BenchSetting{2, 1, 1});
  CHECK(s[2] == BenchSetting{1, 1, 3});
}

TEST_CASE("bench measure: every caller's timed calls are counted and the setting is applied") {
  init_threads(0, 0);
  auto g = std::make_shared<Graph>();
  parse_graph_into(R"(graph(%a : int, %b : int):
  %c : int = aten::add(%a, %b)
  return (%c)
)",
                   *g);
  const Method m = plan_graph(g);
  const Callers callers = make_callers("", "forward", m, {IValue(int64_t(2)), IValue(int64_t(3))}, 3);
  for (int n : {1, 3}) {
    CAPTURE(n);
    const RoundResult r = measure_round([&](size_t c) { callers.call(c); }, {1, 1, n}, 2, 5);
    CHECK(r.latencies_ms.size() == static_cast<size_t>(5 * n));
    CHECK(get_num_threads() == 1);
    CHECK(r.throughput_per_s > 0);
    CHECK(r.first_call_ms >= 0);
    CHECK(!r.cut_short);
  }
  const Callers bad = make_callers("", "forward", m, {IValue(int64_t(1))}, 2);
  CHECK_THROWS_AS(measure_round([&](size_t c) { bad.call(c); }, {1, 1, 2}, 1, 1), InvalidInput);  // rethrown
}

TEST_CASE("bench measure: each caller thread runs its own OpenMP team of the setting's size") {
  // What the kernels see (kernels/parallel.h; Eigen's GEMM asks omp_get_max_threads() too): the
  // setting in the calling thread, not inside a parallel region, and a team of that size when
  // they open one -- for every caller thread, not only the first.
  init_threads(0, 0);
  for (int intra : {1, 2, 3}) {
    for (int callers : {1, 2}) {
      CAPTURE(intra);
      CAPTURE(callers);
      std::mutex mu;
      std::vector<int> max_threads, team;
      std::vector<bool> nested;
      std::set<std::thread::id> ids;
      measure_round(
          [&](size_t) {
            int size = 0;
#pragma omp parallel
            {
#pragma omp single
              size = omp_get_num_threads();
            }
            std::lock_guard lock(mu);
            max_threads.push_back(omp_get_max_threads());
            team.push_back(size);
            nested.push_back(omp_in_parallel() != 0);
            ids.insert(std::this_thread::get_id());
          },
          {intra, 1, callers}, 1, 2);
      REQUIRE(max_threads.size() == static_cast<size_t>(3 * callers));
      for (size_t i = 0; i < max_threads.size(); ++i) {
        CHECK(max_threads[i] == intra);
        CHECK(team[i] == intra);
        CHECK(!nested[i]);
      }
      CHECK(ids.size() == static_cast<size_t>(callers));
    }
  }
  init_threads(1, 0);
}

TEST_CASE("bench measure: the inter-op pool runs forked work with the intra-op setting") {
  init_threads(0, 0);
  set_num_interop_threads(2);
  set_num_threads(3);
  std::atomic<int> seen{0};
  InteropPool::global().submit([&] { seen = omp_get_max_threads(); }).wait();
  // wait() may run the task inline on this thread (also 3); either way the setting holds.
  CHECK(seen.load() == 3);
  std::thread t([&] {
    apply_num_threads_here();
    seen = omp_get_max_threads();
  });
  t.join();
  CHECK(seen.load() == 3);
  init_threads(1, 1);
}

TEST_CASE("bench sweep: rounds interleave, rows come out in order, each once") {
  init_threads(0, 0);
  const auto settings = all_settings({1, 2, 3}, {1}, {1});
  std::vector<int> order;  // the intra-op count at each first call of a round
  int last = -1;
  std::vector<size_t> reported;
  SweepOptions o;
  o.warmup = 1;
  o.iters = 3;
  o.rounds = 3;
  SweepEvents ev;
  ev.row_final = [&](size_t i, const BenchRow& r) {
    reported.push_back(i);
    CHECK(r.rounds == 3);
  };
  size_t progress_calls = 0;
  ev.progress = [&](const SweepProgress& p) {
    ++progress_calls;
    CHECK(p.units == 9);
    last = -1;
  };
  const SweepResult res = run_sweep(
      settings,
      [&](size_t) {
        if (last == -1) order.push_back(get_num_threads());
        last = get_num_threads();
      },
      o, ev);
  CHECK(order == std::vector<int>{1, 2, 3, 3, 2, 1, 1, 2, 3});  // forward, back, forward
  CHECK(reported == std::vector<size_t>{0, 1, 2});
  CHECK(progress_calls == 9);
  CHECK(res.rounds_run == 3);
  CHECK(res.stopped.empty());
  for (const auto& r : res.rows) {
    CHECK(r.measured);
    CHECK(r.timed_calls == 3);  // 3 iters split 1 + 1 + 1
    CHECK(r.round_p50_ms.size() == 3);
  }
  init_threads(1, 0);
}

TEST_CASE("bench sweep: --max-seconds skips what does not fit and says so") {
  init_threads(0, 0);
  // 8 settings of at least two 10 ms calls each (first call + one timed) in 0.12 s: not all of
  // round 1 fits, and no second round.
  const auto settings = all_settings({1, 2, 3, 4, 5, 6, 7, 8}, {1}, {1});
  SweepOptions o;
  o.warmup = 1;
  o.iters = 3;
  o.rounds = 3;
  o.max_seconds = 0.12;
  o.first_call_estimate_s = 0.04;  // generous: the first settings get room for their calls
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<size_t> reported;
  SweepEvents ev;
  ev.row_final = [&](size_t i, const BenchRow&) { reported.push_back(i); };
  const SweepResult res = run_sweep(
      settings, [&](size_t) { std::this_thread::sleep_for(std::chrono::milliseconds(10)); }, o, ev);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  CHECK(took < 0.12 + 0.1);  // no call starts that would end past the deadline (+ late wake-ups)
  REQUIRE(res.rows.size() == 8);
  CHECK(reported == std::vector<size_t>{0, 1, 2, 3, 4, 5, 6, 7});  // skipped rows are reported too
  size_t measured = 0, skipped = 0;
  for (const auto& r : res.rows) {
    if (r.measured)
      ++measured;
    else {
      ++skipped;
      CHECK(r.skipped.find("--max-seconds") != std::string::npos);
    }
  }
  CHECK(measured >= 1);
  CHECK(skipped >= 1);
  CHECK(res.rounds_run >= 1);
  for (const auto& r : res.rows)
    if (r.measured) CHECK(r.rounds == res.rounds_run);  // what is repeated keeps equal rounds
  init_threads(1, 0);
}

TEST_CASE("bench measure: warm-up leaves room in the deadline for one timed call") {
  init_threads(0, 0);
  // Room for about six 40 ms calls, 50 warm-up calls asked: warm-up stops early so that a timed
  // call still fits (without that, warm-up would use all of it and the round measure nothing).
  const auto deadline = BenchClock::now() + std::chrono::milliseconds(240);
  const RoundResult r = measure_round([](size_t) { std::this_thread::sleep_for(std::chrono::milliseconds(40)); }, {1, 1, 1}, 50,
                                      50, deadline);
  CHECK(!r.latencies_ms.empty());
  CHECK(r.cut_short);
  init_threads(1, 0);
}

TEST_CASE("bench sweep: cheapest first; round 1 keeps time for the repeats and skips what exceeds its share") {
  init_threads(0, 0);
  // Listed 3, 2, 1 threads; visited 1, 2, 3. One thread: 5 ms calls; two and three: 100 ms.
  // Budget 0.35 s: one thread's round (11 calls, ~55 ms) leaves ~0.3 s, of which its two repeats
  // keep ~0.12 s back; two threads' first call (100 ms) overruns its ~74 ms round share and is
  // cut off; then three threads' expected 100 ms exceeds what is left after the reserve, so it is
  // not started, and one thread gets its later rounds.
  const auto settings = all_settings({3, 2, 1}, {1}, {1});
  SweepOptions o;
  o.warmup = 1;
  o.iters = 30;
  o.rounds = 3;
  o.max_seconds = 0.35;
  o.first_call_estimate_s = 0.005;
  std::vector<int> first_calls;  // the thread count of each round's first call
  int last = -1;
  SweepEvents ev;
  ev.progress = [&](const SweepProgress&) { last = -1; };
  const SweepResult res = run_sweep(
      settings,
      [&](size_t) {
        const int t = get_num_threads();
        if (last == -1) first_calls.push_back(t);
        last = t;
        std::this_thread::sleep_for(std::chrono::milliseconds(t == 1 ? 5 : 100));
      },
      o, ev);
  REQUIRE(first_calls.size() >= 3);
  CHECK(first_calls[0] == 1);  // cheapest first
  CHECK(first_calls[1] == 2);
  CHECK(std::count(first_calls.begin(), first_calls.end(), 3) == 0);
  const BenchRow &three = res.rows[0], &two = res.rows[1], &one = res.rows[2];
  CHECK(one.measured);
  CHECK(one.rounds >= 2);
  CHECK(!two.measured);
  CHECK(two.skipped.find("cut off") != std::string::npos);
  CHECK(!three.measured);
  CHECK(three.skipped.find("share") != std::string::npos);
  init_threads(1, 0);
}

TEST_CASE("bench sweep: when not every setting's repeats fit, only the contenders are repeated") {
  init_threads(0, 0);
  // One and two threads: 3 ms calls; three threads: 15 ms (5x the p50, 1/5 the throughput). Round
  // 1 takes ~0.23 s; repeating all would take ~0.5 s, more than the ~0.32 s left; the two
  // contenders' repeats (~0.15 s) fit.
  const auto settings = all_settings({1, 2, 3}, {1}, {1});
  SweepOptions o;
  o.warmup = 1;
  o.iters = 30;
  o.rounds = 3;
  o.max_seconds = 0.55;
  o.first_call_estimate_s = 0.003;
  std::vector<size_t> reported;
  SweepEvents ev;
  ev.row_final = [&](size_t i, const BenchRow&) { reported.push_back(i); };
  const auto t0 = std::chrono::steady_clock::now();
  const SweepResult res = run_sweep(
      settings, [&](size_t) { std::this_thread::sleep_for(std::chrono::milliseconds(get_num_threads() == 3 ? 15 : 3)); }, o, ev);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  CHECK(took < 0.55 + 0.15);
  CHECK(reported == std::vector<size_t>{0, 1, 2});
  REQUIRE(res.rows[2].measured);
  CHECK(res.rows[2].rounds == 1);
  CHECK(res.rows[2].not_repeated.find("round 1 only") != std::string::npos);
  CHECK(res.narrowed.find("2 of 3 measured settings") != std::string::npos);
  for (size_t i : {0, 1}) {
    CHECK(res.rows[i].not_repeated.empty());
    CHECK(res.rows[i].rounds >= 2);
  }
  init_threads(1, 0);
}

TEST_CASE("bench recommend: best and runner-up, margin, noise judged on rounds") {
  std::vector<BenchRow> rows;
  rows.push_back(row_of({1, 1, 1}, {10, 10.2, 10.1}, {100, 98, 99}));
  rows.push_back(row_of({2, 1, 1}, {6, 6.1, 6.2}, {160, 158, 150}));   // best latency, clear
  rows.push_back(row_of({1, 1, 2}, {11, 11.5, 11.2}, {175, 150, 181}));  // best throughput, overlapping
  BenchRow skipped;
  skipped.setting = {4, 1, 2};
  skipped.skipped = "not started";
  rows.push_back(skipped);
  const Recommendation r = recommend(rows);
  REQUIRE(r.latency);
  CHECK(r.latency->row == 1);
  CHECK(r.latency->runner_up == size_t{0});
  CHECK(r.latency->margin_pct == doctest::Approx((10.1 - 6.1) / 10.1 * 100));
  CHECK(r.latency->p_value == doctest::Approx(0.05));
  CHECK(r.latency->beyond_noise);
  REQUIRE(r.throughput);
  CHECK(r.throughput->row == 2);
  CHECK(r.throughput->runner_up == size_t{1});
  CHECK(r.throughput->p_value > 0.05);  // 150 < 158: the rounds overlap
  CHECK(!r.throughput->beyond_noise);
  // One measured row: no runner-up, nothing beyond noise.
  const Recommendation one = recommend({rows[0], skipped});
  REQUIRE(one.latency);
  CHECK(!one.latency->runner_up);
  CHECK(!one.latency->beyond_noise);
  CHECK(!recommend({skipped}).latency);
  // Two rounds: separated but not enough evidence.
  const Recommendation two = recommend({row_of({1, 1, 1}, {5, 5}, {1, 1}), row_of({2, 1, 1}, {9, 9}, {2, 2})});
  CHECK(two.latency->row == 0);
  CHECK(!two.latency->beyond_noise);
}

TEST_CASE("bench oversubscription: threads x callers above the cores, named in the warning") {
  std::vector<BenchRow> rows;
  for (auto s : all_settings({1, 2, 4}, {1}, {1, 2})) {
    BenchRow r;
    r.setting = s;
    rows.push_back(r);
  }
  CHECK(oversubscribed_rows(rows, 2) == std::vector<size_t>{2, 4, 5});
  CHECK(oversubscribed_rows(rows, 8).empty());
  const std::string w = oversubscription_warning(rows, 2);
  CHECK(w.rfind("warning: ", 0) == 0);
  CHECK(w.find("3 of 6 settings") != std::string::npos);
  CHECK(w.find("--threads 4 --interop-threads 1, 1 caller (4 threads)") != std::string::npos);
  CHECK(w.find("--threads 2 --interop-threads 1, 2 callers (4 threads)") != std::string::npos);
  CHECK(w.find("--threads 4 --interop-threads 1, 2 callers (8 threads)") != std::string::npos);
  CHECK(w.find("--threads 1 --interop-threads 1, 2 callers") == std::string::npos);
  CHECK(oversubscription_warning(rows, 8).empty());
}

TEST_CASE("bench callers: private input copies; shared model unless the method writes state") {
  Tensor t = Tensor::empty(DType::Float32, {4});
  for (int i = 0; i < 4; ++i) static_cast<float*>(t.mutable_data())[i] = static_cast<float>(i);
  auto view = std::make_shared<TensorImpl>(t.impl());
  view->storage_offset = 2;
  view->sizes = {2};
  auto tup = std::make_shared<TupleData>();
  tup->items = {IValue(t), IValue(Tensor(view)), IValue(int64_t{7})};
  const std::vector<IValue> copy = copy_arguments({IValue(tup)});
  const auto& items = copy[0].to_tuple()->items;
  REQUIRE(items.size() == 3);
  CHECK(items[0].to_tensor().storage() != t.storage());                   // fresh memory
  CHECK(items[0].to_tensor().storage() == items[1].to_tensor().storage());  // still one storage for both views
  CHECK(items[1].to_tensor().storage_offset() == 2);
  CHECK(static_cast<const float*>(items[1].to_tensor().data())[0] == 2.0f);
  CHECK(items[2].to_int() == 7);

  // Writes a call leaves behind, on IR the interpreter runs.
  CHECK(state_written_by(*graph_with_schemas(R"(graph(%x : Tensor):
  %one : int = prim::Constant[value=1]()
  %y : Tensor = aten::relu(%x)
  %z : Tensor = aten::add_(%y, %y, %one)
  return (%z)
)")) == "");
  CHECK(state_written_by(*graph_with_schemas(R"(graph(%x : Tensor):
  %one : int = prim::Constant[value=1]()
  %z : Tensor = aten::add_(%x, %x, %one)
  return (%z)
)")).rfind("aten::add_", 0) == 0);
  const char* bn = R"(graph(%x : Tensor, %w : Tensor, %b : Tensor, %m : Tensor, %v : Tensor):
  %training : bool = prim::Constant[value=TRAINING]()
  %mom : float = prim::Constant[value=0.1]()
  %eps : float = prim::Constant[value=1e-05]()
  %cudnn : bool = prim::Constant[value=1]()
  %y : Tensor = aten::batch_norm(%x, %w, %b, %m, %v, %training, %mom, %eps, %cudnn)
  return (%y)
)";
  auto with = [&](const char* v) { std::string s = bn; s.replace(s.find("TRAINING"), 8, v); return s; };
  CHECK(state_written_by(*graph_with_schemas(with("0").c_str())) == "");
  // PyTorch's alias analysis (and ours) has batch norm write its running statistics unless
  // `training` is constant False.
  CHECK(state_written_by(*graph_with_schemas(with("1").c_str())).rfind("aten::batch_norm", 0) == 0);

  // Whole models: the traced ResNet block only reads its weights; a module that counts its calls
  // (testdata/bench/counter_scripted.pt: self.calls += 1, self.total.add_(...)) gets one
  // instance per caller.
  CHECK(state_written_by(testdata("models/resnet_block_traced.pt"), "forward") == "");
  const std::string counter = testdata("bench/counter_scripted.pt");
  CHECK(!state_written_by(counter, "forward").empty());
  Runtime rt = Runtime::load(counter);
  const Method m = rt.method("forward");
  Tensor x = Tensor::empty(DType::Float32, {3});
  for (int i = 0; i < 3; ++i) static_cast<float*>(x.mutable_data())[i] = 1.0f;
  const Callers c = make_callers(counter, "forward", m, {IValue(x)}, 3);
  CHECK(!c.own_instances_because.empty());
  // Concurrent callers, each on its own instance: every instance counts exactly its own calls.
  measure_round([&](size_t k) { c.call(k); }, {1, 1, 3}, 2, 10);
  for (size_t k = 0; k < 3; ++k) {
    const IValue out = c.methods[k]({IValue(x)});
    CHECK(out.to_tuple()->items[0].to_int() == 13);  // 2 warm-up + 10 timed + this one
  }
}

TEST_CASE("bench plot: two panels, one line per callers, recommended points ringed, oversubscribed hollow") {
  std::vector<BenchRow> rows;
  for (int c : {1, 2})
    for (int t : {1, 2, 4}) rows.push_back(row_of({t, 1, c}, {1.0 * t * c, 1.0 * t * c, 1.0 * t * c}, {100.0 / t, 100.0 / t, 100.0 / t}));
  BenchRow skipped;
  skipped.setting = {8, 1, 2};
  skipped.skipped = "not started";
  rows.push_back(skipped);
  const Recommendation rec = recommend(rows);
  const std::string svg = sweep_plot_svg({"models/m.pt", "Test CPU <1>", 2}, rows, rec);
  CHECK(svg.rfind("<svg", 0) == 0);
  CHECK(svg.find(kPlotMark) < svg.find('\n'));  // on the first line, where check_plot_target looks
  CHECK(svg.find("m.pt") != std::string::npos);
  CHECK(svg.find("models/") == std::string::npos);
  CHECK(svg.find("Test CPU &lt;1&gt;") != std::string::npos);  // escaped
  CHECK(count_of(svg, "<polyline") == 4);                       // 2 series x 2 panels
  CHECK(svg.find("intra-op threads") != std::string::npos);
  CHECK(svg.find("p50 latency per call (ms)") != std::string::npos);
  CHECK(svg.find("throughput, all callers (calls/s)") != std::string::npos);
  CHECK(svg.find("best latency") != std::string::npos);
  CHECK(svg.find("best throughput") != std::string::npos);
  CHECK(count_of(svg, "r=\"10\"") == 3);  // two rings + the legend's
  // (4,1), (2,2), (4,2) exceed 2 cores: hollow in both panels.
  CHECK(count_of(svg, "r=\"4.5\" fill=\"white\"") == 3 * 2 + 1);  // + the legend's
  CHECK(svg.find("1 skipped setting not drawn") != std::string::npos);
  CHECK(svg.find("<!--") != std::string::npos);
  CHECK(svg.substr(svg.find("<!--") + 4, svg.find("-->") - svg.find("<!--") - 4).find("--") == std::string::npos);
}

TEST_CASE("bench plot: refuses to write over anything but its own plot") {
  const fs::path dir = fs::temp_directory_path() / ("jitctl_plot_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string model = (dir / "model.svg").string();
  std::ofstream(model) << "PK not really a model";
  const std::string other = (dir / "drawing.svg").string();
  std::ofstream(other) << "<svg xmlns=\"http://www.w3.org/2000/svg\"><circle r=\"1\"/></svg>\n";
  const std::string ours = (dir / "plot.svg").string();
  std::ofstream(ours) << sweep_plot_svg({"m.pt", "cpu", 2}, {}, {});

  CHECK_NOTHROW(check_plot_target((dir / "new.svg").string(), {model}));
  CHECK_NOTHROW(check_plot_target(ours, {model}));
  CHECK_NOTHROW(check_plot_target((dir / "UPPER.SVG").string(), {}));
  auto message = [](const std::function<void()>& f) {
    try {
      f();
    } catch (const InvalidInput& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(message([&] { check_plot_target(model, {model}); }).find("refusing to overwrite") != std::string::npos);
  CHECK(message([&] { check_plot_target(other, {model}); }).find("not a plot jitctl wrote") != std::string::npos);
  CHECK(message([&] { check_plot_target((dir / "model.pt").string(), {}); }).find("name it F.svg") != std::string::npos);
  CHECK(message([&] { check_plot_target((dir / "missing" / "p.svg").string(), {}); }).find("does not exist") != std::string::npos);
  fs::create_directories(dir / "folder.svg");
  CHECK(message([&] { check_plot_target((dir / "folder.svg").string(), {}); }).find("not a regular file") != std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("bench machine: what the report states about the machine") {
  const MachineInfo& m = machine_info();
  CHECK(m.logical_cpus == static_cast<int>(std::thread::hardware_concurrency()));
  CHECK(m.available_cpus >= 1);
  CHECK(m.available_cpus <= m.logical_cpus);
  CHECK(m.physical_cores >= 1);
  CHECK(m.physical_cores * m.threads_per_core <= m.logical_cpus);
  CHECK(!m.isa.empty());
  CHECK(m.openmp_runtime.find("libgomp") != std::string::npos);  // GCC's OpenMP, what meson links
  CHECK(fma_peak_gflops_per_core() > 0.5);
  CHECK(load_average_1min() >= 0);
  CHECK(load_warning(3.5, 2).find("load average (3.5) exceeds the 2 usable cores") != std::string::npos);
  CHECK(load_warning(1.5, 2).empty());
}
