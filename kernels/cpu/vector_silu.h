#pragma once
// SiLU on one vector register (AVX-512: 16 floats, AVX2: 8): activations.cpp's pass over a
// buffer, and PointwiseConv's epilogue in registers before its store. Also the exp of nonpositive
// values on 16 lanes that activations.cpp's softmax uses.
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

#include <limits>

#include "kernels/cpu/isa_dispatch.h"

// GCC 12 reports the _mm512_undefined_ps() inside the min/max/roundscale/scalef intrinsics as
// maybe uninitialized once they are inlined into a kernel; nothing here reads an undefined lane.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

namespace jitctl::cpu {

// SiLU written for the vector unit: x / (1 + exp(-x)) with exp(t) = 2^n * p(r), r = t - n ln 2,
// Cephes' polynomial (as vexp), about 20 instructions a vector where activations.cpp's plain loop
// compiles to 45 (range masks, two scale factors). t is clamped to [-87.3, 88.3] so that 2^n
// stays a normal float; t above that is exp = inf, so x = -inf gives NaN as ATen's
// x / (1 + exp(-x)) does, and x below -88.3 gives -0 where ATen gives a value under 1e-36.
// Within 2 ulp of std::exp's result elsewhere. oneDNN's swish post-op costs about 1.6x this
// (0.23 against 0.14 ns an element here), so the convolutions apply this one after theirs.
constexpr float kSiluLo = -87.3f, kSiluHi = 88.3f;

#define JITCTL_SILU_POLY(SET1, FMADD, MUL, ADD, r)                                             \
  FMADD(FMADD(FMADD(FMADD(FMADD(SET1(1.9875691500e-4f), r, SET1(1.3981999507e-3f)), r,       \
                          SET1(8.3334519073e-3f)),                                           \
                    r, SET1(4.1665795894e-2f)),                                              \
              r, SET1(1.6666665459e-1f)),                                                    \
        r, SET1(5.0000001201e-1f))

JITCTL_TARGET_AVX512 JITCTL_ALWAYS_INLINE __m512 silu16(__m512 v) {
  const __m512 t = _mm512_sub_ps(_mm512_setzero_ps(), v);
  const __m512 tc = _mm512_min_ps(_mm512_max_ps(t, _mm512_set1_ps(kSiluLo)), _mm512_set1_ps(kSiluHi));
  const __m512 nf = _mm512_roundscale_ps(_mm512_mul_ps(tc, _mm512_set1_ps(1.44269504088896341f)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 r = _mm512_fnmadd_ps(nf, _mm512_set1_ps(0.693359375f), tc);
  r = _mm512_fnmadd_ps(nf, _mm512_set1_ps(-2.12194440e-4f), r);
  const __m512 p = JITCTL_SILU_POLY(_mm512_set1_ps, _mm512_fmadd_ps, _mm512_mul_ps, _mm512_add_ps, r);
  const __m512 y = _mm512_fmadd_ps(p, _mm512_mul_ps(r, r), _mm512_add_ps(r, _mm512_set1_ps(1.0f)));
  __m512 e = _mm512_scalef_ps(y, nf);
  e = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(t, _mm512_set1_ps(kSiluHi), _CMP_GT_OQ), e,
                           _mm512_set1_ps(std::numeric_limits<float>::infinity()));
  return _mm512_div_ps(v, _mm512_add_ps(_mm512_set1_ps(1.0f), e));
}

JITCTL_TARGET_AVX2 JITCTL_ALWAYS_INLINE __m256 silu8(__m256 v) {
  const __m256 t = _mm256_sub_ps(_mm256_setzero_ps(), v);
  const __m256 tc = _mm256_min_ps(_mm256_max_ps(t, _mm256_set1_ps(kSiluLo)), _mm256_set1_ps(kSiluHi));
  const __m256 nf = _mm256_round_ps(_mm256_mul_ps(tc, _mm256_set1_ps(1.44269504088896341f)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256 r = _mm256_fnmadd_ps(nf, _mm256_set1_ps(0.693359375f), tc);
  r = _mm256_fnmadd_ps(nf, _mm256_set1_ps(-2.12194440e-4f), r);
  const __m256 p = JITCTL_SILU_POLY(_mm256_set1_ps, _mm256_fmadd_ps, _mm256_mul_ps, _mm256_add_ps, r);
  const __m256 y = _mm256_fmadd_ps(p, _mm256_mul_ps(r, r), _mm256_add_ps(r, _mm256_set1_ps(1.0f)));
  const __m256i bits = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(nf), _mm256_set1_epi32(127)), 23);
  __m256 e = _mm256_mul_ps(y, _mm256_castsi256_ps(bits));
  e = _mm256_blendv_ps(e, _mm256_set1_ps(std::numeric_limits<float>::infinity()), _mm256_cmp_ps(t, _mm256_set1_ps(kSiluHi), _CMP_GT_OQ));
  return _mm256_div_ps(v, _mm256_add_ps(_mm256_set1_ps(1.0f), e));
}

// exp(t) for t <= 0 on 16 lanes: vexp's reduction and polynomial (silu16's), t clamped
// at -88 so exp(-inf) is 0, 2^n applied by scalef (values under the smallest normal float come
// out subnormal rather than 0).
JITCTL_TARGET_AVX512 JITCTL_ALWAYS_INLINE __m512 exp16_nonpositive(__m512 t) {
  const __m512 tc = _mm512_max_ps(t, _mm512_set1_ps(-88.0f));
  const __m512 nf = _mm512_roundscale_ps(_mm512_mul_ps(tc, _mm512_set1_ps(1.44269504088896341f)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 r = _mm512_fnmadd_ps(nf, _mm512_set1_ps(0.693359375f), tc);
  r = _mm512_fnmadd_ps(nf, _mm512_set1_ps(-2.12194440e-4f), r);
  const __m512 p = JITCTL_SILU_POLY(_mm512_set1_ps, _mm512_fmadd_ps, _mm512_mul_ps, _mm512_add_ps, r);
  const __m512 y = _mm512_fmadd_ps(p, _mm512_mul_ps(r, r), _mm512_add_ps(r, _mm512_set1_ps(1.0f)));
  return _mm512_scalef_ps(y, nf);
}

#undef JITCTL_SILU_POLY

}  // namespace jitctl::cpu

#pragma GCC diagnostic pop
#endif
