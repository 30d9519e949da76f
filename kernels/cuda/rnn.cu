// One RNN time step's cell update (rnn_launch.h).
#include "kernels/cuda/rnn_launch.h"

namespace jitctl::cuda {
namespace {

__device__ __forceinline__ float sigmoid(float x) { return 1.0f / (1.0f + expf(-x)); }

__global__ void rnn_cell(int cell, const float* __restrict__ xproj, const float* __restrict__ hproj, const float* __restrict__ b_hh,
                         float* __restrict__ h, float* __restrict__ c, float* __restrict__ y, int64_t ld_y, int64_t batch, int64_t hidden) {
  const int64_t gates = cell == 0 ? 4 : cell == 1 ? 3 : 1;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < batch * hidden; i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t b = i / hidden, j = i % hidden;
    const float* xi = xproj + b * gates * hidden;
    const float* hp = hproj + b * gates * hidden;
    float hh[4];
    for (int64_t g = 0; g < gates; ++g) hh[g] = hp[g * hidden + j] + (b_hh ? b_hh[g * hidden + j] : 0.0f);
    float out;
    switch (cell) {
      case 0: {
        const float ig = sigmoid(xi[j] + hh[0]);
        const float fg = sigmoid(xi[hidden + j] + hh[1]);
        const float cg = tanhf(xi[2 * hidden + j] + hh[2]);
        const float og = sigmoid(xi[3 * hidden + j] + hh[3]);
        const float cn = fg * c[i] + ig * cg;
        c[i] = cn;
        out = og * tanhf(cn);
        break;
      }
      case 1: {
        const float r = sigmoid(xi[j] + hh[0]);
        const float z = sigmoid(xi[hidden + j] + hh[1]);
        const float n = tanhf(xi[2 * hidden + j] + r * hh[2]);
        out = (1.0f - z) * n + z * h[i];
        break;
      }
      case 2: out = tanhf(xi[j] + hh[0]); break;
      default: {
        const float v = xi[j] + hh[0];
        out = v < 0.0f ? 0.0f : v;  // std::max(v, 0.0f): NaN stays NaN
        break;
      }
    }
    h[i] = out;
    y[b * ld_y + j] = out;
  }
}

}  // namespace

void launch_rnn_cell(int cell, const float* xproj, const float* hproj, const float* b_hh, float* h, float* c, float* y, int64_t ld_y, int64_t batch,
                     int64_t hidden, cudaStream_t stream) {
  const int64_t n = batch * hidden;
  if (n == 0) return;
  const int threads = 256;
  const int64_t blocks = (n + threads - 1) / threads;
  rnn_cell<<<static_cast<unsigned>(blocks > 65535 ? 65535 : blocks), threads, 0, stream>>>(cell, xproj, hproj, b_hh, h, c, y, ld_y, batch, hidden);
}

}  // namespace jitctl::cuda
