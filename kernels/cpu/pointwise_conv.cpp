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
  if (cpu_features().isa != Isa::Avx512 || args.transposed || args.groups != 1 || weight.dtype() != DType::Float32 || weight.dim() != 4)
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
  // Group g (vectors g*4 .. g*4+nb) at offset g*4*C*16, laid out [C][nb][16].
  for (int64_t g0 = 0; g0 < vectors; g0 += kMaxGroup) {
    const int64_t nb = std::min<int64_t>(kMaxGroup, vectors - g0);
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
  if (!has_residual(epilogue_)) return true;
  const auto& s = input.sizes();
  return residual.defined() && dense_cl(residual) && residual.sizes() == std::vector<int64_t>{s[0], oc_, oh, ow};
}

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
        vectors_avx512(j, m, w_.data(), bias_.data(), cols_.data(), vectors, vectors * t / teams, vectors * (t + 1) / teams, 0, j.pixels);
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
      vectors_avx512(j, m, w_.data(), bias_.data(), cols_.data(), vectors, g0, std::min(vectors, g0 + kMaxGroup), p0, p1);
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
    vectors_avx512(j, m, w_.data(), bias_.data(), cols_.data(), vector_count(), v0, v1, p0, std::min(pixels, p0 + kChunkPixels));
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
      vectors_avx512(j, m, w_.data(), bias_.data(), cols_.data(), vectors, g0, std::min(vectors, g0 + kMaxGroup), p0, std::min(pixels, p0 + kChunkPixels));
#else
  (void)x, (void)pixels, (void)y;
#endif
}

}  // namespace jitctl::cpu
