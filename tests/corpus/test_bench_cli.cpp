// `jitctl bench-threads` and `parallel-info` as a script sees them: the JSON contract of DESIGN.md
// (extended, never renamed), the CSV header, the oversubscription warning, the recommendation
// pointing at the best measured row, --max-seconds reporting skipped settings, --plot refusing
// files it did not write, --op, and parallel-info --format json. Kept quick: few timed calls.
#include <doctest/doctest.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/run_command.h"

using jitctl::test::run_command;
namespace fs = std::filesystem;
using json = nlohmann::ordered_json;  // keeps the order of keys as printed

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

struct TempDir {
  fs::path path;
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "jitctl-bench-XXXXXX").string();
    path = mkdtemp(tmpl.data());
  }
  ~TempDir() { fs::remove_all(path); }
};

std::string testdata(const std::string& rel) { return (fs::path(JITCTL_TESTDATA) / rel).string(); }

const std::string kModel = testdata("models/resnet_block_traced.pt");
const std::string kInputs = testdata("models/resnet_block_traced.in0.pt");

std::vector<std::string> bench(std::vector<std::string> extra) {
  std::vector<std::string> argv{JITCTL_BINARY, "bench-threads", kModel, "--inputs", kInputs, "--warmup", "1", "--iters", "3"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  return argv;
}

}  // namespace

TEST_CASE("bench-threads --format json: DESIGN.md's contract, the machine, and a recommendation of the best row") {
  const auto r = run_command(bench({"--threads", "1,2", "--concurrency", "1,2", "--format", "json"}), 120);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const json j = json::parse(r.out);
  // The contract's keys, in its order at the top of each row.
  CHECK(j.at("model") == kModel);
  for (const char* k : {"cpu", "hardware_concurrency", "cores", "threads_per_core", "isa", "openmp_runtime", "environment"})
    CHECK_MESSAGE(j.at("machine").contains(k), k);
  CHECK(j.at("machine").at("environment").contains("OMP_NUM_THREADS"));
  const json& rows = j.at("rows");
  REQUIRE(rows.size() == 4);
  const std::vector<std::string> contract{"intra_op_threads", "inter_op_threads", "concurrency", "latency_ms", "throughput_per_s",
                                          "first_call_ms"};
  for (const auto& row : rows) {
    std::vector<std::string> first;
    for (auto it = row.begin(); it != row.end() && first.size() < contract.size(); ++it) first.push_back(it.key());
    CHECK(first == contract);
    for (const char* k : {"p50", "p90", "p99", "min", "mean"}) CHECK(row.at("latency_ms").at(k).is_number());
    CHECK(row.at("latency_ms").at("min").get<double>() <= row.at("latency_ms").at("p50").get<double>());
    CHECK(row.at("latency_ms").at("p50").get<double>() <= row.at("latency_ms").at("p99").get<double>());
    CHECK(row.at("throughput_per_s").get<double>() > 0);
    CHECK(row.at("status") == "measured");
    CHECK(row.at("rounds") == 3);
    CHECK(row.at("timed_calls") == 3 * row.at("concurrency").get<int>());
    CHECK(row.at("round_p50_ms").size() == 3);
    CHECK(row.at("spread_pct").at("p50").is_number());
    CHECK(row.at("threads_total") == row.at("intra_op_threads").get<int>() * row.at("concurrency").get<int>());
    CHECK(row.at("oversubscribed") == (row.at("threads_total").get<int>() > j.at("usable_cores").get<int>()));
  }
  // Rows in the listed order: concurrency, then threads.
  CHECK(rows[1].at("intra_op_threads") == 2);
  CHECK(rows[2].at("concurrency") == 2);
  // The recommendation is the best measured row, the runner-up the next best.
  size_t best_lat = 0, best_tp = 0;
  for (size_t i = 1; i < rows.size(); ++i) {
    if (rows[i].at("latency_ms").at("p50").get<double>() < rows[best_lat].at("latency_ms").at("p50").get<double>()) best_lat = i;
    if (rows[i].at("throughput_per_s").get<double>() > rows[best_tp].at("throughput_per_s").get<double>()) best_tp = i;
  }
  const json& rec = j.at("recommendation");
  CHECK(rec.at("latency").at("row") == best_lat);
  CHECK(rec.at("throughput").at("row") == best_tp);
  CHECK(rec.at("latency").at("value") == rows[best_lat].at("latency_ms").at("p50"));
  CHECK(rec.at("latency").at("beyond_noise").is_boolean());
  CHECK(rec.at("latency").at("margin_pct").get<double>() >= 0);
  CHECK(j.at("callers_share_model") == true);  // the traced ResNet block only reads its weights
}

TEST_CASE("bench-threads --format csv: the header, then one line per setting") {
  const auto r = run_command(bench({"--threads", "1,2", "--format", "csv", "--rounds", "1"}), 120);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  std::istringstream lines(r.out);
  std::string header, line;
  std::getline(lines, header);
  CHECK(header ==
        "intra_op_threads,inter_op_threads,concurrency,p50_ms,p90_ms,p99_ms,min_ms,mean_ms,throughput_per_s,first_call_ms,"
        "rounds,timed_calls,p50_spread_pct,throughput_spread_pct,peak_memory_mib,oversubscribed,status");
  size_t n = 0;
  while (std::getline(lines, line)) {
    ++n;
    CHECK(std::count(line.begin(), line.end(), ',') == std::count(header.begin(), header.end(), ','));
    CHECK(line.rfind(n == 1 ? "1,1,1," : "2,1,1,", 0) == 0);
  }
  CHECK(n == 2);
}

TEST_CASE("bench-threads warns about the rows where threads x callers exceed the cores") {
  const int over = static_cast<int>(std::thread::hardware_concurrency()) + 1;  // more than any affinity mask allows
  const auto r = run_command(bench({"--threads", "1," + std::to_string(over), "--rounds", "1"}), 120);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.err.rfind("warning: intra-op threads x callers exceed the ", 0) == 0);
  CHECK(r.err.find("in 1 of 2 settings") != std::string::npos);
  CHECK(r.err.find("--threads " + std::to_string(over) + " --interop-threads 1, 1 caller (" + std::to_string(over) + " threads)") !=
        std::string::npos);
  CHECK(r.err.find("--threads 1 ") == std::string::npos);
  CHECK(r.out.find("! " + std::to_string(over) + " threads on") != std::string::npos);  // the row itself, in the table
  CHECK(r.out.find("recommended for latency: ") != std::string::npos);
  CHECK(r.out.find("recommended for throughput: ") != std::string::npos);
  // No warning when nothing oversubscribes.
  const auto ok = run_command(bench({"--threads", "1", "--rounds", "1"}), 60);
  CHECK(ok.err.find("threads x callers") == std::string::npos);  // (a load-average warning may come on a busy machine)
}

TEST_CASE("bench-threads --max-seconds: what does not fit is reported as skipped") {
  // With a budget of 0.05 s for 40 settings of 300 calls most cannot fit, and every one of them is
  // still in the output, with the reason.
  std::string many;
  for (int t = 1; t <= 40; ++t) {
    if (t > 1) many += ',';
    many += std::to_string(t);
  }
  const auto r = run_command({JITCTL_BINARY, "bench-threads", kModel, "--inputs", kInputs, "--threads", many, "--iters", "300",
                              "--max-seconds", "0.05", "--format", "json"},
                             120);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const json j = json::parse(r.out);
  REQUIRE(j.at("rows").size() == 40);
  size_t skipped = 0;
  for (const auto& row : j.at("rows"))
    if (row.at("status") == "skipped") {
      ++skipped;
      CHECK(row.at("skipped_reason").get<std::string>().find("--max-seconds") != std::string::npos);
      CHECK(row.at("latency_ms").at("p50").is_null());
    }
  CHECK(skipped >= 30);
  CHECK(j.at("seconds").get<double>() < 2.0);
}

TEST_CASE("bench-threads --plot writes an SVG, replaces its own, refuses anything else") {
  TempDir dir;
  const fs::path plot = dir.path / "p.svg", drawing = dir.path / "drawing.svg", notes = dir.path / "notes.txt";
  std::ofstream(drawing) << "<svg xmlns=\"http://www.w3.org/2000/svg\"/>\n";
  std::ofstream(notes) << "mine\n";
  const auto w = run_command(bench({"--rounds", "1", "--threads", "1,2", "--concurrency", "1,2", "--plot", plot.string()}), 120);
  REQUIRE_MESSAGE(w.exit_code == 0, w.err);
  const std::string svg = slurp(plot);
  CHECK(svg.rfind("<svg", 0) == 0);
  CHECK(svg.find("data-generator=\"jitctl bench-threads\"") != std::string::npos);
  CHECK(svg.find("resnet_block_traced.pt") != std::string::npos);
  const auto again = run_command(bench({"--rounds", "1", "--plot", plot.string()}), 60);
  CHECK_MESSAGE(again.exit_code == 0, again.err);
  for (const auto& [target, why] : std::vector<std::pair<fs::path, std::string>>{
           {drawing, "not a plot jitctl wrote"}, {notes, "name it F.svg"}, {dir.path / "p.png", "name it F.svg"}}) {
    CAPTURE(target);
    const std::string before = fs::exists(target) ? slurp(target) : "";
    const auto r = run_command(bench({"--rounds", "1", "--plot", target.string()}), 60);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find(why) != std::string::npos);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK(r.out.empty());  // refused before measuring anything
    if (!before.empty()) CHECK(slurp(target) == before);
  }
}

TEST_CASE("bench-threads: callers of a model that writes its own state get one instance each") {
  const auto r = run_command({JITCTL_BINARY, "bench-threads", testdata("bench/counter_scripted.pt"), "--inputs",
                              testdata("bench/counter_scripted.in0.pt"), "--concurrency", "1,3", "--iters", "3", "--format", "json"},
                             60);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const json j = json::parse(r.out);
  CHECK(j.at("callers_share_model") == false);
  CHECK(!j.at("own_instances_because").get<std::string>().empty());
}

TEST_CASE("bench-threads --op: the kernel sweep in GFLOP/s and percent of peak; usage errors exit 2") {
  const auto r = run_command({JITCTL_BINARY, "bench-threads", "--op", "mm", "--size", "96", "--threads", "1,2", "--iters", "3",
                              "--format", "json"},
                             60);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const json j = json::parse(r.out);
  CHECK(j.at("op") == "mm");
  CHECK(j.at("flops_per_call").get<double>() == doctest::Approx(2.0 * 96 * 96 * 96));
  CHECK(j.at("machine").at("fp32_peak_gflops_per_core").get<double>() > 0);
  REQUIRE(j.at("rows").size() == 2);
  for (const auto& row : j.at("rows")) {
    const double gflops = row.at("gflops").get<double>();
    CHECK(gflops == doctest::Approx(2.0 * 96 * 96 * 96 / row.at("latency_ms").at("p50").get<double>() / 1e6).epsilon(0.01));
    CHECK(row.at("pct_of_peak").get<double>() ==
          doctest::Approx(gflops / row.at("peak_gflops").get<double>() * 100).epsilon(0.01));
  }
  const auto conv = run_command({JITCTL_BINARY, "bench-threads", "--op", "conv", "--size", "8", "--iters", "2", "--format", "csv"}, 60);
  CHECK_MESSAGE(conv.exit_code == 0, conv.err);
  CHECK(conv.out.rfind("intra_op_threads,concurrency,p50_ms,min_ms,gflops,", 0) == 0);
  for (const auto& argv : std::vector<std::vector<std::string>>{
           {JITCTL_BINARY, "bench-threads", "--op", "mm"},                              // no --size
           {JITCTL_BINARY, "bench-threads", kModel, "--op", "mm", "--size", "8"},       // both
           {JITCTL_BINARY, "bench-threads"},                                            // neither
           {JITCTL_BINARY, "bench-threads", "--op", "gemv", "--size", "8"},             // unknown op
           {JITCTL_BINARY, "bench-threads", kModel, "--threads", "0"},                  // bad count
           {JITCTL_BINARY, "bench-threads", kModel, "--threads", "two"}}) {
    CAPTURE(argv);
    const auto e = run_command(argv, 30);
    CHECK(e.exit_code == 2);
    CHECK(!e.err.empty());
  }
}

TEST_CASE("parallel-info --format json: the settings in force and the machine") {
  const auto r = run_command({JITCTL_BINARY, "parallel-info", "--threads", "3", "--interop-threads", "2", "--format", "json"});
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const json j = json::parse(r.out);
  CHECK(j.at("intra_op_threads") == 3);
  CHECK(j.at("inter_op_threads") == 2);
  CHECK(j.at("omp_get_max_threads") == 3);
  CHECK(j.at("machine").at("cores").get<int>() >= 1);
  CHECK(j.at("machine").at("logical_cpus") == static_cast<int>(std::thread::hardware_concurrency()));
  const auto text = run_command({JITCTL_BINARY, "parallel-info"});
  CHECK(text.out.find("\nMachine:\n\tCPU : ") != std::string::npos);
  CHECK(text.out.find("\tthreads per core : ") != std::string::npos);
  CHECK(text.out.find("\tOpenMP runtime : ") != std::string::npos);
}

// cli/wait_policy.h: on a busy machine (forced here) a run on two threads re-executes with
// passive waiting and says so; a wait policy of the user's, or one thread, is left alone. libgomp
// itself reports what it read (OMP_DISPLAY_ENV=verbose: GOMP_SPINCOUNT 0 when passive).
TEST_CASE("bench-threads: passive OpenMP waiting when the machine is busy, the user's policy otherwise") {
  auto spin_of = [](const std::string& err) {
    const size_t at = err.rfind("GOMP_SPINCOUNT = '");
    return at == std::string::npos ? std::string("?") : err.substr(at + 18, err.find('\'', at + 18) - at - 18);
  };
  auto run = [&](std::vector<std::string> env, const std::string& threads) {
    std::vector<std::string> argv{"/usr/bin/env", "-u", "OMP_WAIT_POLICY", "-u", "GOMP_SPINCOUNT", "-u", "JITCTL_WAIT_POLICY", "OMP_DISPLAY_ENV=verbose"};
    argv.insert(argv.end(), env.begin(), env.end());
    for (const auto& a : bench({"--threads", threads, "--format", "json"})) argv.push_back(a);
    const auto r = run_command(argv, 120);
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    return std::make_pair(json::parse(r.out).at("machine").at("environment"), spin_of(r.err));
  };
  {
    const auto [env, spin] = run({"JITCTL_MACHINE_BUSY=1"}, "2");
    CHECK(spin == "0");
    CHECK(env.at("OMP_WAIT_POLICY") == "PASSIVE (set by jitctl: the machine was busy)");
  }
  {
    const auto [env, spin] = run({"JITCTL_MACHINE_BUSY=0"}, "2");
    CHECK(spin == "300000");  // libgomp's default
    CHECK_FALSE(env.contains("OMP_WAIT_POLICY"));
  }
  {
    const auto [env, spin] = run({"JITCTL_MACHINE_BUSY=1"}, "1");
    CHECK(spin == "300000");  // one thread: nothing to wait for
    CHECK_FALSE(env.contains("OMP_WAIT_POLICY"));
  }
  {
    const auto [env, spin] = run({"JITCTL_MACHINE_BUSY=1", "GOMP_SPINCOUNT=5000"}, "1,2");
    CHECK(spin == "5000");
    CHECK(env.at("GOMP_SPINCOUNT") == "5000");
    CHECK_FALSE(env.contains("OMP_WAIT_POLICY"));
  }
}
