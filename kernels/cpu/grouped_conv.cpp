#include "kernels/cpu/grouped_conv.h"

#include <algorithm>

#include "kernels/cpu/avx512_vectors.h"
#include "kernels/cpu/cpu_features.h"
#include "kernels/cpu/dnnl_util.h"
#include "kernels/cpu/tensor_util.h"
#include "kernels/parallel.h"

namespace jitctl::cpu {

namespace {

using avx512::kLanes;
using Mode = VecActivation;

// Output pixels of a row per register tile: two accumulators each (even and odd steps of the
// group, so each output's sum is two chains of multiply-adds, not one as long as the latency
// allows), beside G permuted inputs and G permute patterns in the 32 registers.
template <int G>
constexpr int kTile = G == 8 ? 6 : 8;
// Below this much work per thread the team costs more than it saves (as SmallWorkOnOneThread).
constexpr double kMinFlopsPerThread = 3e5;

struct Job {
  const float* x;    // input, dense channels-last [N, H, W, C]
  const float* res;  // residual, shaped as y (or null)
  float* y;          // output, dense channels-last [N, OH, OW, C]
  const float* w;    // packed weights
  const float* bias;
  int64_t c, h, w_in, oh, ow;
  float lo, hi;  // Mode::Clamp's bounds
};

#ifdef JITCTL_TARGET_AVX512

using avx512::load;
using avx512::permute;
using avx512::splat;
using avx512::vf;
using avx512::vi;

// Output pixels ox0 .. ox0+kTile of row oy (only `valid` stored), channels cb*16 .. cb*16+15. Each
// input pixel of the three rows is loaded once, permuted into G vectors (lane l gets input
// channel (l / G) * G + g, the g-th channel of lane l's group) and multiplied into every output
// of the tile that reads it, with that tap's weights [ky][kx][g][16].
template <int G, int S, Mode M, bool Add>
JITCTL_AVX512_INLINE void tile(const Job& j, int64_t n, int64_t oy, int64_t ox0, int64_t cb, int valid) {
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
      vf xp[G];
#pragma GCC unroll 8
      for (int g = 0; g < G; ++g) xp[g] = permute(in, idx[g]);
#pragma GCC unroll 3
      for (int kx = 0; kx < 3; ++kx) {
        const int d = c - kx;
        if (d < 0 || d % S != 0 || d / S >= T) continue;
        const int o = d / S;
#pragma GCC unroll 8
        for (int g = 0; g < G; ++g) acc[o][g % 2] += load(wk + (kx * G + g) * kLanes) * xp[g];
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
    avx512::store(j.y + at, activate<M>(v, lo, hi));
  }
}

// Rows [r0, r1) of (image, output row, channel block) items.
template <int G, int S, Mode M, bool Add>
JITCTL_AVX512_INLINE void rows(const Job& j, int64_t r0, int64_t r1) {
  const int64_t blocks = j.c / kLanes;
  for (int64_t r = r0; r < r1; ++r) {
    const int64_t cb = r % blocks, oy = r / blocks % j.oh, n = r / blocks / j.oh;
    for (int64_t ox0 = 0; ox0 < j.ow; ox0 += kTile<G>)
      tile<G, S, M, Add>(j, n, oy, ox0, cb, static_cast<int>(std::min<int64_t>(kTile<G>, j.ow - ox0)));
  }
}

template <int G, int S, bool Add>
JITCTL_AVX512_INLINE void rows_mode(const Job& j, Mode m, int64_t r0, int64_t r1) {
  switch (m) {
    case Mode::None: rows<G, S, Mode::None, Add>(j, r0, r1); break;
    case Mode::Relu: rows<G, S, Mode::Relu, Add>(j, r0, r1); break;
    case Mode::Clamp: rows<G, S, Mode::Clamp, Add>(j, r0, r1); break;
    case Mode::Hardswish: rows<G, S, Mode::Hardswish, Add>(j, r0, r1); break;
    case Mode::Row: break;  // not taken (suits)
  }
}

template <int G, int S>
JITCTL_AVX512_INLINE void rows_add(const Job& j, Mode m, int64_t r0, int64_t r1) {
  if (j.res)
    rows_mode<G, S, true>(j, m, r0, r1);
  else
    rows_mode<G, S, false>(j, m, r0, r1);
}

JITCTL_TARGET_AVX512 void rows_avx512(const Job& j, int g, int s, Mode m, int64_t r0, int64_t r1) {
  if (g == 4 && s == 1) rows_add<4, 1>(j, m, r0, r1);
  if (g == 4 && s == 2) rows_add<4, 2>(j, m, r0, r1);
  if (g == 8 && s == 1) rows_add<8, 1>(j, m, r0, r1);
  if (g == 8 && s == 2) rows_add<8, 2>(j, m, r0, r1);
}

#endif  // JITCTL_TARGET_AVX512

bool all_equal(const std::vector<int64_t>& v, int64_t x) {
  for (auto e : v)
    if (e != x) return false;
  return !v.empty();
}

bool dense_channels_last(const Tensor& t) { return t.dim() == 4 && t.dtype() == DType::Float32 && is_channels_last(t); }

}  // namespace

bool GroupedConv::suits(const Tensor& weight, const ConvArgs& args, const Epilogue& epilogue) {
#ifdef JITCTL_TARGET_AVX512
  if (cpu_features().isa != Isa::Avx512 || args.transposed || weight.dtype() != DType::Float32 || weight.dim() != 4) return false;
  const auto& ws = weight.sizes();
  const int64_t g = ws[1];
  if ((g != 4 && g != 8) || ws[2] != 3 || ws[3] != 3 || ws[0] % kLanes != 0 || args.groups * g != ws[0]) return false;
  if (args.stride.size() != 2 || !(all_equal(args.stride, 1) || all_equal(args.stride, 2))) return false;
  if (!all_equal(args.padding, 1) || !all_equal(args.dilation, 1)) return false;
  Mode m;
  bool add;
  return vec_epilogue_of(epilogue, m, add);
#else
  (void)weight, (void)args, (void)epilogue;
  return false;
#endif
}

GroupedConv::GroupedConv(const Tensor& weight, const Tensor& bias, const ConvArgs& args, Epilogue epilogue)
    : c_(weight.sizes()[0]), per_group_(weight.sizes()[1]), stride_(args.stride[0]), epilogue_(std::move(epilogue)) {
  const Tensor wc = contiguous(weight);
  const float* w = static_cast<const float*>(wc.data());
  const int64_t g = per_group_;
  w_.resize(static_cast<size_t>(c_ * g * 9));
  // Block cb, tap (ky, kx), step k, lane l: output channel cb*16 + l's weight for the k-th input
  // channel of its group ([C, G, 3, 3] in PyTorch's layout).
  for (int64_t cb = 0; cb < c_ / kLanes; ++cb)
    for (int64_t t = 0; t < 9; ++t)
      for (int64_t k = 0; k < g; ++k)
        for (int64_t l = 0; l < kLanes; ++l) w_[((cb * 9 + t) * g + k) * kLanes + l] = w[((cb * kLanes + l) * g + k) * 9 + t];
  bias_.assign(static_cast<size_t>(c_), 0.0f);
  if (bias.defined()) {
    const Tensor bc = contiguous(bias);
    std::copy_n(static_cast<const float*>(bc.data()), c_, bias_.begin());
  }
}

bool GroupedConv::takes(const Tensor& input, const Tensor& residual, const ConvParams& p) const {
  if (!dense_channels_last(input) || input.sizes()[1] != c_) return false;
  if (!has_residual(epilogue_)) return true;
  return residual.defined() && dense_channels_last(residual) && residual.sizes() == p.out_sizes;
}

void GroupedConv::run(const Tensor& input, const Tensor& residual, const ConvParams& p, Tensor& out) const {
#ifdef JITCTL_TARGET_AVX512
  Mode m;
  bool add;
  vec_epilogue_of(epilogue_, m, add);
  Job j{};
  j.x = static_cast<const float*>(input.data());
  j.res = add ? static_cast<const float*>(residual.data()) : nullptr;
  j.y = static_cast<float*>(out.mutable_data());
  j.w = w_.data();
  j.bias = bias_.data();
  j.c = c_, j.h = p.h, j.w_in = p.w, j.oh = p.oh, j.ow = p.ow;
  const size_t act = add ? 1 : 0;
  j.lo = epilogue_.size() > act ? epilogue_[act].a : 0.0f;
  j.hi = epilogue_.size() > act ? epilogue_[act].b : 0.0f;
  const int64_t items = p.n * p.oh * (c_ / kLanes);
  const double item_flops = 2.0 * static_cast<double>(p.ow * kLanes * per_group_ * 9);
  const auto grain = static_cast<int64_t>(std::max(1.0, kMinFlopsPerThread / item_flops));
  const int g = static_cast<int>(per_group_), s = static_cast<int>(stride_);
  parallel_for(0, items, grain, [&](int64_t r0, int64_t r1) { rows_avx512(j, g, s, m, r0, r1); });
#else
  (void)input, (void)residual, (void)p, (void)out;
#endif
}

}  // namespace jitctl::cpu
