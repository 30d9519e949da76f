// Normalization kernels: batch norm from running statistics (a per-channel table, then one
// multiply-add per element), layer norm (a warp per short row, a block per long one) and group
// norm (a block per group).
#include <cmath>
#include <cstdint>

#include "kernels/cuda/copy_launch.h"
#include "kernels/cuda/norm_launch.h"

namespace jitctl::cuda {
namespace {

constexpr int kWarp = 32;
constexpr unsigned kFull = 0xffffffffu;

__device__ __forceinline__ float warp_sum(float v) {
  for (int o = kWarp / 2; o > 0; o >>= 1) v += __shfl_xor_sync(kFull, v, o);
  return v;
}

// Every thread ends with the block's sum (blockDim.x a multiple of 32).
__device__ __forceinline__ float block_sum(float v, float* smem /* kWarp entries */) {
  const int lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp, warps = blockDim.x / kWarp;
  v = warp_sum(v);
  __syncthreads();  // smem may still be read from the previous call
  if (lane == 0) smem[warp] = v;
  __syncthreads();
  float r = 0.0f;
  for (int w = 0; w < warps; ++w) r += smem[w];
  return r;
}

__device__ __forceinline__ float rstd_of(float var, double eps) { return static_cast<float>(1.0 / sqrt(static_cast<double>(var) + eps)); }

// ---- batch norm ------------------------------------------------------------------------------

__global__ void bn_table(int64_t c, const float* weight, int64_t ws, const float* bias, int64_t bs, const float* mean, int64_t ms,
                         const float* var, int64_t vs, double eps, float* table) {
  const int64_t ch = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (ch >= c) return;
  const double w = weight ? weight[ch * ws] : 1.0, b = bias ? bias[ch * bs] : 0.0;
  const double m = mean ? mean[ch * ms] : 0.0, v = var ? var[ch * vs] : 1.0;
  const double scale = w / sqrt(v + eps);
  table[ch] = static_cast<float>(scale);
  table[c + ch] = static_cast<float>(b - m * scale);
}

__global__ void bn_apply(const float* __restrict__ x, float* __restrict__ y, int64_t total, int64_t c, int64_t plane,
                         const float* __restrict__ table) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += step) {
    const int64_t ch = (i / plane) % c;
    y[i] = x[i] * table[ch] + table[c + ch];
  }
}

// ---- layer norm ------------------------------------------------------------------------------

__device__ __forceinline__ float affine_at(float v, float mean, float rstd, const float* w, const float* b, int64_t i) {
  return (v - mean) * rstd * (w ? w[i] : 1.0f) + (b ? b[i] : 0.0f);
}

__global__ void layer_norm_warp(const float* __restrict__ x, float* __restrict__ y, int64_t rows, int64_t inner, const float* __restrict__ w,
                                const float* __restrict__ b, double eps) {
  const int lane = threadIdx.x % kWarp;
  const int64_t per_block = blockDim.x / kWarp;
  for (int64_t row = blockIdx.x * per_block + threadIdx.x / kWarp; row < rows; row += static_cast<int64_t>(gridDim.x) * per_block) {
    const float* xr = x + row * inner;
    float* yr = y + row * inner;
    float s = 0.0f;
    for (int64_t i = lane; i < inner; i += kWarp) s += xr[i];
    const float mean = warp_sum(s) / static_cast<float>(inner);
    float sq = 0.0f;
    for (int64_t i = lane; i < inner; i += kWarp) sq += (xr[i] - mean) * (xr[i] - mean);
    const float rstd = rstd_of(warp_sum(sq) / static_cast<float>(inner), eps);
    for (int64_t i = lane; i < inner; i += kWarp) yr[i] = affine_at(xr[i], mean, rstd, w, b, i);
  }
}

__global__ void layer_norm_block(const float* __restrict__ x, float* __restrict__ y, int64_t rows, int64_t inner, const float* __restrict__ w,
                                 const float* __restrict__ b, double eps) {
  __shared__ float smem[kWarp];
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const float* xr = x + row * inner;
    float* yr = y + row * inner;
    float s = 0.0f;
    for (int64_t i = threadIdx.x; i < inner; i += blockDim.x) s += xr[i];
    const float mean = block_sum(s, smem) / static_cast<float>(inner);
    float sq = 0.0f;
    for (int64_t i = threadIdx.x; i < inner; i += blockDim.x) sq += (xr[i] - mean) * (xr[i] - mean);
    const float rstd = rstd_of(block_sum(sq, smem) / static_cast<float>(inner), eps);
    for (int64_t i = threadIdx.x; i < inner; i += blockDim.x) yr[i] = affine_at(xr[i], mean, rstd, w, b, i);
  }
}

// ---- group norm ------------------------------------------------------------------------------

__global__ void group_norm_block(const float* __restrict__ x, float* __restrict__ y, int64_t n_groups, int64_t groups, int64_t cg,
                                 int64_t plane, const float* __restrict__ w, const float* __restrict__ b, double eps) {
  __shared__ float smem[kWarp];
  const int64_t size = cg * plane;
  for (int64_t g = blockIdx.x; g < n_groups; g += gridDim.x) {
    const float* xg = x + g * size;
    float* yg = y + g * size;
    float s = 0.0f;
    for (int64_t i = threadIdx.x; i < size; i += blockDim.x) s += xg[i];
    const float mean = block_sum(s, smem) / static_cast<float>(size);
    float sq = 0.0f;
    for (int64_t i = threadIdx.x; i < size; i += blockDim.x) sq += (xg[i] - mean) * (xg[i] - mean);
    const float rstd = rstd_of(block_sum(sq, smem) / static_cast<float>(size), eps);
    const int64_t ch0 = (g % groups) * cg;
    for (int64_t i = threadIdx.x; i < size; i += blockDim.x) {
      const int64_t ch = ch0 + i / plane;
      const float scale = rstd * (w ? w[ch] : 1.0f);
      const float shift = (b ? b[ch] : 0.0f) - mean * scale;
      yg[i] = xg[i] * scale + shift;
    }
  }
}

unsigned capped(int64_t blocks) { return static_cast<unsigned>(blocks < 1 ? 1 : (blocks > 65535 * 16 ? 65535 * 16 : blocks)); }

}  // namespace

void launch_batch_norm_inference(const float* x, float* y, int64_t n, int64_t c, int64_t plane, const float* weight, int64_t weight_stride,
                                 const float* bias, int64_t bias_stride, const float* mean, int64_t mean_stride, const float* var,
                                 int64_t var_stride, double eps, float* scratch, cudaStream_t stream) {
  if (c == 0) return;
  bn_table<<<capped((c + 255) / 256), 256, 0, stream>>>(c, weight, weight_stride, bias, bias_stride, mean, mean_stride, var, var_stride,
                                                         eps, scratch);
  const int64_t total = n * c * plane;
  if (total == 0) return;
  bn_apply<<<grid_for(total, 256), 256, 0, stream>>>(x, y, total, c, plane, scratch);
}

void launch_layer_norm(const float* x, float* y, int64_t rows, int64_t inner, const float* w, const float* b, double eps, cudaStream_t stream) {
  if (rows == 0 || inner == 0) return;
  if (inner <= 1024) {
    constexpr int threads = 256;
    layer_norm_warp<<<capped((rows + threads / kWarp - 1) / (threads / kWarp)), threads, 0, stream>>>(x, y, rows, inner, w, b, eps);
  } else {
    layer_norm_block<<<capped(rows), 512, 0, stream>>>(x, y, rows, inner, w, b, eps);
  }
}

void launch_group_norm(const float* x, float* y, int64_t n, int64_t c, int64_t plane, int64_t groups, const float* w, const float* b,
                       double eps, cudaStream_t stream) {
  const int64_t cg = c / groups;
  if (n * c * plane == 0) return;
  group_norm_block<<<capped(n * groups), 512, 0, stream>>>(x, y, n * groups, groups, cg, plane, w, b, eps);
}

}  // namespace jitctl::cuda
