#pragma once
// cuDNN's engines through its graph (backend) API, for convolutions the legacy API runs slowly:
// the legacy API's eight algorithms are each one kernel family with fixed settings, while the
// engine configurations that cuDNN's heuristics list also vary tiles and split the reduction
// (split-K), which is what a batch-1 convolution, too small to fill the GPU, needs. conv.cpp
// measures both and keeps the faster.
#include <cuda_runtime.h>

#include <cstdint>
#include <memory>

#include "kernels/cpu/conv.h"

namespace jitctl::cuda {

class EnginePlan;

// The fastest of cuDNN's engine configurations for `p` (float32, NCHW, contiguous) on these
// buffers (y is overwritten), measured on the stream; `us` gets its time per call. nullptr when
// none can be built (then the legacy algorithms are used). With `tf32` false, engines that
// compute through tensor cores (TF32 for fp32 data) are left out.
std::shared_ptr<EnginePlan> tune_engine_plan(const cpu::ConvParams& p, bool tf32, int64_t alignment, const void* x, const void* w, void* y,
                                             float* us);
// y = conv(x, w) with the plan (its workspace from cuda::workspace). Capturable.
void run_engine_plan(const EnginePlan& plan, const void* x, const void* w, void* y);

// y = relu?(y + bias[c] + residual): what the fused legacy call adds to a plain convolution.
// bias or residual may be null.
void launch_conv_epilogue(float* y, const float* bias, const float* residual, bool relu, int64_t n, int64_t c, int64_t hw, cudaStream_t stream);

}  // namespace jitctl::cuda
