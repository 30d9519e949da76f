// The clean-up passes against PyTorch 1.13: IR text in, IR text out. testdata/gen/make_pass_goldens.py
// ran torch's own passes on the same graphs; each expected text is what torch printed after its
// pass, compared byte for byte.
//
//   testdata/passes/NAME.in.txt + NAME.PASS.out.txt   synthetic graphs, one per behaviour
//   testdata/passes/golden_cases.txt                  the corpus graphs (testdata/golden/MODEL/FILE):
//                                                     `same` (a fixed point) or `changed`, with the
//                                                     output in testdata/passes/golden/
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "lib/frontend/schema_matching.h"
#include "lib/ops/schema_registry.h"
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

fs::path passes_dir() { return test::testdata_dir() / "passes"; }

// `# torch next value id: N` header lines: the id torch's graph would give its next new value,
// which text cannot show. Returns the text without them.
std::string strip_header(const std::string& text, size_t* next_id) {
  std::string_view rest = text;
  static constexpr std::string_view kKey = "# torch next value id: ";
  while (rest.starts_with("#")) {
    const size_t eol = rest.find('\n');
    const std::string_view line = rest.substr(0, eol);
    if (line.starts_with(kKey) && next_id) *next_id = std::stoul(std::string(line.substr(kKey.size())));
    rest = eol == std::string_view::npos ? std::string_view() : rest.substr(eol + 1);
  }
  return std::string(rest);
}


// Brings the graph's id counter to `next_id`: values are created (and dropped) until it is there.
void advance_ids(Graph& g, size_t next_id) {
  if (g.next_unique() >= next_id) return;
  g.create(prim::Constant, next_id - g.next_unique())->destroy();
}

// Printed ids of values a pass created, moved from this graph's counter to torch's. Graphs read
// from text number their named values above every printed id, so their counter can be past
// torch's; what must agree is the order values were made in, which the offset keeps.
std::string rebase_new_ids(const std::string& text, size_t ours, size_t torchs) {
  if (ours == torchs || torchs == 0) return text;
  auto name_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; };
  std::string out;
  for (size_t i = 0; i < text.size();) {
    if (text[i] != '%') {
      out += text[i++];
      continue;
    }
    size_t j = i + 1;
    while (j < text.size() && name_char(text[j])) ++j;
    const std::string_view name(text.data() + i + 1, j - i - 1);
    const bool digits = !name.empty() && name.size() < 19 &&
                        std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; });
    size_t id = digits ? std::stoul(std::string(name)) : 0;
    if (digits && id >= ours) {
      out += '%';
      out += std::to_string(id - ours + torchs);
    } else {
      out.append(text, i, j - i);
    }
    i = j;
  }
  return out;
}

std::shared_ptr<Graph> load(const std::string& text, size_t next_id, const std::string& name) {
  GraphParseOptions opts;
  opts.source_name = name;
  auto g = parse_graph(text, opts);
  // A graph whose printed ids follow creation order (what parse_ir makes) copies into one whose
  // ids and counter are torch's: the copy creates values in the same order, from 0.
  if (auto c = g->copy(); c->next_unique() <= next_id && graph_to_string(*c) == graph_to_string(*g)) g = c;
  attach_builtin_schemas(g->block());
  advance_ids(*g, next_id);
  return g;
}

struct Tally {
  std::map<std::string, std::pair<int, int>> by_pass;  // matched, total
  void add(const std::string& pass, bool ok) {
    auto& [matched, total] = by_pass[pass];
    matched += ok ? 1 : 0;
    ++total;
  }
  void report(const char* what) const {
    for (const auto& [pass, counts] : by_pass)
      MESSAGE(fmt::format("{}: {} {}/{} match torch", what, pass, counts.first, counts.second));
  }
};

}  // namespace

TEST_CASE("passes: the table of passes and pipelines") {
  for (const PassInfo& p : all_passes()) {
    CAPTURE(p.name);
    CHECK(find_pass(p.name) == &p);
    CHECK(!p.description.empty());
  }
  CHECK(find_pass("dce")->name == "dce");
  CHECK(find_pass("no-such-pass") == nullptr);
  for (const PipelineInfo& p : all_pipelines()) {
    CAPTURE(p.name);
    CHECK(find_pipeline(p.name) == &p);
    CHECK(!p.steps().empty());
    // A step is a pass or a pipeline defined above this one.
    for (std::string_view step : p.steps())
      CHECK((find_pass(step) != nullptr || (find_pipeline(step) != nullptr && find_pipeline(step) < &p)));
  }
  CHECK(find_pipeline("no-such-pipeline") == nullptr);
  auto steps = [](std::string_view pipeline) {
    const auto s = find_pipeline(pipeline)->steps();
    return std::vector<std::string_view>(s.begin(), s.end());
  };
  // PyTorch's orders (ConvertToSSA, runCleanupPasses, preoptimizeGraph), and jitctl optimize's default.
  CHECK(steps("convert-to-ssa") == std::vector<std::string_view>{"control-flow-load-stores", "loop-continuations",
                                                                  "inline-loop-condition", "erase-load-stores",
                                                                  "transform-exits"});
  CHECK(steps("cleanup") == std::vector<std::string_view>{"lift-closures", "inline-forked-closures", "lower-simple-tuples",
                                                           "constant-propagation-immutable", "constant-pooling",
                                                           "canonicalize-outputs", "annotate-warns"});
  CHECK(steps("preoptimize") ==
        std::vector<std::string_view>{"inline", "peephole", "constant-propagation-immutable", "constant-pooling"});
  // PyTorch 1.13's runOptimization as freezing calls it (DCE, CSE, peephole, constant propagation,
  // pooling, constant loop unrolling and, if it unrolled, peephole and propagation again; CSE),
  // then EliminateNoOps and LowerSimpleTuples; and OptimizeFrozenGraph.
  CHECK(steps("unroll-and-simplify") ==
        std::vector<std::string_view>{"unroll-constant-loops", "remove-list-mutation", "peephole", "constant-propagation"});
  CHECK(find_pipeline("unroll-and-simplify")->mode == PipelineInfo::Mode::IfFirstChanges);
  CHECK(steps("frozen-cleanup") == std::vector<std::string_view>{"dce", "cse", "peephole", "constant-propagation",
                                                                  "constant-pooling", "unroll-and-simplify", "cse",
                                                                  "eliminate-no-ops", "lower-simple-tuples"});
  CHECK(steps("fold-frozen-conv") ==
        std::vector<std::string_view>{"fold-frozen-conv-bn", "fold-frozen-conv-add-sub", "fold-frozen-conv-mul-div"});
  CHECK(find_pipeline("fold-frozen-conv")->mode == PipelineInfo::Mode::Repeat);
  CHECK(steps("frozen-optimizations") ==
        std::vector<std::string_view>{"remove-dropout", "frozen-concat-linear", "fold-frozen-conv"});
  CHECK(steps("frozen-optimizations-no-numerics") == std::vector<std::string_view>{"remove-dropout", "frozen-concat-linear"});
  // optimize_for_inference's one step that makes standard operators only.
  CHECK(steps("optimize-for-inference") == std::vector<std::string_view>{"frozen-linear-transpose"});
  // jitctl optimize's default, after freezing.
  CHECK(steps("simplify-from-facts") ==
        std::vector<std::string_view>{"fold-tensor-queries", "constant-propagation", "eliminate-dead-branches",
                                      "simplify-arithmetic", "remove-no-op-conversions"});
  CHECK(find_pipeline("simplify-from-facts")->mode == PipelineInfo::Mode::Repeat);
  CHECK(steps("optimize") ==
        std::vector<std::string_view>{"simplify-from-facts", "fold-conv-past-shape-reads", "dce", "constant-pooling"});
  CHECK_THROWS_AS(run_pipeline("no-such-pipeline", *std::make_shared<Graph>()), std::logic_error);
  // The SSA steps need the emitter's Load/Store form; nothing else does.
  for (const PassInfo& p : all_passes()) {
    CAPTURE(p.name);
    const auto ssa = steps("convert-to-ssa");
    CHECK(p.emitter_only == (std::find(ssa.begin(), ssa.end(), p.name) != ssa.end()));
  }
  CHECK(find_pipeline("convert-to-ssa")->emitter_only());
  CHECK_FALSE(find_pipeline("cleanup")->emitter_only());
  CHECK_FALSE(find_pipeline("optimize")->emitter_only());
}

TEST_CASE("passes: every pass file of passes/ has a row in the table, and every row names a file") {
  const fs::path dir = fs::path(JITCTL_SOURCE_ROOT) / "passes";
  std::map<std::string, int> rows;
  for (const PassInfo& p : all_passes()) {
    CAPTURE(p.name);
    ++rows[std::string(p.file)];
    CHECK(fs::exists(dir / (std::string(p.file) + ".cpp")));
    CHECK(fs::exists(dir / (std::string(p.file) + ".h")));
  }
  size_t files = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() != ".cpp" || e.path().stem() == "registry") continue;
    CAPTURE(e.path().filename().string());
    // Variants of one pass share its file (constant-propagation and -immutable, the conv folds).
    CHECK(rows[e.path().stem().string()] >= 1);
    ++files;
  }
  CHECK(files == rows.size());
}

TEST_CASE("passes: synthetic graphs match torch") {
  const fs::path dir = passes_dir();
  REQUIRE(fs::is_directory(dir));
  std::vector<fs::path> inputs;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().string().ends_with(".in.txt")) inputs.push_back(e.path());
  std::sort(inputs.begin(), inputs.end());
  REQUIRE(!inputs.empty());
  Tally tally;
  for (const fs::path& in : inputs) {
    const std::string name = in.filename().string().substr(0, in.filename().string().size() - 7);
    size_t next_id = 0;
    const std::string text = strip_header(read_file(in), &next_id);
    for (const PassInfo& p : all_passes()) {
      const fs::path out = dir / fmt::format("{}.{}.out.txt", name, p.name);
      if (!fs::exists(out)) continue;
      INFO(name, " / ", p.name);
      auto g = load(text, next_id, in.filename().string());
      const size_t ours = g->next_unique();
      p.run(*g);
      CHECK_NOTHROW(g->lint());
      const std::string got = rebase_new_ids(graph_to_string(*g), ours, next_id);
      const std::string want = read_file(out);
      CHECK(got == want);
      tally.add(std::string(name.starts_with("pipe_") ? "pipeline " : "") + std::string(p.name), got == want);
    }
  }
  tally.report("synthetic");
}

TEST_CASE("passes: corpus graphs match torch (fixed points and inlined graphs)") {
  const fs::path dir = passes_dir();
  std::ifstream list(dir / "golden_cases.txt");
  REQUIRE(list.good());
  Tally tally;
  std::string model, file, pass, verdict;
  while (list >> model >> file >> pass >> verdict) {
    const PassInfo* p = find_pass(pass);
    REQUIRE(p != nullptr);
    INFO(model, "/", file, " / ", pass);
    const std::string input = read_file(test::testdata_dir() / "golden" / model / file);
    size_t next_id = 0;
    std::string want = input;
    if (verdict == "changed") {
      const std::string stem = file.substr(0, file.size() - 4);
      want = strip_header(read_file(dir / "golden" / fmt::format("{}.{}.{}.out.txt", model, stem, pass)), &next_id);
    }
    auto g = load(input, next_id, model + "/" + file);
    const size_t ours = g->next_unique();
    p->run(*g);
    CHECK_NOTHROW(g->lint());
    const std::string got = rebase_new_ids(graph_to_string(*g), ours, next_id);
    CHECK(got == want);
    tally.add(pass + (verdict == "same" ? " (fixed point)" : " (changed)"), got == want);
  }
  tally.report("corpus");
}

TEST_CASE("passes: every corpus graph stays well formed through the whole clean-up sequence") {
  // Including the graphs too large to keep torch's answers for: the order to_ir runs them in.
  const char* sequence[] = {"lower-simple-tuples", "constant-propagation-immutable", "constant-pooling",
                            "canonicalize-outputs", "dce"};
  size_t graphs = 0;
  for (const auto& e : fs::recursive_directory_iterator(test::testdata_dir() / "golden")) {
    const std::string file = e.path().filename().string();
    if (file != "graph.txt" && file != "inlined_graph.txt") continue;
    INFO(e.path().string());
    auto g = load(read_file(e.path()), 0, e.path().string());
    for (const char* name : sequence) {
      find_pass(name)->run(*g);
      CHECK_NOTHROW(g->lint());
    }
    ++graphs;
  }
  CHECK(graphs > 50);
}
