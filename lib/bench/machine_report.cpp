#include "lib/bench/machine_report.h"

#include <fmt/format.h>
#include <omp.h>

#include <cstdlib>

#include "lib/runtime/interop_pool.h"
#include "lib/runtime/parallel_info.h"
#include "lib/runtime/threads.h"

namespace jitctl {
namespace {

nlohmann::ordered_json env_or_null(const char* name) {
  const char* v = std::getenv(name);
  return v ? nlohmann::ordered_json(v) : nlohmann::ordered_json(nullptr);
}

}  // namespace

nlohmann::ordered_json machine_json(const MachineInfo& m) {
  nlohmann::ordered_json env = nlohmann::ordered_json::object();
  for (const char* name : {"OMP_NUM_THREADS", "MKL_NUM_THREADS"}) env[name] = nullptr;
  for (const auto& [k, v] : m.environment) env[k] = v;
  return {{"cpu", m.cpu},
          {"hardware_concurrency", m.logical_cpus},
          {"default_threads", default_num_threads()},
          {"openmp", openmp_version()},
          {"blas", blas_library()},
          {"jitctl", JITCTL_VERSION},
          {"cores", m.physical_cores},
          {"threads_per_core", m.threads_per_core},
          {"logical_cpus", m.logical_cpus},
          {"available_cpus", m.available_cpus},
          {"isa", m.isa},
          {"isa_flags", m.isa_flags},
          {"openmp_runtime", m.openmp_runtime},
          {"environment", env}};
}

std::string machine_text(const MachineInfo& m) {
  std::string flags;
  for (const auto& f : m.isa_flags) flags += (flags.empty() ? "" : " ") + f;
  std::string s = "Machine:\n";
  s += fmt::format("\tCPU : {}\n", m.cpu);
  s += fmt::format("\tcores : {}\n", m.physical_cores);
  s += fmt::format("\tthreads per core : {}\n", m.threads_per_core);
  s += fmt::format("\thardware threads usable by this process : {} of {}\n", m.available_cpus, m.logical_cpus);
  s += fmt::format("\tinstruction set : {}{}\n", m.isa, flags.empty() ? "" : " (" + flags + ")");
  s += fmt::format("\tOpenMP runtime : {}\n", m.openmp_runtime);
  s += "Threading environment variables in force:\n";
  if (m.environment.empty()) s += "\t[none]\n";
  for (const auto& [k, v] : m.environment) s += fmt::format("\t{} : {}\n", k, v);
  return s;
}

nlohmann::ordered_json parallel_info_json() {
  return {{"intra_op_threads", get_num_threads()},
          {"inter_op_threads", get_num_interop_threads()},
          {"omp_get_max_threads", omp_get_max_threads()},
          {"openmp", openmp_version()},
          {"blas", blas_library()},
          {"mkl", nullptr},
          {"mkldnn", nullptr},
          {"hardware_concurrency", machine_info().logical_cpus},
          {"environment", {{"OMP_NUM_THREADS", env_or_null("OMP_NUM_THREADS")}, {"MKL_NUM_THREADS", env_or_null("MKL_NUM_THREADS")}}},
          {"parallel_backend", "OpenMP"},
          {"machine", machine_json(machine_info())}};
}

}  // namespace jitctl
