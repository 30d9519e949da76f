// The row loop of kernels/cpu/grouped_conv.cpp, written once and included there once per
// instruction set, inside a namespace that provides that ISA's vector helpers (vf, vi, kLanes,
// load, store, splat, permute: simd_vectors.h), kTile<G> (output pixels per
// register tile), kStationary<G> (whether G runs tile_stationary) and JITCTL_VEC_INLINE (always-inline for that ISA's target). A template over
// the helpers cannot do this: GCC will not inline a helper compiled for AVX-512 into a function
// that is not, so every level must carry the target. No include guard, on purpose.

// Output pixels ox0 .. ox0+kTile of row oy (only `valid` stored), channels cb*kLanes ..
// cb*kLanes+kLanes-1. Each input pixel of the three rows is loaded once, permuted into G vectors
// (lane l gets input channel (l / G) * G + g, the g-th channel of lane l's group) and multiplied
// into every output of the tile that reads it, with that tap's weights [ky][kx][g][kLanes]. Each
// permuted vector is used as soon as it is made, so only one is live (AVX2 has 16 registers).
template <int G, int S, Mode M, bool Add>
JITCTL_VEC_INLINE void tile(const Job& j, int64_t n, int64_t oy, int64_t ox0, int64_t cb, int valid) {
  constexpr int T = kTile<G>;
  constexpr int kCols = (T - 1) * S + 3;  // input columns the tile reads
  vi idx[G];
#pragma GCC unroll 8
  for (int g = 0; g < G; ++g)
    for (int l = 0; l < kLanes; ++l) idx[g][l] = l / G * G + g;
  const float* wb = j.w + cb * 9 * G * kLanes;
  const vf bias = load(j.bias + cb * kLanes);
  vf acc[T][2];
#pragma GCC unroll 8
  for (int o = 0; o < T; ++o) {
    acc[o][0] = bias;
    acc[o][1] = vf{};
  }
  const int64_t ix0 = ox0 * S - 1;
  for (int ky = 0; ky < 3; ++ky) {
    const int64_t iy = oy * S - 1 + ky;
    if (iy < 0 || iy >= j.h) continue;
    const float* row = j.x + ((n * j.h + iy) * j.w_in) * j.c + cb * kLanes;
    const float* wk = wb + ky * 3 * G * kLanes;
#pragma GCC unroll 32
    for (int c = 0; c < kCols; ++c) {
      const int64_t ix = ix0 + c;
      if (ix < 0 || ix >= j.w_in) continue;
      const vf in = load(row + ix * j.c);
#pragma GCC unroll 8
      for (int g = 0; g < G; ++g) {
        const vf xp = permute(in, idx[g]);
#pragma GCC unroll 3
        for (int kx = 0; kx < 3; ++kx) {
          const int d = c - kx;
          if (d < 0 || d % S != 0 || d / S >= T) continue;
          acc[d / S][g % 2] += load(wk + (kx * G + g) * kLanes) * xp;
        }
      }
    }
  }
  const vf lo = splat(j.lo), hi = splat(j.hi);
#pragma GCC unroll 8
  for (int o = 0; o < T; ++o) {
    if (o >= valid) break;
    const int64_t at = ((n * j.oh + oy) * j.ow + ox0 + o) * j.c + cb * kLanes;
    vf v = acc[o][0] + acc[o][1];
    if constexpr (Add) v += load(j.res + at);
    store(j.y + at, activate<M>(v, lo, hi));
  }
}

// The same tile with the loops turned, for a vector of one group (G == kLanes) in 16 registers
// (kStationary): for each tap row and input channel g of the group, that row's three weight
// vectors stay in registers while the tile's columns pass, each column's channel g broadcast from
// memory once and multiplied into the outputs that read it. Per multiply-add that is under one
// load and no shuffle; tile(), on AVX2, loaded a weight for every multiply-add and permuted every
// column G times (ResNeXt-50's 8-channel layers: 28x28 0.54 -> 0.41 ms, 56x56 stride 2 0.76 ->
// 0.58, kernel_bench, one thread). One accumulator per output: T chains of multiply-adds.
template <int T, int G, int S, Mode M, bool Add>
JITCTL_VEC_INLINE void tile_stationary(const Job& j, int64_t n, int64_t oy, int64_t ox0, int64_t cb, int valid) {
  constexpr int kCols = (T - 1) * S + 3;
  const float* wb = j.w + cb * 9 * G * kLanes;
  const vf bias = load(j.bias + cb * kLanes);
  vf acc[T];
#pragma GCC unroll 8
  for (int o = 0; o < T; ++o) acc[o] = bias;
  const int64_t ix0 = ox0 * S - 1;
  // Columns of the tile inside the image: [c0, c1).
  const int c0 = ix0 < 0 ? static_cast<int>(-ix0) : 0;
  const int c1 = static_cast<int>(std::min<int64_t>(kCols, j.w_in - ix0));
  for (int ky = 0; ky < 3; ++ky) {
    const int64_t iy = oy * S - 1 + ky;
    if (iy < 0 || iy >= j.h) continue;
    const float* row = j.x + ((n * j.h + iy) * j.w_in + ix0) * j.c + cb * kLanes;
    const float* wk = wb + ky * 3 * G * kLanes;
#pragma GCC unroll 1
    for (int g = 0; g < G; ++g) {
      const vf w0 = load(wk + g * kLanes), w1 = load(wk + (G + g) * kLanes), w2 = load(wk + (2 * G + g) * kLanes);
#pragma GCC unroll 32
      for (int c = 0; c < kCols; ++c) {
        if (c < c0 || c >= c1) continue;
        const vf xp = splat(row[c * j.c + g]);
        if (c % S == 0 && c / S < T) acc[c / S] += w0 * xp;
        if (c >= 1 && (c - 1) % S == 0 && (c - 1) / S < T) acc[(c - 1) / S] += w1 * xp;
        if (c >= 2 && (c - 2) % S == 0 && (c - 2) / S < T) acc[(c - 2) / S] += w2 * xp;
      }
    }
  }
  const vf lo = splat(j.lo), hi = splat(j.hi);
#pragma GCC unroll 8
  for (int o = 0; o < T; ++o) {
    if (o >= valid) break;
    const int64_t at = ((n * j.oh + oy) * j.ow + ox0 + o) * j.c + cb * kLanes;
    vf v = acc[o];
    if constexpr (Add) v += load(j.res + at);
    store(j.y + at, activate<M>(v, lo, hi));
  }
}

// Rows [r0, r1) of (image, output row, channel block) items.
template <int G, int S, Mode M, bool Add>
JITCTL_VEC_INLINE void rows(const Job& j, int64_t r0, int64_t r1) {
  const int64_t blocks = j.c / kLanes;
  for (int64_t r = r0; r < r1; ++r) {
    const int64_t cb = r % blocks, oy = r / blocks % j.oh, n = r / blocks / j.oh;
    if constexpr (kStationary<G>) {
      // Tiles of 8 where the row divides into them, else of 7 (rows of 28, 14 and 7 pixels).
      if (j.ow % 8 == 0) {
        for (int64_t ox0 = 0; ox0 < j.ow; ox0 += 8) tile_stationary<8, G, S, M, Add>(j, n, oy, ox0, cb, 8);
      } else {
        for (int64_t ox0 = 0; ox0 < j.ow; ox0 += 7)
          tile_stationary<7, G, S, M, Add>(j, n, oy, ox0, cb, static_cast<int>(std::min<int64_t>(7, j.ow - ox0)));
      }
      continue;
    }
    for (int64_t ox0 = 0; ox0 < j.ow; ox0 += kTile<G>)
      tile<G, S, M, Add>(j, n, oy, ox0, cb, static_cast<int>(std::min<int64_t>(kTile<G>, j.ow - ox0)));
  }
}

template <int G, int S, bool Add>
JITCTL_VEC_INLINE void rows_mode(const Job& j, Mode m, int64_t r0, int64_t r1) {
  switch (m) {
    case Mode::None: rows<G, S, Mode::None, Add>(j, r0, r1); break;
    case Mode::Relu: rows<G, S, Mode::Relu, Add>(j, r0, r1); break;
    case Mode::Clamp: rows<G, S, Mode::Clamp, Add>(j, r0, r1); break;
    case Mode::Hardswish: rows<G, S, Mode::Hardswish, Add>(j, r0, r1); break;
    case Mode::Row:
    case Mode::Silu: break;  // not taken (suits)
  }
}

template <int G, int S>
JITCTL_VEC_INLINE void rows_add(const Job& j, Mode m, int64_t r0, int64_t r1) {
  if (j.res)
    rows_mode<G, S, true>(j, m, r0, r1);
  else
    rows_mode<G, S, false>(j, m, r0, r1);
}

// Every (channels a group, stride) the kernel takes.
JITCTL_VEC_INLINE void rows_any(const Job& j, int g, int s, Mode m, int64_t r0, int64_t r1) {
  if (g == 4 && s == 1) rows_add<4, 1>(j, m, r0, r1);
  if (g == 4 && s == 2) rows_add<4, 2>(j, m, r0, r1);
  if (g == 8 && s == 1) rows_add<8, 1>(j, m, r0, r1);
  if (g == 8 && s == 2) rows_add<8, 2>(j, m, r0, r1);
}
