#include "kernels/cpu/activations.h"

#include <cmath>
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif
#include <cstring>
#include <limits>

#include "kernels/cpu/isa_dispatch.h"
#include "kernels/cpu/tensor_util.h"

namespace jitctl::cpu {
namespace {

// exp(x) for x <= 0 (NaN aside, which callers handle): vexp without its overflow and subnormal
// cases. Below about -87.7 it returns exactly 0 (the clamp at -88 makes 2^n's exponent field 0),
// so exp(-inf) = 0 without a select; between that and the smallest normal float it returns about
// 1e-38 instead of the tiny exact value, which every caller adds to 1 or multiplies by a bounded
// factor.
JITCTL_ALWAYS_INLINE float exp_nonpositive(float x) {
  const float xc = x < -88.0f ? -88.0f : x;
  const float t = xc * 1.44269504088896341f + 12582912.0f;  // 1.5 * 2^23: rounds to an integer
  const float fx = t - 12582912.0f;
  int32_t n;
  std::memcpy(&n, &t, sizeof n);
  n -= 0x4B400000;
  const float r = xc - fx * 0.693359375f - fx * -2.12194440e-4f;
  const float p =
      ((((1.9875691500e-4f * r + 1.3981999507e-3f) * r + 8.3334519073e-3f) * r + 4.1665795894e-2f) * r + 1.6666665459e-1f) * r +
      5.0000001201e-1f;
  const float y = p * (r * r) + r + 1.0f;
  const int32_t bits = (n + 127) << 23;
  float scale;
  std::memcpy(&scale, &bits, sizeof scale);
  return y * scale;
}

JITCTL_ALWAYS_INLINE float tanh_f(float x) {
  const float ax = std::fabs(x);
  const float e = exp_nonpositive(-2.0f * ax);
  const float big = (1.0f - e) / (1.0f + e);
  const float x2 = x * x;
  const float small = ax * (1.0f + x2 * (-1.0f / 3 + x2 * (2.0f / 15 + x2 * (-17.0f / 315))));
  const float r = ax < 0.1f ? small : big;
  return x != x ? x : std::copysign(r, x);
}

JITCTL_ALWAYS_INLINE float erf_f(float x) {
  const float ax = std::fabs(x);
  const float t = 1.0f / (1.0f + 0.3275911f * ax);
  const float poly = ((((1.061405429f * t - 1.453152027f) * t + 1.421413741f) * t - 0.284496736f) * t + 0.254829592f) * t;
  const float r = 1.0f - poly * exp_nonpositive(-ax * ax);
  return x != x ? x : std::copysign(r, x);
}

JITCTL_ALWAYS_INLINE void activation_body(Activation f, const float* x, float* y, int64_t n) {
  switch (f) {
    case Activation::Exp:
      for (int64_t i = 0; i < n; ++i) y[i] = vexp(x[i]);
      break;
    case Activation::Tanh:
      for (int64_t i = 0; i < n; ++i) y[i] = tanh_f(x[i]);
      break;
    case Activation::Sigmoid:
      for (int64_t i = 0; i < n; ++i) y[i] = 1.0f / (1.0f + vexp(-x[i]));
      break;
    case Activation::Silu:
      for (int64_t i = 0; i < n; ++i) y[i] = x[i] / (1.0f + vexp(-x[i]));
      break;
    case Activation::Erf:
      for (int64_t i = 0; i < n; ++i) y[i] = erf_f(x[i]);
      break;
    case Activation::GeluErf:
      for (int64_t i = 0; i < n; ++i) y[i] = x[i] * 0.5f * (1.0f + erf_f(x[i] * 0.70710678118654752f));
      break;
    case Activation::GeluTanh: {
      const float k = 0.79788456080286536f;  // sqrt(2 / pi)
      for (int64_t i = 0; i < n; ++i) {
        const float v = x[i];
        y[i] = 0.5f * v * (1.0f + tanh_f(k * (v + 0.044715f * v * v * v)));
      }
      break;
    }
  }
}

JITCTL_ISA_CLONES(void, activation, (Activation f, const float* x, float* y, int64_t n), (f, x, y, n))

JITCTL_ALWAYS_INLINE void softmax_body(float* x, int64_t n) {
  // The reductions are declared to OpenMP's simd so the compiler may reorder them into vector
  // lanes (plain C++ float sums and maxima stay scalar without -ffast-math).
  float mx = -std::numeric_limits<float>::infinity();
  int nan = 0;
#pragma omp simd reduction(max : mx) reduction(| : nan)
  for (int64_t i = 0; i < n; ++i) {
    mx = x[i] > mx ? x[i] : mx;
    nan |= x[i] != x[i];
  }
  if (nan) {
    for (int64_t i = 0; i < n; ++i) x[i] = std::numeric_limits<float>::quiet_NaN();
    return;
  }
  if (mx == -std::numeric_limits<float>::infinity()) {
    for (int64_t i = 0; i < n; ++i) x[i] = 0.0f;
    return;
  }
  float sum = 0.0f;
#pragma omp simd reduction(+ : sum)
  for (int64_t i = 0; i < n; ++i) {
    const float y = exp_nonpositive(x[i] - mx);  // 0 for x = -inf (masked out)
    x[i] = y;
    sum += y;
  }
  const float inv = 1.0f / sum;
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) x[i] *= inv;
}

JITCTL_ISA_CLONES(void, softmax, (float* x, int64_t n), (x, n))

#if defined(__x86_64__) && defined(__GNUC__)
// SiLU written for the vector unit: x / (1 + exp(-x)) with exp(t) = 2^n * p(r), r = t - n ln 2,
// Cephes' polynomial (as vexp), about 20 instructions a vector where the plain loop above
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

JITCTL_TARGET_AVX512 inline __m512 silu16(__m512 v) {
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

JITCTL_TARGET_AVX512 void silu_avx512(const float* x, float* y, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(y + i, silu16(_mm512_loadu_ps(x + i)));
  if (i < n) {
    const __mmask16 m = static_cast<__mmask16>((1u << (n - i)) - 1);
    _mm512_mask_storeu_ps(y + i, m, silu16(_mm512_maskz_loadu_ps(m, x + i)));
  }
}

JITCTL_TARGET_AVX2 inline __m256 silu8(__m256 v) {
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

JITCTL_TARGET_AVX2 void silu_avx2(const float* x, float* y, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, silu8(_mm256_loadu_ps(x + i)));
  for (; i < n; ++i) y[i] = x[i] / (1.0f + vexp(-x[i]));
}
#undef JITCTL_SILU_POLY
#endif

}  // namespace

void activation_f32(Activation f, const float* x, float* y, int64_t n) {
#if defined(__x86_64__) && defined(__GNUC__)
  if (f == Activation::Silu) {
    switch (cpu_features().isa) {
      case Isa::Avx512: return silu_avx512(x, y, n);
      case Isa::Avx2: return silu_avx2(x, y, n);
      case Isa::Generic: break;
    }
  }
#endif
  activation(f, x, y, n);
}

void softmax_f32(float* x, int64_t n) { softmax(x, n); }

}  // namespace jitctl::cpu
