#pragma once
// GCC vector helpers for jitctl's own AVX-512 kernels (pointwise_conv, grouped_conv), and the
// in-register form of a convolution epilogue they share.
//
// The helpers pass vector types in files compiled for the baseline ISA; all are always inlined
// into the kernels' AVX-512 target functions, so no call with the vector ABI GCC warns about
// exists. They carry the AVX-512 target themselves: compiled for the baseline, GCC built splat's
// uniform vector from sixteen masked inserts (the portable build ran MNASNet 5x slower).
#include <cstring>
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include "kernels/cpu/epilogue.h"
#include "kernels/cpu/isa_dispatch.h"
#include "kernels/cpu/vector_activation.h"

namespace jitctl::cpu {

// An epilogue the vector kernels apply in registers: an optional residual add first, then at
// most one of VecActivation's activations. False when the epilogue is anything else.
inline bool vec_epilogue_of(const Epilogue& e, VecActivation& m, bool& add) {
  m = VecActivation::None;
  add = !e.empty() && e[0].kind == PostOp::Kind::Add;
  const size_t rest = add ? 1 : 0;
  if (e.size() == rest) return true;
  if (e.size() != rest + 1) return false;
  m = vec_activation_of(e[rest]);
  return m != VecActivation::Row;
}

namespace avx512 {
constexpr int kLanes = 16;  // floats per vector
}

}  // namespace jitctl::cpu

#ifdef JITCTL_TARGET_AVX512
#pragma GCC diagnostic ignored "-Wpsabi"

#define JITCTL_AVX512_INLINE JITCTL_TARGET_AVX512 JITCTL_ALWAYS_INLINE

namespace jitctl::cpu::avx512 {

typedef float vf __attribute__((vector_size(64)));
typedef int vi __attribute__((vector_size(64)));

JITCTL_AVX512_INLINE vf load(const float* p) {
  vf v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

JITCTL_AVX512_INLINE void store(float* p, vf v) { std::memcpy(p, &v, sizeof v); }

// A uniform vector from one float: GCC folds it into the multiply-add as a broadcast memory operand.
JITCTL_AVX512_INLINE vf splat(float s) { return reinterpret_cast<vf>(_mm512_set1_ps(s)); }

// Lane l of the result is lane idx[l] of v (one vpermps).
JITCTL_AVX512_INLINE vf permute(vf v, vi idx) { return __builtin_shuffle(v, idx); }

}  // namespace jitctl::cpu::avx512

#endif  // JITCTL_TARGET_AVX512
