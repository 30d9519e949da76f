#include "kernels/cpu/pointwise_conv.h"

#include <algorithm>
#include <cstring>
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include <omp.h>

#include "kernels/cpu/simd_vectors.h"
#include "kernels/cpu/cpu_features.h"
#include "kernels/cpu/dnnl_util.h"
#include "kernels/cpu/isa_dispatch.h"
#include "kernels/cpu/tensor_util.h"
#include "kernels/cpu/vector_activation.h"
#include "kernels/cpu/vector_silu.h"
#include "kernels/parallel.h"

namespace jitctl::cpu {

namespace {

using avx512::kLanes;
constexpr int kMaxGroup = 4;  // output vectors per register tile
// Pixels per chunk at most (the input's rows for them stay in L2 while every group of outputs
// reads them).
constexpr int64_t kChunkPixels = 96;
// AVX2's packing: vectors per weight group (one: its tile covers one vector), and input channels
// per block at most (a vector's block of weights, 32 KB, in L1).
constexpr int64_t kGroupAvx2 = 1;
constexpr int64_t kBlockAvx2 = 512;

using Mode = VecActivation;  // Row is never used: suits() takes only the in-register ones

struct Job {
  const float* x;    // input, channels-last: pixel p's channels at x + p * ldx
  int64_t ldx;       // c when dense; more for a channel slice of a wider tensor
  const float* res;  // residual, shaped as y (or null)
  float* y;          // output, dense channels-last
  int64_t c, oc, pixels;
  float lo, hi;  // Mode::Clamp's bounds
};

#ifdef JITCTL_TARGET_AVX512

using avx512::load;
using avx512::splat;
using avx512::vf;
#define PW_INLINE JITCTL_AVX512_INLINE

// Pixels p..p+R (only `rows` of them when Tail) x the NB output vectors at cols: w is the first
// of them in the group's packed weights [C][nb][16] (ldw = nb * 16 floats a step of k, NB <= nb),
// bias their [NB][16].
template <int NB, int R, Mode M, bool Add, bool Tail>
PW_INLINE void tile(const Job& j, const float* w, int64_t ldw, const float* bias, const int64_t* cols, int64_t p, int rows) {
  const int64_t C = j.c;
  vf acc[R][NB];
#pragma GCC unroll 4
  for (int b = 0; b < NB; ++b) {
    const vf bv = load(bias + b * kLanes);
#pragma GCC unroll 12
    for (int r = 0; r < R; ++r) acc[r][b] = bv;
  }
  const int64_t ldx = j.ldx;
  const float* x = j.x + p * ldx;
  for (int64_t k = 0; k < C; ++k) {
    vf wv[NB];
#pragma GCC unroll 4
    for (int b = 0; b < NB; ++b) wv[b] = load(w + k * ldw + b * kLanes);
#pragma GCC unroll 12
    for (int r = 0; r < R; ++r) {
      if (Tail && r >= rows) break;
      const vf xb = splat(x[r * ldx + k]);
#pragma GCC unroll 4
      for (int b = 0; b < NB; ++b) acc[r][b] += xb * wv[b];
    }
  }
  const vf lo = splat(j.lo), hi = splat(j.hi);
#pragma GCC unroll 12
  for (int r = 0; r < R; ++r) {
    if (Tail && r >= rows) break;
    const int64_t at = (p + r) * j.oc;
#pragma GCC unroll 4
    for (int b = 0; b < NB; ++b) {
      vf v = acc[r][b];
      if constexpr (Add) v += load(j.res + at + cols[b]);
      if constexpr (M == Mode::Silu)
        v = reinterpret_cast<vf>(silu16(reinterpret_cast<__m512>(v)));
      else
        v = activate<M>(v, lo, hi);
      avx512::store(j.y + at + cols[b], v);
    }
  }
}

// Pixels p0..p1 x NB output vectors of one group.
template <int NB, Mode M, bool Add>
PW_INLINE void group_rows(const Job& j, const float* w, int64_t ldw, const float* bias, const int64_t* cols, int64_t p0, int64_t p1) {
  // Tile heights that fill the 32 registers: R x NB accumulators beside NB weight vectors.
  constexpr int R = NB == 1 ? 12 : NB == 2 ? 12 : NB == 3 ? 8 : 6;
  int64_t p = p0;
  for (; p + R <= p1; p += R) tile<NB, R, M, Add, false>(j, w, ldw, bias, cols, p, R);
  if (p < p1) tile<NB, R, M, Add, true>(j, w, ldw, bias, cols, p, static_cast<int>(p1 - p));
}

template <Mode M, bool Add>
PW_INLINE void group_mode(const Job& j, int nb, const float* w, int64_t ldw, const float* bias, const int64_t* cols, int64_t p0, int64_t p1) {
  switch (nb) {
    case 1: group_rows<1, M, Add>(j, w, ldw, bias, cols, p0, p1); break;
    case 2: group_rows<2, M, Add>(j, w, ldw, bias, cols, p0, p1); break;
    case 3: group_rows<3, M, Add>(j, w, ldw, bias, cols, p0, p1); break;
    default: group_rows<4, M, Add>(j, w, ldw, bias, cols, p0, p1); break;
  }
}

template <bool Add>
PW_INLINE void group_add(const Job& j, Mode m, int nb, const float* w, int64_t ldw, const float* bias, const int64_t* cols, int64_t p0,
                         int64_t p1) {
  switch (m) {
    case Mode::None: group_mode<Mode::None, Add>(j, nb, w, ldw, bias, cols, p0, p1); break;
    case Mode::Relu: group_mode<Mode::Relu, Add>(j, nb, w, ldw, bias, cols, p0, p1); break;
    case Mode::Clamp: group_mode<Mode::Clamp, Add>(j, nb, w, ldw, bias, cols, p0, p1); break;
    case Mode::Hardswish: group_mode<Mode::Hardswish, Add>(j, nb, w, ldw, bias, cols, p0, p1); break;
    case Mode::Silu: group_mode<Mode::Silu, Add>(j, nb, w, ldw, bias, cols, p0, p1); break;
    case Mode::Row: break;  // not taken (suits)
  }
}

// Pixels p0..p1 x output vectors v0..v1 (any range: a group's first vectors, its last, or whole
// groups), group by group.
JITCTL_TARGET_AVX512 void vectors_avx512(const Job& j, Mode m, const float* w, const float* bias, const int64_t* cols, int64_t vectors,
                                         int64_t v0, int64_t v1, int64_t p0, int64_t p1) {
  while (v0 < v1) {
    const int64_t g0 = v0 / kMaxGroup * kMaxGroup, nb = std::min<int64_t>(kMaxGroup, vectors - g0);
    const int64_t end = std::min(v1, g0 + nb);
    const float* wg = w + g0 * j.c * kLanes + (v0 - g0) * kLanes;
    const auto n = static_cast<int>(end - v0);
    if (j.res)
      group_add<true>(j, m, n, wg, nb * kLanes, bias + v0 * kLanes, cols + v0, p0, p1);
    else
      group_add<false>(j, m, n, wg, nb * kLanes, bias + v0 * kLanes, cols + v0, p0, p1);
    v0 = end;
  }
}

#endif  // JITCTL_TARGET_AVX512

#ifdef JITCTL_TARGET_AVX2

// AVX2's 16 registers hold a 6-pixel x 16-channel tile (twelve accumulators, the two weight
// halves and a broadcast), so a tile covers one output vector. Its weights are packed per vector
// ([C][16], kGroupAvx2) and taken in blocks of at most kBlockAvx2 input channels, which stay in
// L1 while the chunk's pixels pass over them; partial sums go through the output between blocks.
// The pixels are read in place: copied into [k][6] panels first they were no faster once the
// weights were 64-byte aligned (aligned_floats.h), and the copy cost about one output vector's
// multiply-adds.
namespace on_avx2 {

using avx2::load;
using avx2::splat;
using avx2::vf;
constexpr int kRows = 6;

// Pixels p..p+rows (rows = R unless Tail) x H halves of 8 channels of the vector at col (H = 1:
// only its upper half, the lower being the vector before's), input channels k0..k0+kn: x is pixel
// p's channel k0, w the vector's weights from k0 on ([k][16]). `first`: start from the bias, else
// from y's partial sums; `last`: apply the epilogue. w_after: the weights the next block will
// read, fetched into L2 meanwhile: in a model they come from memory (per-layer minimums over
// three interleaved runs at 2 threads, without -> with: RegNetY-800MF's 784 -> 784 on 7x7 487 ->
// 408 us; RegNetX-1.6GF's 912 -> 912 571 -> 576, level). Not inlined: inlined, GCC kept a 12-row
// tile's loop bound and row pointers on the stack.
template <int R, int H, Mode M, bool Add, bool Tail>
JITCTL_TARGET_AVX2 [[gnu::noinline]] void tile(const Job& j, const float* x, const float* w, const float* w_after, int64_t kn, const float* bias,
                                               int64_t col, bool first, bool last, int64_t p, int rows) {
  constexpr int skip = (2 - H) * avx2::kLanes;  // the output channels start past the vector's lower half
  vf acc[R][H] = {};
#pragma GCC unroll 12
  for (int r = 0; r < R; ++r) {
    if (Tail && r >= rows) break;
    const float* y = j.y + (p + r) * j.oc + col + skip;
#pragma GCC unroll 2
    for (int h = 0; h < H; ++h) acc[r][h] = first ? load(bias + skip + h * avx2::kLanes) : load(y + h * avx2::kLanes);
  }
  const int64_t ldx = j.ldx;
  for (int64_t k = 0; k < kn; ++k) {
    vf wv[H];
#pragma GCC unroll 2
    for (int h = 0; h < H; ++h) wv[h] = load(w + k * kLanes + skip + h * avx2::kLanes);
    _mm_prefetch(reinterpret_cast<const char*>(w_after + k * kLanes), _MM_HINT_T1);
#pragma GCC unroll 12
    for (int r = 0; r < R; ++r) {
      if (Tail && r >= rows) break;
      const vf xb = splat(x[r * ldx + k]);
#pragma GCC unroll 2
      for (int h = 0; h < H; ++h) acc[r][h] += xb * wv[h];
    }
  }
  const vf lo = splat(j.lo), hi = splat(j.hi);
#pragma GCC unroll 12
  for (int r = 0; r < R; ++r) {
    if (Tail && r >= rows) break;
    const int64_t at = (p + r) * j.oc + col + skip;
#pragma GCC unroll 2
    for (int h = 0; h < H; ++h) {
      vf v = acc[r][h];
      if (last) {
        if constexpr (Add) v += load(j.res + at + h * avx2::kLanes);
        if constexpr (M == Mode::Silu)
          v = reinterpret_cast<vf>(silu8(reinterpret_cast<__m256>(v)));
        else
          v = activate<M>(v, lo, hi);
      }
      avx2::store(j.y + at + h * avx2::kLanes, v);
    }
  }
}

// Pixels p0..p1 in tiles of R rows and of R - 1 (twelve accumulators: R = 6 for a whole vector,
// 12 for a half): 49 pixels as 4 x 6 + 5 x 5 rather than 8 x 6 and a one-pixel tile, whose two
// accumulators wait on the multiply-add latency (ten or more keep both pipes busy). A remainder
// too short for that ends in a Tail tile.
template <int H, Mode M, bool Add>
JITCTL_AVX2_INLINE void vector_rows(const Job& j, const float* w, const float* w_after, int64_t k0, int64_t kn, const float* bias, int64_t col,
                                    bool first, bool last, int64_t p0, int64_t p1) {
  constexpr int R = 12 / H;
  const int64_t n = (p1 - p0 + R - 1) / R, shorter = n * R - (p1 - p0);
  const int64_t full = shorter <= n ? n - shorter : (p1 - p0) / R;
  int64_t p = p0;
  for (int64_t t = 0; t < full; ++t, p += R) tile<R, H, M, Add, false>(j, j.x + p * j.ldx + k0, w, w_after, kn, bias, col, first, last, p, R);
  if (shorter <= n) {
    for (; p < p1; p += R - 1) tile<R - 1, H, M, Add, false>(j, j.x + p * j.ldx + k0, w, w_after, kn, bias, col, first, last, p, R - 1);
  } else if (p < p1) {
    tile<R, H, M, Add, true>(j, j.x + p * j.ldx + k0, w, w_after, kn, bias, col, first, last, p, static_cast<int>(p1 - p));
  }
}

template <Mode M, bool Add>
JITCTL_AVX2_INLINE void vector_halves(const Job& j, int halves, const float* w, const float* w_after, int64_t k0, int64_t kn, const float* bias,
                                      int64_t col, bool first, bool last, int64_t p0, int64_t p1) {
  if (halves == 1)
    vector_rows<1, M, Add>(j, w, w_after, k0, kn, bias, col, first, last, p0, p1);
  else
    vector_rows<2, M, Add>(j, w, w_after, k0, kn, bias, col, first, last, p0, p1);
}

template <bool Add>
JITCTL_AVX2_INLINE void vector_add(const Job& j, Mode m, int halves, const float* w, const float* w_after, int64_t k0, int64_t kn,
                                   const float* bias, int64_t col, bool first, bool last, int64_t p0, int64_t p1) {
  switch (m) {
    case Mode::None: vector_halves<Mode::None, Add>(j, halves, w, w_after, k0, kn, bias, col, first, last, p0, p1); break;
    case Mode::Relu: vector_halves<Mode::Relu, Add>(j, halves, w, w_after, k0, kn, bias, col, first, last, p0, p1); break;
    case Mode::Clamp: vector_halves<Mode::Clamp, Add>(j, halves, w, w_after, k0, kn, bias, col, first, last, p0, p1); break;
    case Mode::Hardswish: vector_halves<Mode::Hardswish, Add>(j, halves, w, w_after, k0, kn, bias, col, first, last, p0, p1); break;
    case Mode::Silu: vector_halves<Mode::Silu, Add>(j, halves, w, w_after, k0, kn, bias, col, first, last, p0, p1); break;
    case Mode::Row: break;  // not taken (suits)
  }
}

}  // namespace on_avx2

// vectors_avx512's contract on AVX2 (weights packed [vector][C][16]): chunk of pixels by chunk
// (equal ones: 196 pixels as 66 + 66 + 64, not 96 + 96 + 4), output vector by output vector,
// block of input channels by block. A vector is finished before the next starts: an overlapping
// last vector would otherwise read the one before it's finished outputs as its partial sums.
JITCTL_TARGET_AVX2 void vectors_avx2(const Job& j, Mode m, const float* w, const float* bias, const int64_t* cols, int64_t /*vectors*/,
                                     int64_t v0, int64_t v1, int64_t p0, int64_t p1) {
  const int64_t blocks = (j.c + kBlockAvx2 - 1) / kBlockAvx2;
  const int64_t chunks = (p1 - p0 + kChunkPixels - 1) / kChunkPixels;
  // A last vector 8 channels past the one before it (24, 40 or 56 outputs) computes only its
  // upper half (MobileNetV2's 144 -> 24 on 56x56 took 1.3x oneDNN's time computing 32 channels,
  // 1.15x as a whole vector and a half; a 4 x 24 tile over both was slower still, 1.35x).
  const auto half = [&](int64_t v) { return v > 0 && cols[v] - cols[v - 1] == avx2::kLanes; };
  for (int64_t c = 0; c < chunks; ++c) {
    const int64_t c0 = p0 + (p1 - p0) * c / chunks, c1 = p0 + (p1 - p0) * (c + 1) / chunks;
    for (int64_t v = v0; v < v1; ++v) {
      const int halves = half(v) ? 1 : 2;
      for (int64_t b = 0; b < blocks; ++b) {
        const int64_t k0 = j.c * b / blocks, k1 = j.c * (b + 1) / blocks;
        const float* wv = w + (v * j.c + k0) * kLanes;
        // The next block's weights: this vector's next block, the next vector's first, or (the
        // last) these again.
        const float* after = b + 1 < blocks ? w + (v * j.c + k1) * kLanes : v + 1 < v1 ? w + (v + 1) * j.c * kLanes : wv;
        if (j.res)
          on_avx2::vector_add<true>(j, m, halves, wv, after, k0, k1 - k0, bias + v * kLanes, cols[v], b == 0, b + 1 == blocks, c0, c1);
        else
          on_avx2::vector_add<false>(j, m, halves, wv, after, k0, k1 - k0, bias + v * kLanes, cols[v], b == 0, b + 1 == blocks, c0, c1);
      }
    }
  }
}

#endif  // JITCTL_TARGET_AVX2

// Pixels p0..p1 x output vectors v0..v1 with the instruction set in use (suits() admits only
// AVX-512 and AVX2 machines).
void vectors_for_isa(const Job& j, Mode m, const float* w, const float* bias, const int64_t* cols, int64_t vectors, int64_t v0, int64_t v1,
                     int64_t p0, int64_t p1) {
#if defined(JITCTL_TARGET_AVX512) && defined(JITCTL_TARGET_AVX2)
  if (cpu_features().isa == Isa::Avx512)
    vectors_avx512(j, m, w, bias, cols, vectors, v0, v1, p0, p1);
  else
    vectors_avx2(j, m, w, bias, cols, vectors, v0, v1, p0, p1);
#else
  (void)j, (void)m, (void)w, (void)bias, (void)cols, (void)vectors, (void)v0, (void)v1, (void)p0, (void)p1;
#endif
}

// One call's job: the epilogue's in-register form (into m), its clamp bounds and the buffers.
// `residual` is read only when the epilogue adds one.
Job job_for(const Epilogue& e, int64_t c, int64_t oc, const float* x, int64_t ldx, const Tensor& residual, float* y, int64_t pixels, Mode& m) {
  bool add = false;
  vec_epilogue_with_silu_of(e, m, add);
  Job j{};
  j.x = x;
  j.ldx = ldx;
  j.res = add ? static_cast<const float*>(residual.data()) : nullptr;
  j.y = y;
  j.c = c, j.oc = oc, j.pixels = pixels;
  const size_t act = add ? 1 : 0;
  j.lo = e.size() > act ? e[act].a : 0.0f;
  j.hi = e.size() > act ? e[act].b : 0.0f;
  return j;
}

}  // namespace

bool PointwiseConv::suits(const Tensor& weight, const ConvArgs& args, const Epilogue& epilogue) {
#ifdef JITCTL_TARGET_AVX512
  const Isa isa = cpu_features().isa;
  if ((isa != Isa::Avx512 && isa != Isa::Avx2) || args.transposed || args.groups != 1 || weight.dtype() != DType::Float32 || weight.dim() != 4)
    return false;
  const auto& ws = weight.sizes();
  if (ws[0] <= kLanes || ws[2] != 1 || ws[3] != 1) return false;  // 16 outputs: no faster than oneDNN (32 -> 16 on 112x112)
  for (auto v : args.stride)
    if (v != 1) return false;
  for (auto v : args.padding)
    if (v != 0) return false;
  for (auto v : args.dilation)
    if (v != 1) return false;
  Mode m;
  bool add;
  return vec_epilogue_with_silu_of(epilogue, m, add);
#else
  (void)weight, (void)args, (void)epilogue;
  return false;
#endif
}

PointwiseConv::PointwiseConv(const Tensor& weight, const Tensor& bias, Epilogue epilogue)
    : c_(weight.sizes()[1]), oc_(weight.sizes()[0]), epilogue_(std::move(epilogue)) {
  for (int64_t o = 0; o + kLanes <= oc_; o += kLanes) cols_.push_back(o);
  if (oc_ % kLanes) cols_.push_back(oc_ - kLanes);
  const Tensor wc = contiguous(weight);
  const float* w = static_cast<const float*>(wc.data());
  const auto vectors = static_cast<int64_t>(cols_.size());
  w_.resize(static_cast<size_t>(c_ * vectors * kLanes));
  // Group g (vectors g*G .. g*G+nb) at offset g*G*C*16, laid out [C][nb][16]: G is kMaxGroup on
  // AVX-512, kGroupAvx2 on AVX2.
  const int64_t group = cpu_features().isa == Isa::Avx512 ? kMaxGroup : kGroupAvx2;
  for (int64_t g0 = 0; g0 < vectors; g0 += group) {
    const int64_t nb = std::min<int64_t>(group, vectors - g0);
    float* dst = w_.data() + g0 * c_ * kLanes;
    for (int64_t k = 0; k < c_; ++k)
      for (int64_t b = 0; b < nb; ++b)
        for (int64_t l = 0; l < kLanes; ++l) dst[(k * nb + b) * kLanes + l] = w[(cols_[g0 + b] + l) * c_ + k];
  }
  bias_.assign(static_cast<size_t>(vectors * kLanes), 0.0f);
  if (bias.defined()) {
    const Tensor bc = contiguous(bias);
    const float* bp = static_cast<const float*>(bc.data());
    for (int64_t b = 0; b < vectors; ++b)
      for (int64_t l = 0; l < kLanes; ++l) bias_[b * kLanes + l] = bp[cols_[b] + l];
  }
}

bool PointwiseConv::takes(const Tensor& input, const Tensor& residual, int64_t oh, int64_t ow) const {
  auto dense_cl = [](const Tensor& t) { return t.dim() == 4 && t.dtype() == DType::Float32 && is_channels_last(t); };
  // The input may be a channel slice of a wider channels-last tensor (its pixels further apart).
  if (input.dim() != 4 || input.dtype() != DType::Float32 || channels_last_pixel_stride(input) == 0 || input.sizes()[1] != c_) return false;
  const auto& s = input.sizes();
  if (!prefers(s[0] * oh * ow)) return false;
  if (!has_residual(epilogue_)) return true;
  return residual.defined() && dense_cl(residual) && residual.sizes() == std::vector<int64_t>{s[0], oc_, oh, ow};
}

// kernel_bench pw_* (Zen 3), oneDNN -> AVX2 tile, three interleaved rounds, ms at 1 thread; 2:
// RegNetX's 400 -> 400 on 7x7 0.177-0.201 -> 0.159-0.186; 0.140-0.171 -> 0.084-0.097. RegNetY's
// 784 -> 784 on 7x7 0.666-0.827 -> 0.694-0.804; 0.442-0.549 -> 0.383-0.392. MNASNet's 1152 -> 192
// on 7x7 0.250-0.294 -> 0.226-0.235; 0.176-0.212 -> 0.128-0.131. Left to oneDNN (measured on the
// tile before this rule): RegNetY's 320 -> 320 on 14x14 0.400 -> 0.411 and 0.211 -> 0.241;
// MobileNetV2's 96 -> 24 on 56x56 0.151 -> 0.170; ResNeXt's 128 -> 256 on 56x56 2.12 -> 2.31 at
// 1 thread; at two outputs a pixel, RegNetX-1.6GF's 408 -> 408 on 14x14 5-9% slower in the model.
constexpr int64_t kAvx2OutputsPerPixel = 4;

bool PointwiseConv::prefers(int64_t pixels) const { return cpu_features().isa != Isa::Avx2 || oc_ >= kAvx2OutputsPerPixel * pixels; }

void PointwiseConv::run(const Tensor& input, const Tensor& residual, Tensor& out) const {
#ifdef JITCTL_TARGET_AVX512
  const auto& s = input.sizes();
  Mode m;
  const Job j = job_for(epilogue_, c_, oc_, static_cast<const float*>(input.data()), channels_last_pixel_stride(input), residual,
                        static_cast<float*>(out.mutable_data()), s[0] * s[2] * s[3], m);
  const auto vectors = static_cast<int64_t>(cols_.size());
  const int64_t groups = (vectors + kMaxGroup - 1) / kMaxGroup;
  const int64_t threads = omp_in_parallel() ? 1 : omp_get_max_threads();
  // When the weights outweigh the input (more output channels than pixels: the 7x7 and 14x14
  // layers) each thread takes an equal run of output vectors over all pixels, so each group's
  // weights are read by one thread (pixel-major, both threads streamed all of ResNeXt's 8 MB
  // 1024 -> 2048 weights: 1.3x oneDNN's time on two threads). Runs are split at vectors, not at
  // groups of four: RegNetX's 400 -> 400 on 7x7 (25 vectors) split 16:9 as whole groups, and took
  // 0.59x its one-thread time on two threads.
  if (oc_ > j.pixels) {
    const double flops = 2.0 * static_cast<double>(j.pixels * c_ * vectors * kLanes);
    const int64_t teams = std::clamp<int64_t>(static_cast<int64_t>(flops / std::max(min_flops_per_thread(), 1.0)), 1, std::min(threads, vectors));
    parallel_for(0, teams, 1, [&](int64_t t0, int64_t t1) {
      for (int64_t t = t0; t < t1; ++t)
        vectors_for_isa(j, m, w_.data(), bias_.data(), cols_.data(), vectors, vectors * t / teams, vectors * (t + 1) / teams, 0, j.pixels);
    });
    return;
  }
  // Otherwise items of pixel chunk x group of output vectors, chunk by chunk: as many chunks as
  // fit kChunkPixels, rounded up to a multiple of the threads and all of one size, so every
  // thread gets the same pixels (a short last chunk split 56x56 layers about 3:1). parallel_for
  // gives each thread a contiguous run of items.
  int64_t chunks = (j.pixels + kChunkPixels - 1) / kChunkPixels;
  if (j.pixels >= threads * 6) chunks = (chunks + threads - 1) / threads * threads;
  const int64_t chunk_pixels = (j.pixels + chunks - 1) / chunks;
  const double item_flops = 2.0 * static_cast<double>(chunk_pixels * c_ * kMaxGroup * kLanes);
  const int64_t grain = grain_for_flops(item_flops);
  parallel_for(0, chunks * groups, grain, [&](int64_t i0, int64_t i1) {
    for (int64_t i = i0; i < i1; ++i) {
      const int64_t chunk = i / groups, g0 = i % groups * kMaxGroup;
      const int64_t p0 = chunk * chunk_pixels, p1 = std::min(j.pixels, p0 + chunk_pixels);
      if (p0 >= p1) continue;
      vectors_for_isa(j, m, w_.data(), bias_.data(), cols_.data(), vectors, g0, std::min(vectors, g0 + kMaxGroup), p0, p1);
    }
  });
#else
  (void)input, (void)residual, (void)out;
#endif
}

void PointwiseConv::run_vectors(const float* x, int64_t pixels, float* y, int64_t v0, int64_t v1) const {
#ifdef JITCTL_TARGET_AVX512
  Mode m;
  const Job j = job_for(epilogue_, c_, oc_, x, c_, Tensor(), y, pixels, m);
  for (int64_t p0 = 0; p0 < pixels; p0 += kChunkPixels)
    vectors_for_isa(j, m, w_.data(), bias_.data(), cols_.data(), vector_count(), v0, v1, p0, std::min(pixels, p0 + kChunkPixels));
#else
  (void)x, (void)pixels, (void)y, (void)v0, (void)v1;
#endif
}

void PointwiseConv::run_pixels(const float* x, int64_t pixels, float* y) const {
#ifdef JITCTL_TARGET_AVX512
  Mode m;
  const Job j = job_for(epilogue_, c_, oc_, x, c_, Tensor(), y, pixels, m);
  const auto vectors = static_cast<int64_t>(cols_.size());
  for (int64_t p0 = 0; p0 < pixels; p0 += kChunkPixels)
    for (int64_t g0 = 0; g0 < vectors; g0 += kMaxGroup)
      vectors_for_isa(j, m, w_.data(), bias_.data(), cols_.data(), vectors, g0, std::min(vectors, g0 + kMaxGroup), p0, std::min(pixels, p0 + kChunkPixels));
#else
  (void)x, (void)pixels, (void)y;
#endif
}

}  // namespace jitctl::cpu
