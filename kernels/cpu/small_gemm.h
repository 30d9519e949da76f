#pragma once
// float32 matrix products too small for a library call to pay off but too large for a plain
// loop: attention's per-window and per-head products (Swin's 49x32 · 32x49 and 49x49 · 49x32, an
// encoder's 128x32 · 32x128). oneDNN's sgemm spent about 3 µs of checks and packing on each of
// Swin-T's 49x49x32 products (47 GFLOP/s, 192 of them per block in the first stage); this kernel
// copies B into a zero-padded row-major buffer (transposing it when it is a transposed view, as
// k.transpose(-2, -1) is) and runs a 6x16 register tile over A's rows in place. AVX2 instructions
// on AVX2 and AVX-512 machines alike: at these sizes the loads, not the FMA width, set the pace.
#include <cstdint>

#include "kernels/cpu/gemm.h"

namespace jitctl::cpu {

// Whether small_sgemm takes this product: a CPU with AVX2 (any strides: a strided A is copied),
// at most 2^20 multiply-adds, and B (k x n, n rounded up to 16) within 64 KB. JITCTL_SMALL_GEMM=0
// turns it off.
bool small_sgemm_takes(const MatRef<float>& a, const MatRef<float>& b);

// C = alpha * A * B + beta * C (beta == 0 ignores what C holds), on the calling thread.
void small_sgemm(const MatRef<float>& a, const MatRef<float>& b, float* c, int64_t ldc, float alpha, float beta);

}  // namespace jitctl::cpu
