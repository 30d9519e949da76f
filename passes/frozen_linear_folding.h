#pragma once
// Linear -> BatchNorm folding on a frozen graph (PyTorch 2.x's FoldFrozenLinearBatchnorm, in
// frozen_linear_folding.cpp; torch.jit.freeze in 1.13 does not run it, so `jitctl freeze` does
// not either -- `jitctl optimize` does). An aten::linear whose weight and bias (or None) are
// constants, followed by an eval-mode aten::batch_norm with constant statistics, becomes one
// linear: weight w * (g / sqrt(var + eps)) per out-feature, bias (b - mean) * g / sqrt(var + eps) +
// beta; new constants named `<weight>_fused_bn`, `<bias>_fused_bn`, as PyTorch names them.
//
// Stricter than PyTorch's, which folds whatever batch_norm reads a linear: batch_norm normalizes
// dim 1, which is the linear's out-feature dim only for a 2-D input, and the linear's other uses
// would see the folded values. So the fold needs (a) the linear's input proven 2-D by what made it
// (flatten(x, 1), a view/reshape to two sizes, mm/addmm, or a linear or an elementwise op on such
// a value) and (b) no use of the linear's output besides the batch_norm and metadata reads
// (scripted BatchNorm1d's dim() check). On a 3-D input PyTorch's fold gives wrong outputs; this
// one leaves the graph alone.
//
// The new weights are computed by PassContext::run_operator; without it nothing folds. Runs dead
// code elimination; returns whether it folded anything.
#include "lib/ir/ir.h"
#include "passes/pass_context.h"

namespace jitctl {

bool fold_frozen_linear_batchnorm(Graph& g, const PassContext& ctx);

}  // namespace jitctl
