#include "kernels/cpu/grouped_conv.h"

#include <algorithm>

#include "kernels/cpu/simd_vectors.h"
#include "kernels/cpu/cpu_features.h"
#include "kernels/cpu/dnnl_util.h"
#include "kernels/cpu/tensor_util.h"
#include "kernels/parallel.h"

namespace jitctl::cpu {

namespace {

using Mode = VecActivation;

// Channels a vector holds: 16 on AVX-512, 8 on AVX2.
int64_t lanes() { return cpu_features().isa == Isa::Avx512 ? avx512::kLanes : avx2::kLanes; }

// Output pixels of a row per register tile (kTile, per ISA below): two accumulators each (even
// and odd steps of the group, so each output's sum is two chains of multiply-adds, not one as
// long as the latency allows).

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
namespace on_avx512 {
using namespace avx512;
// Beside the tile's two accumulators per output: the input and one permuted vector, of 32 registers.
template <int G>
constexpr int kTile = G == 8 ? 6 : 8;
template <int G>
constexpr bool kStationary = false;
#define JITCTL_VEC_INLINE JITCTL_AVX512_INLINE
#include "kernels/cpu/grouped_conv_rows.h"
#undef JITCTL_VEC_INLINE
}  // namespace on_avx512

JITCTL_TARGET_AVX512 void rows_avx512(const Job& j, int g, int s, Mode m, int64_t r0, int64_t r1) { on_avx512::rows_any(j, g, s, m, r0, r1); }

namespace on_avx2 {
using namespace avx2;
// 10 accumulators, the input and one permuted vector, of 16 registers (6 outputs a tile were
// 2-5% slower on ResNeXt-50's layers, 4 and 8 up to 25%).
template <int G>
constexpr int kTile = 5;
// One group a vector (8 channels): tile_stationary. With two groups a vector (4 channels) its
// loop with in-lane permutes (vpermilps) took 0.69 ms where tile() takes 0.51 (ResNeXt-50's 56x56).
template <int G>
constexpr bool kStationary = G == kLanes;
#define JITCTL_VEC_INLINE JITCTL_AVX2_INLINE
#include "kernels/cpu/grouped_conv_rows.h"
#undef JITCTL_VEC_INLINE
}  // namespace on_avx2

JITCTL_TARGET_AVX2 void rows_avx2(const Job& j, int g, int s, Mode m, int64_t r0, int64_t r1) { on_avx2::rows_any(j, g, s, m, r0, r1); }
#endif  // JITCTL_TARGET_AVX512

bool all_equal(const std::vector<int64_t>& v, int64_t x) {
  for (auto e : v)
    if (e != x) return false;
  return !v.empty();
}

bool dense_channels_last(const Tensor& t) { return t.dim() == 4 && t.dtype() == DType::Float32 && is_channels_last(t); }

}  // namespace

bool grouped_3x3_args_ok(const ConvArgs& args, const Epilogue& epilogue) {
  if (args.transposed || args.stride.size() != 2 || !(all_equal(args.stride, 1) || all_equal(args.stride, 2))) return false;
  if (!all_equal(args.padding, 1) || !all_equal(args.dilation, 1)) return false;
  Mode m;
  bool add;
  return vec_epilogue_of(epilogue, m, add);
}

std::vector<float> bias_floats(const Tensor& bias, int64_t c) {
  std::vector<float> out(static_cast<size_t>(c), 0.0f);
  if (bias.defined()) {
    const Tensor bc = contiguous(bias);
    std::copy_n(static_cast<const float*>(bc.data()), c, out.begin());
  }
  return out;
}

VecEpilogue vec_epilogue(const Epilogue& epilogue) {
  VecEpilogue v{};
  vec_epilogue_of(epilogue, v.mode, v.add);
  const size_t act = v.add ? 1 : 0;
  v.lo = epilogue.size() > act ? epilogue[act].a : 0.0f;
  v.hi = epilogue.size() > act ? epilogue[act].b : 0.0f;
  return v;
}

bool grouped_takes(const Tensor& input, int64_t c, const Tensor& residual, const Epilogue& epilogue, const ConvParams& p) {
  if (!dense_channels_last(input) || input.sizes()[1] != c) return false;
  if (!has_residual(epilogue)) return true;
  return residual.defined() && dense_channels_last(residual) && residual.sizes() == p.out_sizes;
}

bool GroupedConv::suits(const Tensor& weight, const ConvArgs& args, const Epilogue& epilogue) {
#ifdef JITCTL_TARGET_AVX512
  if (cpu_features().isa == Isa::Generic || weight.dtype() != DType::Float32 || weight.dim() != 4) return false;
  const auto& ws = weight.sizes();
  const int64_t g = ws[1];
  if ((g != 4 && g != 8) || ws[2] != 3 || ws[3] != 3 || ws[0] % lanes() != 0 || args.groups * g != ws[0]) return false;
  return grouped_3x3_args_ok(args, epilogue);
#else
  (void)weight, (void)args, (void)epilogue;
  return false;
#endif
}

GroupedConv::GroupedConv(const Tensor& weight, const Tensor& bias, const ConvArgs& args, Epilogue epilogue)
    : c_(weight.sizes()[0]), per_group_(weight.sizes()[1]), stride_(args.stride[0]), lanes_(lanes()), epilogue_(std::move(epilogue)) {
  const Tensor wc = contiguous(weight);
  const float* w = static_cast<const float*>(wc.data());
  const int64_t g = per_group_;
  w_.resize(static_cast<size_t>(c_ * g * 9));
  // Block cb, tap (ky, kx), step k, lane l: output channel cb*L + l's weight for the k-th input
  // channel of its group ([C, G, 3, 3] in PyTorch's layout), L = the vector's lanes.
  const int64_t L = lanes_;
  for (int64_t cb = 0; cb < c_ / L; ++cb)
    for (int64_t t = 0; t < 9; ++t)
      for (int64_t k = 0; k < g; ++k)
        for (int64_t l = 0; l < L; ++l) w_[((cb * 9 + t) * g + k) * L + l] = w[((cb * L + l) * g + k) * 9 + t];
  bias_ = bias_floats(bias, c_);
}

bool GroupedConv::takes(const Tensor& input, const Tensor& residual, const ConvParams& p) const {
  return grouped_takes(input, c_, residual, epilogue_, p);
}

void GroupedConv::run(const Tensor& input, const Tensor& residual, const ConvParams& p, Tensor& out) const {
#ifdef JITCTL_TARGET_AVX512
  const VecEpilogue e = vec_epilogue(epilogue_);
  const Mode m = e.mode;
  Job j{};
  j.x = static_cast<const float*>(input.data());
  j.res = e.add ? static_cast<const float*>(residual.data()) : nullptr;
  j.y = static_cast<float*>(out.mutable_data());
  j.w = w_.data();
  j.bias = bias_.data();
  j.c = c_, j.h = p.h, j.w_in = p.w, j.oh = p.oh, j.ow = p.ow;
  j.lo = e.lo, j.hi = e.hi;
  const int64_t items = p.n * p.oh * (c_ / lanes_);
  const double item_flops = 2.0 * static_cast<double>(p.ow * lanes_ * per_group_ * 9);
  const int64_t grain = grain_for_flops(item_flops);
  const int g = static_cast<int>(per_group_), s = static_cast<int>(stride_);
  parallel_for(0, items, grain, [&](int64_t r0, int64_t r1) {
    if (lanes_ == avx512::kLanes)
      rows_avx512(j, g, s, m, r0, r1);
    else
      rows_avx2(j, g, s, m, r0, r1);
  });
#else
  (void)input, (void)residual, (void)p, (void)out;
#endif
}

}  // namespace jitctl::cpu
