#pragma once
// The machine as reports state it (lib/bench/machine.h gathers it): the "machine" object of
// bench-threads' JSON, and `jitctl parallel-info`'s extra section and JSON form.
#include <nlohmann/json.hpp>
#include <string>

#include "lib/bench/machine.h"

namespace jitctl {

// {"cpu", "hardware_concurrency", "default_threads", "openmp", "blas", "jitctl", "cores",
//  "threads_per_core", "logical_cpus", "available_cpus", "isa", "isa_flags", "openmp_runtime",
//  "environment": {"OMP_NUM_THREADS": value or null, "MKL_NUM_THREADS": ..., every other
//  threading variable set}}
nlohmann::ordered_json machine_json(const MachineInfo& m);

// The lines parallel-info prints after PyTorch's layout, in the same "\tlabel : value" form:
// "Machine:" (CPU, cores, threads per core, usable hardware threads, instruction set, OpenMP
// runtime) and "Threading environment variables in force:".
std::string machine_text(const MachineInfo& m);

// `parallel-info --format json`: the thread settings in force (as torch.get_num_threads(),
// torch.get_num_interop_threads() and the OpenMP team report them), the build, the environment
// variables PyTorch's report names, and "machine": machine_json().
nlohmann::ordered_json parallel_info_json();

}  // namespace jitctl
