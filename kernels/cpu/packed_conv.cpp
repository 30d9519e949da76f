#include "kernels/cpu/packed_conv.h"

#include <fmt/format.h>
#include <omp.h>

#include <cstdlib>
#include <cstring>
#include <new>
#include <string_view>

#include "kernels/cpu/activations.h"
#include "kernels/cpu/concat_nhwc.h"
#include "kernels/cpu/cpu_features.h"
#include "kernels/cpu/dnnl_util.h"
#include "kernels/cpu/gemv.h"
#include "kernels/cpu/isa_dispatch.h"
#include "kernels/cpu/nn_util.h"
#include "kernels/cpu/output.h"
#include "kernels/cpu/scratch.h"
#include "kernels/parallel.h"

namespace jitctl::cpu {

using tag = dnnl::memory::format_tag;
using dt = dnnl::memory::data_type;

// One input geometry (batch, height, width) and thread count (oneDNN splits the work when it
// builds the primitive): the primitive oneDNN built for it and the weights packed for it.
struct PackedConv::Primitive {
  int64_t n, h, w;
  int64_t ph, ph_after;  // a band of rows (rows_from_band) has none where the image has some
  int threads;
  dnnl::convolution_forward::primitive_desc pd;
  dnnl::convolution_forward prim;
  dnnl::memory weights;  // packed
  dnnl::memory bias;     // empty when there is none
  dnnl::memory::desc nhwc_src, nhwc_dst;
  // The conversions the common cases need, built once: a contiguous (NCHW) input to
  // channels-last, and the result to a contiguous output.
  dnnl::reorder from_nchw, to_nchw, from_nchw_dst;
  dnnl::memory::desc nchw_src, nchw_dst;
  // Winograd primitives read and write oneDNN's blocked layout (nChw16c): the input is converted
  // into it, the residual too, and the result back out, each by a reorder built here.
  bool blocked = false;
  // oneDNN had only a reference implementation with the epilogue's post-ops (dnnl_util.h,
  // is_reference_impl) and runs without them into scratch; jitctl then applies the whole
  // epilogue over the result.
  bool epilogue_after = false;
  dnnl::memory::desc blk_src, blk_dst;
  dnnl::reorder nhwc_to_blk_src, nchw_to_blk_src, blk_to_nhwc_dst, blk_to_nchw_dst, nhwc_to_blk_dst, nchw_to_blk_dst;
};

namespace {

// 4-D view of a 3-D (conv1d) tensor: height 1.
dnnl::memory::desc desc_4d(const Tensor& t) {
  if (t.dim() == 4) return dnnl_desc_of(t);
  const auto& s = t.sizes();
  const auto& st = t.strides();
  return dnnl::memory::desc({s[0], s[1], 1, s[2]}, dt::f32, {st[0], st[1], s[2] * st[2], st[2]});
}

// Input geometries (and thread counts) a convolution keeps primitives for.
constexpr size_t kMaxPlans = 8;

bool dense_nhwc(const dnnl::memory::desc& d) {
  return d == dnnl::memory::desc(d.dims(), dt::f32, tag::nhwc);
}

// 3x3 stride-1 convolutions through oneDNN's Winograd F(4x4, 3x3) kernel (AVX-512 only; 2.25x
// fewer multiplications, weights stored 4x larger). Measured against its direct kernel (brgconv)
// with the layout conversions included, 1 and 2 threads: 0.41-0.75x the time on 13x13 to 56x56
// images (SqueezeNet's, GoogLeNet's, ResNet's 56/28/14 stages), but 2x slower on 7x7 ones (few
// tiles for many weights) and no faster below about 20 MFLOP (the conversions dominate). Its
// F(2x2, 3x3) sibling is skipped: 1.7-2.4x slower than direct on some channel counts (208, 224).
// Its results differ from direct summation by 2-3x direct's own rounding error (1e-5 on outputs
// of magnitude 5). JITCTL_WINOGRAD=0 keeps every convolution on the direct kernel.
constexpr int64_t kWinogradMinSide = 20;
constexpr double kWinogradMinFlops = 2e7;

bool winograd_enabled() {
  static const bool on = !switched_off("JITCTL_WINOGRAD");
  return on;
}

// JITCTL_POINTWISE=0 keeps 1x1 convolutions on oneDNN (to compare with PointwiseConv).
bool own_pointwise_enabled() {
  static const bool on = !switched_off("JITCTL_POINTWISE");
  return on;
}

// JITCTL_GROUPED=0 keeps grouped convolutions on oneDNN (to compare with GroupedConv).
bool own_grouped_enabled() {
  static const bool on = !switched_off("JITCTL_GROUPED");
  return on;
}

// JITCTL_NARROW=0 keeps layers of few output channels on oneDNN (to compare with NarrowConv).
bool own_narrow_enabled() {
  static const bool on = !switched_off("JITCTL_NARROW");
  return on;
}

// JITCTL_DEPTHWISE=0 keeps depthwise layers on oneDNN (to compare with DepthwiseChannels).
bool own_depthwise_enabled() {
  static const bool on = !switched_off("JITCTL_DEPTHWISE");
  return on;
}

// JITCTL_IM2COL=0 keeps small-image convolutions on oneDNN (to compare with Im2colConv).
bool own_im2col_enabled() {
  static const bool on = !switched_off("JITCTL_IM2COL");
  return on;
}

bool winograd_suits(const ConvParams& p) {
  if (!winograd_enabled() || cpu_features().isa != Isa::Avx512) return false;
  if (p.spatial_dims != 2 || p.groups != 1 || p.kh != 3 || p.kw != 3 || p.sh != 1 || p.sw != 1 || p.dh != 1 || p.dw != 1) return false;
  const double flops = 2.0 * static_cast<double>(p.n * p.oc * p.oh * p.ow) * static_cast<double>(p.c * 9);
  return p.oh >= kWinogradMinSide && p.ow >= kWinogradMinSide && flops >= kWinogradMinFlops;
}

// The forward convolution `p` with algorithm `alg` between the given layouts.
dnnl::convolution_forward::desc conv_desc(const ConvParams& p, dnnl::algorithm alg, const dnnl::memory::desc& src, const dnnl::memory::desc& w,
                                          const dnnl::memory::desc& dst, bool bias) {
  const dnnl::memory::dims strides{p.sh, p.sw}, dil{p.dh - 1, p.dw - 1}, pad_l{p.ph, p.pw}, pad_r{p.ph_after, p.pw_after};
  const auto kind = dnnl::prop_kind::forward_inference;
  return bias ? dnnl::convolution_forward::desc(kind, alg, src, w, dnnl::memory::desc({p.oc}, dt::f32, tag::x), dst, strides, dil, pad_l, pad_r)
              : dnnl::convolution_forward::desc(kind, alg, src, w, dst, strides, dil, pad_l, pad_r);
}

// The first of oneDNN's implementations of `desc` whose name contains `name` (its own first
// choice is not always its fastest), or false when none does or none exists for this CPU, shape
// or post-op chain.
bool implementation_named(const dnnl::convolution_forward::desc& desc, const dnnl::primitive_attr& attr, std::string_view name,
                          dnnl::convolution_forward::primitive_desc& out) {
  try {
    dnnl::convolution_forward::primitive_desc pd(desc, attr, dnnl_engine());
    do {
      if (std::string_view(pd.impl_info_str()).find(name) != std::string_view::npos) {
        out = pd;
        return true;
      }
    } while (pd.next_impl());
  } catch (const dnnl::error&) {
    // None: the caller's default applies.
  }
  return false;
}

// oneDNN's F(4x4, 3x3) primitive for `p` in its own layouts, if it takes the post-ops (it does
// ReLU and the residual sum, not every activation).
bool winograd_primitive(const ConvParams& p, bool bias, const dnnl::primitive_attr& attr, dnnl::convolution_forward::primitive_desc& out) {
  const dnnl::memory::desc src(dnnl::memory::dims{p.n, p.c, p.h, p.w}, dt::f32, tag::any);
  const dnnl::memory::desc dst(dnnl::memory::dims{p.n, p.oc, p.oh, p.ow}, dt::f32, tag::any);
  const dnnl::memory::desc w(dnnl::memory::dims{p.oc, p.c, 3, 3}, dt::f32, tag::any);
  return implementation_named(conv_desc(p, dnnl::algorithm::convolution_winograd, src, w, dst, bias), attr, "wino_4x3", out);
}

// Depthwise layers with fewer than kJitDwMaxChannels channels on AVX-512 run on oneDNN's jit_dw
// kernel, not on brdgmm_dw, the one it picks first for channels-last data. Measured per layer
// (both warm, 1 thread): 120 channels on 28x28 5x5 46.8 -> 22.3 us, 72 on 56x56 5x5 stride 2
// 35.6 -> 21.3, 72 on 56x56 3x3 54.2 -> 32.9, 192 on 28x28 27.9 -> 20.2; from 240 channels up
// brdgmm_dw was as fast or faster (1152 on 7x7 5x5 17.0 against 23.3). jit_dw was also faster than
// jitctl's own DepthwiseConv (72 on 56x56: 32.9 against 39.9 us), which now runs on AVX2 only.
constexpr int64_t kJitDwMaxChannels = 240;

bool jit_dw_primitive(const ConvParams& p, const dnnl::convolution_forward::desc& desc, const dnnl::primitive_attr& attr,
                      dnnl::convolution_forward::primitive_desc& out) {
  if (cpu_features().isa != Isa::Avx512 || p.groups == 1 || p.groups != p.c || p.groups != p.oc || p.c >= kJitDwMaxChannels) return false;
  return implementation_named(desc, attr, "jit_dw:", out);
}

// Small dense convolutions (under kSmallDirectFlops, kernels larger than 1x1) on AVX-512 run on
// oneDNN's jit:avx512_core kernel, not brgconv, the one it picks first for channels-last data.
// Measured over 3x3 layers of 3-64 channels on 14x14 to 112x112 images (ReLU fused, warm): below
// 2 MFLOP jit:avx512_core took 0.83x brgconv's time at 1 thread and 0.86x at 2 (geometric means
// of 88 shapes), never more than 1.05x; 8 -> 8 channels on 32x32 22.7 -> 19.9 us, 16 -> 16 on
// 16x16 19.4 -> 10.7. Above that brgconv won often enough (up to 1.36x at 2 threads).
constexpr double kSmallDirectFlops = 2e6;

bool small_direct_primitive(const ConvParams& p, const dnnl::convolution_forward::desc& desc, const dnnl::primitive_attr& attr,
                            dnnl::convolution_forward::primitive_desc& out) {
  if (cpu_features().isa != Isa::Avx512 || p.groups != 1 || p.kh * p.kw == 1 || p.spatial_dims != 2) return false;
  const double flops = 2.0 * static_cast<double>(p.n * p.oc * p.oh * p.ow) * static_cast<double>(p.c * p.kh * p.kw);
  return flops < kSmallDirectFlops && implementation_named(desc, attr, "jit:avx512_core", out);
}

}  // namespace

PackedConv::PackedConv(Tensor weight, Tensor bias, ConvArgs args, Epilogue epilogue)
    : weight_(contiguous(weight)), bias_(bias.defined() ? contiguous(bias) : Tensor()), args_(std::move(args)), epilogue_(std::move(epilogue)) {
  if (weight_.dim() == 5) {
    conv3d_ = std::make_unique<const PackedConv3d>(weight_, bias_, epilogue_);
    // 3x3 frame kernels of stride 1 (R3D's 3x3x3, R(2+1)D's 1x3x3) on WinogradConv.
    if (WinogradConv::suits(weight_, args_)) winograd_ = std::make_unique<const WinogradConv>(weight_, bias_, epilogue_);
    return;
  }
  dnnl_epilogue_ = epilogue_;
  if (!dnnl_epilogue_.empty() && dnnl_epilogue_.back().kind == PostOp::Kind::Silu && cpu_features().isa != Isa::Generic) {
    dnnl_epilogue_.pop_back();
    silu_after_ = true;
  }
  if (DepthwiseConv::suits(weight_, args_, epilogue_)) depthwise_ = std::make_unique<const DepthwiseConv>(weight_, bias_, epilogue_);
  // 1x1 layers of stride 2 and more (the downsampling shortcuts of ResNet, ResNeXt and RegNet)
  // too, on the pixels they read gathered dense first: oneDNN ran ResNeXt-50's 512 -> 1024 of
  // stride 2 at 72-85 GFLOP/s, PointwiseConv a stride-1 layer of its output's size at 105-115.
  ConvArgs unit_stride = args_;
  std::fill(unit_stride.stride.begin(), unit_stride.stride.end(), int64_t{1});
  if (own_pointwise_enabled() && PointwiseConv::suits(weight_, unit_stride, epilogue_)) {
    pointwise_ = std::make_unique<const PointwiseConv>(weight_, bias_, epilogue_);
    pointwise_strided_ = unit_stride.stride != args_.stride;
  }
  if (own_grouped_enabled() && GroupedConv::suits(weight_, args_, epilogue_))
    grouped_ = std::make_unique<const GroupedConv>(weight_, bias_, args_, epilogue_);
  else if (own_grouped_enabled() && WideGroupedConv::suits(weight_, args_, epilogue_))
    wide_grouped_ = std::make_unique<const WideGroupedConv>(weight_, bias_, args_, epilogue_);
  else if (own_narrow_enabled() && NarrowConv::suits(weight_, args_, epilogue_))
    narrow_ = std::make_unique<const NarrowConv>(weight_, bias_, epilogue_);
  else if (own_im2col_enabled() && !pointwise_ && !depthwise_ && Im2colConv::suits(weight_, args_))
    im2col_ = std::make_unique<const Im2colConv>(weight_, bias_, epilogue_);
  if (WinogradConv::suits(weight_, args_)) winograd_ = std::make_unique<const WinogradConv>(weight_, bias_, epilogue_);
}

PackedConv::~PackedConv() = default;

bool PackedConv::supports(const Tensor& weight, const Tensor& bias, const ConvArgs& args) {
  if (args.transposed || weight.dtype() != DType::Float32 || weight.dim() < 3 || weight.dim() > 5) return false;
  if (bias.defined() && (bias.dtype() != DType::Float32 || bias.dim() != 1)) return false;
  for (auto s : weight.sizes())
    if (s == 0) return false;
  return args.groups >= 1;
}

std::shared_ptr<const PackedConv::Primitive> PackedConv::primitive_for(const ConvParams& p) const {
  const int threads = omp_in_parallel() ? 1 : omp_get_max_threads();
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& pl : primitives_)
    if (pl->n == p.n && pl->h == p.h && pl->w == p.w && pl->ph == p.ph && pl->ph_after == p.ph_after && pl->threads == threads) return pl;
  const auto& eng = dnnl_engine();
  const int64_t g = p.groups;
  const dnnl::memory::dims src{p.n, p.c, p.h, p.w}, dst{p.n, p.oc, p.oh, p.ow};
  const dnnl::memory::dims wdims = g == 1 ? dnnl::memory::dims{p.oc, p.c, p.kh, p.kw}
                                          : dnnl::memory::dims{g, p.oc / g, p.c / g, p.kh, p.kw};
  const dnnl::memory::desc src_d(src, dt::f32, tag::nhwc), dst_d(dst, dt::f32, tag::nhwc), w_any(wdims, dt::f32, tag::any);
  dnnl::primitive_attr attr;
  attr.set_post_ops(dnnl_post_ops(dnnl_epilogue_));
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  const auto desc = conv_desc(p, dnnl::algorithm::convolution_direct, src_d, w_any, dst_d, bias_.defined());
  auto plan = std::make_shared<Primitive>();
  plan->n = p.n;
  plan->h = p.h;
  plan->w = p.w;
  plan->ph = p.ph;
  plan->ph_after = p.ph_after;
  plan->threads = threads;
  if (winograd_suits(p)) plan->blocked = winograd_primitive(p, bias_.defined(), attr, plan->pd);
  if (!plan->blocked && !jit_dw_primitive(p, desc, attr, plan->pd) && !small_direct_primitive(p, desc, attr, plan->pd)) {
    plan->pd = conv_primitive_desc(desc, attr, plan->epilogue_after);
  }
  plan->prim = dnnl::convolution_forward(plan->pd);
  // Weights: reuse a packing another plan already made in the same layout.
  for (const auto& pl : primitives_)
    if (pl->pd.weights_desc() == plan->pd.weights_desc()) plan->weights = pl->weights;
  if (!plan->weights)
    plan->weights = pack_weights(dnnl::memory::desc(wdims, dt::f32, g == 1 ? tag::oihw : tag::goihw), weight_.data(), plan->pd.weights_desc());
  if (bias_.defined()) plan->bias = dnnl::memory(dnnl::memory::desc({p.oc}, dt::f32, tag::x), eng, const_cast<void*>(bias_.data()));
  plan->nhwc_src = src_d;
  plan->nhwc_dst = dst_d;
  plan->nchw_src = dnnl::memory::desc(src, dt::f32, tag::nchw);
  plan->nchw_dst = dnnl::memory::desc(dst, dt::f32, tag::nchw);
  if (plan->blocked) {
    plan->blk_src = plan->pd.src_desc();
    plan->blk_dst = plan->pd.dst_desc();
    auto reorder = [&](const dnnl::memory::desc& from, const dnnl::memory::desc& to) {
      return dnnl::reorder(dnnl::reorder::primitive_desc(eng, from, eng, to));
    };
    plan->nhwc_to_blk_src = reorder(src_d, plan->blk_src);
    plan->nchw_to_blk_src = reorder(plan->nchw_src, plan->blk_src);
    plan->blk_to_nhwc_dst = reorder(plan->blk_dst, dst_d);
    plan->blk_to_nchw_dst = reorder(plan->blk_dst, plan->nchw_dst);
    if (has_residual(epilogue_)) {
      plan->nhwc_to_blk_dst = reorder(dst_d, plan->blk_dst);
      plan->nchw_to_blk_dst = reorder(plan->nchw_dst, plan->blk_dst);
    }
  } else {
    plan->from_nchw = dnnl::reorder(dnnl::reorder::primitive_desc(eng, plan->nchw_src, eng, plan->nhwc_src));
    plan->to_nchw = dnnl::reorder(dnnl::reorder::primitive_desc(eng, plan->nhwc_dst, eng, plan->nchw_dst));
    if (has_residual(epilogue_))
      plan->from_nchw_dst = dnnl::reorder(dnnl::reorder::primitive_desc(eng, plan->nchw_dst, eng, plan->nhwc_dst));
  }
  if (primitives_.size() >= kMaxPlans) primitives_.erase(primitives_.begin());  // callers still running it hold their own reference
  primitives_.push_back(plan);
  return plan;
}

namespace {

// Below this a 1x1 convolution (a few channels: an inception branch's 3 -> 4, a shuffle unit's
// 8 -> 8 on 16x16) costs less as plain loops than oneDNN's reorders and primitive (4-5 us each).
constexpr double kTinyPointwiseFlops = 1e5;
// The loops run over pixels; on small images (2x2 with 96 channels) the per-channel loop
// overhead dominates and oneDNN's kernel is several times faster.
constexpr int64_t kTinyPointwiseMinPixels = 256;

// An image's few channels (RGB) interleaved pixel by pixel: oneDNN's reorder takes 35 us for a
// 3x224x224 image here. Three channels, the common case, as one vectorized loop (GCC interleaves
// with permutes under `omp simd`; as scalar strided stores the loop took 70 us of MNASNet's 3.9 ms).
constexpr int64_t kNarrowInputChannels = 4;

JITCTL_ALWAYS_INLINE void interleave_rgb_body(const float* __restrict r, const float* __restrict g, const float* __restrict b, float* __restrict d,
                                              int64_t n) {
#pragma omp simd
  for (int64_t q = 0; q < n; ++q) {
    d[3 * q] = r[q];
    d[3 * q + 1] = g[q];
    d[3 * q + 2] = b[q];
  }
}
JITCTL_ISA_CLONES(void, interleave_rgb, (const float* r, const float* g, const float* b, float* d, int64_t n), (r, g, b, d, n))

void nchw_to_nhwc_narrow(const float* src, float* dst, int64_t n, int64_t c, int64_t hw) {
  for (int64_t b = 0; b < n; ++b) {
    const float* s = src + b * c * hw;
    float* d = dst + b * c * hw;
    parallel_for(0, hw, kGrainSize, [&](int64_t p0, int64_t p1) {
      if (c == 3) {
        interleave_rgb(s + p0, s + hw + p0, s + 2 * hw + p0, d + 3 * p0, p1 - p0);
        return;
      }
      for (int64_t ch = 0; ch < c; ++ch) {
        const float* sc = s + ch * hw;
        for (int64_t q = p0; q < p1; ++q) d[q * c + ch] = sc[q];
      }
    });
  }
}

}  // namespace

// out[oc, p] = bias[oc] + sum_ic w[oc, ic] x[ic, p] per image of a contiguous (NCHW) input, over
// the pixels p in a vector; the epilogue over the result; the output in the layout asked for.
// (A channels-last input goes to oneDNN, which reads it without a reorder: measured faster.)
Tensor PackedConv::run_tiny_pointwise(const Tensor& input, const Tensor& residual, const ConvParams& p, bool channels_last_out) const {
  const int64_t pixels = p.h * p.w, c = p.c, oc = p.oc;
  const int64_t sn = c * pixels, sc = pixels;
  const float* xs = static_cast<const float*>(input.data());
  const float* w = static_cast<const float*>(weight_.data());
  const float* bias = bias_.defined() ? static_cast<const float*>(bias_.data()) : nullptr;
  Tensor acc = new_output(DType::Float32, p.out_sizes);
  float* a = static_cast<float*>(acc.mutable_data());
  for (int64_t n = 0; n < p.n; ++n)
    for (int64_t o = 0; o < oc; ++o) {
      float* row = a + (n * oc + o) * pixels;
      const float b = bias ? bias[o] : 0.0f;
      for (int64_t q = 0; q < pixels; ++q) row[q] = b;
      for (int64_t i = 0; i < c; ++i) {
        const float wv = w[o * c + i];
        const float* xr = xs + n * sn + i * sc;
        for (int64_t q = 0; q < pixels; ++q) row[q] += wv * xr[q];
      }
    }
  Tensor out = acc;
  if (!epilogue_.empty()) {
    out = new_output(DType::Float32, p.out_sizes);
    if (has_residual(epilogue_)) copy_into(residual, out);  // finish_row_f32 adds what the output holds
    finish_row_f32(a, nullptr, epilogue_, acc.numel(), static_cast<float*>(out.mutable_data()));
  }
  if (!channels_last_out) return out;
  Tensor cl = new_output_strided(DType::Float32, p.out_sizes, channels_last_strides(p.out_sizes));
  copy_into(out, cl);
  return cl;
}

// The input pixels a strided 1x1 layer reads, dense channels-last [N, C, OH, OW].
Tensor PackedConv::pixels_read(const Tensor& input, const ConvParams& p) {
  const std::vector<int64_t> sizes{p.n, p.c, p.oh, p.ow};
  Tensor out = new_output_strided(DType::Float32, sizes, channels_last_strides(sizes));
  const int64_t ld = channels_last_pixel_stride(input);
  const auto* x = static_cast<const float*>(input.data());
  auto* y = static_cast<float*>(out.mutable_data());
  parallel_for(0, p.n * p.oh, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, p.ow * p.c)), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t n = r / p.oh, oy = r % p.oh;
      copy_channel_rows(x + ((n * p.h + oy * p.sh) * p.w) * ld, ld * p.sw, y + r * p.ow * p.c, p.c, p.c, p.ow);
    }
  });
  return out;
}

// A 1x1 convolution of 1x1 images (a squeeze-and-excitation block's two convolutions) is a
// matrix-vector product per image: the weights [OC, IC, 1, 1] read as stored, the bias and the
// whole epilogue applied to the row. oneDNN's primitive costs 10-15 us of setup for this
// (EfficientNet-B0 runs 32 of them a call); the pass over the weights costs 1-5.
Tensor PackedConv::run_pointwise_1x1(const Tensor& input, const Tensor& residual, const ConvParams& p, bool channels_last_out) const {
  Tensor out = channels_last_out ? new_output_strided(DType::Float32, p.out_sizes, channels_last_strides(p.out_sizes))
                                 : new_output(DType::Float32, p.out_sizes);
  if (has_residual(epilogue_)) copy_into(residual, out);  // finish_row_f32 adds what the output holds
  // [N, C, 1, 1] in any layout: each image's channels are one strided row.
  const Tensor x = contiguous(input);
  const float* xs = static_cast<const float*>(x.data());
  float* ys = static_cast<float*>(out.mutable_data());
  const float* bias = bias_.defined() ? static_cast<const float*>(bias_.data()) : nullptr;
  std::vector<float> acc(static_cast<size_t>(p.oc));
  for (int64_t i = 0; i < p.n; ++i) {
    gemv_f32(static_cast<const float*>(weight_.data()), xs + i * p.c, p.oc, p.c, acc.data());
    finish_row_f32(acc.data(), bias, epilogue_, p.oc, ys + i * p.oc);
  }
  return out;
}

// The primitive from src into dst (the bias and the packed weights its own), then the SiLU that
// runs after oneDNN's kernel, over all of dst.
void PackedConv::execute(const Primitive& plan, const dnnl::memory& src, const dnnl::memory& dst) const {
  auto& stream = dnnl_stream();
  execute_conv(plan.prim, plan.pd, src, plan.weights, plan.bias, dst, plan.epilogue_after, epilogue_);
  if (plan.epilogue_after) return;  // the whole epilogue, a trailing SiLU included, is applied
  if (silu_after_) {
    stream.wait();
    float* d = static_cast<float*>(dst.get_data_handle());
    parallel_for(0, static_cast<int64_t>(dst.get_desc().get_size() / sizeof(float)), kGrainSize,
                 [&](int64_t b, int64_t e) { activation_f32(Activation::Silu, d + b, d + b, e - b); });
  }
}

bool PackedConv::runs_rows_1x1() const {
  const auto all = [](const std::vector<int64_t>& v, int64_t x) { return std::all_of(v.begin(), v.end(), [&](int64_t e) { return e == x; }); };
  return weight_.dim() == 4 && weight_.sizes()[2] == 1 && weight_.sizes()[3] == 1 && args_.groups == 1 && !args_.transposed &&
         args_.padding_mode.empty() && all(args_.stride, 1) && all(args_.padding, 0) && all(args_.dilation, 1) && !has_residual(epilogue_);
}

const PointwiseConv* PackedConv::pointwise_1x1() const { return pointwise_ && !pointwise_strided_ && runs_rows_1x1() ? pointwise_.get() : nullptr; }

const DepthwiseChannels* PackedConv::depthwise_channels() const {
  std::call_once(depthwise_channels_once_, [&] {
    if (own_depthwise_enabled() && DepthwiseChannels::suits(weight_, args_, epilogue_)) depthwise_channels_ = std::make_unique<const DepthwiseChannels>(weight_, bias_, args_, epilogue_);
  });
  return depthwise_channels_.get();
}

void PackedConv::rows_1x1(const float* x, int64_t rows, int64_t w, float* y) const {
  if (pointwise_ && pointwise_->prefers(rows * w)) return pointwise_->run_pixels(x, rows * w, y);
  ConvParams p{};
  p.n = 1, p.c = weight_.sizes()[1], p.h = rows, p.w = w, p.oc = weight_.sizes()[0];
  p.kh = p.kw = p.sh = p.sw = p.dh = p.dw = p.groups = 1;
  p.oh = rows, p.ow = w, p.spatial_dims = 2;
  p.out_sizes = {1, p.oc, rows, w};
  rows_from_band(p, x, y);
}

void PackedConv::rows_from_band(const ConvParams& band_params, const float* band, float* out) const {
  const auto plan = primitive_for(band_params);
  const auto& eng = dnnl_engine();
  execute(*plan, dnnl::memory(plan->nhwc_src, eng, const_cast<float*>(band)), dnnl::memory(plan->nhwc_dst, eng, out));
  dnnl_stream().wait();
}

// A primitive on oneDNN's blocked layout (Winograd): the input converted into scratch, the
// residual (when there is one) into the destination scratch for the sum post-op, the result
// converted into the output in the layout asked for.
Tensor PackedConv::run_blocked(const Tensor& input, const Tensor& residual, const ConvParams& p, const Primitive& plan,
                               bool channels_last_out) const {
  const auto& eng = dnnl_engine();
  auto& stream = dnnl_stream();
  auto convert = [&](const Tensor& t, const dnnl::reorder& from_nhwc, const dnnl::reorder& from_nchw, const dnnl::memory::desc& nchw,
                     dnnl::memory to) {
    const dnnl::memory::desc d = desc_4d(t);
    dnnl::memory user(d, eng, const_cast<void*>(t.data()));
    if (dense_nhwc(d))
      from_nhwc.execute(stream, user, to);
    else if (d == nchw)
      from_nchw.execute(stream, user, to);
    else
      dnnl::reorder(user, to).execute(stream, user, to);
  };
  dnnl::memory src(plan.blk_src, eng, scratch_buffer(ScratchSlot::ConvSrc, plan.blk_src.get_size()));
  convert(input, plan.nhwc_to_blk_src, plan.nchw_to_blk_src, plan.nchw_src, src);
  dnnl::memory dst(plan.blk_dst, eng, scratch_buffer(ScratchSlot::ConvDst, plan.blk_dst.get_size()));
  if (has_residual(epilogue_)) convert(residual, plan.nhwc_to_blk_dst, plan.nchw_to_blk_dst, plan.nchw_dst, dst);
  execute(plan, src, dst);
  Tensor out = channels_last_out ? new_output_strided(DType::Float32, p.out_sizes, channels_last_strides(p.out_sizes))
                                 : new_output(DType::Float32, p.out_sizes);
  dnnl::memory o(channels_last_out ? plan.nhwc_dst : plan.nchw_dst, eng, out.mutable_data());
  (channels_last_out ? plan.blk_to_nhwc_dst : plan.blk_to_nchw_dst).execute(stream, dst, o);
  stream.wait();
  return out;
}

// The convolution on WinogradConv (which takes it): into a new channels-last(-3d) output, or into
// the residual's own bytes when nobody else holds it, as on oneDNN's path below.
Tensor PackedConv::run_winograd(const Tensor& input, const Tensor& residual, const ConvParams& p) const {
  const bool in_place = has_residual(epilogue_) && residual.sole_owner() && residual.storage_offset() == 0 && residual.data() != input.data();
  Tensor out = in_place ? residual
                        : new_output_strided(DType::Float32, p.out_sizes,
                                             p.spatial_dims == 3 ? channels_last_3d_strides(p.out_sizes) : channels_last_strides(p.out_sizes));
  winograd_->run(input, residual, p, out);
  return out;
}

bool PackedConv::runs_winograd(const Tensor& input, const Tensor& residual) const {
  const ConvParams p = conv_params(input, weight_, bias_, args_, "convolution");
  if (winograd_ && winograd_->takes(input, residual, p)) return true;
  if (p.spatial_dims == 3) return false;
  return winograd_suits(p) && primitive_for(p)->blocked;
}

// Depthwise layers whose input and output fit in L2 together run on DepthwiseChannels (AVX-512
// and AVX2; the numbers are AVX-512's):
// kernel_bench, one thread, oneDNN -> DepthwiseChannels: 480 channels 14x14 5x5 58 -> 42 us,
// 1152 7x7 5x5 32 -> 27, 384 14x14 7x7 79 -> 54. Larger ones stay on oneDNN's kernel, which
// keeps its lead where the layer streams from L3 (144 56x56 3x3 89 against 106-112).
const DepthwiseChannels* PackedConv::depthwise_channels_for(const Tensor& input, const ConvParams& p) const {
  if (p.spatial_dims != 2 || has_residual(epilogue_) || p.groups != p.c || p.oc != p.c || p.ph != p.ph_after || p.pw != p.pw_after)
    return nullptr;
  const int64_t bytes = (p.h * p.w + p.oh * p.ow) * p.c * static_cast<int64_t>(sizeof(float));
  // On AVX2 oneDNN's kernel is weaker: DepthwiseChannels also beats it from L3 on images at least
  // 28 wide once the kernel is 5x5 or wider (kernel_bench, one thread, fastest of five runs:
  // ConvNeXt-T's 96 56x56 7x7 0.459 -> 0.442 ms, 192 28x28 7x7 0.236 -> 0.215; in the model,
  // JITCTL_PROFILE=shapes at one thread, 499 -> 472 and 265 -> 258 us). Not on smaller images
  // (ConvNeXt-T's 384 14x14 7x7: 0.122 -> 0.127 warm, 148 -> 200 us in the model) nor for 3x3
  // kernels (MobileNetV2's 144 56x56 0.198 -> 0.218).
  const bool wide = cpu_features().isa == Isa::Avx2 && p.kh * p.kw >= 25 && p.ow >= 28;
  if (channels_last_pixel_stride(input) != p.c || (bytes > cpu_features().l2_bytes && !wide)) return nullptr;
  return depthwise_channels();
}

bool PackedConv::runs_depthwise_channels(const Tensor& input) const {
  return depthwise_channels_for(input, conv_params(input, weight_, bias_, args_, "convolution")) != nullptr;
}

// Items of one output row x up to 64 channels, split in consecutive runs over the threads (a
// 7-row image splits evenly); each thread's run is one call per row it touches. The input is
// dense channels-last (depthwise_channels_for).
Tensor PackedConv::run_depthwise_channels(const DepthwiseChannels& dc, const Tensor& input, const ConvParams& p) const {
  Tensor out = new_output_strided(DType::Float32, p.out_sizes, channels_last_strides(p.out_sizes));
  const auto* x = static_cast<const float*>(input.data());
  auto* y = static_cast<float*>(out.mutable_data());
  constexpr int64_t kChannels = 64;
  const int64_t groups = (p.c + kChannels - 1) / kChannels;
  const double item_flops = 2.0 * static_cast<double>(p.ow * std::min(p.c, kChannels) * p.kh * p.kw);
  parallel_for(0, p.n * p.oh * groups, grain_for_flops(item_flops), [&](int64_t i0, int64_t i1) {
    for (int64_t i = i0; i < i1;) {
      const int64_t img = i / (p.oh * groups), oy = i / groups % p.oh, g0 = i % groups, g1 = std::min(groups, g0 + (i1 - i));
      dc.run_rows(x + img * p.h * p.w * p.c, 0, p.h, p.w, p.c, g0 * kChannels, std::min(p.c, g1 * kChannels), oy, oy + 1,
                  y + img * p.oh * p.ow * p.c);
      i += g1 - g0;
    }
  });
  return out;
}

bool PackedConv::runs_pointwise(const Tensor& input, const Tensor& residual) const {
  if (!pointwise_) return false;
  const ConvParams p = conv_params(input, weight_, bias_, args_, "convolution");
  return p.spatial_dims == 2 && pointwise_->takes(input, residual, p.oh, p.ow);
}

std::shared_ptr<const ConvParams> PackedConv::params_for(const Tensor& input) const {
  if (input.dtype() == weight_.dtype()) {  // else conv_params says what is wrong
    std::lock_guard<std::mutex> lock(mu_);
    if (last_params_ && input.sizes() == last_params_sizes_) return last_params_;
  }
  auto p = std::make_shared<const ConvParams>(conv_params(input, weight_, bias_, args_, "convolution"));
  std::lock_guard<std::mutex> lock(mu_);
  last_params_ = p;
  last_params_sizes_ = input.sizes();
  return p;
}

Tensor PackedConv::run(const Tensor& input_arg, const Tensor& residual, bool channels_last_out) const {
  const std::shared_ptr<const ConvParams> params = params_for(input_arg);
  const ConvParams& p = *params;
  const bool two_d = p.spatial_dims == 2;
  if (p.n == 0) return new_output(DType::Float32, p.out_sizes);
  if (input_arg.numel() == 0) throw Unsupported("convolution of an input with no elements per image");
  // Nothing but the caller's handle holds the input: a layer may write its output over it.
  const bool input_dies = input_arg.sole_owner();
  // A channel slice of a wider channels-last tensor (ShuffleNet's chunks): PointwiseConv reads
  // it in place; for the other kernels its rows are made dense first (a reorder for its strides
  // would be built on every call, and the own kernels read dense rows).
  Tensor input = input_arg;
  if (const int64_t ld = two_d ? channels_last_pixel_stride(input_arg) : 0;
      ld > p.c && !(pointwise_ && channels_last_out && pointwise_->takes(input_arg, residual, p.oh, p.ow))) {
    input = new_output_strided(DType::Float32, input_arg.sizes(), channels_last_strides(input_arg.sizes()));
    copy_channel_rows(static_cast<const float*>(input_arg.data()), ld, static_cast<float*>(input.mutable_data()), p.c, p.c, p.n * p.h * p.w);
  }
  const bool add = has_residual(epilogue_);
  if (add && (!residual.defined() || residual.sizes() != p.out_sizes || residual.dtype() != DType::Float32))
    throw InvalidInput(fmt::format("convolution: the residual added to the output must have size {}, got {}", shape_string(p.out_sizes),
                                   residual.defined() ? shape_string(residual.sizes()) : "None"));
  if (p.spatial_dims == 3) {
    if (winograd_ && channels_last_out && winograd_->takes(input, residual, p)) return run_winograd(input, residual, p);
    return conv3d_->run(input, residual, p, channels_last_out);
  }
  if (two_d && p.h == 1 && p.w == 1 && p.oh == 1 && p.ow == 1 && p.kh == 1 && p.kw == 1 && p.groups == 1)
    return run_pointwise_1x1(input, residual, p, channels_last_out);
  const double flops = 2.0 * static_cast<double>(p.n * p.oc * p.oh * p.ow) * static_cast<double>(p.c / p.groups * p.kh * p.kw);
  if (two_d && p.kh == 1 && p.kw == 1 && p.sh == 1 && p.sw == 1 && p.ph == 0 && p.pw == 0 && p.ph_after == 0 && p.pw_after == 0 &&
      p.groups == 1 && flops < kTinyPointwiseFlops && p.h * p.w >= kTinyPointwiseMinPixels && input.is_contiguous())
    return run_tiny_pointwise(input, residual, p, channels_last_out);
  if (pointwise_ && two_d && channels_last_out && pointwise_->takes(input, residual, p.oh, p.ow)) {
    Tensor out = new_output_strided(DType::Float32, p.out_sizes, channels_last_strides(p.out_sizes));
    pointwise_->run(pointwise_strided_ ? pixels_read(input, p) : input, residual, out);
    return out;
  }
  if ((narrow_ || (im2col_ && Im2colConv::takes_params(p))) && channels_last_out && p.c <= kNarrowInputChannels && input.is_contiguous() &&
      input.dim() == 4 && p.c > 1) {
    // The network's own input (NCHW, RGB): interleaved first, as for oneDNN.
    Tensor nhwc = new_output_strided(DType::Float32, input.sizes(), channels_last_strides(input.sizes()));
    nchw_to_nhwc_narrow(static_cast<const float*>(input.data()), static_cast<float*>(nhwc.mutable_data()), p.n, p.c, p.h * p.w);
    input = nhwc;
  }
  if (narrow_ && channels_last_out && narrow_->takes(input, residual, p)) {
    Tensor out = new_output_strided(DType::Float32, p.out_sizes, channels_last_strides(p.out_sizes));
    narrow_->run(input, residual, p, out);
    return out;
  }
  if (grouped_ && two_d && channels_last_out && grouped_->takes(input, residual, p)) {
    Tensor out = new_output_strided(DType::Float32, p.out_sizes, channels_last_strides(p.out_sizes));
    grouped_->run(input, residual, p, out);
    return out;
  }
  if (wide_grouped_ && two_d && channels_last_out && wide_grouped_->takes(input, residual, p)) {
    Tensor out = new_output_strided(DType::Float32, p.out_sizes, channels_last_strides(p.out_sizes));
    wide_grouped_->run(input, residual, p, out);
    return out;
  }
  if (im2col_ && two_d && channels_last_out && im2col_->takes(input, residual, p)) {
    Tensor out = new_output_strided(DType::Float32, p.out_sizes, channels_last_strides(p.out_sizes));
    im2col_->run(input, residual, p, out);
    return out;
  }
  if (winograd_ && two_d && channels_last_out && winograd_->takes(input, residual, p)) return run_winograd(input, residual, p);
  if (depthwise_ && two_d && channels_last_out && depthwise_->takes(input)) {
    if ((input_dies || input.data() != input_arg.data()) && depthwise_->takes_in_place(input, p)) {
      Tensor out = input;
      depthwise_->run_in_place(out, p);
      return out;
    }
    Tensor out = new_output_strided(DType::Float32, p.out_sizes, channels_last_strides(p.out_sizes));
    depthwise_->run(input, p, out);
    return out;
  }
  if (const DepthwiseChannels* dc = channels_last_out ? depthwise_channels_for(input, p) : nullptr)
    return run_depthwise_channels(*dc, input, p);
  const SmallWorkOnOneThread small(flops);
  const auto prim_ref = primitive_for(p);
  const Primitive& plan = *prim_ref;
  if (plan.blocked) return run_blocked(input, residual, p, plan, channels_last_out);
  const auto& eng = dnnl_engine();
  auto& stream = dnnl_stream();

  // Source: in place when already channels-last, else converted into scratch.
  const dnnl::memory::desc in_d = desc_4d(input);
  dnnl::memory src;
  if (dense_nhwc(in_d)) {
    src = dnnl::memory(plan.nhwc_src, eng, const_cast<void*>(input.data()));
  } else {
    src = dnnl::memory(plan.nhwc_src, eng, scratch_buffer(ScratchSlot::ConvSrc, plan.nhwc_src.get_size()));
    dnnl::memory user(in_d, eng, const_cast<void*>(input.data()));
    if (in_d == plan.nchw_src && p.c <= kNarrowInputChannels)
      nchw_to_nhwc_narrow(static_cast<const float*>(input.data()), static_cast<float*>(src.get_data_handle()), p.n, p.c, p.h * p.w);
    else if (in_d == plan.nchw_src)
      plan.from_nchw.execute(stream, user, src);
    else
      dnnl::reorder(user, src).execute(stream, user, src);
  }

  // Destination: the output itself when it is channels-last, else scratch converted afterwards.
  const bool direct_out = channels_last_out && two_d;
  // A residual nobody else can see (moved here at its last use), already channels-last: the sum
  // post-op adds into its bytes, which become the output. Saves copying it into a new output
  // first: a single-threaded pass over ResNet-50's largest activations (3 MiB) that kept its
  // 56x56 residual convolutions at 1.1x their 1-thread time on 2 threads.
  const bool in_place = add && direct_out && residual.sole_owner() && residual.storage_offset() == 0 &&
                        dense_nhwc(desc_4d(residual)) && residual.data() != input.data();
  Tensor out = in_place                  ? residual
               : two_d && channels_last_out ? new_output_strided(DType::Float32, p.out_sizes, channels_last_strides(p.out_sizes))
                                          : new_output(DType::Float32, p.out_sizes);
  dnnl::memory dst = direct_out ? dnnl::memory(plan.nhwc_dst, eng, out.mutable_data())
                                : dnnl::memory(plan.nhwc_dst, eng, scratch_buffer(ScratchSlot::ConvDst, plan.nhwc_dst.get_size()));
  if (add && !in_place) {
    // The sum post-op adds to what dst holds: the residual, copied in (a plain copy when it is
    // already channels-last, on all threads; building a reorder per call costs more than the copy).
    const dnnl::memory::desc rd = desc_4d(residual);
    if (dense_nhwc(rd)) {
      copy_bytes_parallel(dst.get_data_handle(), residual.data(), plan.nhwc_dst.get_size());
    } else {
      dnnl::memory r(rd, eng, const_cast<void*>(residual.data()));
      if (rd == plan.nchw_dst)
        plan.from_nchw_dst.execute(stream, r, dst);
      else
        dnnl::reorder(r, dst).execute(stream, r, dst);
    }
  }
  execute(plan, src, dst);
  if (!direct_out) {
    dnnl::memory o(plan.nchw_dst, eng, out.mutable_data());
    plan.to_nchw.execute(stream, dst, o);
  }
  stream.wait();
  return out;
}

}  // namespace jitctl::cpu
