// `jitctl dump-graph --inline` against `torch.jit.load(M).inlined_graph` as PyTorch 1.13 printed it,
// compared the way shared/oracle/compat.py compares them (canonical form: value names, mangling,
// warn ids and source comments do not count). For every archive whose plain graph compiles, the
// inlined one must match; exit 3 (a construct a callee uses that jitctl does not compile) is
// reported with its message, and no corpus archive may need it any more.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tests/support/canonical_graph.h"
#include "tests/support/corpus_dirs.h"
#include "tests/support/run_command.h"

namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("dump-graph --inline matches PyTorch's inlined_graph canonically, or exits 3") {
  size_t matched = 0, unsupported = 0, total = 0;
  for (const auto& [models, golden, torch_version] : jitctl::test::corpus_dirs()) {
    jitctl::test::use_torch_version(torch_version);
    const fs::path gdir = fs::path(JITCTL_TESTDATA) / golden;
    for (const auto& e : fs::directory_iterator(gdir)) {
      if (!fs::exists(e.path() / "inlined_graph.txt")) continue;
      const std::string name = e.path().filename().string();
      CAPTURE(name);
      const std::string model = (fs::path(JITCTL_TESTDATA) / models / (name + ".pt")).string();
      // Archives the compiler cannot do yet are test_graph_golden's business.
      if (jitctl::test::run_command({JITCTL_BINARY, "dump-graph", model}).exit_code != 0) continue;
      ++total;
      const auto r = jitctl::test::run_command({JITCTL_BINARY, "dump-graph", "--inline", model});
      CHECK_MESSAGE((r.exit_code == 0 || r.exit_code == 3), "exit ", r.exit_code, ": ", r.err);
      if (r.exit_code == 3) {
        ++unsupported;
        CHECK(r.err.find("not supported yet") != std::string::npos);
        continue;
      }
      if (r.exit_code != 0) continue;
      const std::string got = jitctl::test::canonical_graph(r.out);
      const std::string want = jitctl::test::canonical_graph(slurp(e.path() / "inlined_graph.txt"));
      CHECK_MESSAGE(got == want, "jitctl printed (canonical):\n", got, "\nPyTorch printed (canonical):\n", want);
      if (got == want) ++matched;
    }
  }
  jitctl::test::use_torch_version(nullptr);
  MESSAGE("dump-graph --inline: ", matched, " of ", total, " compiled archives match PyTorch's inlined_graph (",
          unsupported, " call constructs not compiled yet)");
  CHECK(total >= 40);
  // Every callee of every corpus archive compiles (the interpreter needs them all).
  CHECK(unsupported == 0);
}

TEST_CASE("dump-graph --format json and dot describe the same graph as text") {
  const std::string model = (fs::path(JITCTL_TESTDATA) / "models" / "control_flow_scripted.pt").string();
  const auto text = jitctl::test::run_command({JITCTL_BINARY, "dump-graph", model});
  if (text.exit_code != 0) return;  // not compiled yet: test_graph_golden says so
  const auto json = jitctl::test::run_command({JITCTL_BINARY, "dump-graph", "--format", "json", model});
  REQUIRE(json.exit_code == 0);
  nlohmann::json j;
  REQUIRE_NOTHROW(j = nlohmann::json::parse(json.out));
  // As many top-level nodes as the text has node lines at the first indentation level (a node
  // without outputs prints as `   = kind(...)`).
  size_t top_level = 0;
  std::istringstream lines(text.out);
  for (std::string line; std::getline(lines, line);)
    if (line.starts_with("  %") || line.starts_with("   = ")) ++top_level;
  CHECK(j["nodes"].size() == top_level);
  CHECK(j["inputs"].size() == 3);
  const auto dot = jitctl::test::run_command({JITCTL_BINARY, "graph", "--inline", "--format", "dot", model});
  REQUIRE(dot.exit_code == 0);
  CHECK(dot.out.starts_with("digraph "));
  CHECK(dot.out.find("subgraph cluster_") != std::string::npos);
}
