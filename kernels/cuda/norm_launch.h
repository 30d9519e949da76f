#pragma once
// Normalization device kernels (norm.cu), float32, called from norm.cpp on contiguous device
// inputs. Statistics are two-pass (mean, then the mean squared deviation), as the CPU kernels
// compute them, each pass a tree reduction.
#include <cuda_runtime.h>

#include <cstdint>

namespace jitctl::cuda {

// Inference batch norm on x [n, c, plane]: y = x * scale[ch] + shift[ch] with, per channel in
// double, scale = weight / sqrt(var + eps) and shift = bias - mean * scale. Each parameter may be
// null (weight 1, bias 0; mean 0, var 1) and is read with its element stride. `scratch` holds 2 * c
// floats (the per-channel table).
void launch_batch_norm_inference(const float* x, float* y, int64_t n, int64_t c, int64_t plane, const float* weight, int64_t weight_stride,
                                 const float* bias, int64_t bias_stride, const float* mean, int64_t mean_stride, const float* var,
                                 int64_t var_stride, double eps, float* scratch, cudaStream_t stream);

// y[r, :] = (x[r, :] - mean) / sqrt(var + eps) * w + b over rows of `inner` contiguous values (w and
// b contiguous, either may be null).
void launch_layer_norm(const float* x, float* y, int64_t rows, int64_t inner, const float* w, const float* b, double eps, cudaStream_t stream);

// Group norm on x [n, c, plane]: statistics per (image, group of c / groups consecutive channels),
// then y = (x - mean) * rstd * w[ch] + b[ch] (w and b contiguous, either may be null).
void launch_group_norm(const float* x, float* y, int64_t n, int64_t c, int64_t plane, int64_t groups, const float* w, const float* b,
                       double eps, cudaStream_t stream);

}  // namespace jitctl::cuda
