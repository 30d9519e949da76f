// The command line as a user meets it (issue 16): every example of the issue gives one clear line
// and exit 2 (or the right result); --input-spec values equal what PyTorch computed for the same
// values (testdata/cli/specs.json, written by testdata/gen/make_cli_cases.py); wrong files named
// with the fix; JSON where commands report; files by content; modes by umask; dot that renders.
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "lib/archive/torch_save.h"
#include "lib/core/ivalue_equality.h"
#include "tests/support/run_command.h"

using namespace jitctl;
namespace fs = std::filesystem;

namespace {

const std::string kModels = std::string(JITCTL_TESTDATA) + "/models/";
const std::string kWrong = std::string(JITCTL_TESTDATA) + "/cli/wrong/";

test::CommandResult cli(std::vector<std::string> args, double timeout_s = 60) {
  args.insert(args.begin(), JITCTL_BINARY);
  return test::run_command(args, timeout_s);
}

test::CommandResult shell(const std::string& script, double timeout_s = 60) {
  return test::run_command({"/bin/sh", "-c", script}, timeout_s);
}

// Exit 2 (or `code`) with exactly one line on stderr containing every piece of `want`.
void check_one_line_error(const test::CommandResult& r, const std::vector<std::string>& want, int code = 2) {
  CHECK(r.exit_code == code);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  for (const auto& w : want) CHECK_MESSAGE(r.err.find(w) != std::string::npos, "want '" << w << "' in: " << r.err);
}

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("jitctl-cli-" + std::to_string(::getpid()));
  TempDir() { fs::create_directories(path); }
  ~TempDir() { fs::remove_all(path); }
  std::string file(const std::string& name) const { return (path / name).string(); }
};

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), {}};
}

}  // namespace

TEST_CASE("cli: unknown commands and options answer with the nearest name; help COMMAND") {
  check_one_line_error(cli({"inf", "x.pt"}), {"unknown command 'inf'", "did you mean 'info'"});
  check_one_line_error(cli({"foo"}), {"unknown command 'foo'", "the commands are", "dump-graph", "check-trace",
                                      "jitctl help COMMAND"});
  check_one_line_error(cli({"--bogus"}), {"unknown option '--bogus'"});
  check_one_line_error(cli({}), {"a command is needed", "run"});
  check_one_line_error(cli({"run", kModels + "mlp_traced.pt", "--input", "x.pt"}),
                       {"unknown option '--input'", "did you mean '--inputs'"});
  check_one_line_error(cli({"help", "rnu"}), {"unknown command 'rnu'"});
  const auto help = cli({"help"});
  CHECK(help.exit_code == 0);
  CHECK(help.out.find("dump-graph") != std::string::npos);
  const auto run_help = cli({"help", "run"});
  CHECK(run_help.exit_code == 0);
  CHECK(run_help.out.find("--input-spec") != std::string::npos);
  CHECK(run_help.out == cli({"run", "--help"}).out);
}

TEST_CASE("cli: numbers get plain messages; out-of-range values are refused") {
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"parallel-info", "--threads", "0"},
           {"parallel-info", "--threads", "abc"},
           {"bench", kModels + "mlp_traced.pt", "--iters", "0"},
           {"run", kModels + "mlp_traced.pt", "--threads", "0"},
           {"run", kModels + "mlp_traced.pt", "--threads", "-3"},
           {"run", kModels + "mlp_traced.pt", "--threads", "100000"},
           {"run", kModels + "mlp_traced.pt", "--seed", "-1"}}) {
    const auto r = cli(args);
    CAPTURE(args[1]);
    check_one_line_error(r, {args[args.size() - 2], "whole number"});
    CHECK(r.err.find("1797") == std::string::npos);  // CLI11's 309-digit range
  }
}

TEST_CASE("cli: options that take lists never take the model") {
  TempDir tmp;
  const auto r = cli({"run", "--input-spec", "float32[4,16]", kModels + "mlp_traced.pt", "-o", tmp.file("y.npy")});
  CHECK_MESSAGE(r.exit_code == 0, r.err);
  CHECK(fs::exists(tmp.file("y.npy")));
  const auto b = cli({"bench", "--threads", "1,2", kModels + "mlp_traced.pt", "--input-spec", "float32[4,16]", "--iters",
                         "2", "--warmup", "1", "--format", "json"});
  REQUIRE_MESSAGE(b.exit_code == 0, b.err);
  CHECK(nlohmann::json::parse(b.out)["rows"].size() == 2);
}

TEST_CASE("cli: --input-spec of every argument kind gives PyTorch's outputs for the same values") {
  const fs::path dir = fs::path(JITCTL_TESTDATA) / "cli";
  std::ifstream f(dir / "specs.json");
  const auto cases = nlohmann::json::parse(f);
  REQUIRE(cases.size() >= 15);
  TempDir tmp;
  for (const auto& c : cases) {
    std::vector<std::string> args = {"run", (fs::path(JITCTL_TESTDATA) / c["model"].get<std::string>()).string(), "--method",
                                     c["method"].get<std::string>(), "-o", tmp.file("out.pt")};
    const auto specs = c["specs"].get<std::vector<std::string>>();
    if (!specs.empty()) args.push_back("--input-spec");
    args.insert(args.end(), specs.begin(), specs.end());
    fs::remove(tmp.file("out.pt"));
    const auto r = cli(args);
    CAPTURE(c.dump());
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    // Non-tensor results (the cases' methods return ints, floats, strings and containers of them;
    // tensors compared by value) must equal PyTorch's exactly.
    const IValue got = load_torch_save(tmp.file("out.pt"));
    const IValue want = load_torch_save((dir / c["output"].get<std::string>()).string());
    CHECK(ivalues_equal_strict(got, want));
  }
}

TEST_CASE("cli: the issue's run examples: arguments checked against the schema, by name") {
  check_one_line_error(cli({"run", kModels + "control_flow_scripted.pt", "--input-spec", "float32[3,4]", "int64[]"}),
                       {"argument 'n'", "must be int, not Tensor", "e.g. 2"});
  const auto ok = cli({"run", kModels + "control_flow_scripted.pt", "--input-spec", "float32[3,4]", "3"});
  CHECK_MESSAGE(ok.exit_code == 0, ok.err);
  CHECK(ok.out.find("out[1]: int") != std::string::npos);
  const auto d = cli({"run", kModels + "control_flow_scripted.pt", "--describe-inputs", "--format", "json"});
  REQUIRE(d.exit_code == 0);
  const auto j = nlohmann::json::parse(d.out);
  CHECK(j["schema"] == "forward(Tensor x, int n) -> ((Tensor, int))");
  CHECK(j["arguments"][1]["type"] == "int");
  // The example it gives runs.
  const auto again = cli({"run", kModels + "control_flow_scripted.pt", "--input-spec", j["example"][0], j["example"][1]});
  CHECK_MESSAGE(again.exit_code == 0, again.err);
  check_one_line_error(cli({"run", kModels + "mlp_traced.pt", "--method", "nope"}), {"no method 'nope'", "forward"});
  // A model run (or benchmarked) with no inputs at all: the message names the flags that give them.
  check_one_line_error(cli({"run", kModels + "mlp_traced.pt"}), {"'x' (Tensor) is missing", "--inputs F or --input-spec S"});
  check_one_line_error(cli({"bench", "--threads", "1,2", kModels + "mlp_traced.pt"}), {"'x' (Tensor) is missing", "--input-spec"});
  check_one_line_error(cli({"run", kModels + "mlp_traced.pt", "--input-spec", "float32[4,3]"}),
                       {"aten::linear", "linear.py:", "mat1 and mat2 shapes cannot be multiplied"});
}

TEST_CASE("cli: wrong files are named with the fix") {
  const std::string fix = "torch.jit.save";
  struct Case {
    std::string file, what;
    int code;
  };
  for (const auto& c : std::vector<Case>{{"state_dict.pt", "state_dict", 2},
                                         {"pickled_module.pt", "eager nn.Module", 2},
                                         {"pickled_sequential.pt", "eager nn.Module", 2},
                                         {"legacy_tensor.pt", "legacy format", 3},
                                         {"lite_flatbuffer.ptl", "flatbuffer", 3},
                                         {"model.onnx", "ONNX", 2},
                                         {"exported.pt2", "torch.export", 2},
                                         {"exported_v1.pt2", "torch.export", 2},
                                         {"weights.safetensors", "safetensors", 2}}) {
    CAPTURE(c.file);
    check_one_line_error(cli({"run", kWrong + c.file}), {c.what, fix}, c.code);
    check_one_line_error(cli({"info", kWrong + c.file}), {c.what, fix}, c.code);
  }
  check_one_line_error(cli({"info", kWrong + "empty.pt"}), {"empty"});
  check_one_line_error(cli({"info", kWrong + "text.txt"}), {"not a zip archive"});
  check_one_line_error(cli({"run", kModels + "resnet_block_traced.pt", "--inputs", kModels + "resnet_block_traced.pt"}),
                       {"a model, not inputs"});
  check_one_line_error(cli({"run", kModels + "resnet_block_traced.in0.pt"}), {"not a model", "--inputs"});
}

TEST_CASE("cli: - for standard input and output; formats by content; modes by umask") {
  TempDir tmp;
  const std::string m = kModels + "mlp_traced.pt";
  const auto info = shell(std::string(JITCTL_BINARY) + " info - < '" + m + "'");
  CHECK(info.exit_code == 0);
  CHECK(info.out.find("__torch__.MLP") != std::string::npos);
  const auto out = shell(std::string(JITCTL_BINARY) + " run '" + m + "' --input-spec 'float32[4,16]' -o - > '" +
                         tmp.file("stdout.pt") + "'");
  CHECK(out.exit_code == 0);
  CHECK(slurp(tmp.file("stdout.pt")).rfind("PK", 0) == 0);
  // optimize -o -: the archive on standard output (its report on standard error) reads back.
  const auto opt = shell(std::string(JITCTL_BINARY) + " optimize '" + m + "' --passes none -o - > '" + tmp.file("opt.pt") + "'");
  CHECK_MESSAGE(opt.exit_code == 0, opt.err);
  CHECK(opt.err.find("<stdout>: written") != std::string::npos);
  CHECK(cli({"info", tmp.file("opt.pt")}).out.find("__torch__.MLP") != std::string::npos);
  CHECK(!fs::exists("-"));

  // Inputs saved as .npz, renamed so that the name says nothing (or the wrong thing).
  REQUIRE(cli({"run", m, "--input-spec", "float32[4,16]", "--save-inputs", tmp.file("in.npz"), "-o", tmp.file("a.npy")})
              .exit_code == 0);
  fs::copy_file(tmp.file("in.npz"), tmp.file("X.NPY"));
  fs::copy_file(tmp.file("in.npz"), tmp.file("inputs.data"));
  // A real .npy under an upper-case name (the issue's `X.NPY` -> "not a zip archive").
  REQUIRE(cli({"run", m, "--input-spec", "float32[4,16]", "--save-inputs", tmp.file("one.npy"), "-o", tmp.file("c.npy")})
              .exit_code == 0);
  fs::copy_file(tmp.file("one.npy"), tmp.file("Y.NPY"));
  const auto y = cli({"run", m, "--inputs", tmp.file("Y.NPY"), "-o", tmp.file("d.npy")});
  CHECK_MESSAGE(y.exit_code == 0, y.err);
  CHECK(slurp(tmp.file("c.npy")) == slurp(tmp.file("d.npy")));
  CHECK(slurp(tmp.file("c.npy")) == slurp(tmp.file("a.npy")));  // same seed, same values
  for (const char* name : {"X.NPY", "inputs.data"}) {
    const auto r = cli({"run", m, "--inputs", tmp.file(name), "-o", tmp.file("b.npy")});
    CHECK_MESSAGE(r.exit_code == 0, r.err);
    CHECK(slurp(tmp.file("a.npy")) == slurp(tmp.file("b.npy")));
    fs::remove(tmp.file("b.npy"));
  }

  for (const char* name : {"m.npy", "m.npz", "m.pt"}) {
    const auto r = shell("umask 022; " + std::string(JITCTL_BINARY) + " run '" + m + "' --input-spec 'float32[4,16]' -o '" +
                         tmp.file(name) + "'");
    REQUIRE(r.exit_code == 0);
    struct stat st {};
    REQUIRE(::stat(tmp.file(name).c_str(), &st) == 0);
    CAPTURE(name);
    CHECK((st.st_mode & 0777) == 0644);
  }
}

TEST_CASE("cli: --format json where commands report") {
  TempDir tmp;
  const std::string m = kModels + "mlp_traced.pt";
  const auto run = cli({"run", m, "--input-spec", "float32[4,16]", "--format", "json"});
  REQUIRE(run.exit_code == 0);
  const auto r = nlohmann::json::parse(run.out);
  CHECK(r["outputs"][0]["shape"] == nlohmann::json::array({4, 4}));
  CHECK(r["outputs"][0]["dtype"] == "float32");

  const auto pi = shell("OMP_NUM_THREADS=1 " + std::string(JITCTL_BINARY) + " parallel-info --format json --interop-threads 3");
  REQUIRE(pi.exit_code == 0);
  const auto p = nlohmann::json::parse(pi.out);
  CHECK(p["intra_op_threads"] == 1);
  CHECK(p["inter_op_threads"] == 3);
  CHECK(p["environment"]["OMP_NUM_THREADS"] == "1");
  CHECK(p["environment"]["MKL_NUM_THREADS"].is_null());

  const auto opt = cli({"optimize", m, "-o", tmp.file("o.pt"), "--passes", "dce,peephole", "--format", "json"});
  REQUIRE_MESSAGE(opt.exit_code == 0, opt.err);
  const auto o = nlohmann::json::parse(opt.out);
  CHECK(o["passes"] == nlohmann::json::array({"dce", "peephole"}));
  CHECK(o["output"] == tmp.file("o.pt"));
}

TEST_CASE("cli: every --help has an example; completion and --version come from the build") {
  const auto dump = cli({"--dump-cli-json"});
  REQUIRE(dump.exit_code == 0);
  const auto def = nlohmann::json::parse(dump.out);
  REQUIRE(def["commands"].size() >= 9);
  for (const auto& c : def["commands"]) {
    CAPTURE(c["name"].get<std::string>());
    CHECK(!c["examples"].empty());
    CHECK(cli({c["name"].get<std::string>(), "--help"}).out.find("Example") != std::string::npos);
  }
  // bash: the generated function completes a command word and a flag.
  const auto bash = shell("command -v bash >/dev/null || exit 77; bash -c 'source <(" + std::string(JITCTL_BINARY) +
                          " completion bash); COMP_WORDS=(jitctl ru); COMP_CWORD=1; _jitctl; echo \"${COMPREPLY[*]}\"; "
                          "COMP_WORDS=(jitctl run m.pt --input-s); COMP_CWORD=3; _jitctl; echo \"${COMPREPLY[*]}\"'");
  if (bash.exit_code != 77) {
    CHECK_MESSAGE(bash.exit_code == 0, bash.err);
    CHECK(bash.out.find("run") != std::string::npos);
    CHECK(bash.out.find("--input-spec") != std::string::npos);
  }
  CHECK(cli({"completion", "zsh"}).out.find("#compdef jitctl") == 0);
  const auto v = cli({"--version"});
  CHECK(v.exit_code == 0);
  for (const char* w : {"built with", "OpenMP", "CUDA", "running on", "allocator"}) CHECK(v.out.find(w) != std::string::npos);
  // A build with mimalloc (meson -Dallocator) must have it serve malloc, or the link order lost it.
  if (JITCTL_MIMALLOC) {
    const bool serving = v.out.find("serving malloc") != std::string::npos && v.out.find("not serving") == std::string::npos;
    CHECK_MESSAGE(serving, v.out);
  }
}

TEST_CASE("cli: dot output of the largest inlined graphs renders with Graphviz") {
  if (shell("command -v dot").exit_code != 0) {
    // scripts/dev.sh test installs Graphviz, so CI always runs this; elsewhere say it did not run.
    MESSAGE("SKIPPED: Graphviz's dot is not installed; dot output not rendered");
    return;
  }
  TempDir tmp;
  // The inlined transformer (hundreds of If clusters) made dot fail ("trouble in init_rank").
  const auto r = shell(std::string(JITCTL_BINARY) + " graph --inline --format dot '" + kModels +
                           "transformer_scripted.pt' > '" + tmp.file("g.dot") + "' && dot -Tsvg '" + tmp.file("g.dot") +
                           "' > '" + tmp.file("g.svg") + "'",
                       600);
  CHECK_MESSAGE(r.exit_code == 0, r.err);
  CHECK(slurp(tmp.file("g.svg")).find("<svg") != std::string::npos);
}

TEST_CASE("cli: --device cuda without a usable GPU is one line and exit 2; device options are checked") {
  const std::string model = kModels + "mlp_traced.pt", inputs = kModels + "mlp_traced.in0.pt";
  const auto v = cli({"parallel-info", "--format", "json"});
  REQUIRE(v.exit_code == 0);
  const auto cuda = nlohmann::json::parse(v.out)["cuda"];
  REQUIRE(cuda.is_object());
  CHECK(cuda["built_in"].is_boolean());
  // A usable GPU: --device cuda runs (the GPU tests, tests/cuda, check what it computes).
  if (!cuda["devices"].empty()) {
    CHECK(cli({"run", model, "--inputs", inputs, "--device", "cuda"}).exit_code == 0);
    return;
  }
  // None here: every command that runs a model says why, in one line, and exits 2.
  const std::string why = cuda["built_in"].get<bool>() ? (cuda["loaded"].get<bool>() ? "no CUDA device" : "could not be loaded") : "without CUDA";
  check_one_line_error(cli({"run", model, "--inputs", inputs, "--device", "cuda"}), {"--device cuda", why});
  check_one_line_error(cli({"run", model, "--inputs", inputs, "--device", "cuda:1", "--tf32"}), {"--device cuda:1", why});
  check_one_line_error(cli({"bench", model, "--inputs", inputs, "--device", "cuda"}), {"--device cuda", why});
  check_one_line_error(cli({"check-trace", model, "--inputs", inputs, "--device", "cuda"}), {"--device cuda", why});
  // Usage errors come first, with or without a GPU.
  check_one_line_error(cli({"run", model, "--inputs", inputs, "--device", "gpu"}), {"--device", "cuda:N"});
  check_one_line_error(cli({"run", model, "--inputs", inputs, "--tf32"}), {"--tf32", "--device cuda"});
  check_one_line_error(cli({"bench", model, "--inputs", inputs, "--no-graphs"}), {"--no-graphs", "--device cuda"});
}
