#pragma once
// PyTorch 1.13's frozen convolution folding (frozen_conv_folding.cpp), run on a frozen graph whose
// weights are constants. A conv (aten::conv1d/2d/3d, or a non-transposed aten::_convolution) whose
// every input but the first is a constant and whose output has no other use absorbs the op that
// follows it:
//  - fold_frozen_conv_batchnorm: aten::batch_norm with constant statistics: weight w * (g / sqrt(var
//    + eps)) per out-channel, bias (b - mean) * g / sqrt(var + eps) + beta (b, g, beta default to
//    0, 1, 0); new constants named `<weight>_fused_bn`, `<bias>_fused_bn`;
//  - fold_frozen_conv_add_or_sub: aten::add/sub (.Tensor or .Scalar, alpha included) of a
//    constant that is one value or one per out-channel (shape [1, C, 1, ...] or fewer dims):
//    the bias absorbs it (`<bias>_fused_add` / `_fused_sub`);
//  - fold_frozen_conv_mul_or_div: aten::mul/div (.Tensor or .Scalar) of such a constant: weight
//    and bias absorb it.
// Only floating-point weights, and no constant whose type would promote the weight's. The new
// weights are computed by PassContext::run_operator (the interpreter's kernels, in PyTorch's order
// of operations); without it nothing folds. Each runs dead code elimination and returns whether
// it folded anything. `fold-frozen-conv` in passes/registry.def repeats the three until none
// folds, as OptimizeFrozenGraph does (conv -> mul -> add chains).
#include "lib/ir/ir.h"
#include "passes/pass_context.h"

namespace jitctl {

bool fold_frozen_conv_batchnorm(Graph& g, const PassContext& ctx);
bool fold_frozen_conv_add_or_sub(Graph& g, const PassContext& ctx);
bool fold_frozen_conv_mul_or_div(Graph& g, const PassContext& ctx);

// jitctl's own variant for `jitctl optimize` (not PyTorch's): the batch_norm fold also when the
// conv's output is read elsewhere only for its metadata (dim, size, dtype, device), which the
// fold leaves unchanged -- scripted BatchNorm checks its input's rank, which stops PyTorch's fold
// (DenseNet's scripted norm2 layers).
bool fold_conv_batchnorm_past_shape_reads(Graph& g, const PassContext& ctx);

}  // namespace jitctl
