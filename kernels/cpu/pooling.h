#pragma once
// The argument rules and output sizes of pooling and upsampling, with PyTorch's messages: one
// definition for the CPU and CUDA kernels.
#include <cstdint>
#include <vector>

#include "kernels/registry.h"
#include "lib/core/ivalue.h"
#include "lib/core/tensor.h"

namespace jitctl::cpu {

// An input as [planes, h, w] (1-D ops: h = 1), with the output's leading sizes.
struct PlaneShape {
  int64_t planes = 1, h = 1, w = 1;
  std::vector<int64_t> lead;  // sizes before the spatial dims
};
PlaneShape plane_shape(const Tensor& input, int64_t spatial, const char* op);
std::vector<int64_t> out_shape(const PlaneShape& p, int64_t spatial, int64_t oh, int64_t ow);

// ATen's pooling_output_shape.
int64_t pooled_size(int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dilation, bool ceil_mode);
void check_output_size(const PlaneShape& pl, int64_t oh, int64_t ow);

// kernel_size, stride, padding, dilation as 2-D (1-D ops: height 1 first).
struct PoolArgs {
  std::vector<int64_t> k, s, p, d;
};
// (self, kernel_size, stride, padding[, dilation], ...): stride empty = kernel_size.
PoolArgs pool_args(const Stack& st, int64_t spatial, bool has_dilation, const char* op);
// avg_pool2d's divisor_override (st[6]): 0 when absent.
int64_t divisor_arg(const Stack& st);
// avg_pool1d's own checks before avg_pool's.
void check_avg_pool1d_args(const Stack& st);
// output_size as [oh, ow] (1-D: height 1).
std::vector<int64_t> adaptive_size(const IValue& v, int64_t spatial, const char* op);

// Upsampling's output size and the scales its index arithmetic uses (0: from the sizes).
struct UpsampleArgs {
  int64_t oh = 0, ow = 0;
  double scale_h = 0, scale_w = 0;
};
// The 4-D input; `plain`: the plain overload's message.
PlaneShape upsample_shape(const Tensor& input, bool plain, const char* op);
// .vec: (input, output_size?, [align_corners,] scale_factors?), exactly one of the two given.
UpsampleArgs upsample_args(const PlaneShape& pl, const IValue& size, const IValue& scales, const char* op);
// The plain overloads (self, output_size, [align_corners,] scales_h?, scales_w?): a given scale
// replaces in/out in the index arithmetic.
UpsampleArgs upsample_args_plain(const PlaneShape& pl, const IValue& size, const IValue& scale_h, const IValue& scale_w);

// ATen's area_pixel_compute_scale: the source step per output pixel, in T.
template <class T>
T pixel_scale(int64_t in, int64_t out, bool align_corners, double scale) {
  if (align_corners) return out > 1 ? static_cast<T>(in - 1) / static_cast<T>(out - 1) : T(0);
  return scale > 0 ? static_cast<T>(1.0 / scale) : static_cast<T>(in) / static_cast<T>(out);
}

}  // namespace jitctl::cpu
