#pragma once
// A float32 2-D convolution on small images as one GEMM over the gathered input patches
// (im2col), on AVX2 machines: rows are the output pixels, columns the (ky, kx, input channel)
// taps, and the weight [OC, IC, KH, KW], read in that order, is packed once for avx2_gemm.h.
// Channels-last in and out, so the GEMM's [pixels, OC] result is the output.
//
// Why: oneDNN's AVX2 direct kernels run ResNet-18's 512-channel 7x7 layers at 107 GFLOP/s of the
// core's 137 (each weight meets only 49 pixels; 9.4 MB of weights come from memory per call); the
// packed GEMM, which prefetches the next weight slice while it works, at 122.
#include <cstdint>
#include <memory>
#include <mutex>

#include "kernels/cpu/conv.h"
#include "kernels/cpu/epilogue.h"
#include "kernels/cpu/avx2_gemm.h"
#include "lib/core/tensor.h"

namespace jitctl::cpu {

class Im2colConv {
 public:
  // Whether this kernel may take the convolution: float32 4-D weight, one group, not transposed,
  // on a machine where avx2_gemm is the packed GEMM.
  static bool suits(const Tensor& weight, const ConvArgs& args);

  Im2colConv(const Tensor& weight, const Tensor& bias, Epilogue epilogue);

  // Whether the call's shape is one this kernel runs faster than oneDNN: few output pixels, or a
  // network's first layer (a few input channels) with a stride over 2 and overlapping windows.
  static bool takes_params(const ConvParams& p);

  // Whether run() takes this call: takes_params, a dense channels-last 4-D input and, when the
  // epilogue adds one, a dense channels-last residual.
  bool takes(const Tensor& input, const Tensor& residual, const ConvParams& p) const;

  // out: dense channels-last [N, OC, OH, OW], not aliasing input or residual.
  void run(const Tensor& input, const Tensor& residual, const ConvParams& p, Tensor& out) const;

 private:
  const Avx2PackedWeight& packed() const;
  // The input patches of output pixels [r0, r1) (all images counted) into cols, a row of
  // KH * KW * IC floats each, in the packed weight's (ky, kx, channel) order.
  void gather(const float* x, const ConvParams& p, int64_t r0, int64_t r1, float* cols) const;

  Tensor weight_, bias_;
  Epilogue epilogue_;
  int64_t oc_, ic_, kh_, kw_;
  bool add_;
  // Weight [OC, KH*KW*IC], packed on the first call this kernel takes: most layers of a model
  // never do (their images are larger), and a packed copy would add to their weights' memory.
  mutable std::once_flag packed_once_;
  mutable std::unique_ptr<const Avx2PackedWeight> packed_;
};

}  // namespace jitctl::cpu
