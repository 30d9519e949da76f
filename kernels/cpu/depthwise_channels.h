#pragma once
// A depthwise float32 convolution over a range of the channels and rows of a channels-last
// image, on the calling thread. Three callers:
//  - PackedConv, for depthwise layers whose input and output fit in L2 together (split over the
//    threads by rows and 64-channel runs);
//  - expand_depthwise's bands, on the expanded rows a band holds (instead of a oneDNN call per band);
//  - expand_depthwise's split by channels (a 7x7 to 28x28 image), where each thread expands its
//    own channels and runs this layer on them, reading nothing another thread wrote. Run apart on
//    two threads, PointwiseConv splits those expansions by output channels and oneDNN's depthwise
//    kernel splits its layer by rows, so half of what the depthwise layer read came from the
//    other core's cache (kernel_bench expand_dw_mnas_192_7_1152_k5: 0.155 ms on two threads
//    against 0.227 on one).
//
// The kernel walks output rows, blocks of 7, 8 or 14 output pixels across each row, and 16-channel
// vectors (a masked last one) in each block; a block's accumulators stay in registers. For kernel
// widths 3, 5 and 7 (and strides 1 and 2 for 3 and 5) each input pixel of a kernel row is loaded
// once and multiplied into every output that reads it; other widths load it once per tap.
// kernel_bench, one thread, oneDNN's kernel -> this one: 480 channels 14x14 5x5 58 -> 42 us,
// 1152 7x7 5x5 32 -> 27, 384 14x14 7x7 79 -> 54; but 144 56x56 3x3, whose 3.6 MB stream from L3,
// 89 -> 106 (PackedConv keeps such layers on oneDNN). Any kernel size, stride and symmetric
// padding, no dilation; the epilogue none, ReLU, ReLU6/clamp, hardswish or SiLU. AVX-512, and
// AVX2 with 8-channel vectors and blocks of at most 8 pixels (its 16 registers). On AVX2,
// kernel_bench, 16 alternating runs at two threads (medians, JITCTL_DEPTHWISE=0 -> on): MNASNet's
// 7x7 expansion + 5x5 depthwise pair split by channels 0.232 -> 0.182 ms, its 3x3 one 0.192 ->
// 0.171, 576 14x14 5x5 stride 2 0.184 -> 0.174; a lone 1152 7x7 5x5 layer at one thread 0.050 ->
// 0.038 at best. expand_depthwise's bands keep oneDNN's kernel on AVX2 (slower here there).
#include <cstdint>
#include <vector>

#include "kernels/cpu/conv.h"
#include "kernels/cpu/epilogue.h"
#include "lib/core/tensor.h"

namespace jitctl::cpu {

class DepthwiseChannels {
 public:
  // Whether this kernel takes the layer: float32 2-D weight [C, 1, KH, KW], groups C, not
  // transposed, zero padding, no dilation, an epilogue of at most one of the activations above,
  // on AVX-512 or AVX2.
  static bool suits(const Tensor& weight, const ConvArgs& args, const Epilogue& epilogue);

  // weight, bias (or undefined), args and epilogue as for PackedConv; packed here once.
  DepthwiseChannels(const Tensor& weight, const Tensor& bias, const ConvArgs& args, Epilogue epilogue);

  int64_t out_h(int64_t h) const { return (h + 2 * ph_ - kh_) / sh_ + 1; }
  int64_t out_w(int64_t w) const { return (w + 2 * pw_ - kw_) / sw_ + 1; }

  // Channels [c0, c1) of one image: x [h][w] pixels, channel ch of a pixel at x + pixel * ld + ch;
  // y [out_h(h)][out_w(w)] pixels ld apart as well. h + 2 * padding must cover the kernel.
  void run(const float* x, int64_t h, int64_t w, int64_t ld, int64_t c0, int64_t c1, float* y) const;
  // Output rows [oy0, oy1) only, y still pointing at output row 0, from input rows held from row
  // x_row0 on at x: a band of an image's rows run once they exist (the rows above x_row0 are not
  // read: the first output row's top tap must be at x_row0 or below, or in the padding).
  void run_rows(const float* x, int64_t x_row0, int64_t h, int64_t w, int64_t ld, int64_t c0, int64_t c1, int64_t oy0, int64_t oy1,
                float* y) const;

 private:
  int64_t c_, kh_, kw_, sh_, sw_, ph_, pw_;
  std::vector<float> w_;     // [KH][KW][C]
  std::vector<float> bias_;  // [C], zeros when there is none
  Epilogue epilogue_;
};

}  // namespace jitctl::cpu
