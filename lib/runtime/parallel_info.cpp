#include "lib/runtime/parallel_info.h"

#include <fmt/format.h>
#include <omp.h>

#include <Eigen/src/Core/util/Macros.h>  // the version numbers only
#include <cstdlib>
#include <thread>

#include "lib/runtime/interop_pool.h"
#include "lib/runtime/threads.h"

namespace jitctl {
namespace {

const char* env_or_not_set(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "[not set]";
}

}  // namespace

std::string openmp_version() {
  const char* spec = nullptr;
  switch (_OPENMP) {
    case 200505: spec = "2.5"; break;
    case 200805: spec = "3.0"; break;
    case 201107: spec = "3.1"; break;
    case 201307: spec = "4.0"; break;
    case 201511: spec = "4.5"; break;
    case 201811: spec = "5.0"; break;
    case 202011: spec = "5.1"; break;
    case 202111: spec = "5.2"; break;
    default: break;
  }
  return spec ? fmt::format("OpenMP {} (a.k.a. OpenMP {})", _OPENMP, spec) : fmt::format("OpenMP {}", _OPENMP);
}

std::string blas_library() {
  return fmt::format("Eigen {}.{}.{}", EIGEN_WORLD_VERSION, EIGEN_MAJOR_VERSION, EIGEN_MINOR_VERSION);
}

ParallelSettings parallel_settings() {
  ParallelSettings s;
  s.intra_op_threads = get_num_threads();
  s.inter_op_threads = get_num_interop_threads();
  s.omp_max_threads = omp_get_max_threads();
  s.hardware_concurrency = std::thread::hardware_concurrency();
  s.openmp = openmp_version();
  s.blas = blas_library();
  s.backend = "OpenMP";
  if (const char* v = std::getenv("OMP_NUM_THREADS")) s.omp_num_threads_env = v;
  if (const char* v = std::getenv("MKL_NUM_THREADS")) s.mkl_num_threads_env = v;
  return s;
}

std::string parallel_info() {
  std::string s;
  s += "ATen/Parallel:\n";
  s += fmt::format("\tat::get_num_threads() : {}\n", get_num_threads());
  s += fmt::format("\tat::get_num_interop_threads() : {}\n", get_num_interop_threads());
  s += openmp_version() + "\n";
  s += fmt::format("\tomp_get_max_threads() : {}\n", omp_get_max_threads());
  // jitctl has neither MKL nor oneDNN: its matrix products and convolutions use Eigen.
  s += fmt::format("MKL not found (BLAS: {})\n", blas_library());
  s += "MKL-DNN not found (convolutions: jitctl's own kernels on Eigen GEMM)\n";
  s += fmt::format("std::thread::hardware_concurrency() : {}\n", std::thread::hardware_concurrency());
  s += "Environment variables:\n";
  s += fmt::format("\tOMP_NUM_THREADS : {}\n", env_or_not_set("OMP_NUM_THREADS"));
  s += fmt::format("\tMKL_NUM_THREADS : {}\n", env_or_not_set("MKL_NUM_THREADS"));
  s += "ATen parallel backend: OpenMP\n";
  return s;
}

}  // namespace jitctl
