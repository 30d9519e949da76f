// The epilogue of a convolution run through cuDNN's engines (conv_engines.h): bias per channel,
// the residual, relu, in one pass over the output.
#include <cuda_runtime.h>

#include <cstdint>

namespace jitctl::cuda {
namespace {

__global__ void conv_epilogue_kernel(float* __restrict__ y, const float* __restrict__ bias, const float* __restrict__ residual, bool relu,
                                     int64_t total, int64_t c, int64_t hw) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total; i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    // The legacy fused call's order: conv + residual, then + bias, then relu (NaN stays NaN).
    float v = y[i];
    if (residual) v = __fadd_rn(v, residual[i]);
    if (bias) v = __fadd_rn(v, bias[(i / hw) % c]);
    if (relu) v = v < 0.0f ? 0.0f : v;
    y[i] = v;
  }
}

}  // namespace

void launch_conv_epilogue(float* y, const float* bias, const float* residual, bool relu, int64_t n, int64_t c, int64_t hw, cudaStream_t stream) {
  const int64_t total = n * c * hw;
  if (total == 0 || (!bias && !residual && !relu)) return;
  const int threads = 256;
  int64_t blocks = (total + threads - 1) / threads;
  if (blocks > 65535) blocks = 65535;
  conv_epilogue_kernel<<<static_cast<unsigned>(blocks), threads, 0, stream>>>(y, bias, residual, relu, total, c, hw);
}

}  // namespace jitctl::cuda
