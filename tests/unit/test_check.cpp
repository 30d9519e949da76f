// lib/check: the unified graph diff against Python's difflib (testdata/diff/unified.json, made by
// testdata/gen/make_diff_goldens.py).
#include <doctest/doctest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "lib/check/graph_diff.h"

namespace jitctl {
namespace {

std::vector<GraphLine> graph_lines(const nlohmann::json& lines) {
  std::vector<GraphLine> out;
  for (const auto& l : lines) out.push_back({l.get<std::string>(), ""});
  return out;
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

}  // namespace

TEST_CASE("graph diff: hunks, headers and line order as difflib.unified_diff writes them") {
  std::ifstream f(std::string(JITCTL_SOURCE_ROOT) + "/testdata/diff/unified.json");
  REQUIRE(f);
  const nlohmann::json cases = nlohmann::json::parse(f);
  REQUIRE(cases.size() >= 10);
  for (const auto& [name, c] : cases.items()) {
    CAPTURE(name);
    const GraphDiff d = diff_graphs(graph_lines(c["a"]), graph_lines(c["b"]));
    CHECK_FALSE(d.equal());
    std::vector<std::string> got = split_lines(format_graph_diff(d, "a", "b"));
    REQUIRE(got.size() >= 2);
    CHECK(got[0] == "--- a");
    CHECK(got[1] == "+++ b");
    got.erase(got.begin(), got.begin() + 2);
    CHECK(got == c["unified"].get<std::vector<std::string>>());
  }
}

TEST_CASE("graph diff: equal graphs give no diff") {
  const std::vector<GraphLine> a = {{"graph(%x : Tensor):", ""}, {"  return (%x)", ""}};
  const GraphDiff d = diff_graphs(a, a);
  CHECK(d.equal());
  CHECK(format_graph_diff(d, "a", "b").empty());
}

}  // namespace jitctl
