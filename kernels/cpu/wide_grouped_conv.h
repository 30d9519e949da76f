#pragma once
// Grouped 3x3 float32 convolution with 24 to 248 channels per group, a multiple of 8 but not of
// 16 (in and out), on channels-last activations: RegNet's group widths of 24 (RegNetX-1.6GF,
// RegNetY-1.6GF and -3.2GF), 56 and 120 (RegNetY-8GF, RegNetX-8GF).
//
// oneDNN pads such groups to its 16-channel blocks: it ran RegNetX-1.6GF's 24-channel groups at
// 65-85 GFLOP/s on a core that does 118 (one thread, in the model). Here each group is a small dense convolution: a
// register tile of output pixels along a row x up to four vectors of the group's output channels
// takes, for every tap and input channel of the group, the input value broadcast from memory
// times that tap's weight row (input rows off the image skipped, columns off it read from a zero
// row). Bias, a residual add and ReLU/ReLU6/hardswish before the store.
// On AVX-512: 8 floats a vector with its 32 registers. On AVX2 this windowed loop spilled (a
// pointer per pixel) and lost to oneDNN; there the class runs groups of 16 and 24 channels on
// grouped_panels_avx2.h instead, where oneDNN's AVX2 kernel is slow on their stride-2 layers
// (numbers there).
#include <cstdint>
#include <vector>

#include "kernels/cpu/conv.h"
#include "kernels/cpu/epilogue.h"
#include "lib/core/tensor.h"

namespace jitctl::cpu {

class WideGroupedConv {
 public:
  // Whether this kernel takes the convolution: float32 weight [C, G, 3, 3] with G (channels per
  // group, in and out) a multiple of 8 and not of 16 in [24, 248] on AVX-512, or 16 or 24 on AVX2;
  // stride 1 or 2 in both dims, padding 1, dilation 1; the epilogue as GroupedConv's.
  static bool suits(const Tensor& weight, const ConvArgs& args, const Epilogue& epilogue);

  WideGroupedConv(const Tensor& weight, const Tensor& bias, const ConvArgs& args, Epilogue epilogue);

  // Whether run() takes this call: a dense channels-last 4-D input of the weight's channel count
  // and, when the epilogue adds one, a dense channels-last residual shaped as the output.
  bool takes(const Tensor& input, const Tensor& residual, const ConvParams& p) const;

  // out: dense channels-last [N, C, OH, OW], not aliasing input or residual.
  void run(const Tensor& input, const Tensor& residual, const ConvParams& p, Tensor& out) const;

 private:
  int64_t c_, per_group_, stride_;
  // Per group: [3][3][input channel][output channel of the group]. A Tensor for its 64-byte
  // alignment: a 96-byte weight row (24 channels) then never splits an 8-float load across cache
  // lines (in a std::vector, 16-byte aligned, the same layer took 0.33 or 0.42 ms from run to run).
  Tensor w_;
  std::vector<float> bias_;                 // [C]
  Epilogue epilogue_;
};

}  // namespace jitctl::cpu
