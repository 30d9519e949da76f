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

TEST_CASE("check_output_path: folders, devices, system folders and missing folders are refused before any work") {
  TempDir dir;
  const std::string in = (dir.path / "in.pt").string();
  std::ofstream(in) << "model";
  auto why = [](const std::string& path, const std::vector<std::string>& inputs, bool force = false) -> std::string {
    try {
      check_output_path(path, inputs, force, "-o");
      return "";
    } catch (const InvalidInput& e) {
      return e.what();
    }
  };
  CHECK(why("-", {in}) == "");
  CHECK(why((dir.path / "new.pt").string(), {in}) == "");
  CHECK(why(dir.path.string(), {in}) == "-o " + dir.path.string() + ": is a folder; name a file in it");
  CHECK(why("/dev/stdout.npy", {}) == "-o /dev/stdout.npy: is in /dev, not a place for files (use -o - for standard output)");
  CHECK(!fs::exists("/dev/stdout.npy"));
  CHECK(why("/proc/self/x.pt", {}).find("is in /proc") != std::string::npos);
  CHECK(why("/sys/x.pt", {}).find("is in /sys") != std::string::npos);
  CHECK(why((dir.path / "no" / "x.pt").string(), {}).find("the folder " + (dir.path / "no").string() + " does not exist") !=
        std::string::npos);
  // A FIFO, a device: refused by what they are, wherever they are.
  const std::string fifo = (dir.path / "fifo.npy").string();
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  CHECK(why(fifo, {}).find("exists and is not a regular file") != std::string::npos);
  // The command's own input: refused unless forced, by identity (a hard link too).
  fs::create_hard_link(in, dir.path / "hard.pt");
  CHECK(why(in, {in}).find("is the input") != std::string::npos);
  CHECK(why((dir.path / "hard.pt").string(), {"", in}).find("(use --force to replace it)") != std::string::npos);
  CHECK(why(in, {in}, true) == "");
  // A folder this process may not write in (not checkable as root, who may write anywhere).
  if (::geteuid() != 0) {
    fs::create_directory(dir.path / "ro");
    fs::permissions(dir.path / "ro", fs::perms::owner_read | fs::perms::owner_exec);
    CHECK(why((dir.path / "ro" / "x.pt").string(), {}).find("cannot write in the folder") != std::string::npos);
    fs::permissions(dir.path / "ro", fs::perms::owner_all);
  }
}

TEST_CASE("remove_pending_temporaries: what a watchdog calls before ending the process removes the write in flight") {
  TempDir dir;
  const fs::path out = dir.path / "out.bin";
  std::string seen;
  write_file_atomically(out.string(), [&](const std::string& tmp) {
    std::ofstream(tmp) << "half";
    seen = tmp;
    CHECK(fs::exists(tmp));
    remove_pending_temporaries();  // as if a limit ended the process here
    CHECK(!fs::exists(tmp));
    std::ofstream(tmp) << "whole";  // (the process would have ended; recreate it to finish the call)
  });
  CHECK(slurp(out) == "whole");
  // Once moved into place, a temporary is no longer pending: the output stays.
  remove_pending_temporaries();
  CHECK(fs::exists(out));
  CHECK(entries(dir.path) == std::set<std::string>{"out.bin"});
}
