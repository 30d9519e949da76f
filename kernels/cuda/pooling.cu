// Pooling and upsampling kernels (pooling_launch.h): one thread per output element, grid-stride,
// 64-bit indices. The arithmetic mirrors kernels/cpu/pooling.cpp term by term, with explicitly
// rounded multiplies and adds where the CPU's result depends on them (source indices), so that
// the device does not fuse them into FMAs and pick a different pixel.
#include "kernels/cuda/pooling_launch.h"

#include <algorithm>
#include <cstdint>

namespace jitctl::cuda {
namespace {

constexpr int kThreads = 256;

unsigned blocks_for(int64_t n) {
  const int64_t b = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(std::min<int64_t>(b, int64_t{1} << 20));
}

template <class T>
__device__ T neg_inf();
template <>
__device__ float neg_inf<float>() { return __int_as_float(static_cast<int>(0xff800000u)); }
template <>
__device__ double neg_inf<double>() { return __longlong_as_double(static_cast<long long>(0xfff0000000000000ull)); }

__device__ float mul_rn(float a, float b) { return __fmul_rn(a, b); }
__device__ double mul_rn(double a, double b) { return __dmul_rn(a, b); }
__device__ float add_rn(float a, float b) { return __fadd_rn(a, b); }
__device__ double add_rn(double a, double b) { return __dadd_rn(a, b); }

template <class T>
__global__ void max_pool2d_kernel(const T* __restrict__ in, T* __restrict__ out, int64_t* __restrict__ indices, PoolGeometry g) {
  const int64_t total = g.planes * g.oh * g.ow;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total; i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t x = i % g.ow, y = (i / g.ow) % g.oh, plane = i / (g.ow * g.oh);
    const T* src = in + plane * g.h * g.w;
    int64_t y0 = y * g.sh - g.ph;
    const int64_t y1 = min(y0 + (g.kh - 1) * g.dh + 1, g.h);
    while (y0 < 0) y0 += g.dh;
    int64_t x0 = x * g.sw - g.pw;
    const int64_t x1 = min(x0 + (g.kw - 1) * g.dw + 1, g.w);
    while (x0 < 0) x0 += g.dw;
    T best = neg_inf<T>();
    int64_t best_i = y0 * g.w + x0;
    for (int64_t iy = y0; iy < y1; iy += g.dh)
      for (int64_t ix = x0; ix < x1; ix += g.dw) {
        const T v = src[iy * g.w + ix];
        if (v > best || v != v) {
          best = v;
          best_i = iy * g.w + ix;
        }
      }
    out[i] = best;
    if (indices) indices[i] = best_i;
  }
}

template <class T>
__global__ void avg_pool2d_kernel(const T* __restrict__ in, T* __restrict__ out, PoolGeometry g, bool count_include_pad, int64_t divisor) {
  const int64_t total = g.planes * g.oh * g.ow;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total; i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t x = i % g.ow, y = (i / g.ow) % g.oh, plane = i / (g.ow * g.oh);
    const T* src = in + plane * g.h * g.w;
    int64_t y0 = y * g.sh - g.ph;
    int64_t y1 = min(y0 + g.kh, g.h + g.ph);
    const int64_t pool_h = y1 - y0;
    y0 = max(y0, int64_t{0});
    y1 = min(y1, g.h);
    int64_t x0 = x * g.sw - g.pw;
    int64_t x1 = min(x0 + g.kw, g.w + g.pw);
    const int64_t pool_size = pool_h * (x1 - x0);
    x0 = max(x0, int64_t{0});
    x1 = min(x1, g.w);
    T sum = 0;
    for (int64_t iy = y0; iy < y1; ++iy)
      for (int64_t ix = x0; ix < x1; ++ix) sum += src[iy * g.w + ix];
    const int64_t div = divisor ? divisor : count_include_pad ? pool_size : (y1 - y0) * (x1 - x0);
    out[i] = div == 0 ? T(0) : sum / static_cast<T>(div);
  }
}

__device__ int64_t adaptive_start(int64_t i, int64_t out, int64_t in) { return (i * in) / out; }
__device__ int64_t adaptive_end(int64_t i, int64_t out, int64_t in) { return ((i + 1) * in + out - 1) / out; }

template <class T>
__global__ void adaptive_pool2d_kernel(const T* __restrict__ in, T* __restrict__ out, int64_t* __restrict__ indices, PoolGeometry g, bool is_max) {
  const int64_t total = g.planes * g.oh * g.ow;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total; i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t x = i % g.ow, y = (i / g.ow) % g.oh, plane = i / (g.ow * g.oh);
    const T* src = in + plane * g.h * g.w;
    const int64_t y0 = adaptive_start(y, g.oh, g.h), y1 = adaptive_end(y, g.oh, g.h);
    const int64_t x0 = adaptive_start(x, g.ow, g.w), x1 = adaptive_end(x, g.ow, g.w);
    if (is_max) {
      T best = neg_inf<T>();
      int64_t best_i = y0 * g.w + x0;
      for (int64_t iy = y0; iy < y1; ++iy)
        for (int64_t ix = x0; ix < x1; ++ix) {
          const T v = src[iy * g.w + ix];
          if (v > best || v != v) {
            best = v;
            best_i = iy * g.w + ix;
          }
        }
      out[i] = best;
      indices[i] = best_i;
    } else {
      T sum = 0;
      for (int64_t iy = y0; iy < y1; ++iy)
        for (int64_t ix = x0; ix < x1; ++ix) sum += src[iy * g.w + ix];
      out[i] = sum / static_cast<T>((y1 - y0) * (x1 - x0));
    }
  }
}

// Global average pooling: one warp per plane, coalesced reads, a shuffle reduction.
template <class T>
__global__ void plane_mean_kernel(const T* __restrict__ in, T* __restrict__ out, int64_t planes, int64_t n) {
  const int lane = threadIdx.x % 32;
  const int64_t warps = static_cast<int64_t>(gridDim.x) * (blockDim.x / 32);
  for (int64_t plane = (blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x) / 32; plane < planes; plane += warps) {
    const T* src = in + plane * n;
    T sum = 0;
    for (int64_t j = lane; j < n; j += 32) sum += src[j];
    for (int off = 16; off > 0; off /= 2) sum += __shfl_down_sync(0xffffffffu, sum, off);
    if (lane == 0) out[plane] = sum / static_cast<T>(n);
  }
}

__device__ int64_t nearest_index(int64_t o, int64_t in, int64_t out, float scale) {
  if (out == in) return o;
  if (out == 2 * in) return o >> 1;
  return min(static_cast<int64_t>(floorf(__fmul_rn(static_cast<float>(o), scale))), in - 1);
}

template <class T>
__global__ void upsample_nearest2d_kernel(const T* __restrict__ in, T* __restrict__ out, PoolGeometry g, float scale_h, float scale_w) {
  const int64_t total = g.planes * g.oh * g.ow;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total; i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t x = i % g.ow, y = (i / g.ow) % g.oh, plane = i / (g.ow * g.oh);
    const int64_t iy = nearest_index(y, g.h, g.oh, scale_h), ix = nearest_index(x, g.w, g.ow, scale_w);
    out[i] = in[plane * g.h * g.w + iy * g.w + ix];
  }
}

// ATen's area_pixel_compute_source_index and the CPU kernel's lerp_table entry for output o.
template <class T>
__device__ void lerp_entry(int64_t o, int64_t in, bool align_corners, T scale, int64_t& i0, int64_t& i1, T& w0, T& w1) {
  const T fo = static_cast<T>(o);
  T src = align_corners ? mul_rn(scale, fo) : add_rn(mul_rn(scale, add_rn(fo, T(0.5))), T(-0.5));
  if (!align_corners && src < T(0)) src = T(0);
  i0 = min(static_cast<int64_t>(src), in - 1);
  i1 = i0 + (i0 < in - 1 ? 1 : 0);
  T l1 = add_rn(src, -static_cast<T>(i0));
  l1 = l1 < T(0) ? T(0) : l1 > T(1) ? T(1) : l1;
  w0 = add_rn(T(1), -l1);
  w1 = l1;
}

template <class T>
__global__ void upsample_bilinear2d_kernel(const T* __restrict__ in, T* __restrict__ out, PoolGeometry g, bool align_corners, T scale_h,
                                           T scale_w) {
  const int64_t total = g.planes * g.oh * g.ow;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total; i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t x = i % g.ow, y = (i / g.ow) % g.oh, plane = i / (g.ow * g.oh);
    int64_t y0, y1, x0, x1;
    T wy0, wy1, wx0, wx1;
    lerp_entry<T>(y, g.h, align_corners, scale_h, y0, y1, wy0, wy1);
    lerp_entry<T>(x, g.w, align_corners, scale_w, x0, x1, wx0, wx1);
    const T* r0 = in + plane * g.h * g.w + y0 * g.w;
    const T* r1 = in + plane * g.h * g.w + y1 * g.w;
    const T top = add_rn(mul_rn(wx0, r0[x0]), mul_rn(wx1, r0[x1]));
    const T bottom = add_rn(mul_rn(wx0, r1[x0]), mul_rn(wx1, r1[x1]));
    out[i] = add_rn(mul_rn(wy0, top), mul_rn(wy1, bottom));
  }
}

template <class T>
void max_pool(const T* in, T* out, int64_t* indices, const PoolGeometry& g, cudaStream_t stream) {
  const int64_t n = g.planes * g.oh * g.ow;
  if (n > 0) max_pool2d_kernel<T><<<blocks_for(n), kThreads, 0, stream>>>(in, out, indices, g);
}

template <class T>
void avg_pool(const T* in, T* out, const PoolGeometry& g, bool count_include_pad, int64_t divisor, cudaStream_t stream) {
  const int64_t n = g.planes * g.oh * g.ow;
  if (n > 0) avg_pool2d_kernel<T><<<blocks_for(n), kThreads, 0, stream>>>(in, out, g, count_include_pad, divisor);
}

template <class T>
void adaptive_avg(const T* in, T* out, const PoolGeometry& g, cudaStream_t stream) {
  const int64_t n = g.planes * g.oh * g.ow;
  if (n == 0) return;
  if (g.oh == 1 && g.ow == 1)
    plane_mean_kernel<T><<<blocks_for(g.planes * 32), kThreads, 0, stream>>>(in, out, g.planes, g.h * g.w);
  else
    adaptive_pool2d_kernel<T><<<blocks_for(n), kThreads, 0, stream>>>(in, out, nullptr, g, false);
}

template <class T>
void adaptive_max(const T* in, T* out, int64_t* indices, const PoolGeometry& g, cudaStream_t stream) {
  const int64_t n = g.planes * g.oh * g.ow;
  if (n > 0) adaptive_pool2d_kernel<T><<<blocks_for(n), kThreads, 0, stream>>>(in, out, indices, g, true);
}

template <class T>
void nearest(const T* in, T* out, const PoolGeometry& g, float scale_h, float scale_w, cudaStream_t stream) {
  const int64_t n = g.planes * g.oh * g.ow;
  if (n > 0) upsample_nearest2d_kernel<T><<<blocks_for(n), kThreads, 0, stream>>>(in, out, g, scale_h, scale_w);
}

template <class T>
void bilinear(const T* in, T* out, const PoolGeometry& g, bool align_corners, T scale_h, T scale_w, cudaStream_t stream) {
  const int64_t n = g.planes * g.oh * g.ow;
  if (n > 0) upsample_bilinear2d_kernel<T><<<blocks_for(n), kThreads, 0, stream>>>(in, out, g, align_corners, scale_h, scale_w);
}

}  // namespace

void launch_max_pool2d(const float* in, float* out, int64_t* indices, const PoolGeometry& g, cudaStream_t stream) {
  max_pool(in, out, indices, g, stream);
}
void launch_max_pool2d(const double* in, double* out, int64_t* indices, const PoolGeometry& g, cudaStream_t stream) {
  max_pool(in, out, indices, g, stream);
}
void launch_avg_pool2d(const float* in, float* out, const PoolGeometry& g, bool count_include_pad, int64_t divisor, cudaStream_t stream) {
  avg_pool(in, out, g, count_include_pad, divisor, stream);
}
void launch_avg_pool2d(const double* in, double* out, const PoolGeometry& g, bool count_include_pad, int64_t divisor, cudaStream_t stream) {
  avg_pool(in, out, g, count_include_pad, divisor, stream);
}
void launch_adaptive_avg_pool2d(const float* in, float* out, const PoolGeometry& g, cudaStream_t stream) { adaptive_avg(in, out, g, stream); }
void launch_adaptive_avg_pool2d(const double* in, double* out, const PoolGeometry& g, cudaStream_t stream) { adaptive_avg(in, out, g, stream); }
void launch_adaptive_max_pool2d(const float* in, float* out, int64_t* indices, const PoolGeometry& g, cudaStream_t stream) {
  adaptive_max(in, out, indices, g, stream);
}
void launch_adaptive_max_pool2d(const double* in, double* out, int64_t* indices, const PoolGeometry& g, cudaStream_t stream) {
  adaptive_max(in, out, indices, g, stream);
}
void launch_upsample_nearest2d(const float* in, float* out, const PoolGeometry& g, float scale_h, float scale_w, cudaStream_t stream) {
  nearest(in, out, g, scale_h, scale_w, stream);
}
void launch_upsample_nearest2d(const double* in, double* out, const PoolGeometry& g, float scale_h, float scale_w, cudaStream_t stream) {
  nearest(in, out, g, scale_h, scale_w, stream);
}
void launch_upsample_bilinear2d(const float* in, float* out, const PoolGeometry& g, bool align_corners, float scale_h, float scale_w,
                                cudaStream_t stream) {
  bilinear(in, out, g, align_corners, scale_h, scale_w, stream);
}
void launch_upsample_bilinear2d(const double* in, double* out, const PoolGeometry& g, bool align_corners, double scale_h, double scale_w,
                                cudaStream_t stream) {
  bilinear(in, out, g, align_corners, scale_h, scale_w, stream);
}

}  // namespace jitctl::cuda
