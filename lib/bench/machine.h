#pragma once
// What a benchmark report (and `jitctl parallel-info`) says about the machine it ran on: cores,
// hardware threads per core, the widest vector instruction set, the OpenMP runtime actually
// loaded, the threading environment variables in force, and the compute peak that GFLOP/s are
// compared with.
//
// The peak is measured here (a loop of independent fused multiply-adds in the widest instruction
// set the CPU has) because the machines differ between sessions (DESIGN.md: AVX-512 and
// AVX2-only EPYCs) and /proc/cpuinfo does not give the boost clock under a hypervisor.
// kernels/cpu/cpu_features (ISA detection, FLOPs per cycle) will supersede detect_isa() and
// fma_peak_gflops_per_core() when it lands: only machine.cpp needs to change.
#include <string>
#include <utility>
#include <vector>

namespace jitctl {

// The "model name" of /proc/cpuinfo; "unknown" where there is none.
std::string cpu_model();

struct MachineInfo {
  std::string cpu;               // cpu_model()
  int logical_cpus = 1;          // hardware threads online (std::thread::hardware_concurrency)
  int available_cpus = 1;        // hardware threads this process may run on (its affinity mask)
  int physical_cores = 1;        // distinct (package, core) pairs among the online CPUs
  int threads_per_core = 1;      // logical_cpus / physical_cores
  std::string isa;               // widest SIMD set usable for fp32: "AVX-512", "AVX2+FMA", "AVX", "SSE4.2", "NEON", "scalar"
  std::vector<std::string> isa_flags;  // the relevant /proc/cpuinfo flags present (avx512f, avx2, fma, ...)
  int fp32_lanes = 1;            // fp32 elements per vector register of `isa`
  std::string openmp_runtime;    // "GNU libgomp (/usr/lib/x86_64-linux-gnu/libgomp.so.1)"
  // Threading variables that are set (OMP_*, GOMP_*, KMP_*, MKL_*, OPENBLAS_*), name and value,
  // sorted; OMP_NUM_THREADS and MKL_NUM_THREADS appear only when set.
  std::vector<std::pair<std::string, std::string>> environment;
};

// Gathered once per process (cheap: /proc, /sys and the loaded libraries).
const MachineInfo& machine_info();

// "Cores" for oversubscription and `--threads sweep`: the hardware threads this process may use.
int usable_cores();

// The 1-minute load average (/proc/loadavg), read now; -1 where unknown. Above the usable cores,
// other processes compete for them and settings with more threads suffer most (an OpenMP team
// waits for its slowest thread), so bench reports say so.
double load_average_1min();

// Measured fp32 peak of one core in GFLOP/s: independent fused multiply-adds in `isa` on the
// calling thread, the best of 40 trials of about a millisecond (measured once per process, then
// cached). A machine
// peak for t threads is this times min(t, physical cores).
double fma_peak_gflops_per_core();

}  // namespace jitctl
