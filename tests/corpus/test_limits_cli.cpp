// Hardening as a user meets it (issue 15): models that run into limits end with exit 2 and one
// line; only regular files are read; no command writes over its own inputs, into /dev, or anywhere
// but a regular file; output that does not reach standard output is an error.
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <algorithm>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "tests/support/run_command.h"

namespace fs = std::filesystem;
using jitctl::test::CommandResult;
using jitctl::test::run_command;

namespace {

const fs::path kRunning = fs::path(JITCTL_TESTDATA) / "hostile" / "running";
const fs::path kModels = fs::path(JITCTL_TESTDATA) / "models";

struct TempDir {
  fs::path path;
  TempDir() {
    char tmpl[] = "/tmp/jitctl_limits_cli_XXXXXX";
    path = mkdtemp(tmpl);
  }
  ~TempDir() { fs::remove_all(path); }
};

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), {}};
}

std::set<std::string> entries(const fs::path& dir) {
  std::set<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.insert(e.path().filename().string());
  return out;
}

struct Timed {
  CommandResult r;
  double seconds = 0;
};

Timed timed(const std::vector<std::string>& argv, double timeout_s = 60) {
  const auto t0 = std::chrono::steady_clock::now();
  Timed t{run_command(argv, timeout_s), 0};
  t.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return t;
}

// Exit 2, one line on stderr starting "jitctl: ", no signal, no hang.
void check_one_line_exit_2(const CommandResult& r) {
  CHECK_MESSAGE(!r.timed_out, "hangs");
  CHECK_MESSAGE(r.signal == 0, "killed by signal ", r.signal);
  CHECK_MESSAGE(r.exit_code == 2, "exit ", r.exit_code, ": ", r.err);
  CHECK_MESSAGE(std::count(r.err.begin(), r.err.end(), '\n') == 1, r.err);
  CHECK(r.err.rfind("jitctl: ", 0) == 0);
}

std::string sh_quote(const std::string& s) { return "'" + s + "'"; }

}  // namespace

TEST_CASE("limits: every hostile model ends with exit 2 within seconds under --timeout 5 --max-memory 2G") {
  const auto expect = nlohmann::json::parse(std::ifstream(kRunning / "running.json"));
  REQUIRE(expect.size() >= 6);
  TempDir out;
  for (const auto& [name, e] : expect.items()) {
    CAPTURE(name);
    // -o names a file in an empty folder: whatever stops the model, nothing is left there.
    const Timed t = timed({JITCTL_BINARY, "run", (kRunning / (name + ".pt")).string(), "--inputs",
                           (kRunning / e.at("inputs").get<std::string>()).string(), "--timeout", "5", "--max-memory", "2G",
                           "-o", (out.path / "out.pt").string()});
    check_one_line_exit_2(t.r);
    // 5 s of --timeout, 1 s for a kernel that never reaches a loop's back edge, and slack for a busy machine.
    CHECK_MESSAGE(t.seconds < 15, t.seconds, " s");
    std::string err = t.r.err;  // mentions are lower case
    std::transform(err.begin(), err.end(), err.begin(), [](unsigned char c) { return std::tolower(c); });
    bool named = false;
    for (const auto& m : e.at("mentions")) named = named || err.find(m.get<std::string>()) != std::string::npos;
    CHECK_MESSAGE(named, t.r.err);
    CHECK(entries(out.path).empty());
  }
}

TEST_CASE("limits: a tensor past --max-memory is refused at once, naming the op and the size") {
  const Timed t = timed({JITCTL_BINARY, "run", (kRunning / "alloc_huge.pt").string(), "--input-spec", "float32[2]",
                         "--max-memory", "512M"});
  check_one_line_exit_2(t.r);
  CHECK(t.seconds < 5);
  CHECK_MESSAGE(t.r.err.find("alloc_huge.pt: a tensor of 3.6 TiB") != std::string::npos, t.r.err);
  CHECK_MESSAGE(t.r.err.find("past --max-memory 512.0 MiB in forward() (aten::zeros at ") != std::string::npos, t.r.err);
  // Without --max-memory the default (half the memory) refuses it too, instead of the OS.
  const Timed d = timed({JITCTL_BINARY, "run", (kRunning / "alloc_huge.pt").string(), "--input-spec", "float32[2]"});
  check_one_line_exit_2(d.r);
  CHECK(d.r.err.find("--max-memory") != std::string::npos);
}

TEST_CASE("limits: --timeout stops run, check-trace and bench-threads in a loop, naming where") {
  const std::string model = (kRunning / "loop_forever.pt").string(), inputs = (kRunning / "loop_forever.in.pt").string();
  const std::vector<std::vector<std::string>> commands = {
      {JITCTL_BINARY, "run", model, "--inputs", inputs, "--timeout", "1.5"},
      {JITCTL_BINARY, "check-trace", model, "--inputs", inputs, "--timeout", "1.5"},
      {JITCTL_BINARY, "bench-threads", model, "--inputs", inputs, "--timeout", "1.5", "--concurrency", "2"},
  };
  for (const auto& argv : commands) {
    CAPTURE(argv[1]);
    const Timed t = timed(argv);
    check_one_line_exit_2(t.r);
    CHECK_MESSAGE(t.r.err.find("loop_forever.pt: timed out after 1.5 s (--timeout 1.5)") != std::string::npos, t.r.err);
    // The stop is seen at the loop's back edge or before the op in its body, whichever comes first
    // after the deadline: either is where it was.
    CHECK_MESSAGE((t.r.err.find("prim::Loop") != std::string::npos || t.r.err.find("(aten::add at ") != std::string::npos), t.r.err);
    CHECK_MESSAGE(t.seconds < 10, t.seconds, " s");
  }
  // Bad values are usage errors.
  for (const char* bad : {"0", "-1", "abc"}) {
    const auto r = run_command({JITCTL_BINARY, "run", model, "--inputs", inputs, "--timeout", bad});
    CHECK(r.exit_code == 2);
    CHECK_MESSAGE(r.err.find("jitctl run: --timeout: '") == 0, r.err);
    CHECK(r.err.find("is not a number of seconds above 0") != std::string::npos);
  }
  const auto r = run_command({JITCTL_BINARY, "run", model, "--inputs", inputs, "--max-memory", "2X"});
  CHECK(r.exit_code == 2);
  CHECK_MESSAGE(r.err.find("jitctl run: --max-memory: '2X' is not a size") == 0, r.err);
}

TEST_CASE("files: a FIFO, a folder or a device as the model, inputs or expected outputs is refused at once") {
  TempDir dir;
  const std::string fifo = (dir.path / "m.pt").string();
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const std::string model = (kModels / "mlp_traced.pt").string(), inputs = (kModels / "mlp_traced.in0.pt").string();
  const std::vector<std::vector<std::string>> commands = {
      {JITCTL_BINARY, "info", fifo},
      {JITCTL_BINARY, "graph", fifo},
      {JITCTL_BINARY, "run", fifo, "--inputs", inputs},
      {JITCTL_BINARY, "run", model, "--inputs", fifo},
      {JITCTL_BINARY, "check-trace", model, "--inputs", inputs, "--expected", fifo},
      {JITCTL_BINARY, "diff", model, fifo},
      {JITCTL_BINARY, "info", dir.path.string()},
      {JITCTL_BINARY, "run", model, "--inputs", "/dev/zero"},
  };
  for (const auto& argv : commands) {
    CAPTURE(argv[1]);
    CAPTURE(argv.back());
    const Timed t = timed(argv, 20);
    check_one_line_exit_2(t.r);
    CHECK(t.seconds < 5);
    const bool says = t.r.err.find(": is a FIFO;") != std::string::npos || t.r.err.find(": is a folder;") != std::string::npos ||
                      t.r.err.find(": is a device;") != std::string::npos;
    CHECK_MESSAGE(says, t.r.err);
  }
}

TEST_CASE("outputs: no command writes over its own inputs without --force, by any name") {
  TempDir dir;
  const fs::path m = dir.path / "m.pt", in = dir.path / "in.pt";
  fs::copy_file(kModels / "mlp_traced.pt", m);
  fs::copy_file(kModels / "mlp_traced.in0.pt", in);
  fs::create_hard_link(m, dir.path / "hard.pt");
  fs::create_symlink(in, dir.path / "link.pt");
  const std::string model_bytes = slurp(m), input_bytes = slurp(in);
  const std::vector<std::vector<std::string>> refused = {
      {JITCTL_BINARY, "run", m.string(), "--inputs", in.string(), "-o", m.string()},
      {JITCTL_BINARY, "run", m.string(), "--inputs", in.string(), "-o", in.string()},
      {JITCTL_BINARY, "run", m.string(), "--inputs", in.string(), "-o", (dir.path / "hard.pt").string()},
      {JITCTL_BINARY, "run", m.string(), "--inputs", in.string(), "--save-inputs", (dir.path / "link.pt").string()},
      {JITCTL_BINARY, "check-trace", m.string(), "--inputs", in.string(), "--save-trace", in.string()},
      {JITCTL_BINARY, "check-trace", m.string(), "--inputs", in.string(), "--save-trace", (dir.path / "hard.pt").string()},
      {JITCTL_BINARY, "freeze", m.string(), "-o", (dir.path / "hard.pt").string()},
      {JITCTL_BINARY, "optimize", m.string(), "-o", m.string(), "--passes", "none"},
  };
  for (const auto& argv : refused) {
    CAPTURE(argv[1]);
    CAPTURE(argv.back());
    const auto r = run_command(argv);
    check_one_line_exit_2(r);
    CHECK_MESSAGE(r.err.find("refusing to overwrite it (use --force to replace it)") != std::string::npos, r.err);
  }
  // bench-threads --plot never replaces a model, even one named .svg.
  fs::copy_file(m, dir.path / "m.svg");
  const auto plot = run_command({JITCTL_BINARY, "bench", (dir.path / "m.svg").string(), "--inputs", in.string(), "--plot",
                                 (dir.path / "m.svg").string()});
  check_one_line_exit_2(plot);
  CHECK_MESSAGE(plot.err.find("refusing to overwrite it\n") != std::string::npos, plot.err);  // no --force to suggest
  CHECK(slurp(m) == model_bytes);
  CHECK(slurp(in) == input_bytes);
  CHECK(entries(dir.path) == std::set<std::string>{"m.pt", "in.pt", "hard.pt", "link.pt", "m.svg"});
  // With --force the output replaces the input, atomically (a whole torch.save file).
  const auto forced = run_command({JITCTL_BINARY, "run", m.string(), "--inputs", in.string(), "-o", in.string(), "--force"});
  CHECK_MESSAGE(forced.exit_code == 0, forced.err);
  const auto back = run_command({JITCTL_BINARY, "info", in.string()});
  CHECK_MESSAGE(back.exit_code == 0, back.err);
  CHECK(slurp(in) != input_bytes);
  CHECK(slurp(m) == model_bytes);
}

TEST_CASE("outputs: checked before any work: /dev, /proc, folders, devices, missing folders") {
  TempDir dir;
  const std::string model = (kModels / "mlp_traced.pt").string(), inputs = (kModels / "mlp_traced.in0.pt").string();
  struct Case {
    std::vector<std::string> argv;
    std::string says;
  };
  const std::vector<Case> cases = {
      {{JITCTL_BINARY, "run", model, "--inputs", inputs, "-o", "/dev/stdout.npy"}, "is in /dev, not a place for files"},
      {{JITCTL_BINARY, "run", model, "--inputs", inputs, "-o", "/dev/null"}, "is in /dev"},
      {{JITCTL_BINARY, "run", model, "--inputs", inputs, "-o", "/proc/self/out.pt"}, "is in /proc"},
      {{JITCTL_BINARY, "run", model, "--inputs", inputs, "-o", dir.path.string()}, "is a folder"},
      {{JITCTL_BINARY, "run", model, "--inputs", inputs, "-o", (dir.path / "no" / "o.pt").string()}, "does not exist"},
      {{JITCTL_BINARY, "optimize", model, "-o", "/dev/model.pt"}, "is in /dev"},
      {{JITCTL_BINARY, "check-trace", model, "--inputs", inputs, "--save-trace", "/sys/t.pt"}, "is in /sys"},
      {{JITCTL_BINARY, "bench", model, "--inputs", inputs, "--plot", "/dev/plot.svg"}, "is in /dev"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.argv[1]);
    CAPTURE(c.argv.back());
    const Timed t = timed(c.argv);
    check_one_line_exit_2(t.r);
    CHECK_MESSAGE(t.r.err.find(c.says) != std::string::npos, t.r.err);
    CHECK(t.seconds < 5);
  }
  CHECK(!fs::exists("/dev/stdout.npy"));
  CHECK(!fs::exists("/dev/model.pt"));
  CHECK(!fs::exists("/dev/plot.svg"));
}

TEST_CASE("outputs: standard output that cannot be written is exit 2; a closed pipe ends jitctl quietly") {
  const std::string model = (kModels / "mlp_traced.pt").string(), inputs = (kModels / "mlp_traced.in0.pt").string();
  const std::string j = sh_quote(JITCTL_BINARY);
  for (const std::string& cmd : {j + " run " + sh_quote(model) + " --inputs " + sh_quote(inputs) + " > /dev/full",
                                 j + " run " + sh_quote(model) + " --inputs " + sh_quote(inputs) + " -o - > /dev/full",
                                 j + " graph " + sh_quote(model) + " > /dev/full", j + " info " + sh_quote(model) + " > /dev/full",
                                 j + " help run > /dev/full"}) {
    CAPTURE(cmd);
    const auto r = run_command({"/bin/sh", "-c", cmd});
    check_one_line_exit_2(r);
    CHECK_MESSAGE(r.err == "jitctl: cannot write standard output: No space left on device\n", r.err);
  }
  // A reader that stops early: no message, and the status a shell reports for SIGPIPE (as for cat).
  const std::string big = (kModels / "transformer_scripted.pt").string();
  const auto r = run_command({"/bin/bash", "-c", j + " code --all " + sh_quote(big) + " | head -c1 >/dev/null; exit ${PIPESTATUS[0]}"});
  CHECK(r.exit_code == 128 + SIGPIPE);
  CHECK_MESSAGE(r.err.empty(), r.err);
}
