// The IR emitter on one small scripted module per TorchScript construct (testdata/emitter/, written
// by testdata/gen/make_emitter_goldens.py with PyTorch 1.13): the code PyTorch printed for the
// construct must compile to exactly the `.graph` PyTorch printed for it, and with every callee
// compiled and inlined, to its `.inlined_graph` (compared canonically, as shared/oracle/compat.py
// does); and every other method and function of the archive's code (callees, __init__, a with
// object's __enter__/__exit__) to exactly PyTorch's graph of it.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <cctype>
#include <map>
#include <sstream>
#include <utility>
#include <vector>

#include "lib/frontend/graph_function.h"
#include "lib/frontend/ir_emitter.h"
#include "lib/serialization/load_module.h"
#include "tests/support/canonical_graph.h"
#include "tests/support/testdata_path.h"

namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// warn_id=N comes from a process-wide counter in PyTorch (EMITTER_NOTES.md §5.7): not compared.
std::string without_warn_ids(std::string s) {
  for (size_t at = s.find("warn_id="); at != std::string::npos; at = s.find("warn_id=", at + 8)) {
    size_t end = at + 8;
    while (end < s.size() && std::isdigit(static_cast<unsigned char>(s[end]))) ++end;
    s.erase(at + 8, end - at - 8);
  }
  return s;
}

// NAME.functions.txt: "@@@@ <qualified name>" lines, each followed by that function's graph.
std::vector<std::pair<std::string, std::string>> read_functions(const fs::path& p) {
  std::vector<std::pair<std::string, std::string>> out;
  std::ifstream f(p);
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("@@@@ ", 0) == 0) out.emplace_back(line.substr(5), "");
    else if (!out.empty()) out.back().second += line + "\n";
  }
  return out;
}

}  // namespace

TEST_CASE("each construct's printed code compiles to PyTorch's graph and inlined graph") {
  const fs::path dir = jitctl::test::testdata_dir() / "emitter";
  REQUIRE(fs::is_directory(dir));
  size_t cases = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() != ".pt") continue;
    const std::string name = e.path().stem().string();
    CAPTURE(name);
    ++cases;
    jitctl::LoadedModule m = jitctl::load_module(e.path().string());
    const auto* fn = m.cu->find_method(m.class_name, "forward");
    REQUIRE(fn != nullptr);
    std::shared_ptr<jitctl::Graph> g;
    REQUIRE_NOTHROW(g = jitctl::compile_function(*m.cu, *fn));
    CHECK(g->str() == slurp(dir / (name + ".graph.txt")));
    std::shared_ptr<jitctl::Graph> inlined;
    REQUIRE_NOTHROW(inlined = m.cu->graph_function(m.class_name, "forward")->inlined_graph());
    CHECK(jitctl::test::canonical_graph(inlined->str()) ==
          jitctl::test::canonical_graph(slurp(dir / (name + ".inlined.txt"))));
    for (const auto& [qualified, want] : read_functions(dir / (name + ".functions.txt"))) {
      CAPTURE(qualified);
      const auto* f = m.cu->find_function(qualified);
      if (!f) {
        const size_t dot = qualified.rfind('.');
        f = m.cu->find_method(qualified.substr(0, dot), qualified.substr(dot + 1));
      }
      REQUIRE(f != nullptr);
      std::shared_ptr<jitctl::Graph> fg;
      REQUIRE_NOTHROW(fg = jitctl::compile_function(*m.cu, *f));
      CHECK(without_warn_ids(fg->str()) == without_warn_ids(want));
    }
  }
  CHECK(cases >= 17);
}
