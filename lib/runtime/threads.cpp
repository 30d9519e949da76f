#include "lib/runtime/threads.h"

#include <fmt/format.h>
#include <omp.h>

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "lib/runtime/interop_pool.h"

namespace jitctl {
namespace {

constexpr int kNotSet = -1;
std::atomic<int> g_num_threads{kNotSet};

// at::get_env_num_threads: std::stoi semantics (leading digits count), positive, else warn.
int env_num_threads(const char* name, int fallback) {
  const char* value = std::getenv(name);
  if (value == nullptr) return fallback;
  try {
    const int n = std::stoi(value);
    if (n > 0) return n;
    std::fprintf(stderr, "warning: invalid %s variable value %s: expected a positive number\n", name, value);
  } catch (const std::exception&) {
    std::fprintf(stderr, "warning: invalid %s variable value %s: not a number\n", name, value);
  }
  return fallback;
}

// The CPU time the process's cgroup may use per period, in CPUs rounded up (cgroup v2 cpu.max
// "QUOTA PERIOD", v1 cpu.cfs_quota_us / cpu.cfs_period_us); 0 when unlimited or unknown.
int cgroup_cpu_limit() {
  std::vector<std::string> dirs{""};  // the cgroup root as mounted (a container's own)
  std::ifstream self("/proc/self/cgroup");
  for (std::string line; std::getline(self, line);) {
    // "0::/path" (v2) or "N:cpu,cpuacct:/path" (v1)
    const size_t a = line.find(':'), b = line.find(':', a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    const std::string ctrl = line.substr(a + 1, b - a - 1), path = line.substr(b + 1);
    if ((ctrl.empty() || ctrl.find("cpu") != std::string::npos) && path != "/") dirs.push_back(path);
  }
  double best = 0;
  auto consider = [&](double quota, double period) {
    if (quota > 0 && period > 0) {
      const double cpus = std::ceil(quota / period);
      best = best > 0 ? std::min(best, cpus) : cpus;
    }
  };
  for (const std::string& d : dirs) {
    std::ifstream v2("/sys/fs/cgroup" + d + "/cpu.max");
    std::string quota;
    double period = 0;
    if (v2 >> quota >> period && quota != "max") consider(std::atof(quota.c_str()), period);
    std::ifstream q1("/sys/fs/cgroup/cpu" + d + "/cpu.cfs_quota_us"), p1("/sys/fs/cgroup/cpu" + d + "/cpu.cfs_period_us");
    double q = 0, p = 0;
    if (q1 >> q && p1 >> p) consider(q, p);
  }
  return static_cast<int>(best);
}

}  // namespace

int usable_cpus() {
  static const int n = [] {
    int cpus = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0) cpus = std::min(cpus, std::max(1, CPU_COUNT(&set)));
    const int limit = cgroup_cpu_limit();
    return limit > 0 ? std::min(cpus, limit) : cpus;
  }();
  return n;
}

int default_num_threads() {
  int n = static_cast<int>(std::thread::hardware_concurrency());
#if defined(__x86_64__) || defined(_M_X64)
  n /= 2;
#endif
  return std::max(1, std::min(n, usable_cpus()));
}

int intraop_default_num_threads() {
  int n = env_num_threads("OMP_NUM_THREADS", 0);
  n = env_num_threads("MKL_NUM_THREADS", n);
  return n > 0 ? n : default_num_threads();
}

void set_num_threads(int n) {
  if (n < 1) return;
  g_num_threads.store(n);
  omp_set_num_threads(n);
}

int get_num_threads() {
  int n = g_num_threads.load();
  if (n != kNotSet) return n;
  int expected = kNotSet;
  g_num_threads.compare_exchange_strong(expected, intraop_default_num_threads());
  return g_num_threads.load();
}

void apply_num_threads_here() {
  const int n = get_num_threads();
  if (omp_get_max_threads() != n) omp_set_num_threads(n);
}

void init_threads(int intra_op, int inter_op) {
  if (intra_op > 0) set_num_threads(intra_op);
  apply_num_threads_here();
  if (inter_op > 0) set_num_interop_threads(inter_op);
}

}  // namespace jitctl
