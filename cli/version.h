#pragma once
// `jitctl --version`: the version and how this binary was built and where it runs -- what a bug
// report needs: compiler, the instruction set it was compiled for and the one the CPU has, OpenMP,
// the matrix library, and whether CUDA kernels are built in.
#include <nlohmann/json.hpp>
#include <string>

namespace jitctl::cli {

std::string version_text();
// The CUDA line of --version and parallel-info: built in or not, library versions, visible GPUs.
std::string cuda_summary();
nlohmann::ordered_json cuda_json();

}  // namespace jitctl::cli
