// convert_to_ssa against PyTorch 1.13 itself: testdata/ssa/NAME.in.txt is a graph as PyTorch's
// emitter left it and NAME.out.txt the same graph after PyTorch's ConvertToSSA, both dumped from
// inside torch (testdata/gen/make_ssa_goldens.py). Running jitctl's passes on the first must print
// the second, byte for byte: every value id and every `.N` name included.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "lib/ir/graph_parser.h"
#include "lib/ir/graph_printer.h"
#include "passes/registry.h"
#include "tests/support/testdata_path.h"

using namespace jitctl;
namespace fs = std::filesystem;

namespace {

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; }
bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Calls f(begin, end) for every `%name` reference (offsets of the name, after the '%'), skipping
// string literals.
template <class F>
void for_each_value_ref(const std::string& text, F&& f) {
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '"') {
      for (++i; i < text.size() && text[i] != '"'; ++i)
        if (text[i] == '\\') ++i;
    } else if (text[i] == '%') {
      size_t j = i + 1;
      while (j < text.size() && name_char(text[j])) ++j;
      f(i + 1, j);
      i = j - 1;
    }
  }
}

// The graph parser restores printed ids but not the id counter: every value it makes takes a
// fresh id first (so the counter ends one past the largest printed id plus the number of values),
// and named values keep those fresh ids. It also starts every name base's suffix counter afresh.
// PyTorch's passes continue from the emitter's state, in which the next id is one past the largest
// printed one (the output placeholder is the last value the emitter makes) and the suffix counters
// stand where the emitter's renames left them. So the test parses, replays the renames, and later
// shifts the ids the passes hand out down to where PyTorch's counter would have put them.
struct Emitted {
  std::string error;      // "" when parsed
  size_t first_new = 0;   // the parsed graph's next id
  size_t shift = 0;       // first_new minus PyTorch's next id
};

void collect_values(Block* b, std::vector<Value*>& out) {
  for (Value* v : b->inputs()) out.push_back(v);
  for (Node* n : b->nodes()) {
    for (Value* v : n->outputs()) out.push_back(v);
    for (Block* sub : n->blocks()) collect_values(sub, out);
  }
}

// The emitter names a variable's values bare (`x`) and each naming displaces the previous holder
// to the next odd suffix (`x.1`, `x.3`, ...). Naming the holders again from `x.1` up, the bare one
// last, leaves PyTorch's suffix counters behind. Returns "" or why the names do not replay.
std::string replay_names(Graph& g) {
  std::vector<Value*> values;
  collect_values(g.block(), values);
  Value* helper = nullptr;  // an unnamed value, to stand in for a bare holder that is gone
  std::map<std::string, std::map<size_t, std::pair<std::string, Value*>>> bases;  // bare sorts last
  for (Value* v : values) {
    if (!v->has_debug_name()) {
      helper = helper ? helper : v;
      continue;
    }
    const std::string name = v->debug_name();
    const auto dot = name.rfind('.');
    if (dot != std::string::npos && all_digits(std::string_view(name).substr(dot + 1)))
      bases[name.substr(0, dot)][std::stoul(name.substr(dot + 1))] = {name, v};
    else
      bases[name][SIZE_MAX] = {name, v};
  }
  for (auto& [base, holders] : bases)
    for (auto& [suffix, holder] : holders) holder.second->set_debug_name("");
  for (auto& [base, holders] : bases) {
    for (auto& [suffix, holder] : holders) holder.second->set_debug_name(base);
    if (!holders.count(SIZE_MAX)) {
      if (!helper) return "no unnamed value to stand in for " + base;
      helper->set_debug_name(base);
      helper->set_debug_name("");
    }
    for (auto& [suffix, holder] : holders)
      if (holder.second->debug_name() != holder.first)
        return fmt::format("cannot replay the names of {}: {} came out as {}", base, holder.first,
                           holder.second->debug_name());
  }
  return "";
}

Emitted parse_emitted(const std::string& text, Graph& g) {
  size_t next_id = 0;
  for_each_value_ref(text, [&](size_t b, size_t e) {
    const std::string_view name(text.data() + b, e - b);
    if (all_digits(name)) next_id = std::max<size_t>(next_id, std::stoul(std::string(name)) + 1);
  });
  Emitted out;
  parse_graph_into(text, g);
  out.first_new = g.next_unique();
  if (out.first_new < next_id) {
    out.error = fmt::format("next id {} below the printed ids", out.first_new);
    return out;
  }
  out.shift = out.first_new - next_id;
  out.error = replay_names(g);
  return out;
}

// The printed graph with ids from `e.first_new` on moved down by `e.shift`.
std::string print_shifted(const Graph& g, const Emitted& e) {
  const std::string text = graph_to_string(g);
  std::string out;
  size_t last = 0;
  for_each_value_ref(text, [&](size_t b, size_t end) {
    const std::string name = text.substr(b, end - b);
    if (!all_digits(name) || std::stoul(name) < e.first_new) return;
    out.append(text, last, b - last);
    out += std::to_string(std::stoul(name) - e.shift);
    last = end;
  });
  out.append(text, last, std::string::npos);
  return out;
}

std::string first_difference(const std::string& want, const std::string& got) {
  std::istringstream a(want), b(got);
  std::string la, lb;
  for (int line = 1;; ++line) {
    const bool ha = static_cast<bool>(std::getline(a, la));
    const bool hb = static_cast<bool>(std::getline(b, lb));
    if (!ha && !hb) return "";
    if (!ha || !hb || la != lb)
      return fmt::format("line {}:\n  want: {}\n  got:  {}", line, ha ? la : "<end>", hb ? lb : "<end>");
  }
}

}  // namespace

TEST_CASE("convert_to_ssa: PyTorch's graphs before and after ConvertToSSA") {
  const fs::path dir = test::testdata_dir() / "ssa";
  REQUIRE(fs::is_directory(dir));
  std::vector<fs::path> inputs;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().ends_with(".in.txt")) inputs.push_back(e.path());
  std::sort(inputs.begin(), inputs.end());
  REQUIRE(inputs.size() >= 30);

  size_t matched = 0;
  for (const auto& in_path : inputs) {
    std::string name = in_path.filename().string();
    name.resize(name.size() - std::string(".in.txt").size());
    CAPTURE(name);
    const std::string want = read_file(dir / (name + ".out.txt"));
    Graph g;
    const Emitted emitted = parse_emitted(read_file(in_path), g);
    CHECK_MESSAGE(emitted.error.empty(), emitted.error);
    if (!emitted.error.empty()) continue;
    std::string got;
    try {
      run_pipeline("convert-to-ssa", g);
      g.lint();
      got = print_shifted(g, emitted);
    } catch (const std::exception& e) {
      FAIL_CHECK(e.what());
      continue;
    }
    const std::string diff = first_difference(want, got);
    CHECK_MESSAGE(diff.empty(), diff);
    if (diff.empty()) ++matched;
  }
  MESSAGE(fmt::format("{} of {} graphs match PyTorch exactly", matched, inputs.size()));
}

TEST_CASE("convert_to_ssa: the ids a plain function takes") {
  // An If assigning `y` in both branches: 3 ids for its output, 1 for LoopContinuations' `false`,
  // then the exit transform's true/false/Uninitialized(bool) twice and Uninitialized(int) last.
  const std::string text =
      "graph(%0 : bool):\n"
      "  %1 : int = prim::Constant[value=1]()\n"
      "   = prim::Store[name=\"c\"](%0)\n"
      "  %2 : bool = prim::Load[name=\"c\"]()\n"
      "   = prim::If(%2)\n"
      "    block0():\n"
      "       = prim::Store[name=\"y\"](%1)\n"
      "      -> ()\n"
      "    block1():\n"
      "       = prim::Store[name=\"y\"](%1)\n"
      "      -> ()\n"
      "  %3 : int = prim::Load[name=\"y\"]()\n"
      "   = prim::ReturnStmt(%3)\n"
      "  %4 : int = prim::Uninitialized()\n"
      "  return (%4)\n";
  Graph g;
  const Emitted emitted = parse_emitted(text, g);
  REQUIRE(emitted.error.empty());
  run_pipeline("convert-to-ssa", g);
  g.lint();
  CHECK(print_shifted(g, emitted) ==
        "graph(%0 : bool):\n"
        "  %15 : int = prim::Uninitialized()\n"
        "  %14 : bool = prim::Uninitialized()\n"
        "  %12 : bool = prim::Constant[value=1]()\n"
        "  %13 : bool = prim::Constant[value=0]()\n"
        "  %11 : bool = prim::Uninitialized()\n"
        "  %9 : bool = prim::Constant[value=1]()\n"
        "  %10 : bool = prim::Constant[value=0]()\n"
        "  %8 : bool = prim::Constant[value=0]()\n"
        "  %1 : int = prim::Constant[value=1]()\n"
        "  %y : int = prim::If(%0)\n"
        "    block0():\n"
        "      -> (%1)\n"
        "    block1():\n"
        "      -> (%1)\n"
        "  return (%y)\n");
}

TEST_CASE("convert_to_ssa: a Load of a variable never stored is an error") {
  Graph g;
  REQUIRE(parse_emitted("graph():\n  %0 : int = prim::Load[name=\"x\"]()\n   = prim::ReturnStmt(%0)\n"
                        "  %1 : int = prim::Uninitialized()\n  return (%1)\n",
                        g)
              .error.empty());
  CHECK_THROWS_AS(run_pipeline("convert-to-ssa", g), std::logic_error);
}
