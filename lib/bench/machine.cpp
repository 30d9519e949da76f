#include "lib/bench/machine.h"

#include <dlfcn.h>
#include <omp.h>
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "lib/runtime/threads.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

extern char** environ;

namespace jitctl {
namespace {

std::string cpuinfo_field(const std::string& key) {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind(key, 0) == 0) {
      const size_t colon = line.find(':');
      if (colon == std::string::npos) continue;
      const size_t start = line.find_first_not_of(' ', colon + 1);
      return start == std::string::npos ? "" : line.substr(start);
    }
  return "";
}

// Online CPUs that share a (package, core) pair count once. Without topology files (some
// containers), every logical CPU is its own core.
int count_physical_cores(int logical) {
  std::set<std::pair<std::string, std::string>> cores;
  for (int cpu = 0; cpu < logical; ++cpu) {
    const std::string dir = "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/topology/";
    std::ifstream pkg(dir + "physical_package_id"), core(dir + "core_id");
    std::string p, c;
    if (!(pkg >> p) || !(core >> c)) return logical;
    cores.emplace(p, c);
  }
  return cores.empty() ? logical : static_cast<int>(cores.size());
}

void detect_isa(MachineInfo& m) {
  std::istringstream flags(cpuinfo_field("flags") + " " + cpuinfo_field("Features"));  // x86 / arm
  std::set<std::string> have;
  for (std::string f; flags >> f;) have.insert(f);
  for (const char* f : {"avx512f", "avx512bw", "avx512vl", "avx512_bf16", "avx512_vnni", "avx2", "fma", "avx", "sse4_2", "asimd", "sve"})
    if (have.count(f)) m.isa_flags.emplace_back(f);
  if (have.count("avx512f")) {
    m.isa = "AVX-512";
    m.fp32_lanes = 16;
  } else if (have.count("avx2") && have.count("fma")) {
    m.isa = "AVX2+FMA";
    m.fp32_lanes = 8;
  } else if (have.count("avx")) {
    m.isa = "AVX";
    m.fp32_lanes = 8;
  } else if (have.count("sse4_2")) {
    m.isa = "SSE4.2";
    m.fp32_lanes = 4;
  } else if (have.count("asimd")) {
    m.isa = "NEON";
    m.fp32_lanes = 4;
  } else {
    m.isa = "scalar";
  }
}

// Which OpenMP library the process really loaded (the one that defines omp_get_max_threads).
std::string detect_openmp_runtime() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&omp_get_max_threads), &info) == 0 || info.dli_fname == nullptr) return "unknown";
  const std::string path = info.dli_fname;
  const std::string file = path.substr(path.find_last_of('/') + 1);
  std::string name = "OpenMP runtime";
  if (file.find("libgomp") != std::string::npos)
    name = "GNU libgomp";
  else if (file.find("libiomp") != std::string::npos)
    name = "Intel libiomp";
  else if (file.find("libomp") != std::string::npos)
    name = "LLVM libomp";
  return name + " (" + path + ")";
}

bool is_threading_variable(const std::string& name) {
  for (const char* prefix : {"OMP_", "GOMP_", "KMP_", "MKL_", "OPENBLAS_", "GOTO_", "VECLIB_", "TBB_"})
    if (name.rfind(prefix, 0) == 0) return true;
  return false;
}

MachineInfo gather() {
  MachineInfo m;
  m.cpu = cpu_model();
  m.logical_cpus = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  m.available_cpus = usable_cpus();
  m.physical_cores = count_physical_cores(m.logical_cpus);
  m.threads_per_core = std::max(1, m.logical_cpus / m.physical_cores);
  detect_isa(m);
  m.openmp_runtime = detect_openmp_runtime();
  for (char** e = environ; e && *e; ++e) {
    const std::string kv = *e;
    const size_t eq = kv.find('=');
    if (eq == std::string::npos || !is_threading_variable(kv.substr(0, eq))) continue;
    std::string value = kv.substr(eq + 1);
    // cli/wait_policy.h: jitctl set it (re-executing itself), not the user.
    if (kv.substr(0, eq) == "OMP_WAIT_POLICY" && std::getenv("JITCTL_WAIT_POLICY")) value += " (set by jitctl: the machine was busy)";
    m.environment.emplace_back(kv.substr(0, eq), std::move(value));
  }
  std::sort(m.environment.begin(), m.environment.end());
  return m;
}

// Twelve independent accumulators: enough to cover the FMA latency (4 cycles) on two pipes.
constexpr int kChains = 12;

#if defined(__x86_64__)
__attribute__((target("avx512f"))) float fma_loop_avx512(long n) {
  __m512 acc[kChains];
  for (int i = 0; i < kChains; ++i) acc[i] = _mm512_set1_ps(static_cast<float>(i));
  const __m512 a = _mm512_set1_ps(0.999999f), b = _mm512_set1_ps(1e-6f);
  for (long k = 0; k < n; ++k)
    for (int i = 0; i < kChains; ++i) acc[i] = _mm512_fmadd_ps(acc[i], a, b);
  __m512 s = acc[0];
  for (int i = 1; i < kChains; ++i) s = _mm512_add_ps(s, acc[i]);
  alignas(64) float out[16];
  _mm512_store_ps(out, s);
  float r = 0;
  for (float v : out) r += v;
  return r;
}

__attribute__((target("avx2,fma"))) float fma_loop_avx2(long n) {
  __m256 acc[kChains];
  for (int i = 0; i < kChains; ++i) acc[i] = _mm256_set1_ps(static_cast<float>(i));
  const __m256 a = _mm256_set1_ps(0.999999f), b = _mm256_set1_ps(1e-6f);
  for (long k = 0; k < n; ++k)
    for (int i = 0; i < kChains; ++i) acc[i] = _mm256_fmadd_ps(acc[i], a, b);
  alignas(32) float out[8];
  __m256 s = acc[0];
  for (int i = 1; i < kChains; ++i) s = _mm256_add_ps(s, acc[i]);
  _mm256_store_ps(out, s);
  float r = 0;
  for (float v : out) r += v;
  return r;
}
#endif

// Portable 4-lane multiply-add (SSE or NEON through the compiler's vector extension).
float mul_add_loop_generic(long n) {
  typedef float v4 __attribute__((vector_size(16)));
  v4 acc[kChains];
  for (int i = 0; i < kChains; ++i) acc[i] = v4{1, 2, 3, 4} * static_cast<float>(i);
  const v4 a = {0.999999f, 0.999999f, 0.999999f, 0.999999f}, b = {1e-6f, 1e-6f, 1e-6f, 1e-6f};
  for (long k = 0; k < n; ++k)
    for (int i = 0; i < kChains; ++i) acc[i] = acc[i] * a + b;
  v4 s = acc[0];
  for (int i = 1; i < kChains; ++i) s += acc[i];
  return s[0] + s[1] + s[2] + s[3];
}

volatile float g_sink;

double measure_peak() {
  const MachineInfo& m = machine_info();
  float (*loop)(long) = mul_add_loop_generic;
  int lanes = 4;
#if defined(__x86_64__)
  if (m.isa == "AVX-512" && __builtin_cpu_supports("avx512f")) {
    loop = fma_loop_avx512;
    lanes = 16;
  } else if (m.isa == "AVX2+FMA" && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    loop = fma_loop_avx2;
    lanes = 8;
  }
#endif
  using Clock = std::chrono::steady_clock;
  auto seconds = [&](long n) {
    const auto t0 = Clock::now();
    g_sink = loop(n);
    return std::chrono::duration<double>(Clock::now() - t0).count();
  };
  // Many short trials, the best kept: on a busy machine a trial of a millisecond or two is likely
  // to run without being preempted, where one of 30 ms is not.
  long n = 1 << 10;
  while (seconds(n) < 0.001 && n < (1L << 40)) n *= 2;
  double best = 1e30;
  for (int i = 0; i < 40; ++i) best = std::min(best, seconds(n));
  return 2.0 * kChains * lanes * static_cast<double>(n) / best / 1e9;
}

}  // namespace

std::string cpu_model() {
  const std::string name = cpuinfo_field("model name");
  return name.empty() ? "unknown" : name;
}

const MachineInfo& machine_info() {
  static const MachineInfo info = gather();
  return info;
}

int usable_cores() { return machine_info().available_cpus; }

double load_average_1min() {
  std::ifstream f("/proc/loadavg");
  double v = -1;
  return (f >> v) ? v : -1;
}

double fma_peak_gflops_per_core() {
  static const double peak = measure_peak();
  return peak;
}

}  // namespace jitctl
