#pragma once
// GCC vector helpers for jitctl's own vector kernels (pointwise_conv, grouped_conv), one namespace
// per instruction set (avx512: 16 floats a vector, avx2: 8), and the in-register form of a
// convolution epilogue they share.
//
// The helpers pass vector types in files compiled for the baseline ISA; all are always inlined
// into the kernels' target functions, so no call with the vector ABI GCC warns about exists. They
// carry their ISA's target themselves: compiled for the baseline, GCC built splat's uniform vector
// from sixteen masked inserts (the portable build ran MNASNet 5x slower).
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

// vec_epilogue_of, SiLU (vector_silu.h) also taken as the activation: for the kernels that apply
// it in registers (PointwiseConv, DepthwiseChannels), where a pass after the kernel read and wrote
// the whole output again (EfficientNet's expansions, up to 4.8 MB, from memory).
inline bool vec_epilogue_with_silu_of(const Epilogue& e, VecActivation& m, bool& add) {
  if (vec_epilogue_of(e, m, add)) return true;
  if (e.size() != (add ? 2u : 1u) || e.back().kind != PostOp::Kind::Silu) return false;
  m = VecActivation::Silu;
  return true;
}

namespace avx512 {
constexpr int kLanes = 16;  // floats per vector
}
namespace avx2 {
constexpr int kLanes = 8;
}
// 8 floats a vector in AVX-512 code: its 32 registers for a tile whose width is a multiple of 8
// but not of 16 (wide_grouped_conv's 24-channel groups).
namespace avx512_ymm {
constexpr int kLanes = 8;
}

}  // namespace jitctl::cpu

#if defined(JITCTL_TARGET_AVX512) && defined(JITCTL_TARGET_AVX2)
#pragma GCC diagnostic ignored "-Wpsabi"

#define JITCTL_AVX512_INLINE JITCTL_TARGET_AVX512 JITCTL_ALWAYS_INLINE
#define JITCTL_AVX2_INLINE JITCTL_TARGET_AVX2 JITCTL_ALWAYS_INLINE

// vf/vi (kLanes floats/ints), load, store, splat (a uniform vector from one float: GCC folds it
// into the multiply-add as a broadcast memory operand) and permute (lane l of the result is lane
// idx[l] of v: one vpermps, or vpermilps when idx stays within 128-bit halves).
#define JITCTL_VECTOR_HELPERS(INLINE, SET1)                                       \
  typedef float vf __attribute__((vector_size(kLanes * 4)));                     \
  typedef int vi __attribute__((vector_size(kLanes * 4)));                       \
  INLINE vf load(const float* p) {                                                \
    vf v;                                                                         \
    std::memcpy(&v, p, sizeof v);                                                 \
    return v;                                                                     \
  }                                                                               \
  INLINE void store(float* p, vf v) { std::memcpy(p, &v, sizeof v); }             \
  INLINE vf splat(float s) { return reinterpret_cast<vf>(SET1(s)); }              \
  INLINE vf permute(vf v, vi idx) { return __builtin_shuffle(v, idx); }

namespace jitctl::cpu::avx512 {
JITCTL_VECTOR_HELPERS(JITCTL_AVX512_INLINE, _mm512_set1_ps)
}  // namespace jitctl::cpu::avx512

namespace jitctl::cpu::avx2 {
JITCTL_VECTOR_HELPERS(JITCTL_AVX2_INLINE, _mm256_set1_ps)
}  // namespace jitctl::cpu::avx2

namespace jitctl::cpu::avx512_ymm {
JITCTL_VECTOR_HELPERS(JITCTL_AVX512_INLINE, _mm256_set1_ps)
}  // namespace jitctl::cpu::avx512_ymm

#undef JITCTL_VECTOR_HELPERS

#endif
