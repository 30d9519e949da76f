#pragma once
// PyTorch 1.13's FrozenConcatLinear (frozen_concat_linear.cpp), the second of the frozen-graph
// optimizations torch.jit.freeze runs: aten::linear nodes of one block that read the same input,
// whose weight and bias are constant tensors (neither None) on a CUDA device, of equal dtype and
// device and equal sizes past dim 0, become one aten::linear with the weights and biases
// concatenated along dim 0, and each old output a slice of the new one:
// aten::slice(y, -1, start, end, 1). Blocks are done innermost first; in a block, the inputs in
// reverse order of first use; for an input, each linear not yet merged takes every later one that
// matches it and could move in front of it (no write to the input's memory in between).
//
// PyTorch merges CUDA weights only, so on the CPU tensors of an ordinary archive this changes
// nothing, as torch.jit.freeze changes nothing; an archive saved with CUDA tensors has its linears
// merged as PyTorch would. The concatenations are computed by PassContext::run_operator; without
// it nothing changes. Returns whether anything changed.
#include "lib/ir/ir.h"
#include "passes/pass_context.h"

namespace jitctl {

bool frozen_concat_linear(Graph& g, const PassContext& ctx);

}  // namespace jitctl
