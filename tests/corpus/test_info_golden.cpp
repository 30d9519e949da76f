// `jitctl info --format json` against what PyTorch's named_parameters()/named_buffers() said about
// every archive of the corpus (golden files written by testdata/gen).
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "lib/archive/archive.h"
#include "lib/serialization/module_info.h"
#include "tests/support/corpus_dirs.h"
#include "tests/support/run_command.h"

using namespace jitctl;
using Json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

struct Case {
  std::string name;
  fs::path model, golden;
};

std::vector<Case> corpus() {
  std::vector<Case> cases;
  for (const auto& [models, golden, torch_version] : jitctl::test::corpus_dirs()) {
    const fs::path gdir = fs::path(JITCTL_TESTDATA) / golden;
    if (!fs::exists(gdir)) continue;
    for (const auto& e : fs::directory_iterator(gdir)) {
      if (!fs::exists(e.path() / "info.json")) continue;
      const std::string name = e.path().filename().string();
      cases.push_back({std::string(golden) + "/" + name, fs::path(JITCTL_TESTDATA) / models / (name + ".pt"),
                       e.path() / "info.json"});
    }
  }
  std::sort(cases.begin(), cases.end(), [](const Case& a, const Case& b) { return a.name < b.name; });
  return cases;
}

}  // namespace

TEST_CASE("info --format json equals PyTorch's parameter and buffer lists on the whole corpus") {
  const auto cases = corpus();
  REQUIRE(cases.size() >= 40);
  for (const auto& c : cases) {
    CAPTURE(c.name);
    const Json want = Json::parse(std::ifstream(c.golden));
    const auto r = test::run_command({JITCTL_BINARY, "info", "--format", "json", c.model.string()});
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    const Json got = Json::parse(r.out);
    for (const char* key : {"format_version", "root", "class", "parameters", "buffers", "extra_files",
                            "total_parameters", "total_bytes", "method_schemas"})
      if (want.contains(key))
      CHECK_MESSAGE(got[key] == want[key], key, ": got ", got[key].dump(), " want ", want[key].dump());
    auto methods = got["methods"].get<std::vector<std::string>>();
    std::sort(methods.begin(), methods.end());
    CHECK(Json(methods) == want["methods"]);
  }
}

TEST_CASE("info reads no tensor bytes") {
  for (const auto& c : corpus()) {
    CAPTURE(c.name);
    const ModuleInfo info = inspect_archive(*Archive::open(c.model.string()));
    for (const auto* list : {&info.parameters, &info.buffers, &info.constants})
      for (const auto& t : *list) CHECK_FALSE(t.tensor.storage()->loaded());
  }
}

TEST_CASE("info text output names the class, the totals and every parameter") {
  const fs::path model = fs::path(JITCTL_TESTDATA) / "models" / "resnet_block_traced.pt";
  REQUIRE(fs::exists(model));
  const auto r = test::run_command({JITCTL_BINARY, "info", model.string()});
  REQUIRE(r.exit_code == 0);
  const Json want = Json::parse(std::ifstream(fs::path(JITCTL_TESTDATA) / "golden" / "resnet_block_traced" / "info.json"));
  CHECK(r.out.find(want["class"].get<std::string>()) != std::string::npos);
  for (const auto& p : want["parameters"]) CHECK(r.out.find(p["name"].get<std::string>()) != std::string::npos);
  CHECK(r.out.find("modules") != std::string::npos);
}
