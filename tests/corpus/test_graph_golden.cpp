// `jitctl dump-graph` against `str(torch.jit.load(M).graph)` as PyTorch 1.13 printed it for every
// corpus archive. A graph jitctl prints must be PyTorch's to the character; an archive using a
// construct the compiler does not handle yet must say so with exit 3, never print something else.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <tuple>

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

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

}  // namespace

TEST_CASE("dump-graph prints exactly what PyTorch prints, or exits 3") {
  size_t exact = 0, unsupported = 0, total = 0;
  for (const auto& [models, golden, torch_version] : jitctl::test::corpus_dirs()) {
    jitctl::test::use_torch_version(torch_version);
    const fs::path gdir = fs::path(JITCTL_TESTDATA) / golden;
    for (const auto& e : fs::directory_iterator(gdir)) {
      if (!fs::exists(e.path() / "graph.txt")) continue;
      const std::string name = e.path().filename().string();
      CAPTURE(name);
      ++total;
      const fs::path model = fs::path(JITCTL_TESTDATA) / models / (name + ".pt");
      const auto r = jitctl::test::run_command({JITCTL_BINARY, "dump-graph", model.string()});
      CHECK_MESSAGE((r.exit_code == 0 || r.exit_code == 3), "exit ", r.exit_code, ": ", r.err);
      if (r.exit_code == 3) {
        ++unsupported;
        CHECK(r.err.find("not supported yet") != std::string::npos);
        continue;
      }
      if (r.exit_code != 0) continue;
      const std::string want = trimmed(slurp(e.path() / "graph.txt"));
      CHECK_MESSAGE(trimmed(r.out) == want, "jitctl printed:\n", r.out, "\nPyTorch printed:\n", want);
      if (trimmed(r.out) == want) ++exact;
    }
  }
  MESSAGE("dump-graph: ", exact, " exact of ", total, " archives (", unsupported, " use constructs not compiled yet)");
  CHECK(total >= 50);
}

TEST_CASE("dump-graph without JITCTL_TORCH_VERSION: the schema list the archive's records and code point to") {
  jitctl::test::use_torch_version(nullptr);
  // 2.15 for archives 2.1+ writes; 2.0 for an archive without those records that calls an
  // operator 2.0 added; a 2.4 archive gets 2.15's view (which 2.x wrote it is not recorded).
  for (auto [models, golden, want_same] : {std::tuple{"models_torch2.15", "golden_torch2.15", true},
                                           std::tuple{"models_torch2.0", "golden_torch2.0", true},
                                           std::tuple{"models_torch2.4", "golden_torch2.4", false}}) {
    CAPTURE(models);
    const fs::path model = fs::path(JITCTL_TESTDATA) / models / "sdpa_scripted.pt";
    const auto r = jitctl::test::run_command({JITCTL_BINARY, "dump-graph", model.string()});
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    const std::string own = trimmed(slurp(fs::path(JITCTL_TESTDATA) / golden / "sdpa_scripted" / "graph.txt"));
    CHECK((trimmed(r.out) == own) == want_same);
    if (!want_same)  // the 2.15 printout of the 2.4 archive
      CHECK(r.out.find("aten::scaled_dot_product_attention(%q.1, %k.1, %v.1, %17, %18, %19, %17, %") != std::string::npos);
  }
}
