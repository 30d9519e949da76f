// `jitctl optimize M -o OUT --passes none` on the whole corpus: what it writes loads back with the
// graph PyTorch printed for M (testdata/golden*/NAME/graph.txt) and the parameters, buffers and
// schemas PyTorch listed (info.json). Also: the command's refusals and its atomic writes.
// tests/oracle/check_roundtrip_torch.py loads the same written archives in PyTorch itself.
#include <doctest/doctest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "passes/registry.h"
#include "tests/support/corpus_dirs.h"
#include "tests/support/run_command.h"

using Json = nlohmann::json;
namespace fs = std::filesystem;
using jitctl::test::run_command;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

struct TempDir {
  fs::path path;
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "jitctl-roundtrip-XXXXXX").string();
    path = mkdtemp(tmpl.data());
  }
  ~TempDir() { fs::remove_all(path); }
};

fs::path testdata(const std::string& rel) { return fs::path(JITCTL_TESTDATA) / rel; }

}  // namespace

TEST_CASE("optimize --passes none: the written archive has PyTorch's graph and info for every corpus model") {
  size_t total = 0, graphs_equal = 0, not_compiled = 0;
  for (const auto& [models, golden, torch_version] : jitctl::test::corpus_dirs()) {
    jitctl::test::use_torch_version(torch_version);
    for (const auto& e : fs::directory_iterator(testdata(golden))) {
      if (!fs::exists(e.path() / "graph.txt")) continue;
      const std::string name = e.path().filename().string();
      CAPTURE(name);
      ++total;
      TempDir dir;
      // Same file name: the root folder (the file's stem) is part of info's answer.
      const fs::path out = dir.path / (name + ".pt");
      const fs::path in = testdata(models) / (name + ".pt");
      const auto w = run_command({JITCTL_BINARY, "optimize", in.string(), "-o", out.string(), "--passes", "none"});
      REQUIRE_MESSAGE(w.exit_code == 0, w.err);

      const auto g = run_command({JITCTL_BINARY, "dump-graph", out.string()});
      if (g.exit_code == 3) {  // a construct the compiler does not handle: the original says so too
        ++not_compiled;
        CHECK(run_command({JITCTL_BINARY, "dump-graph", in.string()}).exit_code == 3);
      } else {
        REQUIRE_MESSAGE(g.exit_code == 0, g.err);
        const std::string want = trimmed(slurp(e.path() / "graph.txt"));
        CHECK_MESSAGE(trimmed(g.out) == want, "the written archive's graph:\n", g.out, "\nPyTorch's:\n", want);
        graphs_equal += trimmed(g.out) == want;
      }

      const auto i = run_command({JITCTL_BINARY, "info", "--format", "json", out.string()});
      REQUIRE_MESSAGE(i.exit_code == 0, i.err);
      const Json got = Json::parse(i.out), want = Json::parse(slurp(e.path() / "info.json"));
      for (const char* key : {"format_version", "root", "class", "parameters", "buffers", "extra_files",
                              "total_parameters", "total_bytes", "method_schemas"})
        if (want.contains(key)) CHECK_MESSAGE(got[key] == want[key], key, ": got ", got[key].dump(), " want ", want[key].dump());
    }
  }
  MESSAGE("optimize --passes none: ", graphs_equal, " of ", total, " written archives print PyTorch's graph (",
          not_compiled, " not compiled)");
  CHECK(total >= 50);
}

TEST_CASE("optimize refuses to overwrite its input unless --force") {
  TempDir dir;
  const fs::path model = dir.path / "m.pt";
  fs::copy_file(testdata("models/mlp_traced.pt"), model);
  const std::string before = slurp(model);
  fs::create_symlink(model, dir.path / "link.pt");
  fs::create_hard_link(model, dir.path / "hard.pt");
  for (const char* target : {"m.pt", "link.pt", "hard.pt"}) {
    CAPTURE(target);
    const auto r = run_command({JITCTL_BINARY, "optimize", model.string(), "-o", (dir.path / target).string(), "--passes", "none"});
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("refusing to overwrite") != std::string::npos);
    CHECK(r.err.find("--force") != std::string::npos);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK(slurp(model) == before);
  }
  const auto r = run_command({JITCTL_BINARY, "optimize", model.string(), "-o", model.string(), "--passes", "none", "--force"});
  CHECK_MESSAGE(r.exit_code == 0, r.err);
  const auto g = run_command({JITCTL_BINARY, "dump-graph", model.string()});
  CHECK(trimmed(g.out) == trimmed(slurp(testdata("golden/mlp_traced/graph.txt"))));
}

TEST_CASE("run -o and bench-threads --plot refuse to write over the command's inputs") {
  TempDir dir;
  const fs::path model = dir.path / "m.pt", inputs = dir.path / "in.pt";
  fs::copy_file(testdata("models/mlp_traced.pt"), model);
  fs::copy_file(testdata("models/mlp_traced.in0.pt"), inputs);
  const std::string model_bytes = slurp(model), input_bytes = slurp(inputs);
  for (const auto& argv : std::vector<std::vector<std::string>>{
           {JITCTL_BINARY, "run", model.string(), "--inputs", inputs.string(), "-o", model.string()},
           {JITCTL_BINARY, "run", model.string(), "--inputs", inputs.string(), "-o", inputs.string()},
           {JITCTL_BINARY, "bench-threads", model.string(), "--inputs", inputs.string(), "--iters", "1", "--plot",
            model.string()}}) {
    CAPTURE(argv);
    const auto r = run_command(argv);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("refusing to overwrite") != std::string::npos);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  }
  CHECK(slurp(model) == model_bytes);
  CHECK(slurp(inputs) == input_bytes);
  const auto ok = run_command({JITCTL_BINARY, "run", model.string(), "--inputs", inputs.string(), "-o",
                               (dir.path / "out.pt").string()});
  CHECK_MESSAGE(ok.exit_code == 0, ok.err);
}

TEST_CASE("optimize usage errors exit 2 with one line") {
  TempDir dir;
  const std::string in = testdata("models/mlp_traced.pt").string(), out = (dir.path / "o.pt").string();
  for (const auto& argv : std::vector<std::vector<std::string>>{
           {JITCTL_BINARY, "optimize", in, "--passes", "none"},                   // no -o
           {JITCTL_BINARY, "optimize", "-o", out, "--passes", "none"},            // no model
           {JITCTL_BINARY, "optimize", in, "-o", out, "--passes", "no-such-pass"},
           {JITCTL_BINARY, "optimize", in, "-o", out, "--passes", "dce,,dce"},
           {JITCTL_BINARY, "optimize", in, "-o", out, "--pipeline", "no-such-pipeline"},
           {JITCTL_BINARY, "optimize", in, "-o", out, "--pipeline", "convert-to-ssa"},   // the compiler's own
           {JITCTL_BINARY, "optimize", in, "-o", out, "--passes", "dce,inline-loop-condition"},
           {JITCTL_BINARY, "optimize", (dir.path / "absent.pt").string(), "-o", out, "--passes", "none"}}) {
    CAPTURE(argv);
    const auto r = run_command(argv);
    CHECK(r.exit_code == 2);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  }
  CHECK_FALSE(fs::exists(out));
}

TEST_CASE("optimize writes atomically: a failed write leaves no file behind") {
  TempDir dir;
  const fs::path target = dir.path / "out.pt";
  fs::create_directories(target / "busy");  // the final rename onto a non-empty folder fails
  const auto r = run_command({JITCTL_BINARY, "optimize", testdata("models/mlp_traced.pt").string(), "-o", target.string(),
                              "--passes", "none"});
  CHECK(r.exit_code == 2);
  size_t entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir.path)) ++entries;
  CHECK(entries == 1);  // only the folder that was there
  const auto missing = run_command({JITCTL_BINARY, "optimize", testdata("models/mlp_traced.pt").string(), "-o",
                                    (dir.path / "no" / "such" / "out.pt").string(), "--passes", "none"});
  CHECK(missing.exit_code == 2);
  CHECK_FALSE(fs::exists(dir.path / "no"));
}

TEST_CASE("optimize --list-passes lists every registered pass, and every pipeline with its steps") {
  const auto r = run_command({JITCTL_BINARY, "optimize", "--list-passes"});
  REQUIRE(r.exit_code == 0);
  for (const auto& p : jitctl::all_passes()) CHECK(r.out.find("  " + std::string(p.name) + " ") != std::string::npos);
  for (const auto& p : jitctl::all_pipelines()) {
    CAPTURE(p.name);
    CHECK(r.out.find("  " + std::string(p.name) + " ") != std::string::npos);
    std::string line = "= ";
    for (std::string_view s : p.steps()) {
      if (line.size() > 2) line += ',';
      line += s;
    }
    line += '\n';
    CHECK(r.out.find(line) != std::string::npos);
  }
  CHECK(static_cast<size_t>(std::count(r.out.begin(), r.out.end(), '\n')) ==
        3 + jitctl::all_passes().size() + 2 * jitctl::all_pipelines().size());
}
