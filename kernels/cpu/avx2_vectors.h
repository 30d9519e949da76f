#pragma once
// GCC vector helpers for jitctl's own AVX2 kernels (grouped_conv's AVX2 form): avx512_vectors.h's
// helpers at 8 lanes, each carrying the AVX2 target itself for the reason given there.
#include <cstring>
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include "kernels/cpu/isa_dispatch.h"

namespace jitctl::cpu::avx2 {
constexpr int kLanes = 8;  // floats per vector
}  // namespace jitctl::cpu::avx2

#ifdef JITCTL_TARGET_AVX2
#pragma GCC diagnostic ignored "-Wpsabi"

#define JITCTL_AVX2_INLINE JITCTL_TARGET_AVX2 JITCTL_ALWAYS_INLINE

namespace jitctl::cpu::avx2 {

typedef float vf __attribute__((vector_size(32)));
typedef int vi __attribute__((vector_size(32)));

JITCTL_AVX2_INLINE vf load(const float* p) {
  vf v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

JITCTL_AVX2_INLINE void store(float* p, vf v) { std::memcpy(p, &v, sizeof v); }

JITCTL_AVX2_INLINE vf splat(float s) { return reinterpret_cast<vf>(_mm256_set1_ps(s)); }

// Lane l of the result is lane idx[l] of v (vpermilps when idx stays within 128-bit halves,
// vpermps otherwise).
JITCTL_AVX2_INLINE vf permute(vf v, vi idx) { return __builtin_shuffle(v, idx); }

}  // namespace jitctl::cpu::avx2

#endif  // JITCTL_TARGET_AVX2
