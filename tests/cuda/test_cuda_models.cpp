// The corpus on the GPU: every model of the run-golden corpora run with its inputs on the device,
// against what PyTorch returned for them (testdata/golden*/NAME/outK.pt), within rtol 1e-3 and
// atol 1e-4 (cuDNN and cuBLAS accumulate in other orders than the CPU). And a captured CUDA graph
// gives the same outputs on every replay.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "kernels/cuda_backend.h"
#include "lib/archive/torch_save.h"
#include "lib/runtime/device_dispatch.h"
#include "lib/runtime/device_runner.h"
#include "lib/runtime/inputs.h"
#include "lib/runtime/interpreter.h"
#include "tests/support/corpus_dirs.h"
#include "tests/support/output_compare.h"

using namespace jitctl;
namespace fs = std::filesystem;

namespace {

// JITCTL_TESTDATA in the environment overrides the build tree's (a build carried to a GPU machine).
fs::path testdata() {
  const char* e = std::getenv("JITCTL_TESTDATA");
  return e && *e ? fs::path(e) : fs::path(JITCTL_TESTDATA);
}

struct Run {
  std::string name;
  fs::path model, inputs, output;
  const char* torch_version;
};

std::vector<Run> corpus_runs() {
  std::vector<Run> runs;
  auto dirs = test::corpus_dirs();
  dirs.push_back({"models_fast", "golden_fast", nullptr});
  for (const auto& [models, golden, torch_version] : dirs) {
    const fs::path mdir = testdata() / models, gdir = testdata() / golden;
    if (!fs::exists(gdir)) continue;
    for (const auto& e : fs::directory_iterator(gdir))
      for (int k = 0;; ++k) {
        const std::string name = e.path().filename().string();
        fs::path in = mdir / (name + ".in" + std::to_string(k) + ".pt"), out = e.path() / ("out" + std::to_string(k) + ".pt");
        if (!fs::exists(in) || !fs::exists(out)) break;
        runs.push_back({std::string(models) + "/" + name + " input " + std::to_string(k), mdir / (name + ".pt"), in, out, torch_version});
      }
  }
  std::sort(runs.begin(), runs.end(), [](const Run& a, const Run& b) { return a.name < b.name; });
  return runs;
}

std::string run_on_gpu(const Run& r, bool graphs, int calls, std::string* note = nullptr) {
  test::use_torch_version(r.torch_version);
  try {
    Runtime rt = Runtime::load(r.model.string());
    DeviceRunner runner(rt.method("forward"), graphs);
    const std::vector<IValue> args = load_inputs(r.inputs.string());
    const IValue want = load_torch_save(r.output.string());
    for (int c = 0; c < calls; ++c) {
      const IValue got = runner(args);
      if (auto d = test::differs(got, want, "out", 1e-3, 1e-4); !d.empty()) return "call " + std::to_string(c + 1) + ": " + d;
    }
    if (note) *note = runner.graph_note();
    return "";
  } catch (const std::exception& e) {
    return std::string("error: ") + e.what();
  }
}

}  // namespace

TEST_CASE("the corpus on the GPU gives PyTorch's outputs (rtol 1e-3, atol 1e-4)") {
  const auto runs = corpus_runs();
  REQUIRE(runs.size() >= 90);
  int passed = 0;
  for (const Run& r : runs) {
    CAPTURE(r.name);
    const std::string why = run_on_gpu(r, false, 1);
    CHECK_MESSAGE(why.empty(), why);
    passed += why.empty();
  }
  MESSAGE("corpus on the GPU: " << passed << " of " << runs.size() << " runs match PyTorch");
}

TEST_CASE("replayed CUDA graphs give PyTorch's outputs on every call") {
  int captured = 0, total = 0;
  for (const Run& r : corpus_runs()) {
    if (r.name.find(" input 0") == std::string::npos) continue;
    CAPTURE(r.name);
    std::string note;
    const std::string why = run_on_gpu(r, true, 4, &note);
    CHECK_MESSAGE(why.empty(), why);
    ++total;
    captured += note == "replayed as a CUDA graph";
    // A scripted RNN makes its zero initial state with device=input.device: made on the GPU by the
    // factory's CUDA kernel, nothing is copied from the host, and the method is captured.
    if (r.name.rfind("models/lstm_scripted", 0) == 0 || r.name.rfind("models/gru_scripted", 0) == 0)
      CHECK_MESSAGE(note == "replayed as a CUDA graph", r.name << ": " << note);
    MESSAGE(r.name << ": " << note);
  }
  MESSAGE("captured as CUDA graphs: " << captured << " of " << total << " models");
  CHECK(captured > 0);
}

TEST_CASE("parameters are copied to the device once") {
  Runtime rt = Runtime::load(testdata().string() + "/models/resnet_block_traced.pt");
  DeviceRunner runner(rt.method("forward"), false);
  const auto args = load_inputs(testdata().string() + "/models/resnet_block_traced.in0.pt");
  runner(args);
  const size_t after_first = run_device()->memory_reserved();
  for (int i = 0; i < 5; ++i) runner(args);
  CHECK(run_device()->memory_reserved() == after_first);
}
