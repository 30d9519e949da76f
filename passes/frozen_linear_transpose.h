#pragma once
// PyTorch 1.13's FrozenLinearTranspose (frozen_linear_transpose.cpp), the last step of
// torch.jit.optimize_for_inference: every aten::linear (in any block) whose inputs after the first
// are all constants becomes aten::matmul of its input and a new constant, the weight transposed
// and made contiguous, followed by aten::add(matmul, bias, 1) when the bias is not None. New nodes
// go where PyTorch puts them: the transposed weight before the linear, the matmul after it, the
// constant 1 before the matmul and the add after it.
//
// One difference: a linear whose weight is not a 2-D tensor (F.linear accepts a 1-D one) is left
// alone, where PyTorch's transpose(1, 0) throws.
//
// The transposed weights are computed by PassContext::run_operator; without it nothing changes.
// Returns whether anything changed.
#include "lib/ir/ir.h"
#include "passes/pass_context.h"

namespace jitctl {

bool frozen_linear_transpose(Graph& g, const PassContext& ctx);

}  // namespace jitctl
