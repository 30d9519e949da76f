#pragma once
// Depthwise float32 convolution, 3x3 stride 1 (one filter per channel), on channels-last
// activations: the middle layer of MobileNet, MNASNet and ShuffleNet blocks.
//
// These layers do 9 multiply-adds per value read, so they are bound by moving the activations,
// not by arithmetic. The kernel walks bands of output rows channel block by channel block (a
// block's three input rows stay in L1 down the band), loads each input column once for the P
// pixels and three taps that read it, and applies the bias and the activation in registers.
// Channel counts that are not a multiple of the vector width end with an overlapping block.
//
// AVX2 only, on images at least 56 wide: there it was faster than oneDNN's AVX2 kernel (MNASNet's
// and MobileNetV2's 112x112 and 56x56 layers 3-8%). On AVX-512 oneDNN's jit_dw kernel was faster
// than this one's 16-wide build (72 channels on 56x56 32.9 against 39.9 us; PackedConv picks it);
// 5x5 and stride 2 were slower here than oneDNN's (the same code with K = 5 or S = 2).
#include <cstdint>
#include <vector>

#include "kernels/cpu/conv.h"
#include "kernels/cpu/epilogue.h"
#include "lib/core/tensor.h"

namespace jitctl::cpu {

class DepthwiseConv {
 public:
  // Whether this kernel takes the convolution: float32 weight [C, 1, 3, 3], groups C (no channel
  // multiplier), stride 1, no dilation, at least 8 channels, no residual in the epilogue, with
  // AVX2 the instruction set in use. Any padding.
  static bool suits(const Tensor& weight, const ConvArgs& args, const Epilogue& epilogue);

  // weight and bias (or undefined) as for PackedConv; packed here once.
  DepthwiseConv(const Tensor& weight, const Tensor& bias, Epilogue epilogue);

  // Whether run() takes this call: a dense channels-last input of the weight's channel count, at
  // least 56 wide.
  bool takes(const Tensor& input) const;

  // out: dense channels-last [N, C, OH, OW], p from conv_params.
  void run(const Tensor& input, const ConvParams& p, Tensor& out) const;

  // Whether run_in_place() takes this call: one run() takes, with the input at the start of its
  // storage and an output of its shape (padding 1 on every side). The caller also checks that
  // nothing else holds the input.
  bool takes_in_place(const Tensor& input, const ConvParams& p) const;

  // The output written over the input's bytes, which then hold it. Why: a fresh output is memory
  // no layer touched since the last call, and each cache line written there is first read from
  // memory; the input was just written by the layer before and is still in cache. MNASNet's
  // 32-channel 112x112 layer (1.6 MB out), in the model at one thread: 317 -> 168 us writing
  // over the input without the ring (a timing experiment), against ONNX Runtime's 169.
  void run_in_place(Tensor& inout, const ConvParams& p) const;

 private:
  static constexpr int64_t kTaps = 9;
  int64_t c_;
  std::vector<float> w_;     // [3][3][C], then the bias [C] (zeros when there is none)
  Epilogue epilogue_;
};

}  // namespace jitctl::cpu
