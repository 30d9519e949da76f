// `jitctl freeze` and `jitctl optimize` (default: freeze, then the pipeline `optimize`) on the whole
// corpus, as a user runs them: what they write runs in jitctl with PyTorch's outputs for the
// original model (testdata/golden/NAME/out0.pt), prints the code torch.jit.freeze's archive prints
// (frozen code is checked against torch itself by compat.py's freeze check), and is no larger than
// the input. Also: eval mode, --preserve, --no-optimize-numerics, the JSON report, refusals.
#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "lib/archive/torch_save.h"
#include "tests/support/output_compare.h"
#include "tests/support/run_command.h"

namespace fs = std::filesystem;
using jitctl::test::run_command;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "jitctl-freeze-XXXXXX").string();
    path = mkdtemp(tmpl.data());
  }
  ~TempDir() { fs::remove_all(path); }
};

fs::path testdata(const std::string& rel) { return fs::path(JITCTL_TESTDATA) / rel; }

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// "" when `model` run on the corpus input 0 of `name` gives PyTorch's output for the original.
std::string runs_like_torch(const fs::path& model, const std::string& name, const fs::path& dir) {
  const fs::path in = testdata("models/" + name + ".in0.pt"), want = testdata("golden/" + name + "/out0.pt");
  if (!fs::exists(in) || !fs::exists(want)) return "";
  const fs::path out = dir / "out.pt";
  fs::remove(out);
  const auto r = run_command({JITCTL_BINARY, "run", model.string(), "--inputs", in.string(), "-o", out.string()}, 120);
  if (r.exit_code != 0) return "run: exit " + std::to_string(r.exit_code) + ": " + r.err;
  return jitctl::test::differs(jitctl::load_torch_save(out.string()), jitctl::load_torch_save(want.string()), "out");
}

}  // namespace

TEST_CASE("freeze and optimize: every corpus model, written, runs with PyTorch's outputs and is no larger") {
  TempDir dir;
  size_t models = 0;
  for (const auto& e : fs::directory_iterator(testdata("golden"))) {
    const std::string name = e.path().filename().string();
    const fs::path in = testdata("models/" + name + ".pt");
    if (!fs::exists(in)) continue;
    CAPTURE(name);
    ++models;
    for (const char* command : {"freeze", "optimize"}) {
      CAPTURE(command);
      const fs::path out = dir.path / (name + ".pt");
      const auto r = run_command({JITCTL_BINARY, command, in.string(), "-o", out.string(), "--force"}, 120);
      REQUIRE_MESSAGE(r.exit_code == 0, r.err);
      CHECK(fs::file_size(out) <= fs::file_size(in));
      // training_flag_scripted was saved in training mode and its golden outputs are training
      // mode's; a frozen model is in eval mode (compat.py's freeze check compares with torch's
      // eval-mode outputs instead).
      if (name == "training_flag_scripted") continue;
      const std::string why = runs_like_torch(out, name, dir.path);
      CHECK_MESSAGE(why.empty(), why);
    }
  }
  CHECK(models >= 48);
}

TEST_CASE("freeze: the written archive prints the code torch.jit.freeze's prints") {
  // cnn_basic_traced: every parameter and batch-norm statistic becomes a constant, the two
  // batch_norms fold into their convs; what torch.jit.load(torch.jit.freeze(m.eval())) prints.
  TempDir dir;
  const fs::path out = dir.path / "frozen.pt";
  const auto r = run_command({JITCTL_BINARY, "freeze", testdata("models/cnn_basic_traced.pt").string(), "-o", out.string()});
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const auto code = run_command({JITCTL_BINARY, "dump-code", out.string()});
  CHECK(code.out ==
        "def forward(self,\n"
        "    x: Tensor) -> Tensor:\n"
        "  input = torch._convolution(x, CONSTANTS.c0, CONSTANTS.c1, [1, 1], [1, 1], [1, 1], False, [0, 0], 1, False, "
        "False, True, True)\n"
        "  input0 = torch.relu(input)\n"
        "  input00 = torch.max_pool2d(input0, [2, 2], [2, 2])\n"
        "  input1 = torch._convolution(input00, CONSTANTS.c2, CONSTANTS.c3, [1, 1], [1, 1], [1, 1], False, [0, 0], 1, "
        "False, False, True, True)\n"
        "  input01 = torch.relu(input1)\n"
        "  input10 = torch.avg_pool2d(input01, [2, 2], [2, 2])\n"
        "  _0 = torch.adaptive_avg_pool2d(input10, [1, 1])\n"
        "  input11 = torch.flatten(_0, 1)\n"
        "  _1 = torch.linear(input11, CONSTANTS.c4, CONSTANTS.c5)\n"
        "  return _1\n");
  // Without optimize_numerics the batch_norms stay; the weights are constants all the same.
  const auto plain = run_command({JITCTL_BINARY, "freeze", testdata("models/cnn_basic_traced.pt").string(), "-o",
                                  out.string(), "--force", "--no-optimize-numerics"});
  REQUIRE_MESSAGE(plain.exit_code == 0, plain.err);
  const auto graph = run_command({JITCTL_BINARY, "dump-graph", out.string()});
  CHECK(count(graph.out, "aten::batch_norm") == 2);
  CHECK(count(graph.out, "prim::GetAttr") == 0);
}

TEST_CASE("freeze --preserve keeps the methods and attributes named; the report says what happened") {
  TempDir dir;
  const fs::path out = dir.path / "frozen.pt";
  // exports_scripted has forward and exported methods: encode stays when preserved, the others go.
  const auto r = run_command({JITCTL_BINARY, "freeze", testdata("models/exports_scripted.pt").string(), "-o", out.string(),
                              "--preserve", "encode", "--format", "json"});
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const auto report = nlohmann::json::parse(r.out);
  CHECK(report["command"] == "freeze");
  CHECK(report["eval_mode"] == true);
  CHECK(report["nodes"]["after"].get<size_t>() < report["nodes"]["before"].get<size_t>());
  CHECK(report["bytes"]["after"].get<size_t>() == fs::file_size(out));
  CHECK(report["ops"]["prim::GetAttr"]["after"] == 0);
  CHECK(report["attributes_folded"].get<size_t>() > 0);
  CHECK(report.contains("constants_folded"));
  const auto info = run_command({JITCTL_BINARY, "info", "--format", "json", out.string()});
  REQUIRE(info.exit_code == 0);
  const auto methods = nlohmann::json::parse(info.out)["methods"];
  CHECK(methods == nlohmann::json::array({"forward", "encode"}));  // torch's frozen module lists the same
}

TEST_CASE("freeze and optimize: the report counts constants folded beyond attribute reads") {
  // cnn_basic_scripted: freezing folds what reads its attributes' values; optimize then answers
  // the scripted checks' queries too, so it folds more.
  TempDir dir;
  auto report = [&](const char* command) {
    const auto r = run_command({JITCTL_BINARY, command, testdata("models/cnn_basic_scripted.pt").string(), "-o",
                                (dir.path / "out.pt").string(), "--force", "--format", "json"});
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    return nlohmann::json::parse(r.out);
  };
  const auto frozen = report("freeze"), optimized = report("optimize");
  CHECK(frozen["constants_folded"].get<size_t>() > 0);
  CHECK(optimized["constants_folded"].get<size_t>() > frozen["constants_folded"].get<size_t>());
  CHECK(optimized["attributes_folded"] == frozen["attributes_folded"]);
  CHECK(optimized["nodes"]["after"].get<size_t>() < frozen["nodes"]["after"].get<size_t>());
}

TEST_CASE("freeze and optimize refuse what they must, with one line") {
  TempDir dir;
  const fs::path model = dir.path / "m.pt";
  fs::copy_file(testdata("models/mlp_traced.pt"), model);
  const auto size = fs::file_size(model);
  for (const auto& argv : std::vector<std::vector<std::string>>{
           {JITCTL_BINARY, "freeze", model.string()},                                   // no -o
           {JITCTL_BINARY, "freeze", model.string(), "-o", model.string()},             // its own input
           {JITCTL_BINARY, "optimize", model.string(), "-o", model.string()},
           {JITCTL_BINARY, "freeze", model.string(), "-o", (dir.path / "o.pt").string(), "--preserve", "nope"},
           {JITCTL_BINARY, "optimize", model.string(), "-o", (dir.path / "o.pt").string(), "--keep-training"},
           {JITCTL_BINARY, "freeze", (dir.path / "absent.pt").string(), "-o", (dir.path / "o.pt").string()}}) {
    CAPTURE(argv);
    const auto r = run_command(argv);
    CHECK(r.exit_code == 2);
    CHECK(count(r.err, "\n") == 1);
  }
  CHECK(fs::file_size(model) == size);
  CHECK_FALSE(fs::exists(dir.path / "o.pt"));
  const auto unknown = run_command(
      {JITCTL_BINARY, "freeze", model.string(), "-o", (dir.path / "o.pt").string(), "--preserve", "nope"});
  CHECK(unknown.err.find("Unknown name: nope") != std::string::npos);
}
