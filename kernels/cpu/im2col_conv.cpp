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
// A network's first layer (at most this many input channels, interleaved first by PackedConv) with
// a stride over 2 and windows that overlap, at any size: AlexNet's 11x11 stride-4 3 -> 64 layer,
// 3025 output pixels, ran on oneDNN's AVX2 kernel at 41 GFLOP/s (kernel_bench
// packed_stem_11x11s4_64_224, one / two threads: 3.39-3.48 / 1.74-1.84 ms; here 1.94 / 1.03-1.31;
// ONNX Runtime's took 1.5 ms at one thread). Strides 1 and 2 stay on oneDNN, near the core's peak
// there (ResNet's 7x7 stride-2 stem: 2.39 ms, 99 GFLOP/s), and so do patch embeddings, whose
// windows do not overlap (Swin-T's 4x4 stride 4: 0.34-0.39 ms on oneDNN, 0.48 here, K only 48;
// ViT-B/16's 16x16 stride 16: the same either way).
constexpr int64_t kStemMaxChannels = 4;
// From this many output pixels on, rows are gathered and multiplied a block at a time, each block
// on one thread (the GEMM's own row chunk: 72 rows, 104 KB gathered for a 363-tap stem).
constexpr int64_t kBlockRows = 72;
constexpr int64_t kBlockedMinRows = 8 * kBlockRows;

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

bool Im2colConv::takes_params(const ConvParams& p) {
  if (p.spatial_dims != 2) return false;
  if (p.c <= kStemMaxChannels && (p.sh > 2 || p.sw > 2) && (p.kh > p.sh || p.kw > p.sw)) return true;
  const bool wider = p.sh > 1 || p.sw > 1 || (p.kh == 1 && p.kw > 1);
  return p.n * p.oh * p.ow <= (wider ? kMaxWiderPixels : kMaxPixels);
}

bool Im2colConv::takes(const Tensor& input, const Tensor& residual, const ConvParams& p) const {
  if (!takes_params(p) || !dense_channels_last(input) || p.c != ic_ || p.oc != oc_) return false;
  if (!add_) return true;
  return residual.defined() && dense_channels_last(residual) && residual.sizes() == p.out_sizes;
}

void Im2colConv::gather(const float* x, const ConvParams& p, int64_t r0, int64_t r1, float* cols) const {
  const int64_t k = kh_ * kw_ * ic_;
  for (int64_t r = r0; r < r1; ++r) {
    const int64_t n = r / (p.oh * p.ow), oy = r / p.ow % p.oh, ox = r % p.ow;
    float* dst = cols + (r - r0) * k;
    // A window row wholly inside the image is kw * ic consecutive floats of a channels-last
    // row (dilation 1): one copy, not kw (a stem's taps are 3 floats each).
    const int64_t ix0 = ox * p.sw - p.pw;
    const bool row_inside = p.dw == 1 && ix0 >= 0 && ix0 + kw_ <= p.w;
    for (int64_t ky = 0; ky < kh_; ++ky) {
      const int64_t iy = oy * p.sh - p.ph + ky * p.dh;
      if (row_inside && iy >= 0 && iy < p.h) {
        std::memcpy(dst, x + ((n * p.h + iy) * p.w + ix0) * ic_, static_cast<size_t>(kw_ * ic_) * sizeof(float));
        dst += kw_ * ic_;
        continue;
      }
      for (int64_t kx = 0; kx < kw_; ++kx, dst += ic_) {
        const int64_t ix = ox * p.sw - p.pw + kx * p.dw;
        if (iy < 0 || iy >= p.h || ix < 0 || ix >= p.w)
          std::fill(dst, dst + ic_, 0.0f);
        else
          std::memcpy(dst, x + ((n * p.h + iy) * p.w + ix) * ic_, static_cast<size_t>(ic_) * sizeof(float));
      }
    }
  }
}

void Im2colConv::run(const Tensor& input, const Tensor& residual, const ConvParams& p, Tensor& out) const {
  const int64_t rows = p.n * p.oh * p.ow, k = kh_ * kw_ * ic_;
  const float* x = static_cast<const float*>(input.data());
  const float* bias = bias_.defined() ? static_cast<const float*>(bias_.data()) : nullptr;
  float* y = static_cast<float*>(out.mutable_data());
  // The epilogue's Add reads the residual from the output, as multiply's contract has it.
  if (add_) copy_bytes_parallel(y, residual.data(), out.nbytes());
  if (rows >= kBlockedMinRows) {
    // Many pixels (a stem's thousands): each thread gathers a block of rows and multiplies it at
    // once, while the block is in its L2, instead of one gathered matrix of several MB (AlexNet's
    // 4.4) written out and read back twice.
    parallel_for(0, ceil_div(rows, kBlockRows), 1, [&](int64_t b0, int64_t b1) {
      auto* cols = static_cast<float*>(scratch_buffer(ScratchSlot::ConvSrc, static_cast<size_t>(kBlockRows * k) * sizeof(float)));
      for (int64_t blk = b0; blk < b1; ++blk) {
        const int64_t r0 = blk * kBlockRows, r1 = std::min(rows, r0 + kBlockRows);
        gather(x, p, r0, r1, cols);
        packed().multiply(cols, r1 - r0, k, bias, epilogue_, y + r0 * oc_, oc_);
      }
    });
    return;
  }
  auto* cols = static_cast<float*>(scratch_buffer(ScratchSlot::ConvSrc, static_cast<size_t>(rows * k) * sizeof(float)));
  parallel_for(0, rows, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, k)), [&](int64_t r0, int64_t r1) { gather(x, p, r0, r1, cols + r0 * k); });
  const SmallWorkOnOneThread small(2.0 * static_cast<double>(rows) * static_cast<double>(k) * static_cast<double>(oc_));
  packed().multiply(cols, rows, k, bias, epilogue_, y, oc_);
}

}  // namespace jitctl::cpu
