#pragma once
// What the CPU the process runs on can do, detected once at run time (cpuid + what the OS saves
// on a context switch), never from the build's -march: one binary picks AVX-512, AVX2+FMA or the
// portable path on each machine. JITCTL_ISA=generic|avx2|avx512 lowers the choice (tests run the
// kernels under each; asking for more than the machine has is refused with a warning).
#include <cstdint>
#include <string>

namespace jitctl::cpu {

enum class Isa { Generic, Avx2, Avx512 };

struct CpuFeatures {
  std::string vendor;      // "AuthenticAMD", "GenuineIntel"
  std::string model_name;  // the brand string
  int family = 0, model = 0;
  bool fma = false, avx2 = false, avx512f = false, avx512bw = false, avx512vl = false, avx512dq = false;
  Isa detected = Isa::Generic;  // the best the machine and OS support
  Isa isa = Isa::Generic;       // what the kernels use: detected, lowered by JITCTL_ISA
  int fp32_lanes = 4;           // floats per vector register of `isa`
  int fma_units = 2;            // vector FMA instructions per cycle per core (of isa's width)
  int flops_per_cycle = 8;      // fp32 FLOP per cycle per core: fma_units * fp32_lanes * 2
  int cores = 1;                // logical CPUs this process may run on
  int64_t l2_bytes = 1 << 20;   // one core's L2 (sysconf; 1 MiB when the system does not say)
};

// Detected once, on first use.
const CpuFeatures& cpu_features();

const char* isa_name(Isa isa);  // "generic", "avx2", "avx512"

// The clock, in GHz, measured by timing a chain of dependent integer additions (one per cycle on
// every x86 core since the Pentium Pro); turbo included, which is what kernels actually run at.
// About 20 ms the first time, cached afterwards.
double measured_ghz();

// Whether the environment variable `name` is "0": the switches (JITCTL_WINOGRAD, JITCTL_POINTWISE,
// ...) that turn one of jitctl's kernel choices off, for comparisons.
bool switched_off(const char* name);

// fp32 peak of `threads` cores (at most the ones this process may use) at the measured clock, in
// GFLOP/s.
double peak_gflops(int threads);

}  // namespace jitctl::cpu
