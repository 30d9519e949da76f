#include "lib/runtime/parallel_info.h"

#include <fmt/format.h>
#include <omp.h>

#include <cblas.h>
#include <oneapi/dnnl/dnnl.h>
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

std::string onednn_version() {
  const dnnl_version_t* v = dnnl_version();
  return fmt::format("v{}.{}.{}", v->major, v->minor, v->patch);
}

std::string blas_library() {
  // openblas_get_config(): "OpenBLAS 0.3.21 DYNAMIC_ARCH NO_AFFINITY SkylakeX MAX_THREADS=64".
  std::string openblas = openblas_get_config();
  if (auto sp = openblas.find(' ', openblas.find(' ') + 1); sp != std::string::npos) openblas.resize(sp);
  return fmt::format("oneDNN {} for float32, {} for float64", onednn_version(), openblas);
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
  // No MKL: matrix products run on oneDNN (float32) and OpenBLAS (float64); convolutions and
  // linears of packed weights on oneDNN, which PyTorch names MKL-DNN.
  s += fmt::format("MKL not found (BLAS: {})\n", blas_library());
  s += fmt::format("oneDNN {} (convolutions, linears, float32 GEMM)\n", onednn_version());
  s += fmt::format("std::thread::hardware_concurrency() : {}\n", std::thread::hardware_concurrency());
  s += "Environment variables:\n";
  s += fmt::format("\tOMP_NUM_THREADS : {}\n", env_or_not_set("OMP_NUM_THREADS"));
  s += fmt::format("\tMKL_NUM_THREADS : {}\n", env_or_not_set("MKL_NUM_THREADS"));
  s += "ATen parallel backend: OpenMP\n";
  return s;
}

}  // namespace jitctl
