// The split-reduction implicit-GEMM convolution (conv_splitk_launch.h). A block computes a
// 64-pixel x 64-channel output tile over one slice of the reduction: each step stages 16 reduction
// rows of weights and of gathered input pixels (zero outside the image) in shared memory, double
// buffered so the next step's global loads overlap this step's FMAs; each of 256 threads keeps a
// 4x4 register tile. With one slice it writes the output and its epilogue directly; otherwise the
// slices go to scratch and a second kernel adds them in slice order.
#include <algorithm>

#include "kernels/cuda/conv_splitk_launch.h"

namespace jitctl::cuda {
namespace {

constexpr int BM = 64, BN = 64, BK = kSplitKStep, kThreads = 256;
static_assert(BM * BK == 4 * kThreads && BN * BK == 4 * kThreads, "each thread stages four values of each operand per step");

__device__ __forceinline__ float epilogue(float v, const float* bias, const float* residual, int64_t i, int ch, bool relu) {
  // cuDNN's fused call's order, which the legacy path keeps: conv + residual, + bias, relu (NaN stays).
  if (residual) v = __fadd_rn(v, residual[i]);
  if (bias) v = __fadd_rn(v, bias[ch]);
  if (relu) v = v < 0.0f ? 0.0f : v;
  return v;
}

// KH, KW: the kernel size when known at compile time (the tap arithmetic becomes multiplies), 0
// for any.
template <int KH, int KW>
__global__ void __launch_bounds__(kThreads) conv_splitk_kernel(SplitKShape s, int k_per_split, const float* __restrict__ x,
                                                               const float* __restrict__ w, const float* __restrict__ bias,
                                                               const float* __restrict__ residual, bool relu, float* __restrict__ out) {
  __shared__ __align__(16) float ws[2][BK][BN];  // weights, reduction-major
  __shared__ __align__(16) float xs[2][BK][BM];  // gathered input, reduction-major
  const int kh = KH ? KH : s.kh, kw = KW ? KW : s.kw, taps = kh * kw;
  const int ohw = s.oh * s.ow, M = s.n * ohw, K = s.c * taps;
  const int tid = threadIdx.x;
  const int m0 = blockIdx.x * BM, n0 = blockIdx.y * BN;
  const int k_begin = blockIdx.z * k_per_split, k_end = min(K, k_begin + k_per_split);

  // This thread gathers pixel m0 + lm at reduction rows lk, lk + 4, lk + 8, lk + 12 of each step.
  const int lm = tid % BM, lk = tid / BM;
  const int m = m0 + lm;
  const bool m_ok = m < M;
  int iy0 = 0, ix0 = 0, img = 0;
  if (m_ok) {
    img = m / ohw;
    const int p = m - img * ohw, oy = p / s.ow, ox = p - oy * s.ow;
    iy0 = oy * s.sh - s.ph;
    ix0 = ox * s.sw - s.pw;
  }
  const float* xi = x + static_cast<int64_t>(img) * s.c * s.h * s.w;
  // ... and loads weights of output channel n0 + wn at reduction rows wk .. wk + 3.
  const int wn = tid / 4, wk = (tid % 4) * 4;
  const bool n_ok = n0 + wn < s.oc;
  const float* wrow = w + static_cast<int64_t>(n0 + (n_ok ? wn : 0)) * K;

  float wreg[4], xreg[4];
  auto load = [&](int k0) {
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const int k = k0 + wk + j;
      wreg[j] = n_ok && k < k_end ? __ldg(wrow + k) : 0.0f;
    }
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const int k = k0 + lk + 4 * j;
      float v = 0.0f;
      if (m_ok && k < k_end) {
        const int c = k / taps, r = k - c * taps, ky = r / kw, kx = r - ky * kw;
        const int iy = iy0 + ky * s.dh, ix = ix0 + kx * s.dw;
        if (static_cast<unsigned>(iy) < static_cast<unsigned>(s.h) && static_cast<unsigned>(ix) < static_cast<unsigned>(s.w))
          v = __ldg(xi + (static_cast<int64_t>(c) * s.h + iy) * s.w + ix);
      }
      xreg[j] = v;
    }
  };
  auto stage = [&](int buf) {
#pragma unroll
    for (int j = 0; j < 4; ++j) ws[buf][wk + j][wn] = wreg[j];
#pragma unroll
    for (int j = 0; j < 4; ++j) xs[buf][lk + 4 * j][lm] = xreg[j];
  };

  // This thread's outputs: pixels m0 + tx*4 .. +3, channels n0 + ty*4 .. +3.
  const int tx = tid % 16, ty = tid / 16;
  float acc[4][4];
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j) acc[i][j] = 0.0f;

  int buf = 0;
  load(k_begin);
  stage(0);
  __syncthreads();
  for (int k0 = k_begin; k0 < k_end; k0 += BK) {
    const bool more = k0 + BK < k_end;
    if (more) load(k0 + BK);
#pragma unroll
    for (int kk = 0; kk < BK; ++kk) {
      const float4 a = *reinterpret_cast<const float4*>(&ws[buf][kk][ty * 4]);
      const float4 b = *reinterpret_cast<const float4*>(&xs[buf][kk][tx * 4]);
      const float av[4] = {a.x, a.y, a.z, a.w}, bv[4] = {b.x, b.y, b.z, b.w};
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
    }
    // The other buffer was last read before the previous step's barrier.
    if (more) stage(buf ^ 1);
    __syncthreads();
    buf ^= 1;
  }

  const bool direct = gridDim.z == 1;
  const int64_t total = static_cast<int64_t>(M) * s.oc;
  float* dst = direct ? out : out + blockIdx.z * total;
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    const int mm = m0 + tx * 4 + j;
    if (mm >= M) break;
    const int im = mm / ohw, p = mm - im * ohw;
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const int ch = n0 + ty * 4 + i;
      if (ch >= s.oc) break;
      const int64_t o = (static_cast<int64_t>(im) * s.oc + ch) * ohw + p;
      dst[o] = direct ? epilogue(acc[i][j], bias, residual, o, ch, relu) : acc[i][j];
    }
  }
}

// y[i] = epilogue(sum over slices of scratch[slice][i]), slices added in order.
__global__ void conv_splitk_sum(const float* __restrict__ scratch, int slices, int64_t total, int oc, int ohw, const float* __restrict__ bias,
                                const float* __restrict__ residual, bool relu, float* __restrict__ y) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total; i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    float v = scratch[i];
    for (int z = 1; z < slices; ++z) v += scratch[z * total + i];
    y[i] = epilogue(v, bias, residual, i, static_cast<int>((i / ohw) % oc), relu);
  }
}

int64_t tiles(const SplitKShape& s) {
  const int64_t M = static_cast<int64_t>(s.n) * s.oh * s.ow;
  return ((M + BM - 1) / BM) * ((s.oc + BN - 1) / BN);
}

int reduction_length(const SplitKShape& s) { return s.c * s.kh * s.kw; }

}  // namespace

int splitk_slices(const SplitKShape& s, int k_per_split) { return (reduction_length(s) + k_per_split - 1) / k_per_split; }

int splitk_candidates(const SplitKShape& s, int sms, int* out) {
  const int steps = (reduction_length(s) + BK - 1) / BK;
  // At least two steps per slice, so the double buffering has something to overlap.
  const int max_slices = std::max(1, steps / 2);
  const int64_t t = tiles(s);
  // Two resident blocks per SM is the aim (a block is 256 threads and 16 KB of shared memory).
  const int guess = static_cast<int>(std::clamp<int64_t>((2 * sms + t - 1) / t, 1, max_slices));
  int count = 0;
  for (int slices : {guess, guess / 2, guess * 2, 1}) {
    if (slices < 1 || slices > max_slices) continue;
    const int k_per_split = ((steps + slices - 1) / slices) * BK;
    if (std::find(out, out + count, k_per_split) == out + count) out[count++] = k_per_split;
  }
  return count;
}

int64_t splitk_workspace_floats(const SplitKShape& s, int k_per_split) {
  const int slices = splitk_slices(s, k_per_split);
  return slices > 1 ? static_cast<int64_t>(slices) * s.n * s.oc * s.oh * s.ow : 0;
}

void launch_conv_splitk(const SplitKShape& s, int k_per_split, const float* x, const float* w, const float* bias, const float* residual, bool relu,
                        float* y, float* scratch, cudaStream_t stream) {
  const int slices = splitk_slices(s, k_per_split);
  const int64_t M = static_cast<int64_t>(s.n) * s.oh * s.ow;
  const dim3 grid(static_cast<unsigned>((M + BM - 1) / BM), static_cast<unsigned>((s.oc + BN - 1) / BN), static_cast<unsigned>(slices));
  float* dst = slices > 1 ? scratch : y;
  if (s.kh == 3 && s.kw == 3)
    conv_splitk_kernel<3, 3><<<grid, kThreads, 0, stream>>>(s, k_per_split, x, w, bias, residual, relu, dst);
  else if (s.kh == 1 && s.kw == 1)
    conv_splitk_kernel<1, 1><<<grid, kThreads, 0, stream>>>(s, k_per_split, x, w, bias, residual, relu, dst);
  else
    conv_splitk_kernel<0, 0><<<grid, kThreads, 0, stream>>>(s, k_per_split, x, w, bias, residual, relu, dst);
  if (slices == 1) return;
  const int64_t total = M * s.oc;
  const int threads = 256;
  const int64_t blocks = std::min<int64_t>((total + threads - 1) / threads, 4096);
  conv_splitk_sum<<<static_cast<unsigned>(blocks), threads, 0, stream>>>(scratch, slices, total, s.oc, s.oh * s.ow, bias, residual, relu, y);
}

}  // namespace jitctl::cuda
