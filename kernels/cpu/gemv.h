#pragma once
// y = W x for one input row, W [N, K] row-major as nn.Linear stores it: the batch-1 linear
// (classifier heads), where a GEMM library's packing and blocking only add overhead to what is a
// pass over the weights. Vectorized for the ISA in use, parallel over output blocks.
#include <cstdint>

#include "kernels/cpu/epilogue.h"

namespace jitctl::cpu {

// y[j] = sum_k w[j * k + i] * x[i] for j < n.
void gemv_f32(const float* w, const float* x, int64_t n, int64_t k, float* y);

// y[j] = epilogue(acc[j] + bias[j]) for j < n (bias may be null); an Add in the epilogue adds what
// y held on entry, as the packed kernels' residual contract has it.
void finish_row_f32(const float* acc, const float* bias, const Epilogue& e, int64_t n, float* y);

// finish_row_f32 without a bias over n elements in all, on the team: an elementwise epilogue (no
// per-column bias) over a whole output a kernel wrote without it.
void finish_all_f32(const float* acc, const Epilogue& e, int64_t n, float* y);

}  // namespace jitctl::cpu
