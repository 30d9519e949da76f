#pragma once
// Reduction and softmax device kernels (reduction.cu), called from reduction.cpp. Every kernel
// sees its input as a contiguous [outer, R, inner] array with the reduced dims in the middle (the
// host permutes and copies first when they are not adjacent, as kernels/cpu/reduction.cpp does)
// and writes a contiguous [outer, inner] result.
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/cuda/copy_launch.h"

namespace jitctl::cuda {

enum class ReduceOp : int { Sum, Mean, Max, Min };

// out[o * inner + i] = op over r of x[(o * R + r) * inner + i]. x (DeviceDType in_dtype) is read
// converted to the compute type (kDevFloat32, kDevFloat64 or kDevInt64), which is also the
// accumulator: Sum and Mean add in a tree (warp shuffles, then across warps), Max and Min let
// NaN win. The result is stored converted to out_dtype. False, launching nothing, for a compute
// type or op it has no kernel for (Mean needs a floating compute type).
bool launch_reduce(ReduceOp op, int compute_dtype, const void* x, int in_dtype, void* out, int out_dtype, int64_t outer, int64_t R,
                   int64_t inner, cudaStream_t stream);

// The first position of the maximum (is_max) or minimum along R, a NaN winning over numbers (the
// first NaN), into indices[o * inner + i]; the value too when `values` is not null (stored as
// values_dtype). Compute types as launch_reduce. Requires R > 0.
bool launch_arg_reduce(bool is_max, int compute_dtype, const void* x, int in_dtype, void* values, int values_dtype, int64_t* indices,
                       int64_t outer, int64_t R, int64_t inner, cudaStream_t stream);

// softmax (or log_softmax) of float32 x along R: out = exp(x - max) / sum, or x - max - log(sum).
void launch_softmax(const float* x, float* out, int64_t outer, int64_t R, int64_t inner, bool log, cudaStream_t stream);

// Attention's masked softmax, in place over the rows of x [rows, cols] (the attention ops,
// attention.cpp, with kernels/cpu's rules): v = x * scale; entries past the diagonal are dropped
// when `causal` (query index = row % rows_per_matrix); `mask` ([rows, cols], bytes or floats)
// keeps the nonzero entries (KeepNonzero: SDPA's bool mask), is added (Additive: SDPA's float
// mask) or drops the nonzero entries (DropNonzero: nn.MultiheadAttention's masks); -inf entries
// drop too. Dropped entries get 0, a row with none kept all 0.
enum class SoftmaxMask : int { None, KeepNonzero, Additive, DropNonzero };
void launch_masked_softmax(float* x, int64_t rows, int64_t cols, int64_t rows_per_matrix, float scale, bool causal, SoftmaxMask kind,
                           const void* mask, bool mask_is_float, cudaStream_t stream);

}  // namespace jitctl::cuda
