#pragma once
// `jitctl --version`: the version and how this binary was built and where it runs -- what a bug
// report needs: compiler, the instruction set it was compiled for and the one the CPU has, OpenMP,
// the matrix library, and whether CUDA kernels are built in.
#include <string>

namespace jitctl::cli {

std::string version_text();

}  // namespace jitctl::cli
