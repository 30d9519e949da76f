#include "kernels/cpu/im2col_conv.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "kernels/cpu/dnnl_util.h"
#include "kernels/cpu/scratch.h"
#include "kernels/cpu/tensor_util.h"
#include "kernels/parallel.h"

namespace jitctl::cpu {
namespace {

// Output pixels (all images) up to which the GEMM is faster than oneDNN's direct kernel. Measured
// on ResNet-18's layers capped at AVX2, one thread, wall time per call (oneDNN's from
// ONEDNN_VERBOSE): 7x7 outputs 1.90 against 2.15 ms (512 -> 512) and 0.95 against 1.19 (256 ->
// 512, stride 2); 14x14 outputs 1.88 against 1.80 (256 -> 256) and 1.00 against 0.93 (stride 2).
constexpr int64_t kMaxPixels = 64;
// Layers of stride 2 or more, and kernels one row high and wider than one (Inception's 1x7),
// up to more pixels: there oneDNN's AVX2 direct kernel is slower (Zen 3, kernel_bench, one / two
// threads, oneDNN -> this: ResNet's 128 -> 256 at 28 -> 14 1.44-1.52 -> 1.24 / 0.87-0.98 ->
// 0.68-0.77 ms; Inception-v3's 288 -> 384 at 35 -> 17, 289 pixels, 7.9-8.5 -> 6.9-7.4 / 3.9-5.5
// -> 3.7-3.9; its 192 -> 192 1x7 at 17x17 1.9-2.3 -> 1.60-1.64 / 0.95-1.78 -> 0.87-1.02, 160 ->
// 192 1.58 -> 1.34 / 0.79-1.49 -> 0.69-0.83), but not at 28x28 (ResNet's 64 -> 128 at 56 -> 28,
// 784 pixels: equal at one thread, 0.68-0.78 -> 0.83-0.88 at two) nor for 7x1 kernels (192 ->
// 192 at 17x17: 1.56 -> 1.63 at one thread).
constexpr int64_t kMaxWiderPixels = 320;

bool dense_channels_last(const Tensor& t) { return t.dim() == 4 && t.dtype() == DType::Float32 && is_channels_last(t); }

}  // namespace

bool Im2colConv::suits(const Tensor& weight, const ConvArgs& args) {
  return Avx2PackedWeight::preferred() && !args.transposed && args.groups == 1 && weight.dtype() == DType::Float32 && weight.dim() == 4 &&
         weight.numel() > 0;
}

Im2colConv::Im2colConv(const Tensor& weight, const Tensor& bias, Epilogue epilogue)
    : weight_(weight),
      bias_(bias.defined() ? contiguous(bias) : Tensor()),
      epilogue_(std::move(epilogue)),
      oc_(weight.sizes()[0]),
      ic_(weight.sizes()[1]),
      kh_(weight.sizes()[2]),
      kw_(weight.sizes()[3]),
      add_(has_residual(epilogue_)) {}

const Avx2PackedWeight& Im2colConv::packed() const {
  std::call_once(packed_once_, [&] {
    const Tensor wc = contiguous(weight_);
    const float* w = static_cast<const float*>(wc.data());
    const int64_t k = kh_ * kw_ * ic_;
    std::vector<float> w2(static_cast<size_t>(oc_ * k));  // [OC][KH][KW][IC], freed once packed
    for (int64_t o = 0; o < oc_; ++o)
      for (int64_t c = 0; c < ic_; ++c)
        for (int64_t t = 0; t < kh_ * kw_; ++t) w2[o * k + t * ic_ + c] = w[(o * ic_ + c) * kh_ * kw_ + t];
    packed_ = std::make_unique<const Avx2PackedWeight>(w2.data(), oc_, k);
  });
  return *packed_;
}

bool Im2colConv::takes(const Tensor& input, const Tensor& residual, const ConvParams& p) const {
  const bool wider = p.sh > 1 || p.sw > 1 || (p.kh == 1 && p.kw > 1);
  if (p.spatial_dims != 2 || p.n * p.oh * p.ow > (wider ? kMaxWiderPixels : kMaxPixels) || !dense_channels_last(input) || p.c != ic_ ||
      p.oc != oc_)
    return false;
  if (!add_) return true;
  return residual.defined() && dense_channels_last(residual) && residual.sizes() == p.out_sizes;
}

void Im2colConv::run(const Tensor& input, const Tensor& residual, const ConvParams& p, Tensor& out) const {
  const int64_t rows = p.n * p.oh * p.ow, k = kh_ * kw_ * ic_;
  auto* cols = static_cast<float*>(scratch_buffer(ScratchSlot::ConvSrc, static_cast<size_t>(rows * k) * sizeof(float)));
  const float* x = static_cast<const float*>(input.data());
  parallel_for(0, rows, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, k)), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t n = r / (p.oh * p.ow), oy = r / p.ow % p.oh, ox = r % p.ow;
      float* dst = cols + r * k;
      for (int64_t ky = 0; ky < kh_; ++ky) {
        const int64_t iy = oy * p.sh - p.ph + ky * p.dh;
        for (int64_t kx = 0; kx < kw_; ++kx, dst += ic_) {
          const int64_t ix = ox * p.sw - p.pw + kx * p.dw;
          if (iy < 0 || iy >= p.h || ix < 0 || ix >= p.w)
            std::fill(dst, dst + ic_, 0.0f);
          else
            std::memcpy(dst, x + ((n * p.h + iy) * p.w + ix) * ic_, static_cast<size_t>(ic_) * sizeof(float));
        }
      }
    }
  });
  float* y = static_cast<float*>(out.mutable_data());
  // The epilogue's Add reads the residual from the output, as multiply's contract has it.
  if (add_) std::memcpy(y, residual.data(), out.nbytes());
  const SmallWorkOnOneThread small(2.0 * static_cast<double>(rows) * static_cast<double>(k) * static_cast<double>(oc_));
  packed().multiply(cols, rows, k, bias_.defined() ? static_cast<const float*>(bias_.data()) : nullptr, epilogue_, y, oc_);
}

}  // namespace jitctl::cpu
