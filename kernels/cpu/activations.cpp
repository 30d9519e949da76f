#include "kernels/cpu/activations.h"

#include <algorithm>
#include <cmath>
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif
#include <cstring>
#include <limits>

#include "kernels/cpu/isa_dispatch.h"
#include "kernels/cpu/tensor_util.h"
#include "kernels/cpu/vector_silu.h"

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

// erf(x) as x P(x^2) / Q(x^2) on |x| <= 3.92 (beyond, erf rounds to +-1 in float), a rational
// least-squares fit of ours (absolute error 4.3e-8 in exact arithmetic, 4.3e-7 evaluated in
// float): a division and 12 multiply-adds, where A&S 7.1.26 needs an exp and a division as
// well. kernel_bench gelu_in_cache_32x8192, one thread: 0.212 -> 0.156 ms (min/max clamps: the
// same with nested selects took 0.190, blends instead of vmaxps/vminps).
JITCTL_ALWAYS_INLINE float erf_rational(float x) {
  const float xc = std::min(std::max(x, -3.92f), 3.92f);  // NaN stays NaN (the first argument)
  const float t = xc * xc;
  const float p =
      (((((1.9921241545262092e-08f * t - 1.99435430658923e-06f) * t + 0.00014899956295266747f) * t + 0.003973403014242649f) * t +
        0.051398865878582f) *
           t +
       0.20612601935863495f) *
          t +
      1.1283787488937378f;
  const float q = (((0.0010242497082799673f * t + 0.014890242367982864f) * t + 0.1175694540143013f) * t + 0.5160031914710999f) * t + 1.0f;
  const float r = xc * p / q;
  return std::min(std::max(r, -1.0f), 1.0f);
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
      for (int64_t i = 0; i < n; ++i) y[i] = x[i] * 0.5f * (1.0f + erf_rational(x[i] * 0.70710678118654752f));
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

// y[i] = exp(x[i] - shift) for i < n, and their sum; shift is the row's (finite) maximum.
JITCTL_ALWAYS_INLINE float exp_shifted_body(const float* x, float* y, int64_t n, float shift) {
  float sum = 0.0f;
#pragma omp simd reduction(+ : sum)
  for (int64_t i = 0; i < n; ++i) {
    const float e = exp_nonpositive(x[i] - shift);
    y[i] = e;
    sum += e;
  }
  return sum;
}

JITCTL_ISA_CLONES(float, exp_shifted, (const float* x, float* y, int64_t n, float shift), (x, y, n, shift))

// One pass of calls per row: Swin's 49-wide rows took 1.9 ns an element through a maximum, a
// shifted exp and a scaling each called per row (PyTorch 1.13: 2.1). The reductions are declared
// to OpenMP's simd so the compiler may reorder them into vector lanes (plain C++ float sums and
// maxima stay scalar without -ffast-math). `masked`: a row of -inf only (every key masked out)
// becomes zeros, as ATen's masked softmax gives, not NaN.
JITCTL_ALWAYS_INLINE void softmax_rows_body(const float* x, float* y, int64_t rows, int64_t n, bool masked) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* a = x + r * n;
    float* b = y + r * n;
    float mx = -std::numeric_limits<float>::infinity();
    int nan = 0;
#pragma omp simd reduction(max : mx) reduction(| : nan)
    for (int64_t i = 0; i < n; ++i) {
      mx = a[i] > mx ? a[i] : mx;
      nan |= a[i] != a[i];
    }
    // NaN, +inf, or every entry -inf: exp(x - max) is NaN somewhere, and so is every quotient.
    if (nan || !(std::fabs(mx) <= std::numeric_limits<float>::max())) {
      const float fill = masked && !nan && mx < 0 ? 0.0f : std::numeric_limits<float>::quiet_NaN();
      for (int64_t i = 0; i < n; ++i) b[i] = fill;
      continue;
    }
    const float inv = 1.0f / exp_shifted_body(a, b, n, mx);
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) b[i] *= inv;
  }
}

JITCTL_ISA_CLONES(void, softmax_rows, (const float* x, float* y, int64_t rows, int64_t n, bool masked), (x, y, rows, n, masked))

#if defined(__x86_64__) && defined(__GNUC__)
JITCTL_TARGET_AVX512 void silu_avx512(const float* x, float* y, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(y + i, silu16(_mm512_loadu_ps(x + i)));
  if (i < n) {
    const __mmask16 m = static_cast<__mmask16>((1u << (n - i)) - 1);
    _mm512_mask_storeu_ps(y + i, m, silu16(_mm512_maskz_loadu_ps(m, x + i)));
  }
}

// GCC 12 reports the _mm512_undefined_ps() inside _mm512_reduce_*_ps as maybe uninitialized once
// inlined; no undefined lane is read.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
// softmax_rows_body written out for AVX-512 with a masked last vector: the compiled loops ran
// Swin's 49-wide rows at 1.3 ns an element, 48 of them in vectors and the 49th through the
// scalar exp.
JITCTL_TARGET_AVX512 void softmax_rows_masked_avx512(const float* x, float* y, int64_t rows, int64_t n, bool masked) {
  const int64_t full = n / 16;
  const auto tail = static_cast<__mmask16>((1u << (n % 16)) - 1);
  const __m512 neg_inf = _mm512_set1_ps(-std::numeric_limits<float>::infinity());
  for (int64_t row = 0; row < rows; ++row) {
    const float* a = x + row * n;
    float* b = y + row * n;
    __m512 vmax = neg_inf;
    __mmask16 nan = 0;
    for (int64_t i = 0; i < full; ++i) {
      const __m512 v = _mm512_loadu_ps(a + i * 16);
      vmax = _mm512_max_ps(vmax, v);
      nan |= _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
    }
    if (tail) {
      const __m512 v = _mm512_mask_loadu_ps(neg_inf, tail, a + full * 16);
      vmax = _mm512_max_ps(vmax, v);
      nan |= _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
    }
    const float mx = _mm512_reduce_max_ps(vmax);
    // NaN, +inf, or every entry -inf: exp(x - max) is NaN somewhere, and so is every quotient.
    if (nan || !(std::fabs(mx) <= std::numeric_limits<float>::max())) {
      const float fill = masked && !nan && mx < 0 ? 0.0f : std::numeric_limits<float>::quiet_NaN();
      for (int64_t i = 0; i < n; ++i) b[i] = fill;
      continue;
    }
    const __m512 m = _mm512_set1_ps(mx);
    __m512 sum = _mm512_setzero_ps();
    for (int64_t i = 0; i < full; ++i) {
      const __m512 e = exp16_nonpositive(_mm512_sub_ps(_mm512_loadu_ps(a + i * 16), m));
      _mm512_storeu_ps(b + i * 16, e);
      sum = _mm512_add_ps(sum, e);
    }
    if (tail) {
      const __m512 e = _mm512_maskz_mov_ps(tail, exp16_nonpositive(_mm512_sub_ps(_mm512_maskz_loadu_ps(tail, a + full * 16), m)));
      _mm512_mask_storeu_ps(b + full * 16, tail, e);
      sum = _mm512_add_ps(sum, e);
    }
    const __m512 inv = _mm512_set1_ps(1.0f / _mm512_reduce_add_ps(sum));
    for (int64_t i = 0; i < full; ++i) _mm512_storeu_ps(b + i * 16, _mm512_mul_ps(_mm512_loadu_ps(b + i * 16), inv));
    if (tail) _mm512_mask_storeu_ps(b + full * 16, tail, _mm512_mul_ps(_mm512_maskz_loadu_ps(tail, b + full * 16), inv));
  }
}
#pragma GCC diagnostic pop

JITCTL_TARGET_AVX2 void silu_avx2(const float* x, float* y, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, silu8(_mm256_loadu_ps(x + i)));
  for (; i < n; ++i) y[i] = x[i] / (1.0f + vexp(-x[i]));
}
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

void softmax_f32(float* x, int64_t n) {
#if defined(__x86_64__) && defined(__GNUC__)
  if (cpu_features().isa == Isa::Avx512) return softmax_rows_masked_avx512(x, x, 1, n, true);
#endif
  softmax_rows(x, x, 1, n, true);
}

float exp_shifted_f32(const float* x, float* y, int64_t n, float shift) { return exp_shifted(x, y, n, shift); }

void softmax_rows_f32(const float* x, float* y, int64_t rows, int64_t n) {
#if defined(__x86_64__) && defined(__GNUC__)
  if (cpu_features().isa == Isa::Avx512) return softmax_rows_masked_avx512(x, y, rows, n, false);
#endif
  softmax_rows(x, y, rows, n, false);
}

}  // namespace jitctl::cpu
