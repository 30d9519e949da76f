#pragma once
// Our own vectorized loops, compiled once per instruction set and chosen at run time by
// cpu_features().isa, so a portable (-Dnative=false) binary still runs AVX-512 or AVX2 code where
// the machine has it.
//
// Write the loop once as `NAME_body`, a function marked JITCTL_ALWAYS_INLINE (it is inlined into,
// and vectorized for, each target), then
//   JITCTL_ISA_CLONES(void, NAME, (const float* x, float* y, int64_t n), (x, y, n))
// defines NAME_avx512, NAME_avx2, NAME_generic and NAME, which calls the one for the ISA in use.
#include "kernels/cpu/cpu_features.h"

#define JITCTL_ALWAYS_INLINE [[gnu::always_inline]] inline

#if defined(__x86_64__) && defined(__GNUC__)
#define JITCTL_TARGET_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx2,fma,f16c,bmi2")))
#define JITCTL_TARGET_AVX2 __attribute__((target("avx2,fma,f16c,bmi2")))
#define JITCTL_ISA_CLONES(RET, NAME, PARAMS, ARGS)                        \
  JITCTL_TARGET_AVX512 RET NAME##_avx512 PARAMS { return NAME##_body ARGS; } \
  JITCTL_TARGET_AVX2 RET NAME##_avx2 PARAMS { return NAME##_body ARGS; }     \
  RET NAME##_generic PARAMS { return NAME##_body ARGS; }                     \
  RET NAME PARAMS {                                                          \
    switch (::jitctl::cpu::cpu_features().isa) {                             \
      case ::jitctl::cpu::Isa::Avx512: return NAME##_avx512 ARGS;            \
      case ::jitctl::cpu::Isa::Avx2: return NAME##_avx2 ARGS;                \
      case ::jitctl::cpu::Isa::Generic: break;                               \
    }                                                                        \
    return NAME##_generic ARGS;                                              \
  }
#else
#define JITCTL_ISA_CLONES(RET, NAME, PARAMS, ARGS) \
  RET NAME PARAMS { return NAME##_body ARGS; }
#endif
