#pragma once
// 2-D pooling of float32 channels-last tensors (the layout convolutions leave activations in):
// windows over pixels, each a vector over the contiguous channels, output channels-last as
// PyTorch's. Window arithmetic as pooling.cpp's NCHW kernels (ATen's).
#include <cstdint>

#include "lib/core/tensor.h"

namespace jitctl::cpu {

struct NhwcWindows {
  int64_t oh, ow;
  int64_t kh, kw, sh, sw, ph, pw;  // fixed windows (max and avg pooling)
  bool adaptive = false;           // windows from adaptive_start/end instead
  bool count_include_pad = true;   // avg
  int64_t divisor = 0;             // avg: divisor_override, 0 for none
};

// Max over each window (NaN wins, as ATen), no dilation.
Tensor max_pool2d_nhwc(const Tensor& input, const NhwcWindows& w);
// Mean over each window (avg_pool2d and adaptive_avg_pool2d).
Tensor avg_pool2d_nhwc(const Tensor& input, const NhwcWindows& w);

}  // namespace jitctl::cpu
