// `jitctl dump-code` against what PyTorch 1.13 printed for every corpus archive: each method's
// `.code` (golden/NAME/code.txt for forward, code.METHOD.txt for the others, written by
// testdata/gen/make_corpus.py), and `--all` against the archive's own code/**.py records. `--all`
// prints what torch.jit.load(M).save() would write; for these archives that is the records
// torch.jit.save wrote in the first place (PyTorch 2.4's archives included). In general a re-save
// can name temporaries differently: the names come back from the printed code, not the Python
// source the first save printed from.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "lib/archive/archive.h"
#include "tests/support/corpus_dirs.h"
#include "tests/support/run_command.h"

namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

fs::path model_path(const std::string& name, const char* models = "models") {
  return fs::path(JITCTL_TESTDATA) / models / (name + ".pt");
}

// Archives written by PyTorch 2.4 whose code calls an operator 1.13 does not have: jitctl, like
// PyTorch 1.13, cannot compile them (exit 3) with 1.13's schemas (JITCTL_TORCH_VERSION=1.13).
bool uses_torch2_only_ops(const std::string& file) {
  return file == "sdpa_scripted.pt" || file == "transformer_traced.pt";  // aten::scaled_dot_product_attention
}

}  // namespace

TEST_CASE("dump-code prints every method's code exactly as PyTorch does") {
  size_t total = 0;
  for (const auto& [models, golden, torch_version] : jitctl::test::corpus_dirs()) {
    jitctl::test::use_torch_version(torch_version);
    for (const auto& dir : fs::directory_iterator(fs::path(JITCTL_TESTDATA) / golden)) {
      const std::string name = dir.path().filename().string();
      for (const auto& file : fs::directory_iterator(dir.path())) {
        const std::string fname = file.path().filename().string();
        if (fname.rfind("code.", 0) != 0 || file.path().extension() != ".txt") continue;
        // code.txt is forward; code.METHOD.txt another method.
        const std::string method = fname == "code.txt" ? "forward" : fname.substr(5, fname.size() - 9);
        CAPTURE(name);
        CAPTURE(method);
        ++total;
        const auto r = jitctl::test::run_command(
            {JITCTL_BINARY, "dump-code", model_path(name, models).string(), "--method", method});
        CHECK_MESSAGE(r.exit_code == 0, r.err);
        CHECK(r.out == slurp(file.path()));
      }
    }
  }
  CHECK(total >= 63);
}

TEST_CASE("dump-code --all prints the archive's code records as torch.jit.save wrote them") {
  size_t total = 0;
  for (const auto& [models, golden, torch_version] : jitctl::test::corpus_dirs()) {
    // Archives of old operator versions print their upgraded code (as torch.jit.save of the
    // loaded module writes it), not their records; their code.txt is checked above.
    if (std::string(models) == "models_old") continue;
    jitctl::test::use_torch_version(torch_version);
    for (const auto& e : fs::directory_iterator(fs::path(JITCTL_TESTDATA) / models)) {
      const std::string file = e.path().filename().string();
      if (e.path().extension() != ".pt" || file.find(".in") != std::string::npos) continue;
      CAPTURE(file);
      ++total;
      const auto r = jitctl::test::run_command({JITCTL_BINARY, "dump-code", e.path().string(), "--all"});
      if (std::string(models) == "models_torch2" && uses_torch2_only_ops(file)) {
        CHECK(r.exit_code == 3);
        CHECK(r.err.find("scaled_dot_product_attention") != std::string::npos);
        continue;
      }
      auto archive = jitctl::Archive::open(e.path().string());
      std::string want;
      for (const auto& record : archive->list("code/")) {
        if (record.size() < 3 || record.compare(record.size() - 3, 3, ".py") != 0) continue;
        want += "# " + record + "\n" + archive->read(record);
      }
      CHECK_MESSAGE(r.exit_code == 0, r.err);
      CHECK(r.out == want);
    }
  }
  CHECK(total >= 58);
}

TEST_CASE("dump-code: an unknown method is a usage error naming it") {
  const auto r = jitctl::test::run_command(
      {JITCTL_BINARY, "dump-code", model_path("mlp_scripted").string(), "--method", "no_such_method"});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("no_such_method") != std::string::npos);
  CHECK(r.out.empty());
}
