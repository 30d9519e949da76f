// lib/core/output_file: atomic writes (no temporary left, the mode a new file gets, nothing left
// on failure) and the refusal to write over a command's inputs.
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include "lib/core/error.h"
#include "lib/core/output_file.h"

namespace fs = std::filesystem;
using namespace jitctl;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    char tmpl[] = "/tmp/jitctl_output_file_XXXXXX";
    path = mkdtemp(tmpl);
  }
  ~TempDir() { fs::remove_all(path); }
};

std::set<std::string> entries(const fs::path& dir) {
  std::set<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.insert(e.path().filename().string());
  return out;
}

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

}  // namespace

TEST_CASE("write_file_atomically: the whole file, with the mode open(2) gives, and no temporary left") {
  TempDir dir;
  const fs::path out = dir.path / "out.bin";
  const mode_t old_mask = ::umask(027);
  write_file_atomically(out.string(), std::string_view("abc\0def", 7));
  ::umask(old_mask);
  CHECK(slurp(out) == std::string("abc\0def", 7));
  struct stat st {};
  REQUIRE(::stat(out.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == (0666 & ~027));
  CHECK(entries(dir.path) == std::set<std::string>{"out.bin"});
  // Replacing an existing file: readers see the old bytes or the new ones, never a mix.
  write_file_atomically(out.string(), [](const std::string& tmp) { std::ofstream(tmp) << "new"; });
  CHECK(slurp(out) == "new");
  CHECK(entries(dir.path) == std::set<std::string>{"out.bin"});
}

TEST_CASE("write_file_atomically: a failure leaves neither the target nor a temporary") {
  TempDir dir;
  const fs::path out = dir.path / "out.bin";
  CHECK_THROWS_AS(write_file_atomically(out.string(), [](const std::string&) { throw std::runtime_error("boom"); }),
                  std::runtime_error);
  CHECK(entries(dir.path).empty());
  fs::create_directories(out / "busy");  // the final rename onto a non-empty folder fails
  CHECK_THROWS_AS(write_file_atomically(out.string(), "x"), InvalidInput);
  CHECK(entries(dir.path) == std::set<std::string>{"out.bin"});
  CHECK_THROWS_AS(write_file_atomically((dir.path / "no" / "such.bin").string(), "x"), InvalidInput);
  CHECK_FALSE(fs::exists(dir.path / "no"));
}

TEST_CASE("refuse_overwriting_inputs: the same file by any name is refused, other files are not") {
  TempDir dir;
  const fs::path in = dir.path / "in.pt";
  std::ofstream(in) << "model";
  fs::create_symlink(in, dir.path / "link.pt");
  fs::create_hard_link(in, dir.path / "hard.pt");
  std::ofstream(dir.path / "other.pt") << "other";
  for (const char* name : {"in.pt", "link.pt", "hard.pt"}) {
    CAPTURE(name);
    const std::string out = (dir.path / name).string();
    CHECK_THROWS_AS(refuse_overwriting_inputs(out, {"", in.string()}), InvalidInput);
    try {
      refuse_overwriting_inputs(out, {in.string()}, " (use --force)");
    } catch (const InvalidInput& e) {
      CHECK(std::string(e.what()) == out + ": is the input " + in.string() + " itself; refusing to overwrite it (use --force)");
    }
  }
  CHECK_NOTHROW(refuse_overwriting_inputs((dir.path / "other.pt").string(), {in.string(), ""}));
  CHECK_NOTHROW(refuse_overwriting_inputs((dir.path / "new.pt").string(), {in.string()}));
  CHECK(slurp(in) == "model");
}
