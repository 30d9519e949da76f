// Fuzz target: the graph-text parser (lib/ir/graph_parser.h). A graph that parses must pass the
// IR's own invariant check (Graph::lint), print in every format, and read back from its printed
// text into a graph that prints the same (graph_parser.h's promise).
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "lib/ir/graph_dot.h"
#include "lib/ir/graph_json.h"
#include "lib/ir/graph_parser.h"
#include "tests/fuzz/fuzz_support.h"

using namespace jitctl;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::shared_ptr<Graph> g;
  fuzz::expect_clean("graph_text", [&] { g = parse_graph(fuzz::as_text(data, size)); });
  if (!g) return 0;
  g->lint();
  const std::string printed = g->str();
  graph_to_dot(*g);
  graph_to_json(*g);
  std::shared_ptr<Graph> again;
  fuzz::expect_clean("graph_text", [&] { again = parse_graph(printed); });
  if (!again || again->str() != printed) {
    std::fprintf(stderr, "fuzz graph_text: the printed graph does not read back as itself:\n%s", printed.c_str());
    std::abort();
  }
  return 0;
}
