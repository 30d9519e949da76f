// The archive writer (lib/serialization/export.h): the records torch.jit.save writes, in its order,
// storages once and aligned, the archive's code kept byte for byte, atomic writes; and the
// .debug_pkl writer read back through the same SourceMap that reads PyTorch's.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>

#include "lib/archive/archive.h"
#include "lib/core/error.h"
#include "lib/serialization/export.h"
#include "lib/serialization/export_debug.h"
#include "lib/serialization/module_passes.h"
#include "lib/frontend/ir_emitter.h"
#include "lib/serialization/read_source_map.h"
#include "tests/support/testdata_path.h"

using namespace jitctl;
namespace fs = std::filesystem;

namespace {

fs::path model(const std::string& name) { return test::testdata_dir() / "models" / (name + ".pt"); }

// A fresh directory under the system's temp folder, removed with its contents at scope exit.
struct TempDir {
  fs::path path;
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "jitctl-export-XXXXXX").string();
    path = mkdtemp(tmpl.data());
  }
  ~TempDir() { fs::remove_all(path); }
};

std::vector<std::string> record_names(const Archive& a) {
  std::vector<std::string> out;
  for (const auto& e : a.zip().entries()) out.push_back(e.name.substr(a.root().size() + 1));
  return out;
}

size_t count_under(const Archive& a, const std::string& folder) { return a.list(folder).size(); }

}  // namespace

TEST_CASE("debug_pkl_for reads back as the same file:line:col through SourceMap") {
  const std::vector<CodeRange> ranges = {
      {10, 20, {"model.py", 12, 4}},
      {20, 35, {"model.py", 13, 0}},
      {50, 60, {"/usr/lib/python3/torch/nn/functional.py", 2450, 11}},
  };
  const SourceMap map = read_source_map(debug_pkl_for(ranges), "test.debug_pkl");
  CHECK(map.location_for(10)->str() == "model.py:12:4");
  CHECK(map.location_for(19)->str() == "model.py:12:4");
  CHECK(map.location_for(20)->str() == "model.py:13:0");
  CHECK(map.location_for(34)->str() == "model.py:13:0");
  CHECK(map.location_for(55)->str() == "/usr/lib/python3/torch/nn/functional.py:2450:11");
  // Bytes no node generated read as PyTorch's compiler-made ranges do: ":0:0".
  CHECK(map.location_for(0)->str() == ":0:0");
  CHECK(map.location_for(40)->str() == ":0:0");
  CHECK(map.location_for(60)->str() == ":0:0");
}

TEST_CASE("debug_pkl_for without ranges is one record of no source") {
  const SourceMap map = read_source_map(debug_pkl_for({}), "empty.debug_pkl");
  CHECK(map.size() == 1);
  CHECK(map.location_for(0)->str() == ":0:0");
}

TEST_CASE("an unchanged module is written with torch.jit.save's records, in its order") {
  for (const char* name : {"buffer_zoo_scripted", "extra_files_traced", "transformer_traced", "mlp_traced"}) {
    CAPTURE(name);
    TempDir dir;
    const fs::path out = dir.path / (std::string(name) + ".pt");
    LoadedModule m = load_module(model(name).string());
    export_module(m, out.string());
    const auto original = Archive::open(model(name).string());
    const auto written = Archive::open(out.string());
    // The same records as PyTorch wrote, in the same order (torch.jit.save: extra/, data/N,
    // data.pkl, code/, constants/N, constants.pkl, version).
    CHECK(record_names(*written) == record_names(*original));
    CHECK(written->root() == name);
    CHECK(written->format_version() == original->format_version());
    for (const auto& r : original->list("code/")) CHECK(written->read(r) == original->read(r));
    for (const auto& r : original->list("extra/")) CHECK(written->read(r) == original->read(r));
    for (const auto& r : original->list("data/")) CHECK(written->read(r) == original->read(r));
    for (const auto& r : original->list("constants/")) CHECK(written->read(r) == original->read(r));
  }
}

TEST_CASE("storages shared by several tensors are written once, 64-byte aligned and stored; code is deflated") {
  // buffer_zoo_scripted holds views sharing a storage; tied_params_scripted shares a weight.
  for (const char* name : {"buffer_zoo_scripted", "tied_params_scripted"}) {
    CAPTURE(name);
    TempDir dir;
    const fs::path out = dir.path / "copy.pt";
    LoadedModule m = load_module(model(name).string());
    export_module(m, out.string());
    const auto original = Archive::open(model(name).string());
    const auto written = Archive::open(out.string());
    CHECK(written->root() == "copy");
    CHECK(count_under(*written, "data/") == count_under(*original, "data/"));
    for (const auto& e : written->zip().entries()) {
      CAPTURE(e.name);
      // torch.jit.save deflates code and debug records and stores the rest, aligned for mapping.
      const bool code = e.name.find("/code/") != std::string::npos;
      CHECK(e.stored == !code);
      if (e.stored) CHECK(e.data_offset % 64 == 0);
    }
  }
}

TEST_CASE("a failed write leaves neither the target nor a temporary file") {
  TempDir dir;
  LoadedModule m = load_module(model("mlp_traced").string());
  // The target is a non-empty directory: the final rename fails after everything was written.
  const fs::path target = dir.path / "out.pt";
  fs::create_directories(target / "keep");
  CHECK_THROWS_AS(export_module(m, target.string()), InvalidInput);
  std::set<std::string> left;
  for (const auto& e : fs::directory_iterator(dir.path)) left.insert(e.path().filename().string());
  CHECK(left == std::set<std::string>{"out.pt"});
  CHECK(fs::is_directory(target / "keep"));
  // A folder that does not exist: nothing is created.
  CHECK_THROWS_AS(export_module(m, (dir.path / "missing" / "out.pt").string()), InvalidInput);
  CHECK_FALSE(fs::exists(dir.path / "missing"));
}

TEST_CASE("graphs printed again reproduce PyTorch's code; identical records keep PyTorch's debug records") {
  for (const char* name : {"mlp_traced", "control_flow_scripted", "getstate_scripted"}) {
    CAPTURE(name);
    TempDir dir;
    const fs::path out = dir.path / (std::string(name) + ".pt");
    LoadedModule m = load_module(model(name).string());
    // Overriding forward with the graph its own code compiles to takes the printing path.
    const auto* forward = m.cu->find_method(m.class_name, "forward");
    REQUIRE(forward);
    export_module(m, out.string(), {{{m.class_name, "forward"}, compile_function(*m.cu, *forward)}});
    const auto original = Archive::open(model(name).string());
    const auto written = Archive::open(out.string());
    CHECK(written->list("code/") == original->list("code/"));
    for (const auto& r : original->list("code/")) CHECK(written->read(r) == original->read(r));
    CHECK(count_under(*written, "constants/") == count_under(*original, "constants/"));
  }
}

TEST_CASE("set_eval_mode clears training on every module, once per shared submodule") {
  LoadedModule m = load_module(model("training_flag_scripted").string());
  CHECK(m.root.to_object()->attr("training")->to_bool());
  CHECK(set_eval_mode(m) >= 1);
  CHECK_FALSE(m.root.to_object()->attr("training")->to_bool());
  CHECK(set_eval_mode(m) == 0);
}

TEST_CASE("run_passes_on_module returns only the graphs a pass changed") {
  LoadedModule m = load_module(model("mlp_traced").string());
  CHECK(run_passes_on_module(m, {}).empty());
  // PyTorch's loader already removed dead code: DCE finds nothing left on its graphs.
  const PassInfo* dce = find_pass("dce");
  REQUIRE(dce);
  CHECK(run_passes_on_module(m, std::span<const PassInfo* const>(&dce, 1)).empty());
}
