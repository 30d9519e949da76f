#include "kernels/cpu/grouped_panels_avx2.h"

#include <algorithm>
#include <vector>

#include "kernels/cpu/cpu_features.h"
#include "kernels/cpu/simd_vectors.h"

namespace jitctl::cpu {

namespace {

using Mode = VecActivation;

#ifdef JITCTL_TARGET_AVX2
using avx2::kLanes;
using avx2::load;
using avx2::splat;
using avx2::vf;

// Output pixels per full tile: NB x R accumulators, NB weights and a broadcast, 15 or 16 of
// AVX2's registers. A row's last pixels take a tile of 2 or 4 instead of a full one where that
// computes fewer unused pixels (7 = 6 + 1 was 12 pixels' work on 6x16, now 6 + 2).
template <int PER>
constexpr int kFullTile = PER == 16 ? 6 : 4;

// R output pixels' windows times the group's weights w [3][3 x PER][PER], plus the bias, into t
// [R][PER]. Window row ky of pixel r is the 3 x PER floats at a + ky x ky_stride + r x S x PER:
// the panel holds each input column once, and a pixel's window is three runs of it. Not inlined:
// alone, GCC keeps the accumulators and weights in registers; inlined into the row loop's many
// instances it spilled them.
template <int PER, int S, int R>
[[gnu::noinline]] JITCTL_TARGET_AVX2 void tile(const float* a, int64_t ky_stride, const float* w, const float* bias, float* t) {
  constexpr int NB = PER / kLanes;
  constexpr int KS = 3 * PER;
  constexpr int PS = S * PER;
  vf acc[R][NB];
#pragma GCC unroll 3
  for (int b = 0; b < NB; ++b) {
    const vf bv = load(bias + b * kLanes);
#pragma GCC unroll 6
    for (int r = 0; r < R; ++r) acc[r][b] = bv;
  }
  for (int ky = 0; ky < 3; ++ky) {
    const float* ak = a + ky * ky_stride;
    const float* wk = w + ky * KS * PER;
#pragma GCC unroll 2
    for (int k = 0; k < KS; ++k) {
      vf wv[NB];
#pragma GCC unroll 3
      for (int b = 0; b < NB; ++b) wv[b] = load(wk + k * PER + b * kLanes);
#pragma GCC unroll 6
      for (int r = 0; r < R; ++r) {
        const vf xb = splat(ak[r * PS + k]);
#pragma GCC unroll 3
        for (int b = 0; b < NB; ++b) acc[r][b] += xb * wv[b];
      }
    }
  }
#pragma GCC unroll 6
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 3
    for (int b = 0; b < NB; ++b) avx2::store(t + r * PER + b * kLanes, acc[r][b]);
}

// Panel columns for one output row: the input columns -1 .. w_in (the padding's zeros at both
// ends) and enough columns after them for a last tile's unused pixels (zeros, items()).
template <int PER, int S>
int64_t panel_columns(const GroupedPanelJob& j) {
  return std::max<int64_t>(j.w_in + 2, (j.ow + kFullTile<PER> - 1) * S + 3);
}

// One output row of group g of image n: the panel ([3][columns][PER]: the group's channels of the
// three input rows the windows read, each input pixel copied once rather than once per window
// that reads it), then the tiles.
template <int PER, int S, Mode M, bool Add>
JITCTL_AVX2_INLINE void row(const GroupedPanelJob& j, int64_t n, int64_t oy, int64_t g, float* panel) {
  constexpr int NB = PER / kLanes;
  constexpr int R = kFullTile<PER>;
  constexpr int K = 9 * PER;
  const int64_t c = j.c, ow = j.ow, cols = panel_columns<PER, S>(j), ky_stride = cols * PER;
  const float* img = j.x + n * j.h * j.w_in * c + g * PER;
  for (int ky = 0; ky < 3; ++ky) {
    const int64_t iy = oy * S - 1 + ky;
    float* dst = panel + ky * ky_stride;
    if (iy < 0 || iy >= j.h) {
      for (int64_t i = 0; i < (j.w_in + 2) * PER; i += kLanes) avx2::store(dst + i, vf{});
      continue;
    }
    const float* src = img + iy * j.w_in * c;
#pragma GCC unroll 3
    for (int b = 0; b < NB; ++b) {
      avx2::store(dst + b * kLanes, vf{});
      avx2::store(dst + (j.w_in + 1) * PER + b * kLanes, vf{});
    }
    for (int64_t ix = 0; ix < j.w_in; ++ix) {
#pragma GCC unroll 3
      for (int b = 0; b < NB; ++b) avx2::store(dst + (ix + 1) * PER + b * kLanes, load(src + ix * c + b * kLanes));
    }
  }
  const float* w = j.w + g * K * PER;
  const int64_t out0 = ((n * j.oh + oy) * ow) * c + g * PER;
  const vf lo = splat(j.lo), hi = splat(j.hi);
  alignas(32) float t[R * PER];
  for (int64_t ox0 = 0; ox0 < ow;) {
    const int64_t left = ow - ox0;
    int n_tile = R;
    if (left < R) n_tile = left <= 2 ? 2 : 4;
    const float* a = panel + ox0 * S * PER;
    if (n_tile == R)
      tile<PER, S, R>(a, ky_stride, w, j.bias + g * PER, t);
    else if (n_tile == 4)
      tile<PER, S, 4>(a, ky_stride, w, j.bias + g * PER, t);
    else
      tile<PER, S, 2>(a, ky_stride, w, j.bias + g * PER, t);
    const int valid = static_cast<int>(std::min<int64_t>(n_tile, left));
    for (int r = 0; r < valid; ++r) {
#pragma GCC unroll 3
      for (int b = 0; b < NB; ++b) {
        const int64_t at = out0 + (ox0 + r) * c + b * kLanes;
        vf v = load(t + r * PER + b * kLanes);
        if constexpr (Add) v += load(j.res + at);
        avx2::store(j.y + at, activate<M>(v, lo, hi));
      }
    }
    ox0 += valid;
  }
}

template <int PER, int S, Mode M, bool Add>
JITCTL_AVX2_INLINE void items(const GroupedPanelJob& j, int64_t i0, int64_t i1) {
  static thread_local std::vector<float> panel;
  const int64_t cols = panel_columns<PER, S>(j);
  panel.resize(static_cast<size_t>(3 * cols * PER));
  // The columns past the right padding feed only a last tile's pixels, which are never stored;
  // row() does not write them, and zeros keep them finite.
  for (int ky = 0; ky < 3; ++ky)
    std::fill(panel.begin() + (ky * cols + j.w_in + 2) * PER, panel.begin() + (ky + 1) * cols * PER, 0.0f);
  const int64_t groups = j.c / PER;
  for (int64_t i = i0; i < i1; ++i) row<PER, S, M, Add>(j, i / groups / j.oh, i / groups % j.oh, i % groups, panel.data());
}

template <int PER, int S, bool Add>
JITCTL_AVX2_INLINE void items_mode(const GroupedPanelJob& j, int64_t i0, int64_t i1) {
  switch (j.mode) {
    case Mode::None: items<PER, S, Mode::None, Add>(j, i0, i1); break;
    case Mode::Relu: items<PER, S, Mode::Relu, Add>(j, i0, i1); break;
    case Mode::Clamp: items<PER, S, Mode::Clamp, Add>(j, i0, i1); break;
    case Mode::Hardswish: items<PER, S, Mode::Hardswish, Add>(j, i0, i1); break;
    case Mode::Row:
    case Mode::Silu: break;  // not taken (WideGroupedConv::suits)
  }
}

template <int PER>
JITCTL_AVX2_INLINE void items_any(const GroupedPanelJob& j, int64_t i0, int64_t i1) {
  const bool add = j.res != nullptr;
  if (j.stride == 1) {
    if (add) items_mode<PER, 1, true>(j, i0, i1);
    else items_mode<PER, 1, false>(j, i0, i1);
  } else {
    if (add) items_mode<PER, 2, true>(j, i0, i1);
    else items_mode<PER, 2, false>(j, i0, i1);
  }
}

JITCTL_TARGET_AVX2 void run_avx2(const GroupedPanelJob& j, int64_t i0, int64_t i1) {
  if (j.per == 16)
    items_any<16>(j, i0, i1);
  else
    items_any<24>(j, i0, i1);
}
#endif  // JITCTL_TARGET_AVX2

}  // namespace

bool grouped_panels_take(int64_t per) {
#ifdef JITCTL_TARGET_AVX2
  return (per == 16 || per == 24) && cpu_features().isa != Isa::Generic;
#else
  (void)per;
  return false;
#endif
}

void grouped_panels_avx2(const GroupedPanelJob& j, int64_t i0, int64_t i1) {
#ifdef JITCTL_TARGET_AVX2
  run_avx2(j, i0, i1);
#else
  (void)j, (void)i0, (void)i1;
#endif
}

}  // namespace jitctl::cpu
