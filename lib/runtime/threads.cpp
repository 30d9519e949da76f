#include "lib/runtime/threads.h"

#include <fmt/format.h>
#include <omp.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

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

}  // namespace

int default_num_threads() {
  int n = static_cast<int>(std::thread::hardware_concurrency());
#if defined(__x86_64__) || defined(_M_X64)
  n /= 2;
#endif
  return n > 0 ? n : 1;
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
