#pragma once
// Convolution arguments as the aten::conv* schemas give them, checked and resolved into one
// geometry (shared by the registered kernels and the runtime's packed convolutions).
#include <cstdint>
#include <string>
#include <vector>

#include "lib/core/ivalue.h"
#include "lib/core/tensor.h"

namespace jitctl::cpu {

// padding: explicit amounts (before == after), or "same"/"valid" (padding_mode set).
struct ConvArgs {
  std::vector<int64_t> stride, padding, dilation, output_padding;
  std::string padding_mode;  // "" for explicit padding
  bool transposed = false;
  int64_t groups = 1;
};

// A 2-D convolution's (height, width) pair from one of ConvArgs' lists (one value stands for
// both); false for any other length.
inline bool pair_of(const std::vector<int64_t>& v, int64_t& h, int64_t& w) {
  if (v.size() == 1) h = w = v[0];
  else if (v.size() == 2) h = v[0], w = v[1];
  else return false;
  return true;
}

// 1-D convolutions as 2-D with height 1; 1-D and 2-D ones have depth 1 (the depth fields are
// read only when spatial_dims is 3).
struct ConvParams {
  int64_t n, c, h, w;             // input
  int64_t oc, kh, kw;             // output channels, kernel
  int64_t sh, sw, ph, pw;         // stride, leading padding
  int64_t ph_after, pw_after;     // trailing padding ("same" with an even kernel pads more after)
  int64_t dh, dw;                 // dilation
  int64_t oh, ow;                 // output size
  int64_t groups;
  bool transposed;
  size_t spatial_dims;            // 1, 2 or 3
  std::vector<int64_t> out_sizes;  // [n, oc, (od,) (oh,) ow]
  // Depth (conv3d): input, kernel, stride, padding before and after, dilation, output.
  int64_t d = 1, kd = 1, sd = 1, pd = 0, pd_after = 0, dd = 1, od = 1;
};

// Checks a batched input ([N, C, H, W], [N, C, L] for a 3-D weight, [N, C, D, H, W] for a 5-D
// one; transposed convolutions 1-D and 2-D only), the weight and the bias
// as PyTorch does (its messages), and computes the output geometry. `op` names the op in messages.
ConvParams conv_params(const Tensor& input, const Tensor& weight, const Tensor& bias, ConvArgs a, const char* op);

// The arguments of aten::conv1d/conv2d(.padding) on their stack: (input, weight, bias?, stride,
// padding (int[] or 'same'/'valid'), dilation, groups). The CUDA kernels read them here too.
ConvArgs conv_args_from_stack(const std::vector<IValue>& s);

}  // namespace jitctl::cpu
