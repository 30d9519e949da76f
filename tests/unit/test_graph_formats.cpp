// dump-graph's machine and human formats: JSON that parses back to the graph's structure, and dot
// that Graphviz accepts (balanced braces, every edge between declared nodes, strings escaped).
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <set>
#include <string>

#include "lib/ir/graph_dot.h"
#include "lib/ir/graph_json.h"
#include "lib/ir/graph_parser.h"

using namespace jitctl;

namespace {

// Strings with quotes, backslashes, a newline, braces, and a byte that is not UTF-8.
std::shared_ptr<Graph> sample_graph() {
  auto g = parse_graph(R"(graph(%self : __torch__.M, %x : Tensor, %c : bool):
  %s : str = prim::Constant[value="say \"hi\"\\ {x}\n"]() # m.py:1:2
  %f : float = prim::Constant[value=0.5]()
  %l : int[] = prim::Constant[value=[1, 2]]()
  %y : Tensor = prim::If(%c) # m.py:3:4
    block0():
      %a : Tensor = aten::relu(%x) # m.py:4:8
      -> (%a)
    block1():
      -> (%x)
  %n : int = prim::Loop(%f, %c, %f)
    block0(%i : int, %acc : int):
      -> (%c, %acc)
  %w : Tensor = aten::mul(%y, %f)
  return (%w, %s)
)");
  // A byte string no parser would make: a file name that is not UTF-8.
  for (Node* n : g->nodes())
    if (n->kind() == aten::mul) n->set_source_location(SourceLocation{"bad\xff.py", 9, 1});
  return g;
}

}  // namespace

TEST_CASE("graph JSON parses back with the graph's inputs, outputs, nodes and blocks") {
  auto g = sample_graph();
  const std::string text = graph_to_json(*g);
  nlohmann::json j;
  REQUIRE_NOTHROW(j = nlohmann::json::parse(text));
  REQUIRE(j["inputs"].size() == 3);
  CHECK(j["inputs"][1]["name"] == "x");
  CHECK(j["inputs"][1]["type"] == "Tensor");
  CHECK(j["inputs"][0]["type"] == "__torch__.M");
  REQUIRE(j["outputs"].size() == 2);
  CHECK(j["outputs"][0]["name"] == "w");
  CHECK(j["outputs"][1]["type"] == "str");

  const auto& nodes = j["nodes"];
  REQUIRE(nodes.size() == 6);
  CHECK(nodes[0]["kind"] == "prim::Constant");
  CHECK(nodes[0]["attributes"]["value"] == "say \"hi\"\\ {x}\n");  // the string itself, unescaped
  CHECK(nodes[0]["source"] == "m.py:1:2");
  CHECK(nodes[1]["attributes"]["value"] == 0.5);
  CHECK(nodes[2]["attributes"]["value"] == nlohmann::json::array({1, 2}));
  CHECK(nodes[1]["source"].is_null());

  const auto& if_node = nodes[3];
  CHECK(if_node["kind"] == "prim::If");
  CHECK(if_node["inputs"] == nlohmann::json::array({"c"}));
  REQUIRE(if_node["blocks"].size() == 2);
  CHECK(if_node["blocks"][0]["nodes"][0]["kind"] == "aten::relu");
  CHECK(if_node["blocks"][0]["outputs"][0]["name"] == "a");
  CHECK(if_node["blocks"][1]["nodes"].empty());
  const auto& loop = nodes[4];
  CHECK(loop["blocks"][0]["inputs"][0]["name"] == "i");
  CHECK(loop["blocks"][0]["inputs"][1]["type"] == "int");
  // Bytes that are not UTF-8 become U+FFFD rather than invalid JSON.
  CHECK(nodes[5]["source"] == "bad\xef\xbf\xbd.py:9:1");

  // One line when asked.
  CHECK(graph_to_json(*g, 0).find('\n') == std::string::npos);
  CHECK(nlohmann::json::parse(graph_to_json(*g, 0)) == j);
}

TEST_CASE("graph dot: braces balance, edges join declared nodes, blocks are clusters") {
  auto g = sample_graph();
  const std::string dot = graph_to_dot(*g);
  CHECK(dot.starts_with("digraph "));

  // Braces outside quoted strings balance and never go negative.
  int depth = 0, min_depth = 0;
  bool in_string = false;
  std::string unquoted;  // the text with quoted strings blanked, for the checks below
  for (size_t i = 0; i < dot.size(); ++i) {
    const char c = dot[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
      unquoted += ' ';
      continue;
    }
    if (c == '"') {
      in_string = true;
      unquoted += ' ';
      continue;
    }
    unquoted += c;
    if (c == '{') ++depth;
    if (c == '}') min_depth = std::min(min_depth, --depth);
  }
  CHECK(!in_string);
  CHECK(depth == 0);
  CHECK(min_depth == 0);

  // Statements are one a line: `ID [attrs];` declares a node, `ID -> ID [attrs];` is an edge.
  std::set<std::string> declared;
  std::vector<std::pair<std::string, std::string>> edges;
  std::istringstream lines(unquoted);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string first, second, third;
    words >> first >> second >> third;
    if (second == "->") {
      edges.emplace_back(first, third);
    } else if (second.starts_with("[") && first != "graph" && first != "node" && first != "edge") {
      declared.insert(first);
    }
  }
  REQUIRE(!edges.empty());
  for (const auto& [from, to] : edges) {
    INFO(from, " -> ", to);
    CHECK(declared.count(from) == 1);
    CHECK(declared.count(to) == 1);
  }
  // Inputs, the return node, and two If blocks plus a Loop body, each with param and return nodes.
  CHECK(declared.count("in0") == 1);
  CHECK(declared.count("ret") == 1);
  size_t clusters = 0;
  for (size_t at = dot.find("subgraph cluster_"); at != std::string::npos; at = dot.find("subgraph cluster_", at + 1))
    ++clusters;
  CHECK(clusters == 3);
  // Edges are labelled with the value as str(graph) names and types it; strings are escaped.
  CHECK(dot.find("[label=\"%y : Tensor\"]") != std::string::npos);
  CHECK(dot.find(R"(value=\"say \\\"hi\\\"\\\\ {x}\\n\")") != std::string::npos);
  CHECK(dot.find("bad?.py:9:1") != std::string::npos);
}
