#include "cli/wait_policy.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "lib/runtime/threads.h"

namespace jitctl::cli {
namespace {

bool is_set(const char* name) { return std::getenv(name) != nullptr; }

// A --threads value asks for more than one thread: "sweep", or any count above 1 in a list.
bool many(std::string_view v) {
  if (v == "sweep") return true;
  size_t at = 0;
  while (at <= v.size()) {
    const size_t comma = v.find(',', at);
    const std::string item(v.substr(at, comma == std::string_view::npos ? std::string_view::npos : comma - at));
    if (std::atoi(item.c_str()) > 1) return true;
    if (comma == std::string_view::npos) break;
    at = comma + 1;
  }
  return false;
}

// Whether this invocation may run a model's kernels on a team of more than one thread.
bool may_use_threads(int argc, char** argv) {
  if (argc < 2) return false;
  const std::string_view cmd = argv[1];
  if (cmd != "run" && cmd != "bench-threads" && cmd != "bench" && cmd != "check-trace") return false;
  bool explicit_threads = false;
  for (int i = 2; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "--threads") {
      explicit_threads = true;
      // bench-threads takes several values after one flag: "--threads 1 2 4".
      for (int j = i + 1; j < argc && argv[j][0] != '-'; ++j)
        if (many(argv[j])) return true;
    } else if (a.starts_with("--threads=")) {
      explicit_threads = true;
      if (many(a.substr(10))) return true;
    }
  }
  return !explicit_threads && intraop_default_num_threads() > 1;
}

// /proc/loadavg: the 1-minute load average and the tasks runnable now (ourselves included).
bool read_loadavg(double& load1, int& runnable) {
  std::FILE* f = std::fopen("/proc/loadavg", "r");
  if (!f) return false;
  double load5 = 0, load15 = 0;
  int total = 0;
  const int got = std::fscanf(f, "%lf %lf %lf %d/%d", &load1, &load5, &load15, &runnable, &total);
  std::fclose(f);
  return got == 5;
}

// Other processes keep the CPUs busy: the 1-minute load average is above the usable CPUs and
// another task stays runnable over a couple of milliseconds. Neither alone is enough: the load
// average stays high for minutes after a burst of work ends, and a parent that just started us
// (a benchmark driver, CI) is runnable for a moment before it waits; one look at that moment made
// a quiet machine look busy, and passive waiting then cost small models at 2 threads 2-10x.
// JITCTL_MACHINE_BUSY=1 or 0 decides instead (tests; a deployment that knows).
bool machine_busy() {
  if (const char* forced = std::getenv("JITCTL_MACHINE_BUSY")) return std::string_view(forced) == "1";
  double load1 = 0;
  int runnable = 0;
  if (!read_loadavg(load1, runnable) || load1 <= usable_cpus()) return false;
  constexpr int kLooks = 8;
  int busy_looks = 0;
  for (int i = 0; i < kLooks; ++i) {
    if (i > 0) usleep(250);
    if (read_loadavg(load1, runnable) && runnable - 1 >= 1) ++busy_looks;
  }
  return busy_looks >= kLooks * 3 / 4;
}

}  // namespace

void reexec_with_default_wait_policy(int argc, char** argv) {
  if (is_set("OMP_WAIT_POLICY") || is_set("GOMP_SPINCOUNT") || !may_use_threads(argc, argv) || !machine_busy()) return;
  if (setenv("OMP_WAIT_POLICY", "PASSIVE", 1) != 0 || setenv("JITCTL_WAIT_POLICY", "busy-machine", 1) != 0) return;
  execv("/proc/self/exe", argv);
  // Not re-executed (no /proc, say): run as we are, with the environment as it was.
  unsetenv("OMP_WAIT_POLICY");
  unsetenv("JITCTL_WAIT_POLICY");
}

}  // namespace jitctl::cli
