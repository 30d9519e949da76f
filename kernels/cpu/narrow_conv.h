#pragma once
// Dense 2-D float32 convolution with at most 8 output channels on channels-last activations: the
// first layers of small CNNs (3 -> 8, 8 -> 8 on 32x32), unfrozen or frozen.
//
// Why: oneDNN's kernels block output channels by 16 on AVX-512, so an 8-channel layer computes
// twice what it keeps (jit:avx512_core with weights padded to 16). Here one 8-float vector holds a
// pixel's output channels: a row tile of 12 output pixels (16 on AVX-512, whose 32 registers hold
// more accumulators) keeps its accumulators in registers, and every tap loads its weight vector
// once for the tile while each input value is broadcast into the multiply-adds. The input rows a
// window reads are copied once into a small ring of rows padded with zeros at both ends, so no
// tile checks its taps against the row's ends. Bias, a residual add and ReLU/ReLU6 (clamp) before
// the store. AVX2 code, also used on AVX-512 machines. kernel_bench narrow_ (one thread, warm),
// oneDNN -> this: 8 -> 8 on 32x32 21 -> 15 us, on 112x112 260 -> 180; 3 -> 8 on 32x32 9 -> 8;
// capped at AVX2 16 -> 16 and 195 -> 195 (the same), 3 -> 8 10 -> 8.
#include <cstdint>
#include <vector>

#include "kernels/cpu/conv.h"
#include "kernels/cpu/epilogue.h"
#include "lib/core/tensor.h"

namespace jitctl::cpu {

class NarrowConv {
 public:
  // Whether this kernel takes the convolution: float32 weight [OC, C, KH, KW] with OC <= 8, C 3, 8
  // or 16 (compiled for each: a tap's input pixels at constant offsets) and a kernel larger than
  // 1x1 and at most 8 rows, groups 1, not transposed, zero padding, dilation 1, a horizontal stride of
  // 1 or 2, on AVX2 or AVX-512; the epilogue nothing, ReLU or a clamp, after an optional residual add.
  static bool suits(const Tensor& weight, const ConvArgs& args, const Epilogue& epilogue);

  // weight and bias (or undefined) as for PackedConv; packed here once.
  NarrowConv(const Tensor& weight, const Tensor& bias, Epilogue epilogue);

  // Whether run() takes this call: a dense channels-last 4-D input of the weight's channel count
  // and, when the epilogue adds one, a dense channels-last residual shaped as the output.
  bool takes(const Tensor& input, const Tensor& residual, const ConvParams& p) const;

  // out: dense channels-last [N, OC, OH, OW], not aliasing input or residual.
  void run(const Tensor& input, const Tensor& residual, const ConvParams& p, Tensor& out) const;

 private:
  int64_t c_, oc_, kh_, kw_;
  std::vector<float> w_;     // [KH][KW][C][8], output channels past OC zero
  std::vector<float> bias_;  // [8]
  Epilogue epilogue_;
};

}  // namespace jitctl::cpu
