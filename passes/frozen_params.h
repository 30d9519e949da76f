#pragma once
// What the frozen-graph optimizations (frozen_*.cpp) ask of a node's parameters: after freezing,
// a conv's or linear's weights are prim::Constant tensors, and a fold applies only then.
#include "lib/core/tensor.h"
#include "lib/ir/constants.h"
#include "lib/ir/ir.h"

namespace jitctl {

// The tensor a constant holds (the caller has checked that it is one).
inline Tensor constant_tensor(const Value* v) { return to_ivalue(v)->to_tensor(); }

// PyTorch's nonConstantParameters negated: every input after the first is a constant.
inline bool constant_parameters(const Node* n) {
  for (size_t i = 1; i < n->inputs().size(); ++i)
    if (n->input(i)->node()->kind() != prim::Constant) return false;
  return true;
}

}  // namespace jitctl
