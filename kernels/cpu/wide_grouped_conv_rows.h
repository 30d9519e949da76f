// The row loop of kernels/cpu/wide_grouped_conv.cpp, written once and included there once per
// instruction set and vector width, inside a namespace that provides that ISA's vector helpers
// (vf, kLanes, load, store, splat: simd_vectors.h), kTile<NB> (output pixels per register tile
// for NB vectors of outputs) and JITCTL_VEC_INLINE (always-inline for that ISA's target), as
// grouped_conv_rows.h is. No include guard, on purpose.

// Output pixels ox0 .. ox0+kTile<NB> of row oy (only `valid` of them when Tail) x the NB output
// vectors at channel offset v0 * kLanes of group g. x: image n's input at the group's first
// channel; w: the group's weights [3][3][per][per]; y (and res): the output at the tile's first
// pixel and the group's first channel. Input rows off the image are skipped; an input column off
// it (the padding) reads j.zeros instead.
template <int NB, int S, Mode M, bool Add, bool Tail>
JITCTL_VEC_INLINE void tile(const Job& j, const float* x, int64_t oy, int64_t ox0, const float* w, const float* bias, float* y,
                            const float* res, int64_t v0, int valid) {
  constexpr int R = kTile<NB>;
  const int64_t per = j.per, c = j.c;
  vf acc[R][NB];
#pragma GCC unroll 4
  for (int b = 0; b < NB; ++b) {
    const vf bv = load(bias + (v0 + b) * kLanes);
#pragma GCC unroll 12
    for (int r = 0; r < R; ++r) acc[r][b] = bv;
  }
  for (int ky = 0; ky < 3; ++ky) {
    const int64_t iy = oy * S - 1 + ky;
    if (iy < 0 || iy >= j.h) continue;
    const float* xrow = x + iy * j.w_in * c;
    for (int kx = 0; kx < 3; ++kx) {
      const float* p[R];
#pragma GCC unroll 12
      for (int r = 0; r < R; ++r) {
        const int64_t ix = (ox0 + r) * S - 1 + kx;
        p[r] = ix >= 0 && ix < j.w_in ? xrow + ix * c : j.zeros;
      }
      const float* wt = w + (ky * 3 + kx) * per * per + v0 * kLanes;
      for (int64_t k = 0; k < per; ++k) {
        vf wv[NB];
#pragma GCC unroll 4
        for (int b = 0; b < NB; ++b) wv[b] = load(wt + k * per + b * kLanes);
#pragma GCC unroll 12
        for (int r = 0; r < R; ++r) {
          if (Tail && r >= valid) break;
          const vf xb = splat(p[r][k]);
#pragma GCC unroll 4
          for (int b = 0; b < NB; ++b) acc[r][b] += xb * wv[b];
        }
      }
    }
  }
  const vf lo = splat(j.lo), hi = splat(j.hi);
#pragma GCC unroll 12
  for (int r = 0; r < R; ++r) {
    if (Tail && r >= valid) break;
#pragma GCC unroll 4
    for (int b = 0; b < NB; ++b) {
      const int64_t at = r * c + (v0 + b) * kLanes;
      vf v = acc[r][b];
      if constexpr (Add) v += load(res + at);
      store(y + at, activate<M>(v, lo, hi));
    }
  }
}

// One output row of one group, the group's outputs NB vectors at a time from v0.
template <int NB, int S, Mode M, bool Add>
JITCTL_VEC_INLINE void row_vectors(const Job& j, const float* x, int64_t oy, const float* w, const float* bias, float* y, const float* res,
                                   int64_t v0) {
  constexpr int R = kTile<NB>;
  const int64_t c = j.c;
  int64_t ox = 0;
  for (; ox + R <= j.ow; ox += R) tile<NB, S, M, Add, false>(j, x, oy, ox, w, bias, y + ox * c, res ? res + ox * c : nullptr, v0, R);
  if (ox < j.ow) tile<NB, S, M, Add, true>(j, x, oy, ox, w, bias, y + ox * c, res ? res + ox * c : nullptr, v0, static_cast<int>(j.ow - ox));
}

// Items [r0, r1) of (image, output row, group), the group fastest.
template <int S, Mode M, bool Add>
JITCTL_VEC_INLINE void rows(const Job& j, int64_t r0, int64_t r1) {
  const int64_t per = j.per, groups = j.c / per, vectors = per / kLanes;
  for (int64_t i = r0; i < r1; ++i) {
    const int64_t g = i % groups, oy = i / groups % j.oh, n = i / groups / j.oh;
    const float* x = j.x + n * j.h * j.w_in * j.c + g * per;
    const float* w = j.w + g * 9 * per * per;
    const float* bias = j.bias + g * per;
    const int64_t out = ((n * j.oh + oy) * j.ow) * j.c + g * per;
    float* y = j.y + out;
    const float* res = Add ? j.res + out : nullptr;
    int64_t v0 = 0;
    for (; v0 + 4 <= vectors; v0 += 4) row_vectors<4, S, M, Add>(j, x, oy, w, bias, y, res, v0);
    switch (vectors - v0) {
      case 3: row_vectors<3, S, M, Add>(j, x, oy, w, bias, y, res, v0); break;
      case 2: row_vectors<2, S, M, Add>(j, x, oy, w, bias, y, res, v0); break;
      case 1: row_vectors<1, S, M, Add>(j, x, oy, w, bias, y, res, v0); break;
      default: break;
    }
  }
}

template <int S, bool Add>
JITCTL_VEC_INLINE void rows_mode(const Job& j, Mode m, int64_t r0, int64_t r1) {
  switch (m) {
    case Mode::None: rows<S, Mode::None, Add>(j, r0, r1); break;
    case Mode::Relu: rows<S, Mode::Relu, Add>(j, r0, r1); break;
    case Mode::Clamp: rows<S, Mode::Clamp, Add>(j, r0, r1); break;
    case Mode::Hardswish: rows<S, Mode::Hardswish, Add>(j, r0, r1); break;
    case Mode::Row:
    case Mode::Silu: break;  // not taken (suits)
  }
}

// Every stride and epilogue the kernel takes.
JITCTL_VEC_INLINE void rows_any(const Job& j, int s, Mode m, int64_t r0, int64_t r1) {
  const bool add = j.res != nullptr;
  if (s == 1 && add) rows_mode<1, true>(j, m, r0, r1);
  if (s == 1 && !add) rows_mode<1, false>(j, m, r0, r1);
  if (s == 2 && add) rows_mode<2, true>(j, m, r0, r1);
  if (s == 2 && !add) rows_mode<2, false>(j, m, r0, r1);
}
