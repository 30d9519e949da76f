#pragma once
// Grouped 3x3 float32 convolution with 4 or 8 channels per group on channels-last activations:
// ResNeXt's 32-group layers (4 and 8 channels a group), RegNet's group width 8.
//
// oneDNN's kernel for these shapes runs at 40-60 GFLOP/s on a core that does 264 (ResNeXt-50's
// 128-channel 56x56 layer, one thread: 577 us warm, 661 in the model): a vector of 16 output
// channels spans 4 (or 2) groups, each reading its own 4 (8) input channels. Here one vector of
// 16 input channels, loaded once per input pixel, is permuted into 4 (8) vectors in which each
// lane holds the input channel its output channel needs at that step, and every output pixel of a
// row tile that reads that input pixel takes it with its tap's weights: the multiply-adds stay
// the bound, not the shuffles. Bias, a residual add and ReLU/ReLU6/hardswish before the store.
// AVX-512 (16 channels a vector) and AVX2 (8), where oneDNN ran ResNeXt-50's 4-channel groups at
// 3 GFLOP/s.
#include <cstdint>
#include <vector>

#include "kernels/cpu/conv.h"
#include "kernels/cpu/epilogue.h"
#include "kernels/cpu/vector_activation.h"
#include "lib/core/tensor.h"

namespace jitctl::cpu {

// What GroupedConv and WideGroupedConv (wide_grouped_conv.h) share. A 3x3 grouped layer's
// arguments they take: not transposed, stride 1 or 2 in both dims, padding 1, dilation 1, and an
// epilogue the vector kernels apply in registers (vec_epilogue_of).
bool grouped_3x3_args_ok(const ConvArgs& args, const Epilogue& epilogue);
// Whether a call suits them: a dense channels-last 4-D input of c channels and, when the epilogue
// adds one, a dense channels-last residual shaped as the output.
bool grouped_takes(const Tensor& input, int64_t c, const Tensor& residual, const Epilogue& epilogue, const ConvParams& p);
// The bias as c floats (zeros for an undefined one).
std::vector<float> bias_floats(const Tensor& bias, int64_t c);
// The epilogue's in-register form (vec_epilogue_of), with its clamp's bounds.
struct VecEpilogue {
  VecActivation mode;
  bool add;
  float lo, hi;
};
VecEpilogue vec_epilogue(const Epilogue& epilogue);

class GroupedConv {
 public:
  // Whether this kernel takes the convolution: float32 weight [C, G, 3, 3] with G (channels per
  // group, in and out) 4 or 8 and C a multiple of the vector's lanes (16 or 8), stride 1 or 2 in
  // both dims, padding 1, dilation 1, on AVX-512 or AVX2; the epilogue as PointwiseConv's.
  static bool suits(const Tensor& weight, const ConvArgs& args, const Epilogue& epilogue);

  GroupedConv(const Tensor& weight, const Tensor& bias, const ConvArgs& args, Epilogue epilogue);

  // Whether run() takes this call: a dense channels-last 4-D input of the weight's channel count
  // and, when the epilogue adds one, a dense channels-last residual shaped as the output.
  bool takes(const Tensor& input, const Tensor& residual, const ConvParams& p) const;

  // out: dense channels-last [N, C, OH, OW], not aliasing input or residual.
  void run(const Tensor& input, const Tensor& residual, const ConvParams& p, Tensor& out) const;

 private:
  int64_t c_, per_group_, stride_, lanes_;  // lanes_: the ISA's vector width when built
  std::vector<float> w_;     // per block of lanes_ channels: [3][3][per_group][lanes_]
  std::vector<float> bias_;  // [C]
  Epilogue epilogue_;
};

}  // namespace jitctl::cpu
