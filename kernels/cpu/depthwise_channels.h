#pragma once
// A depthwise float32 convolution over a range of the channels of a small channels-last image,
// on the calling thread: the second layer of expand_depthwise's split by channels (a 7x7 to 28x28
// image), where each thread expands its own channels and runs this layer on them, reading
// nothing another thread wrote.
//
// Why: run apart on two threads, PointwiseConv splits those expansions by output channels and
// oneDNN's depthwise kernel splits its layer by rows, so half of what the depthwise layer read
// came from the other core's cache, and a 7-row image split 4:3 (kernel_bench
// expand_dw_mnas_192_7_1152_k5: 0.155 ms on two threads against 0.227 on one).
//
// The kernel walks 16-channel vectors (a masked last one), and in each output row blocks of up
// to 8 output pixels whose accumulators stay in registers while the taps' weights are loaded
// once per block. Any kernel size, stride and symmetric padding, no dilation; the epilogue none,
// ReLU, ReLU6/clamp, hardswish or SiLU. AVX-512 only (where PointwiseConv runs the expansion).
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
  // on AVX-512.
  static bool suits(const Tensor& weight, const ConvArgs& args, const Epilogue& epilogue);

  // weight, bias (or undefined), args and epilogue as for PackedConv; packed here once.
  DepthwiseChannels(const Tensor& weight, const Tensor& bias, const ConvArgs& args, Epilogue epilogue);

  int64_t out_h(int64_t h) const { return (h + 2 * ph_ - kh_) / sh_ + 1; }
  int64_t out_w(int64_t w) const { return (w + 2 * pw_ - kw_) / sw_ + 1; }

  // Channels [c0, c1) of one image: x [h][w] pixels, channel ch of a pixel at x + pixel * ld + ch;
  // y [out_h(h)][out_w(w)] pixels ld apart as well. h + 2 * padding must cover the kernel.
  void run(const float* x, int64_t h, int64_t w, int64_t ld, int64_t c0, int64_t c1, float* y) const;

 private:
  int64_t c_, kh_, kw_, sh_, sw_, ph_, pw_;
  std::vector<float> w_;     // [KH][KW][C]
  std::vector<float> bias_;  // [C], zeros when there is none
  Epilogue epilogue_;
};

}  // namespace jitctl::cpu
