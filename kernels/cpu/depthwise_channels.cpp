#include "kernels/cpu/depthwise_channels.h"

#include <algorithm>
#include <cstdint>
#include <vector>
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include "kernels/cpu/cpu_features.h"
#include "kernels/cpu/isa_dispatch.h"
#include "kernels/cpu/simd_vectors.h"
#include "kernels/cpu/tensor_util.h"
#include "kernels/cpu/vector_activation.h"
#include "kernels/cpu/vector_silu.h"

namespace jitctl::cpu {

namespace {

using Mode = VecActivation;  // Row is never used: suits() takes only the in-register ones

// The epilogue's in-register form: at most one activation, SiLU included, no residual.
bool mode_of(const Epilogue& e, Mode& m) {
  bool add = false;
  return vec_epilogue_with_silu_of(e, m, add) && !add;
}

struct Geometry {
  const float* x;     // input row x_row0 (the image's first row, or a band's)
  float* y;
  const float* w;     // [KH][KW][C]
  const float* bias;  // [C]
  int64_t c, h, w_in, ld, kh, kw, sh, sw, ph, pw, oh, ow;
  float lo, hi;
  int64_t x_row0;
};

#ifdef JITCTL_TARGET_AVX512

using avx512::vf;

// The first n of a block's NB accumulators, activated, to outputs ld floats apart (channel mask k).
template <Mode M, int NB>
JITCTL_AVX512_INLINE void store(const __m512* acc, int n, float* y, int64_t ld, __mmask16 k, vf lo, vf hi) {
#pragma GCC unroll 16
  for (int i = 0; i < NB; ++i) {
    if (i >= n) break;
    vf v = reinterpret_cast<vf>(acc[i]);
    if constexpr (M == Mode::Silu)
      v = reinterpret_cast<vf>(silu16(reinterpret_cast<__m512>(v)));
    else
      v = activate<M>(v, lo, hi);
    _mm512_mask_storeu_ps(y + i * ld, k, reinterpret_cast<__m512>(v));
  }
}

// One channel vector (mask k) of output row oy, pixels [ox0, ox0 + n), n <= NB: NB accumulators
// in registers, each tap's weight loaded once for the block. valid[kx]: bit i set when output
// ox0 + i reads a pixel inside the row at tap kx (precomputed per block; the same for every row
// and channel), so that taps wholly inside take the unconditional loop.
template <Mode M, int NB>
JITCTL_AVX512_INLINE void block(const Geometry& g, __mmask16 k, __m512 bias, const float* x, const float* w, float* y, int64_t ky0,
                                int64_t ky1, int64_t ix0, int n, const uint32_t* valid, vf lo, vf hi) {
  __m512 acc[NB];
#pragma GCC unroll 8
  for (int i = 0; i < NB; ++i) acc[i] = bias;
  const int64_t step = g.sw * g.ld, full = (1u << NB) - 1;
  for (int64_t ky = ky0; ky < ky1; ++ky) {
    const float* xrow = x + ky * g.w_in * g.ld;
    const float* wrow = w + ky * g.kw * g.c;
    for (int64_t kx = 0; kx < g.kw; ++kx) {
      const uint32_t bits = valid[kx];
      if (bits == 0) continue;
      const __m512 wv = _mm512_maskz_loadu_ps(k, wrow + kx * g.c);
      const float* xk = xrow + (ix0 + kx) * g.ld;  // output ox0's pixel at this tap (maybe outside the row)
      if (bits == full) {
#pragma GCC unroll 8
        for (int i = 0; i < NB; ++i) acc[i] = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(k, xk + i * step), wv, acc[i]);
      } else {
#pragma GCC unroll 8
        for (int i = 0; i < NB; ++i)
          if (bits >> i & 1) acc[i] = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(k, xk + i * step), wv, acc[i]);
      }
    }
  }
  store<M, NB>(acc, n, y, g.ld, k, lo, hi);
}

// The same block for a kernel width KW and stride SW known at compile time: each input pixel of
// a kernel row is loaded once and multiplied into every output of the block that reads it
// (KW / SW of them), where block() loads it once per tap (a 3x3 layer: 3 loads per output
// instead of 9, the loads having bounded it). Edge: some input columns of the block lie outside
// the row (padding, or a short last block) and are skipped.
template <Mode M, int NB, int KW, int SW, bool Edge>
JITCTL_AVX512_INLINE void block_reuse(const Geometry& g, __mmask16 k, __m512 bias, const float* x, const float* w, float* y, int64_t ky0,
                                      int64_t ky1, int64_t ix0, int n, vf lo, vf hi) {
  constexpr int J = (NB - 1) * SW + KW;  // input columns the block reads
  __m512 acc[NB];
#pragma GCC unroll 16
  for (int i = 0; i < NB; ++i) acc[i] = bias;
  for (int64_t ky = ky0; ky < ky1; ++ky) {
    const float* xrow = x + (ky * g.w_in + ix0) * g.ld;
    __m512 wv[KW];
#pragma GCC unroll 8
    for (int kx = 0; kx < KW; ++kx) wv[kx] = _mm512_maskz_loadu_ps(k, w + (ky * KW + kx) * g.c);
#pragma GCC unroll 64
    for (int j = 0; j < J; ++j) {
      if (Edge && (ix0 + j < 0 || ix0 + j >= g.w_in)) continue;
      const __m512 xv = _mm512_maskz_loadu_ps(k, xrow + j * g.ld);
#pragma GCC unroll 8
      for (int kx = 0; kx < KW; ++kx) {
        const int i = (j - kx) / SW;
        if (j - kx >= 0 && (j - kx) % SW == 0 && i < NB) acc[i] = _mm512_fmadd_ps(xv, wv[kx], acc[i]);
      }
    }
  }
  store<M, NB>(acc, n, y, g.ld, k, lo, hi);
}

// Output rows [oy0, oy1) of channels [c0, c1) with block_reuse: row by row, each row block by
// block, each block channel vector by channel vector (a block's pixels are then read as whole
// lines one after the other). A band of rows can run as soon as its input rows exist.
template <Mode M, int NB, int KW, int SW>
JITCTL_TARGET_AVX512 void rows_reuse_avx512(const Geometry& g, int64_t c0, int64_t c1, int64_t oy0, int64_t oy1) {
  const vf lo = avx512::splat(g.lo), hi = avx512::splat(g.hi);
  constexpr int64_t J = (NB - 1) * SW + KW;
  const int64_t blocks = (g.ow + NB - 1) / NB;
  for (int64_t oy = oy0; oy < oy1; ++oy) {
    const int64_t iy0 = oy * g.sh - g.ph;
    const int64_t ky0 = std::max<int64_t>(0, -iy0), ky1 = std::min(g.kh, g.h - iy0);
    for (int64_t b = 0; b < blocks; ++b) {
      const int64_t ox0 = b * NB, ix0 = ox0 * SW - g.pw;
      const int n = static_cast<int>(std::min<int64_t>(NB, g.ow - ox0));
      const bool edge = ix0 < 0 || ix0 + J > g.w_in;
      for (int64_t c = c0; c < c1; c += avx512::kLanes) {
        const __mmask16 k = c1 - c >= avx512::kLanes ? static_cast<__mmask16>(0xFFFF) : static_cast<__mmask16>((1u << (c1 - c)) - 1);
        const __m512 bias = _mm512_maskz_loadu_ps(k, g.bias + c);
        const float* x = g.x + (iy0 - g.x_row0) * g.w_in * g.ld + c;
        float* y = g.y + (oy * g.ow + ox0) * g.ld + c;
        if (edge)
          block_reuse<M, NB, KW, SW, true>(g, k, bias, x, g.w + c, y, ky0, ky1, ix0, n, lo, hi);
        else
          block_reuse<M, NB, KW, SW, false>(g, k, bias, x, g.w + c, y, ky0, ky1, ix0, n, lo, hi);
      }
    }
  }
}

template <Mode M, int NB>
JITCTL_TARGET_AVX512 void channels_avx512(const Geometry& g, int64_t c0, int64_t c1, int64_t oy0, int64_t oy1) {
  const vf lo = avx512::splat(g.lo), hi = avx512::splat(g.hi);
  const int64_t blocks = (g.ow + NB - 1) / NB;
  // valid[b * kw + kx]: which outputs of block b read inside the row at tap kx.
  std::vector<uint32_t> valid(static_cast<size_t>(blocks * g.kw), 0);
  for (int64_t b = 0; b < blocks; ++b)
    for (int64_t kx = 0; kx < g.kw; ++kx)
      for (int64_t i = 0; i < NB && b * NB + i < g.ow; ++i) {
        const int64_t ix = (b * NB + i) * g.sw - g.pw + kx;
        if (ix >= 0 && ix < g.w_in) valid[static_cast<size_t>(b * g.kw + kx)] |= 1u << i;
      }
  for (int64_t c = c0; c < c1; c += avx512::kLanes) {
    const __mmask16 k = c1 - c >= avx512::kLanes ? static_cast<__mmask16>(0xFFFF) : static_cast<__mmask16>((1u << (c1 - c)) - 1);
    const __m512 bias = _mm512_maskz_loadu_ps(k, g.bias + c);
    for (int64_t oy = oy0; oy < oy1; ++oy) {
      const int64_t iy0 = oy * g.sh - g.ph;
      const int64_t ky0 = std::max<int64_t>(0, -iy0), ky1 = std::min(g.kh, g.h - iy0);
      for (int64_t b = 0; b < blocks; ++b) {
        const int64_t ox0 = b * NB;
        block<M, NB>(g, k, bias, g.x + (iy0 - g.x_row0) * g.w_in * g.ld + c, g.w + c, g.y + (oy * g.ow + ox0) * g.ld + c, ky0, ky1, ox0 * g.sw - g.pw,
                     static_cast<int>(std::min<int64_t>(NB, g.ow - ox0)), valid.data() + b * g.kw, lo, hi);
      }
    }
  }
}

template <Mode M, int KW, int SW>
void reuse_for(const Geometry& g, int64_t c0, int64_t c1, int64_t oy0, int64_t oy1) {
  // Blocks of 14 for widths 14 to 112, 7 for 7 (MobileNet's, MNASNet's, EfficientNet's), else 8.
  if (g.ow % 14 == 0) return rows_reuse_avx512<M, 14, KW, SW>(g, c0, c1, oy0, oy1);
  if (g.ow % 7 == 0) return rows_reuse_avx512<M, 7, KW, SW>(g, c0, c1, oy0, oy1);
  rows_reuse_avx512<M, 8, KW, SW>(g, c0, c1, oy0, oy1);
}

template <Mode M>
void channels_for(const Geometry& g, int64_t c0, int64_t c1, int64_t oy0, int64_t oy1) {
  if (g.kw == 3 && g.sw == 1) return reuse_for<M, 3, 1>(g, c0, c1, oy0, oy1);
  if (g.kw == 3 && g.sw == 2) return reuse_for<M, 3, 2>(g, c0, c1, oy0, oy1);
  if (g.kw == 5 && g.sw == 1) return reuse_for<M, 5, 1>(g, c0, c1, oy0, oy1);
  if (g.kw == 5 && g.sw == 2) return reuse_for<M, 5, 2>(g, c0, c1, oy0, oy1);
  if (g.kw == 7 && g.sw == 1) return reuse_for<M, 7, 1>(g, c0, c1, oy0, oy1);
  // Other widths and strides: one load per tap.
  if (g.ow % 7 == 0) return channels_avx512<M, 7>(g, c0, c1, oy0, oy1);
  channels_avx512<M, 8>(g, c0, c1, oy0, oy1);
}

#endif  // JITCTL_TARGET_AVX512

#if defined(JITCTL_TARGET_AVX512) && defined(JITCTL_TARGET_AVX2)

// The same kernel on AVX2: 8 channels a vector, and blocks of at most 8 outputs (16 registers
// hold the block's accumulators, a kernel row's weights and the input vector). A last vector of
// fewer than 8 channels loads and stores under a mask: the neighbouring channels may belong to
// another thread's run (expand_depthwise's split by channels), so no vector reaches past c1.
namespace on_avx2 {

using avx2::vf;

template <bool Masked>
JITCTL_AVX2_INLINE __m256 load(const float* p, __m256i k) {
  if constexpr (Masked)
    return _mm256_maskload_ps(p, k);
  else
    return _mm256_loadu_ps(p);
}

template <Mode M, int NB, bool Masked>
JITCTL_AVX2_INLINE void store(const __m256* acc, int n, float* y, int64_t ld, __m256i k, vf lo, vf hi) {
#pragma GCC unroll 8
  for (int i = 0; i < NB; ++i) {
    if (i >= n) break;
    vf v = reinterpret_cast<vf>(acc[i]);
    if constexpr (M == Mode::Silu)
      v = reinterpret_cast<vf>(silu8(reinterpret_cast<__m256>(v)));
    else
      v = activate<M>(v, lo, hi);
    if constexpr (Masked)
      _mm256_maskstore_ps(y + i * ld, k, reinterpret_cast<__m256>(v));
    else
      _mm256_storeu_ps(y + i * ld, reinterpret_cast<__m256>(v));
  }
}

// block() of the AVX-512 code: one load per tap, for the widths and strides block_reuse lacks.
template <Mode M, int NB, bool Masked>
JITCTL_AVX2_INLINE void block(const Geometry& g, __m256i k, __m256 bias, const float* x, const float* w, float* y, int64_t ky0, int64_t ky1,
                              int64_t ix0, int n, const uint32_t* valid, vf lo, vf hi) {
  __m256 acc[NB];
#pragma GCC unroll 8
  for (int i = 0; i < NB; ++i) acc[i] = bias;
  const int64_t step = g.sw * g.ld, full = (1u << NB) - 1;
  for (int64_t ky = ky0; ky < ky1; ++ky) {
    const float* xrow = x + ky * g.w_in * g.ld;
    const float* wrow = w + ky * g.kw * g.c;
    for (int64_t kx = 0; kx < g.kw; ++kx) {
      const uint32_t bits = valid[kx];
      if (bits == 0) continue;
      const __m256 wv = load<Masked>(wrow + kx * g.c, k);
      const float* xk = xrow + (ix0 + kx) * g.ld;
      if (bits == full) {
#pragma GCC unroll 8
        for (int i = 0; i < NB; ++i) acc[i] = _mm256_fmadd_ps(load<Masked>(xk + i * step, k), wv, acc[i]);
      } else {
#pragma GCC unroll 8
        for (int i = 0; i < NB; ++i)
          if (bits >> i & 1) acc[i] = _mm256_fmadd_ps(load<Masked>(xk + i * step, k), wv, acc[i]);
      }
    }
  }
  store<M, NB, Masked>(acc, n, y, g.ld, k, lo, hi);
}

// block_reuse() of the AVX-512 code: each input pixel of a kernel row loaded once.
template <Mode M, int NB, int KW, int SW, bool Edge, bool Masked>
JITCTL_AVX2_INLINE void block_reuse(const Geometry& g, __m256i k, __m256 bias, const float* x, const float* w, float* y, int64_t ky0,
                                    int64_t ky1, int64_t ix0, int n, vf lo, vf hi) {
  constexpr int J = (NB - 1) * SW + KW;
  __m256 acc[NB];
#pragma GCC unroll 8
  for (int i = 0; i < NB; ++i) acc[i] = bias;
  for (int64_t ky = ky0; ky < ky1; ++ky) {
    const float* xrow = x + (ky * g.w_in + ix0) * g.ld;
    __m256 wv[KW];
#pragma GCC unroll 8
    for (int kx = 0; kx < KW; ++kx) wv[kx] = load<Masked>(w + (ky * KW + kx) * g.c, k);
#pragma GCC unroll 64
    for (int j = 0; j < J; ++j) {
      if (Edge && (ix0 + j < 0 || ix0 + j >= g.w_in)) continue;
      const __m256 xv = load<Masked>(xrow + j * g.ld, k);
#pragma GCC unroll 8
      for (int kx = 0; kx < KW; ++kx) {
        const int i = (j - kx) / SW;
        if (j - kx >= 0 && (j - kx) % SW == 0 && i < NB) acc[i] = _mm256_fmadd_ps(xv, wv[kx], acc[i]);
      }
    }
  }
  store<M, NB, Masked>(acc, n, y, g.ld, k, lo, hi);
}

JITCTL_AVX2_INLINE __m256i tail_mask(int64_t left) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(std::min<int64_t>(left, avx2::kLanes))), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

template <Mode M, int NB, int KW, int SW>
JITCTL_TARGET_AVX2 void rows_reuse(const Geometry& g, int64_t c0, int64_t c1, int64_t oy0, int64_t oy1) {
  const vf lo = avx2::splat(g.lo), hi = avx2::splat(g.hi);
  constexpr int64_t J = (NB - 1) * SW + KW;
  const int64_t blocks = (g.ow + NB - 1) / NB;
  for (int64_t oy = oy0; oy < oy1; ++oy) {
    const int64_t iy0 = oy * g.sh - g.ph;
    const int64_t ky0 = std::max<int64_t>(0, -iy0), ky1 = std::min(g.kh, g.h - iy0);
    for (int64_t b = 0; b < blocks; ++b) {
      const int64_t ox0 = b * NB, ix0 = ox0 * SW - g.pw;
      const int n = static_cast<int>(std::min<int64_t>(NB, g.ow - ox0));
      const bool edge = ix0 < 0 || ix0 + J > g.w_in;
      for (int64_t c = c0; c < c1; c += avx2::kLanes) {
        const __m256i k = tail_mask(c1 - c);
        const float* x = g.x + (iy0 - g.x_row0) * g.w_in * g.ld + c;
        float* y = g.y + (oy * g.ow + ox0) * g.ld + c;
        if (c1 - c >= avx2::kLanes) {
          const __m256 bias = _mm256_loadu_ps(g.bias + c);
          if (edge)
            block_reuse<M, NB, KW, SW, true, false>(g, k, bias, x, g.w + c, y, ky0, ky1, ix0, n, lo, hi);
          else
            block_reuse<M, NB, KW, SW, false, false>(g, k, bias, x, g.w + c, y, ky0, ky1, ix0, n, lo, hi);
        } else {
          const __m256 bias = _mm256_maskload_ps(g.bias + c, k);
          block_reuse<M, NB, KW, SW, true, true>(g, k, bias, x, g.w + c, y, ky0, ky1, ix0, n, lo, hi);
        }
      }
    }
  }
}

template <Mode M, int NB>
JITCTL_TARGET_AVX2 void channels(const Geometry& g, int64_t c0, int64_t c1, int64_t oy0, int64_t oy1) {
  const vf lo = avx2::splat(g.lo), hi = avx2::splat(g.hi);
  const int64_t blocks = (g.ow + NB - 1) / NB;
  std::vector<uint32_t> valid(static_cast<size_t>(blocks * g.kw), 0);
  for (int64_t b = 0; b < blocks; ++b)
    for (int64_t kx = 0; kx < g.kw; ++kx)
      for (int64_t i = 0; i < NB && b * NB + i < g.ow; ++i) {
        const int64_t ix = (b * NB + i) * g.sw - g.pw + kx;
        if (ix >= 0 && ix < g.w_in) valid[static_cast<size_t>(b * g.kw + kx)] |= 1u << i;
      }
  for (int64_t c = c0; c < c1; c += avx2::kLanes) {
    const __m256i k = tail_mask(c1 - c);
    const bool masked = c1 - c < avx2::kLanes;
    const __m256 bias = masked ? _mm256_maskload_ps(g.bias + c, k) : _mm256_loadu_ps(g.bias + c);
    for (int64_t oy = oy0; oy < oy1; ++oy) {
      const int64_t iy0 = oy * g.sh - g.ph;
      const int64_t ky0 = std::max<int64_t>(0, -iy0), ky1 = std::min(g.kh, g.h - iy0);
      for (int64_t b = 0; b < blocks; ++b) {
        const int64_t ox0 = b * NB;
        const float* x = g.x + (iy0 - g.x_row0) * g.w_in * g.ld + c;
        float* y = g.y + (oy * g.ow + ox0) * g.ld + c;
        const int n = static_cast<int>(std::min<int64_t>(NB, g.ow - ox0));
        if (masked)
          block<M, NB, true>(g, k, bias, x, g.w + c, y, ky0, ky1, ox0 * g.sw - g.pw, n, valid.data() + b * g.kw, lo, hi);
        else
          block<M, NB, false>(g, k, bias, x, g.w + c, y, ky0, ky1, ox0 * g.sw - g.pw, n, valid.data() + b * g.kw, lo, hi);
      }
    }
  }
}

// Blocks of 7 for widths 7 to 112 (the usual images), else 8 for 3-wide kernels and 6 for wider
// ones (their weights take more of the 16 registers).
template <Mode M, int KW, int SW>
void reuse_for(const Geometry& g, int64_t c0, int64_t c1, int64_t oy0, int64_t oy1) {
  if (g.ow % 7 == 0) return rows_reuse<M, 7, KW, SW>(g, c0, c1, oy0, oy1);
  if constexpr (KW == 3) return rows_reuse<M, 8, KW, SW>(g, c0, c1, oy0, oy1);
  rows_reuse<M, 6, KW, SW>(g, c0, c1, oy0, oy1);
}

template <Mode M>
void channels_for(const Geometry& g, int64_t c0, int64_t c1, int64_t oy0, int64_t oy1) {
  if (g.kw == 3 && g.sw == 1) return on_avx2::reuse_for<M, 3, 1>(g, c0, c1, oy0, oy1);
  if (g.kw == 3 && g.sw == 2) return on_avx2::reuse_for<M, 3, 2>(g, c0, c1, oy0, oy1);
  if (g.kw == 5 && g.sw == 1) return on_avx2::reuse_for<M, 5, 1>(g, c0, c1, oy0, oy1);
  if (g.kw == 5 && g.sw == 2) return on_avx2::reuse_for<M, 5, 2>(g, c0, c1, oy0, oy1);
  if (g.kw == 7 && g.sw == 1) return on_avx2::reuse_for<M, 7, 1>(g, c0, c1, oy0, oy1);
  if (g.ow % 7 == 0) return on_avx2::channels<M, 7>(g, c0, c1, oy0, oy1);
  on_avx2::channels<M, 8>(g, c0, c1, oy0, oy1);
}

}  // namespace on_avx2

#endif  // JITCTL_TARGET_AVX2

}  // namespace

bool DepthwiseChannels::suits(const Tensor& weight, const ConvArgs& args, const Epilogue& epilogue) {
#if defined(JITCTL_TARGET_AVX512) && defined(JITCTL_TARGET_AVX2)
  const Isa isa = cpu_features().isa;
  if ((isa != Isa::Avx512 && isa != Isa::Avx2) || weight.dtype() != DType::Float32 || weight.dim() != 4 || args.transposed ||
      !args.padding_mode.empty())
    return false;
  const auto& ws = weight.sizes();
  int64_t sh = 0, sw = 0, ph = 0, pw = 0, dh = 0, dw = 0;
  if (ws[1] != 1 || args.groups != ws[0] || !pair_of(args.stride, sh, sw) || !pair_of(args.padding, ph, pw) || !pair_of(args.dilation, dh, dw))
    return false;
  if (sh < 1 || sw < 1 || ph < 0 || pw < 0 || dh != 1 || dw != 1) return false;
  Mode m;
  return mode_of(epilogue, m);
#else
  (void)weight, (void)args, (void)epilogue;
  return false;
#endif
}

DepthwiseChannels::DepthwiseChannels(const Tensor& weight, const Tensor& bias, const ConvArgs& args, Epilogue epilogue)
    : c_(weight.sizes()[0]), kh_(weight.sizes()[2]), kw_(weight.sizes()[3]), epilogue_(std::move(epilogue)) {
  pair_of(args.stride, sh_, sw_);
  pair_of(args.padding, ph_, pw_);
  const Tensor wc = contiguous(weight);
  const float* w = static_cast<const float*>(wc.data());
  w_.resize(static_cast<size_t>(kh_ * kw_ * c_));
  for (int64_t ch = 0; ch < c_; ++ch)
    for (int64_t t = 0; t < kh_ * kw_; ++t) w_[static_cast<size_t>(t * c_ + ch)] = w[ch * kh_ * kw_ + t];
  bias_.assign(static_cast<size_t>(c_), 0.0f);
  if (bias.defined()) {
    const Tensor bc = contiguous(bias);
    std::copy_n(static_cast<const float*>(bc.data()), c_, bias_.begin());
  }
}

void DepthwiseChannels::run(const float* x, int64_t h, int64_t w, int64_t ld, int64_t c0, int64_t c1, float* y) const {
  run_rows(x, 0, h, w, ld, c0, c1, 0, out_h(h), y);
}

void DepthwiseChannels::run_rows(const float* x, int64_t x_row0, int64_t h, int64_t w, int64_t ld, int64_t c0, int64_t c1, int64_t oy0,
                                 int64_t oy1, float* y) const {
#if defined(JITCTL_TARGET_AVX512) && defined(JITCTL_TARGET_AVX2)
  Mode m = Mode::None;
  mode_of(epilogue_, m);
  Geometry g{x, y, w_.data(), bias_.data(), c_, h, w, ld, kh_, kw_, sh_, sw_, ph_, pw_, out_h(h), out_w(w), 0.0f, 0.0f, x_row0};
  if (!epilogue_.empty()) g.lo = epilogue_[0].a, g.hi = epilogue_[0].b;
  if (cpu_features().isa == Isa::Avx2) {
    switch (m) {
      case Mode::Relu: return on_avx2::channels_for<Mode::Relu>(g, c0, c1, oy0, oy1);
      case Mode::Clamp: return on_avx2::channels_for<Mode::Clamp>(g, c0, c1, oy0, oy1);
      case Mode::Hardswish: return on_avx2::channels_for<Mode::Hardswish>(g, c0, c1, oy0, oy1);
      case Mode::Silu: return on_avx2::channels_for<Mode::Silu>(g, c0, c1, oy0, oy1);
      default: return on_avx2::channels_for<Mode::None>(g, c0, c1, oy0, oy1);
    }
  }
  switch (m) {
    case Mode::Relu: return channels_for<Mode::Relu>(g, c0, c1, oy0, oy1);
    case Mode::Clamp: return channels_for<Mode::Clamp>(g, c0, c1, oy0, oy1);
    case Mode::Hardswish: return channels_for<Mode::Hardswish>(g, c0, c1, oy0, oy1);
    case Mode::Silu: return channels_for<Mode::Silu>(g, c0, c1, oy0, oy1);
    default: return channels_for<Mode::None>(g, c0, c1, oy0, oy1);
  }
#else
  (void)x, (void)x_row0, (void)h, (void)w, (void)ld, (void)c0, (void)c1, (void)oy0, (void)oy1, (void)y;
#endif
}

}  // namespace jitctl::cpu
