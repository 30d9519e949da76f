// Reductions and softmax over a contiguous [outer, R, inner] input. Rows (inner == 1) go to a
// warp each when short and to a block each when long; with inner > 1 a block covers 32
// consecutive outputs and splits R over 8 thread rows, so reads stay coalesced along inner.
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "kernels/cuda/reduction_launch.h"

namespace jitctl::cuda {
namespace {

constexpr int kWarp = 32;
constexpr unsigned kFull = 0xffffffffu;

template <class T>
__device__ __forceinline__ bool is_nan(T v) {
  if constexpr (std::is_floating_point<T>::value) return v != v;
  else return false;
}

struct SumOp {
  template <class T>
  __device__ __forceinline__ T operator()(T a, T b) const { return a + b; }
};
struct MaxOp {
  template <class T>
  __device__ __forceinline__ T operator()(T a, T b) const {
    if (is_nan(a) || is_nan(b)) return is_nan(a) ? a : b;
    return a > b ? a : b;
  }
};
struct MinOp {
  template <class T>
  __device__ __forceinline__ T operator()(T a, T b) const {
    if (is_nan(a) || is_nan(b)) return is_nan(a) ? a : b;
    return a < b ? a : b;
  }
};

// Every lane ends with the reduction of the warp's values.
template <class T, class Op>
__device__ __forceinline__ T warp_all(T v, Op op) {
  for (int o = kWarp / 2; o > 0; o >>= 1) v = op(v, __shfl_xor_sync(kFull, v, o));
  return v;
}

// Every thread ends with the reduction of the block's values (blockDim.x a multiple of 32).
template <class T, class Op>
__device__ __forceinline__ T block_all(T v, Op op, T* smem /* kWarp entries */) {
  const int lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp, warps = blockDim.x / kWarp;
  v = warp_all(v, op);
  __syncthreads();  // smem may still be read from the previous call
  if (lane == 0) smem[warp] = v;
  __syncthreads();
  T r = smem[0];
  for (int w = 1; w < warps; ++w) r = op(r, smem[w]);
  return r;
}

template <class Acc>
__device__ __forceinline__ Acc finish(Acc a, bool mean, int64_t R) {
  if constexpr (std::is_floating_point<Acc>::value) return mean ? a / static_cast<Acc>(R) : a;
  else return a;
}

template <class Acc, class Op>
__global__ void reduce_rows_warp(const void* __restrict__ x, int in_dt, void* __restrict__ out, int out_dt, int64_t outer, int64_t R,
                                 Acc init, Op op, bool mean) {
  const int lane = threadIdx.x % kWarp;
  const int64_t per_block = blockDim.x / kWarp;
  for (int64_t row = blockIdx.x * per_block + threadIdx.x / kWarp; row < outer; row += static_cast<int64_t>(gridDim.x) * per_block) {
    Acc a = init;
    for (int64_t r = lane; r < R; r += kWarp) a = op(a, load_as<Acc>(x, in_dt, row * R + r));
    a = warp_all(a, op);
    if (lane == 0) store_as(out, out_dt, row, finish(a, mean, R));
  }
}

template <class Acc, class Op>
__global__ void reduce_rows_block(const void* __restrict__ x, int in_dt, void* __restrict__ out, int out_dt, int64_t outer, int64_t R,
                                  Acc init, Op op, bool mean) {
  __shared__ Acc smem[kWarp];
  for (int64_t row = blockIdx.x; row < outer; row += gridDim.x) {
    Acc a = init;
    for (int64_t r = threadIdx.x; r < R; r += blockDim.x) a = op(a, load_as<Acc>(x, in_dt, row * R + r));
    a = block_all(a, op, smem);
    if (threadIdx.x == 0) store_as(out, out_dt, row, finish(a, mean, R));
  }
}

constexpr int kInnerX = 32, kInnerY = 8;

template <class Acc, class Op>
__global__ void reduce_inner(const void* __restrict__ x, int in_dt, void* __restrict__ out, int out_dt, int64_t outer, int64_t R,
                             int64_t inner, Acc init, Op op, bool mean) {
  __shared__ Acc part[kInnerY][kInnerX + 1];
  const int64_t i = static_cast<int64_t>(blockIdx.x) * kInnerX + threadIdx.x;
  for (int64_t o = blockIdx.y; o < outer; o += gridDim.y) {
    Acc a = init;
    if (i < inner)
      for (int64_t r = threadIdx.y; r < R; r += kInnerY) a = op(a, load_as<Acc>(x, in_dt, (o * R + r) * inner + i));
    part[threadIdx.y][threadIdx.x] = a;
    __syncthreads();
    if (threadIdx.y == 0 && i < inner) {
      for (int k = 1; k < kInnerY; ++k) a = op(a, part[k][threadIdx.x]);
      store_as(out, out_dt, o * inner + i, finish(a, mean, R));
    }
    __syncthreads();
  }
}

template <class Acc, class Op>
void run_reduce(const void* x, int in_dt, void* out, int out_dt, int64_t outer, int64_t R, int64_t inner, Acc init, Op op, bool mean,
                cudaStream_t stream) {
  if (inner == 1) {
    if (R <= 1024) {
      constexpr int threads = 256;
      const int64_t blocks = (outer + threads / kWarp - 1) / (threads / kWarp);
      reduce_rows_warp<Acc, Op><<<static_cast<unsigned>(blocks > 65535 * 16 ? 65535 * 16 : blocks), threads, 0, stream>>>(
          x, in_dt, out, out_dt, outer, R, init, op, mean);
    } else {
      constexpr int threads = 512;
      reduce_rows_block<Acc, Op><<<static_cast<unsigned>(outer > 65535 * 16 ? 65535 * 16 : outer), threads, 0, stream>>>(
          x, in_dt, out, out_dt, outer, R, init, op, mean);
    }
    return;
  }
  const dim3 block(kInnerX, kInnerY);
  const int64_t gx = (inner + kInnerX - 1) / kInnerX;
  const dim3 grid(static_cast<unsigned>(gx), static_cast<unsigned>(outer > 65535 ? 65535 : outer));
  reduce_inner<Acc, Op><<<grid, block, 0, stream>>>(x, in_dt, out, out_dt, outer, R, inner, init, op, mean);
}

template <class Acc>
bool reduce_typed(ReduceOp op, const void* x, int in_dt, void* out, int out_dt, int64_t outer, int64_t R, int64_t inner, cudaStream_t stream) {
  const Acc lowest = std::is_floating_point<Acc>::value ? -std::numeric_limits<Acc>::infinity() : std::numeric_limits<Acc>::lowest();
  const Acc highest = std::is_floating_point<Acc>::value ? std::numeric_limits<Acc>::infinity() : std::numeric_limits<Acc>::max();
  switch (op) {
    case ReduceOp::Sum: run_reduce<Acc>(x, in_dt, out, out_dt, outer, R, inner, Acc(0), SumOp{}, false, stream); return true;
    case ReduceOp::Mean:
      if (!std::is_floating_point<Acc>::value) return false;
      run_reduce<Acc>(x, in_dt, out, out_dt, outer, R, inner, Acc(0), SumOp{}, true, stream);
      return true;
    case ReduceOp::Max: run_reduce<Acc>(x, in_dt, out, out_dt, outer, R, inner, lowest, MaxOp{}, false, stream); return true;
    case ReduceOp::Min: run_reduce<Acc>(x, in_dt, out, out_dt, outer, R, inner, highest, MinOp{}, false, stream); return true;
  }
  return false;
}

// ---- argmax / argmin -------------------------------------------------------------------------

// Whether candidate (cv, ci) replaces the best so far (bv, bi): NaN wins, then the extreme, then
// the lower index; bi < 0 marks "none yet".
template <class T>
__device__ __forceinline__ bool beats(bool is_max, T cv, int64_t ci, T bv, int64_t bi) {
  if (ci < 0) return false;
  if (bi < 0) return true;
  if (is_nan(bv)) return is_nan(cv) && ci < bi;
  if (is_nan(cv)) return true;
  if (is_max ? cv > bv : cv < bv) return true;
  return cv == bv && ci < bi;
}

template <class T>
__global__ void arg_rows_warp(const void* __restrict__ x, int in_dt, void* __restrict__ values, int values_dt, int64_t* __restrict__ indices,
                              int64_t outer, int64_t R, bool is_max) {
  const int lane = threadIdx.x % kWarp;
  const int64_t per_block = blockDim.x / kWarp;
  for (int64_t row = blockIdx.x * per_block + threadIdx.x / kWarp; row < outer; row += static_cast<int64_t>(gridDim.x) * per_block) {
    T bv = T(0);
    int64_t bi = -1;
    for (int64_t r = lane; r < R; r += kWarp) {
      const T v = load_as<T>(x, in_dt, row * R + r);
      if (beats(is_max, v, r, bv, bi)) bv = v, bi = r;
    }
    for (int o = kWarp / 2; o > 0; o >>= 1) {
      const T ov = __shfl_xor_sync(kFull, bv, o);
      const int64_t oi = __shfl_xor_sync(kFull, bi, o);
      if (beats(is_max, ov, oi, bv, bi)) bv = ov, bi = oi;
    }
    if (lane == 0) {
      indices[row] = bi;
      if (values) store_as(values, values_dt, row, bv);
    }
  }
}

template <class T>
__global__ void arg_inner(const void* __restrict__ x, int in_dt, void* __restrict__ values, int values_dt, int64_t* __restrict__ indices,
                          int64_t outer, int64_t R, int64_t inner, bool is_max) {
  const int64_t total = outer * inner;
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < total; e += step) {
    const int64_t o = e / inner, i = e % inner;
    const int64_t base = o * R * inner + i;
    T best = load_as<T>(x, in_dt, base);
    int64_t bi = 0;
    for (int64_t r = 1; r < R; ++r) {
      if (is_nan(best)) break;
      const T c = load_as<T>(x, in_dt, base + r * inner);
      if (is_nan(c)) {
        best = c, bi = r;
        break;
      }
      if (is_max ? c > best : c < best) best = c, bi = r;
    }
    indices[e] = bi;
    if (values) store_as(values, values_dt, e, best);
  }
}

template <class T>
void arg_typed(bool is_max, const void* x, int in_dt, void* values, int values_dt, int64_t* indices, int64_t outer, int64_t R, int64_t inner,
               cudaStream_t stream) {
  constexpr int threads = 256;
  if (inner == 1) {
    const int64_t blocks = (outer + threads / kWarp - 1) / (threads / kWarp);
    arg_rows_warp<T><<<static_cast<unsigned>(blocks > 65535 * 16 ? 65535 * 16 : blocks), threads, 0, stream>>>(
        x, in_dt, values, values_dt, indices, outer, R, is_max);
    return;
  }
  arg_inner<T><<<grid_for(outer * inner, threads), threads, 0, stream>>>(x, in_dt, values, values_dt, indices, outer, R, inner, is_max);
}

// ---- softmax ---------------------------------------------------------------------------------

__device__ __forceinline__ float nan_max(float a, float b) { return (a != a || b != b) ? (a != a ? a : b) : (a > b ? a : b); }

__global__ void softmax_rows_warp(const float* __restrict__ x, float* __restrict__ out, int64_t outer, int64_t R, bool log) {
  const int lane = threadIdx.x % kWarp;
  const int64_t per_block = blockDim.x / kWarp;
  const MaxOp mx_op;
  const SumOp sum_op;
  for (int64_t row = blockIdx.x * per_block + threadIdx.x / kWarp; row < outer; row += static_cast<int64_t>(gridDim.x) * per_block) {
    const float* a = x + row * R;
    float* b = out + row * R;
    float mx = -INFINITY;
    for (int64_t r = lane; r < R; r += kWarp) mx = nan_max(mx, a[r]);
    mx = warp_all(mx, mx_op);
    float sum = 0.0f;
    for (int64_t r = lane; r < R; r += kWarp) sum += expf(a[r] - mx);
    sum = warp_all(sum, sum_op);
    if (log) {
      const float lse = logf(sum);
      for (int64_t r = lane; r < R; r += kWarp) b[r] = a[r] - mx - lse;
    } else {
      const float inv = 1.0f / sum;
      for (int64_t r = lane; r < R; r += kWarp) b[r] = expf(a[r] - mx) * inv;
    }
  }
}

__global__ void softmax_rows_block(const float* __restrict__ x, float* __restrict__ out, int64_t outer, int64_t R, bool log) {
  __shared__ float smem[kWarp];
  const MaxOp mx_op;
  const SumOp sum_op;
  for (int64_t row = blockIdx.x; row < outer; row += gridDim.x) {
    const float* a = x + row * R;
    float* b = out + row * R;
    float mx = -INFINITY;
    for (int64_t r = threadIdx.x; r < R; r += blockDim.x) mx = nan_max(mx, a[r]);
    mx = block_all(mx, mx_op, smem);
    float sum = 0.0f;
    for (int64_t r = threadIdx.x; r < R; r += blockDim.x) sum += expf(a[r] - mx);
    sum = block_all(sum, sum_op, smem);
    if (log) {
      const float lse = logf(sum);
      for (int64_t r = threadIdx.x; r < R; r += blockDim.x) b[r] = a[r] - mx - lse;
    } else {
      const float inv = 1.0f / sum;
      for (int64_t r = threadIdx.x; r < R; r += blockDim.x) b[r] = expf(a[r] - mx) * inv;
    }
  }
}

__global__ void softmax_inner(const float* __restrict__ x, float* __restrict__ out, int64_t outer, int64_t R, int64_t inner, bool log) {
  const int64_t total = outer * inner;
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < total; e += step) {
    const int64_t o = e / inner, i = e % inner;
    const float* a = x + o * R * inner + i;
    float* b = out + o * R * inner + i;
    float mx = -INFINITY;
    for (int64_t r = 0; r < R; ++r) mx = nan_max(mx, a[r * inner]);
    float sum = 0.0f;
    for (int64_t r = 0; r < R; ++r) sum += expf(a[r * inner] - mx);
    if (log) {
      const float lse = logf(sum);
      for (int64_t r = 0; r < R; ++r) b[r * inner] = a[r * inner] - mx - lse;
    } else {
      const float inv = 1.0f / sum;
      for (int64_t r = 0; r < R; ++r) b[r * inner] = expf(a[r * inner] - mx) * inv;
    }
  }
}

}  // namespace

bool launch_reduce(ReduceOp op, int compute_dtype, const void* x, int in_dtype, void* out, int out_dtype, int64_t outer, int64_t R,
                   int64_t inner, cudaStream_t stream) {
  if (!device_dtype_supported(in_dtype) || !device_dtype_supported(out_dtype)) return false;
  switch (compute_dtype) {
    case kDevFloat32:
    case kDevFloat64:
    case kDevInt64: break;
    default: return false;
  }
  if (op == ReduceOp::Mean && compute_dtype == kDevInt64) return false;
  if (outer * inner == 0) return true;
  switch (compute_dtype) {
    case kDevFloat32: return reduce_typed<float>(op, x, in_dtype, out, out_dtype, outer, R, inner, stream);
    case kDevFloat64: return reduce_typed<double>(op, x, in_dtype, out, out_dtype, outer, R, inner, stream);
    default: return reduce_typed<int64_t>(op, x, in_dtype, out, out_dtype, outer, R, inner, stream);
  }
}

bool launch_arg_reduce(bool is_max, int compute_dtype, const void* x, int in_dtype, void* values, int values_dtype, int64_t* indices,
                       int64_t outer, int64_t R, int64_t inner, cudaStream_t stream) {
  if (!device_dtype_supported(in_dtype) || (values && !device_dtype_supported(values_dtype)) || R <= 0) return false;
  switch (compute_dtype) {
    case kDevFloat32:
    case kDevFloat64:
    case kDevInt64: break;
    default: return false;
  }
  if (outer * inner == 0) return true;
  switch (compute_dtype) {
    case kDevFloat32: arg_typed<float>(is_max, x, in_dtype, values, values_dtype, indices, outer, R, inner, stream); break;
    case kDevFloat64: arg_typed<double>(is_max, x, in_dtype, values, values_dtype, indices, outer, R, inner, stream); break;
    default: arg_typed<int64_t>(is_max, x, in_dtype, values, values_dtype, indices, outer, R, inner, stream); break;
  }
  return true;
}

// ---- attention's masked softmax -----------------------------------------------------------------
namespace {

// The larger, a NaN losing (std::max's answer, which the CPU kernels' row maxima give).
struct MaxIgnoringNan {
  __device__ __forceinline__ float operator()(float a, float b) const { return b > a ? b : a; }
};

__global__ void masked_softmax_rows(float* __restrict__ x, int64_t rows, int64_t cols, int64_t rows_per_matrix, float scale, bool causal,
                                    SoftmaxMask kind, const unsigned char* __restrict__ mask_bytes, const float* __restrict__ mask_floats) {
  __shared__ float smem[kWarp];
  const MaxIgnoringNan mx_op;
  const SumOp sum_op;
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    float* r = x + row * cols;
    const int64_t query = row % rows_per_matrix;
    float mx = -INFINITY;
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) {
      float v = r[j] * scale;
      bool keep = !causal || j <= query;
      if (kind != SoftmaxMask::None) {
        const int64_t at = row * cols + j;
        const bool nonzero = mask_floats ? mask_floats[at] != 0.0f : mask_bytes[at] != 0;
        if (kind == SoftmaxMask::KeepNonzero) keep = keep && nonzero;
        else if (kind == SoftmaxMask::DropNonzero) keep = keep && !nonzero;
        else v += mask_floats[at];
      }
      keep = keep && v != -INFINITY;
      r[j] = keep ? v : -INFINITY;
      if (keep) mx = mx_op(mx, v);
    }
    mx = block_all(mx, mx_op, smem);
    float sum = 0.0f;
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) {
      const float v = r[j];
      const float e = v == -INFINITY ? 0.0f : expf(v - mx);
      r[j] = e;
      sum += e;
    }
    sum = block_all(sum, sum_op, smem);
    const float inv = sum > 0.0f ? 1.0f / sum : 0.0f;
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) r[j] *= inv;
  }
}

}  // namespace

void launch_masked_softmax(float* x, int64_t rows, int64_t cols, int64_t rows_per_matrix, float scale, bool causal, SoftmaxMask kind,
                           const void* mask, bool mask_is_float, cudaStream_t stream) {
  if (rows * cols == 0) return;
  const int threads = cols <= 128 ? 128 : 256;
  const int64_t blocks = rows > 65535 * 16 ? 65535 * 16 : rows;
  masked_softmax_rows<<<static_cast<unsigned>(blocks), threads, 0, stream>>>(
      x, rows, cols, rows_per_matrix, scale, causal, mask ? kind : SoftmaxMask::None, mask_is_float ? nullptr : static_cast<const unsigned char*>(mask),
      mask_is_float ? static_cast<const float*>(mask) : nullptr);
}

void launch_softmax(const float* x, float* out, int64_t outer, int64_t R, int64_t inner, bool log, cudaStream_t stream) {
  if (outer * R * inner == 0) return;
  if (inner == 1) {
    if (R <= 1024) {
      constexpr int threads = 256;
      const int64_t blocks = (outer + threads / kWarp - 1) / (threads / kWarp);
      softmax_rows_warp<<<static_cast<unsigned>(blocks > 65535 * 16 ? 65535 * 16 : blocks), threads, 0, stream>>>(x, out, outer, R, log);
    } else {
      constexpr int threads = 512;
      softmax_rows_block<<<static_cast<unsigned>(outer > 65535 * 16 ? 65535 * 16 : outer), threads, 0, stream>>>(x, out, outer, R, log);
    }
    return;
  }
  constexpr int threads = 256;
  softmax_inner<<<grid_for(outer * inner, threads), threads, 0, stream>>>(x, out, outer, R, inner, log);
}

}  // namespace jitctl::cuda
