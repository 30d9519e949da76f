#pragma once
// The device convolution behind aten::conv1d/conv2d/_convolution and the runtime's fused
// conv + residual + relu (jitctl::conv2d_fused, conv.cpp).
#include "kernels/cpu/conv.h"
#include "kernels/registry.h"
#include "lib/core/tensor.h"

namespace jitctl::cuda {

// conv(input, weight, bias) on cuDNN, then relu when `relu`. input is batched ([N, C, H, W] with a
// 4-D weight, [N, C, L] with a 3-D one), bias may be undefined, `args` as the aten::conv* schemas
// give them (cpu::ConvArgs). Checks the arguments as the CPU kernel does (cpu::conv_params:
// InvalidInput with PyTorch's messages), then throws NotOnDevice, before running anything, for
// what it does not take: dtypes other than float32, transposed convolutions, asymmetric padding
// (padding='same' with an even dilated kernel extent), an empty input with a non-empty output,
// sizes beyond cuDNN's 32-bit ints, and configurations cuDNN has no algorithm for. The output is
// a new contiguous device tensor (NCHW) of cpu::ConvParams::out_sizes.
// With `residual` (same shape, float32; requires a bias and relu): relu(conv + bias + residual).
Tensor convolution(const Tensor& input, const Tensor& weight, const Tensor& bias, const cpu::ConvArgs& args, bool relu, const char* op,
                   const Tensor& residual = Tensor());

}  // namespace jitctl::cuda
