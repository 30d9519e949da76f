#pragma once
// Pooling and upsampling kernels (pooling.cu) over contiguous [planes, h, w] inputs (NCHW with
// N * C planes; the 1-D ops as height-1 planes) into contiguous [planes, oh, ow] outputs, float and
// double. Window arithmetic, NaN propagation and index conventions are those of
// kernels/cpu/pooling.cpp (ATen's CPU kernels); the host side (pooling.cpp) checks the arguments.
#include <cuda_runtime.h>

#include <cstdint>

namespace jitctl::cuda {

struct PoolGeometry {
  int64_t planes, h, w;               // input
  int64_t oh, ow;                     // output
  int64_t kh, kw, sh, sw, ph, pw;     // window, stride, leading padding
  int64_t dh, dw;                     // dilation (max pooling)
};

// The max of each window, NaN winning. indices (may be null): the flat index within the input
// plane of the element taken (the last NaN when there are NaNs).
void launch_max_pool2d(const float* in, float* out, int64_t* indices, const PoolGeometry& g, cudaStream_t stream);
void launch_max_pool2d(const double* in, double* out, int64_t* indices, const PoolGeometry& g, cudaStream_t stream);

// The mean of each window, divided by `divisor` when it is not 0, else by the window's size
// clipped to the padded input (count_include_pad) or to the input.
void launch_avg_pool2d(const float* in, float* out, const PoolGeometry& g, bool count_include_pad, int64_t divisor, cudaStream_t stream);
void launch_avg_pool2d(const double* in, double* out, const PoolGeometry& g, bool count_include_pad, int64_t divisor, cudaStream_t stream);

// Adaptive windows: output cell i covers [floor(i * in / out), ceil((i + 1) * in / out)). For
// average pooling g.oh == g.ow == 1 is a reduction over each plane. The window fields of `g`
// are not used.
void launch_adaptive_avg_pool2d(const float* in, float* out, const PoolGeometry& g, cudaStream_t stream);
void launch_adaptive_avg_pool2d(const double* in, double* out, const PoolGeometry& g, cudaStream_t stream);
void launch_adaptive_max_pool2d(const float* in, float* out, int64_t* indices, const PoolGeometry& g, cudaStream_t stream);
void launch_adaptive_max_pool2d(const double* in, double* out, int64_t* indices, const PoolGeometry& g, cudaStream_t stream);

// Nearest neighbour: source index o when out == in, o / 2 when out == 2 * in, else
// min(floor(o * scale), in - 1) in float arithmetic (scale_h/scale_w: the source step per output
// pixel, as the CPU kernel computes it). Only g.planes, h, w, oh, ow are used.
void launch_upsample_nearest2d(const float* in, float* out, const PoolGeometry& g, float scale_h, float scale_w, cudaStream_t stream);
void launch_upsample_nearest2d(const double* in, double* out, const PoolGeometry& g, float scale_h, float scale_w, cudaStream_t stream);

// Bilinear, with ATen's source index (align_corners or half-pixel centres) in the input's type;
// scale_h/scale_w: the source step per output pixel.
void launch_upsample_bilinear2d(const float* in, float* out, const PoolGeometry& g, bool align_corners, float scale_h, float scale_w,
                                cudaStream_t stream);
void launch_upsample_bilinear2d(const double* in, double* out, const PoolGeometry& g, bool align_corners, double scale_h, double scale_w,
                                cudaStream_t stream);

}  // namespace jitctl::cuda
