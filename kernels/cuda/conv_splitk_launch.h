#pragma once
// jitctl's own fp32 convolution (conv_splitk.cu): an implicit GEMM (output pixels x output
// channels, reduced over input channels x kernel taps) whose reduction is split across blocks.
// Why it exists: at batch 1 a ResNet-sized layer has too few output tiles to occupy an H100's 132
// SMs with FMA math, and cuDNN's fp32 algorithms then leave most of the GPU idle (ResNet-18 at
// batch 1 ran at ~4 TFLOP/s of a 51 TFLOP/s part). Splitting the reduction gives every SM work;
// a second kernel sums the slices in a fixed order (deterministic) and applies bias, residual and
// relu. conv.cpp measures it beside cuDNN's algorithms and keeps whichever is faster per shape.
#include <cuda_runtime.h>

#include <cstdint>

namespace jitctl::cuda {

// NCHW float32, groups 1, symmetric padding. All sizes fit in int (conv.cpp checks).
struct SplitKShape {
  int n, c, h, w, oc, kh, kw, sh, sw, ph, pw, dh, dw, oh, ow;
};

// The reduction length C*KH*KW is cut into slices of `k_per_split` (a multiple of
// kSplitKStep); splitk_slices() says how many that makes.
constexpr int kSplitKStep = 16;
int splitk_slices(const SplitKShape& s, int k_per_split);
// Slice lengths worth measuring for `s` on a GPU with `sms` multiprocessors (at most 4, best
// guess first).
int splitk_candidates(const SplitKShape& s, int sms, int* k_per_split_out);
// Scratch floats the launch needs (0 when there is one slice: the GEMM writes y itself).
int64_t splitk_workspace_floats(const SplitKShape& s, int k_per_split);

// y = relu?(conv(x, w) + residual + bias[c]); bias and residual may be null, `scratch` holds
// splitk_workspace_floats() floats. Capturable (no allocation, no sync).
void launch_conv_splitk(const SplitKShape& s, int k_per_split, const float* x, const float* w, const float* bias, const float* residual, bool relu,
                        float* y, float* scratch, cudaStream_t stream);

}  // namespace jitctl::cuda
