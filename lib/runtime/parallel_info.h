#pragma once
// `jitctl parallel-info`: the report torch.__config__.parallel_info() prints (PyTorch 1.13), line
// for line, with jitctl's own settings and build: same labels, so scripts that read PyTorch's
// report read this one; the MKL and MKL-DNN lines say what jitctl uses instead.
#include <optional>
#include <string>

namespace jitctl {

std::string parallel_info();

// The same settings as values, for `parallel-info --format json`.
struct ParallelSettings {
  int intra_op_threads = 0, inter_op_threads = 0, omp_max_threads = 0;
  unsigned hardware_concurrency = 0;
  std::string openmp, blas, backend;
  std::optional<std::string> omp_num_threads_env, mkl_num_threads_env;  // nullopt: not set
};
ParallelSettings parallel_settings();

// "OpenMP 201511 (a.k.a. OpenMP 4.5)", from the _OPENMP this was compiled with.
std::string openmp_version();
// What does the matrix products: "oneDNN v2.6.3 for float32, OpenBLAS 0.3.21 for float64".
std::string blas_library();

}  // namespace jitctl
