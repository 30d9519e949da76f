#include "kernels/cpu/wide_grouped_conv.h"

#include <algorithm>

#include "kernels/cpu/simd_vectors.h"
#include "kernels/cpu/cpu_features.h"
#include "kernels/cpu/grouped_conv.h"
#include "kernels/cpu/grouped_panels_avx2.h"
#include "kernels/cpu/tensor_util.h"
#include "kernels/parallel.h"

namespace jitctl::cpu {

namespace {

using Mode = VecActivation;

// Group widths this kernel takes: a multiple of 8 but not of 16, from 24 to 248. oneDNN pads such
// groups to its 16-channel blocks (a third of the work wasted at 24); on multiples of 16 its
// kernel was faster than this loop (kernel_bench grp_, one thread, warm, oneDNN's time first:
// 16 channels a group on 7x7 0.042 ms against 0.059 at 8 floats a vector and 0.084 at 16; 32
// 0.232 against 0.273 and 0.241; 48 0.585 against 0.716 and 0.628).
constexpr int64_t kMinGroupWidth = 24;
constexpr int64_t kMaxGroupWidth = 248;

// What a padded input column reads: at least kMaxGroupWidth zeros.
alignas(64) constexpr float kZeros[kMaxGroupWidth] = {};

struct Job {
  const float* x;    // input, dense channels-last [N, H, W, C]
  const float* res;  // residual, shaped as y (or null)
  float* y;          // output, dense channels-last [N, OH, OW, C]
  const float* w;    // packed weights
  const float* bias;
  const float* zeros;
  int64_t c, per, h, w_in, oh, ow;
  float lo, hi;  // Mode::Clamp's bounds
};

#ifdef JITCTL_TARGET_AVX512
// Output pixels per register tile for NB vectors of outputs: NB x R accumulators beside NB weight
// vectors, of AVX-512's 32 registers; 8-float vectors, as the group widths are not multiples of 16
// (8 output pixels, not 7, for 3 vectors: 7 made RegNetX-1.6GF's 24-channel 14x14 layer 0.33 ->
// 0.38 ms).
namespace on_avx512_ymm {
using namespace avx512_ymm;
template <int NB>
constexpr int kTile = NB <= 2 ? 12 : NB == 3 ? 8 : 6;
#define JITCTL_VEC_INLINE JITCTL_AVX512_INLINE
#include "kernels/cpu/wide_grouped_conv_rows.h"
#undef JITCTL_VEC_INLINE
}  // namespace on_avx512_ymm

JITCTL_TARGET_AVX512 void rows_avx512_ymm(const Job& j, int s, Mode m, int64_t r0, int64_t r1) { on_avx512_ymm::rows_any(j, s, m, r0, r1); }
#endif  // JITCTL_TARGET_AVX512

}  // namespace

bool WideGroupedConv::suits(const Tensor& weight, const ConvArgs& args, const Epilogue& epilogue) {
#ifdef JITCTL_TARGET_AVX512
  if (cpu_features().isa == Isa::Generic || weight.dtype() != DType::Float32 || weight.dim() != 4) return false;
  const auto& ws = weight.sizes();
  const int64_t g = ws[1];
  const bool width_ok = cpu_features().isa == Isa::Avx512 ? g >= kMinGroupWidth && g <= kMaxGroupWidth && g % 8 == 0 && g % 16 != 0
                                                          : grouped_panels_take(g);
  if (!width_ok || ws[2] != 3 || ws[3] != 3 || args.groups < 2 || args.groups * g != ws[0]) return false;
  return grouped_3x3_args_ok(args, epilogue);
#else
  (void)weight, (void)args, (void)epilogue;
  return false;
#endif
}

WideGroupedConv::WideGroupedConv(const Tensor& weight, const Tensor& bias, const ConvArgs& args, Epilogue epilogue)
    : c_(weight.sizes()[0]), per_group_(weight.sizes()[1]), stride_(args.stride[0]), epilogue_(std::move(epilogue)) {
  const Tensor wc = contiguous(weight);
  const float* w = static_cast<const float*>(wc.data());
  const int64_t per = per_group_, groups = c_ / per;
  w_ = Tensor::empty(DType::Float32, {c_ * per * 9});
  float* packed = static_cast<float*>(w_.mutable_data());
  // Group g, tap t, input channel k, output o of the group: PyTorch's w[g*per + o][k][t].
  for (int64_t g = 0; g < groups; ++g)
    for (int64_t t = 0; t < 9; ++t)
      for (int64_t k = 0; k < per; ++k)
        for (int64_t o = 0; o < per; ++o) packed[((g * 9 + t) * per + k) * per + o] = w[((g * per + o) * per + k) * 9 + t];
  bias_ = bias_floats(bias, c_);
}

bool WideGroupedConv::takes(const Tensor& input, const Tensor& residual, const ConvParams& p) const {
  return grouped_takes(input, c_, residual, epilogue_, p);
}

void WideGroupedConv::run(const Tensor& input, const Tensor& residual, const ConvParams& p, Tensor& out) const {
#ifdef JITCTL_TARGET_AVX512
  const VecEpilogue e = vec_epilogue(epilogue_);
  const Mode m = e.mode;
  Job j{};
  j.x = static_cast<const float*>(input.data());
  j.res = e.add ? static_cast<const float*>(residual.data()) : nullptr;
  j.y = static_cast<float*>(out.mutable_data());
  j.w = static_cast<const float*>(w_.data());
  j.bias = bias_.data();
  j.zeros = kZeros;
  j.c = c_, j.per = per_group_, j.h = p.h, j.w_in = p.w, j.oh = p.oh, j.ow = p.ow;
  j.lo = e.lo, j.hi = e.hi;
  const int64_t items = p.n * p.oh * (c_ / per_group_);
  const double item_flops = 2.0 * static_cast<double>(p.ow * per_group_ * per_group_ * 9);
  const int64_t grain = grain_for_flops(item_flops);
  const int s = static_cast<int>(stride_);
  if (cpu_features().isa != Isa::Avx512) {
    const GroupedPanelJob pj{j.x, j.res, j.y, j.w, j.bias, c_, per_group_, p.h, p.w, p.oh, p.ow, stride_, m, e.lo, e.hi};
    parallel_for(0, items, grain, [&](int64_t r0, int64_t r1) { grouped_panels_avx2(pj, r0, r1); });
    return;
  }
  parallel_for(0, items, grain, [&](int64_t r0, int64_t r1) {
    rows_avx512_ymm(j, s, m, r0, r1);
  });
#else
  (void)input, (void)residual, (void)p, (void)out;
#endif
}

}  // namespace jitctl::cpu
