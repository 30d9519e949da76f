#pragma once
// Pointwise (1x1, stride 1) float32 convolution on channels-last activations: the expand and
// project layers of MobileNet, MNASNet and EfficientNet blocks, SqueezeNet's squeeze layers.
//
// On channels-last data a 1x1 convolution is a matrix product, pixels x input channels times
// input x output channels. The kernel keeps a tile of pixels x up to four vectors of output
// channels in registers (6x64 to 12x16 on AVX-512), broadcasts each input value from memory into
// the multiply-adds, and applies the bias, a residual add and ReLU/ReLU6/hardswish/SiLU before the
// store. Work is split into pixel chunks (L2-resident) x groups of output channels (their packed
// weights L1- or L2-resident). Output channel counts off the vector width end with an
// overlapping vector (those channels are computed twice, equally).
//
// Against oneDNN's 1x1 kernel (brgconv) through PackedConv, one thread, warm caches: MNASNet's and
// MobileNetV2's shapes (16 -> 48 on 112x112 through 1152 -> 192 on 7x7) 0.80-0.98 of its time,
// most of the difference being oneDNN's per-call cost. On AVX2 a 6x16 tile (12x8 for a last
// half vector) takes the layers with at least four times as many output channels as pixels
// (prefers()).
#include <cstdint>
#include <vector>

#include "kernels/cpu/aligned_floats.h"
#include "kernels/cpu/conv.h"
#include "kernels/cpu/epilogue.h"
#include "lib/core/tensor.h"

namespace jitctl::cpu {

class PointwiseConv {
 public:
  // Whether this kernel takes the convolution: float32 weight [OC, C, 1, 1] with OC > 16, groups
  // 1, stride 1, no padding or dilation, on AVX-512 or AVX2; the epilogue nothing, one activation (ReLU,
  // ReLU6/clamp, hardswish, SiLU), a residual add, or a residual add then one of those activations.
  static bool suits(const Tensor& weight, const ConvArgs& args, const Epilogue& epilogue);

  // weight and bias (or undefined) as for PackedConv; packed here once.
  PointwiseConv(const Tensor& weight, const Tensor& bias, Epilogue epilogue);

  // Whether run() takes this call: a channels-last 4-D input of the weight's channel count (a
  // channel slice of a wider one too) and, when the epilogue adds one, a dense channels-last
  // residual of the output's size [N, OC, oh, ow]. oh x ow is the input's own for a stride-1
  // layer; PackedConv passes a strided layer's, and runs it on the pixels it reads.
  // On AVX2 also only where prefers() holds for the call's N x oh x ow pixels.
  bool takes(const Tensor& input, const Tensor& residual, int64_t oh, int64_t ow) const;

  // Whether this kernel beats oneDNN's over `pixels` output pixels: always on AVX-512; on AVX2
  // with at least kAvx2OutputsPerPixel (4) times as many output channels as pixels (the 7x7
  // stages, which it splits by output channels: on two threads 0.6-0.9 of oneDNN's time; on
  // larger images 1.03-1.15 of it, pointwise_conv.cpp).
  bool prefers(int64_t pixels) const;

  // out: dense channels-last [N, OC, H, W], not aliasing input or residual.
  void run(const Tensor& input, const Tensor& residual, Tensor& out) const;

  // The same over `pixels` dense channels-last pixels at x into y, on the calling thread only, for
  // an epilogue without a residual: one band of rows of a larger image (expand_depthwise.h).
  void run_pixels(const float* x, int64_t pixels, float* y) const;

  // The output's 16-channel vectors: vector v holds channels [vector_channel(v), +16); when OC is
  // not a multiple of 16 the last one overlaps the one before it.
  int64_t vector_count() const { return static_cast<int64_t>(cols_.size()); }
  int64_t vector_channel(int64_t v) const { return cols_[static_cast<size_t>(v)]; }
  // run_pixels for output vectors [v0, v1) only: y's pixels are still OC floats apart, and only
  // those vectors' channels of them are written (expand_depthwise's split by channels).
  void run_vectors(const float* x, int64_t pixels, float* y, int64_t v0, int64_t v1) const;

 private:
  int64_t c_, oc_;
  std::vector<int64_t> cols_;  // first output channel of each vector of outputs
  AlignedFloats w_;     // per group of vectors (4 on AVX-512, 1 on AVX2): [C][vectors][16]
  AlignedFloats bias_;  // [vectors][16]
  Epilogue epilogue_;
};

}  // namespace jitctl::cpu
