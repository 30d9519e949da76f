#pragma once
// PyTorch 1.13's EliminateNoOps, as freezing runs it: every aten::detach (in any block) is replaced
// by its input -- unless the graph compares tensors by identity (aten::__is__ / __isnot__ with
// tensor inputs), which removing a detach would change. Then dead code elimination, if anything
// changed. Returns whether anything changed.
#include "lib/ir/ir.h"

namespace jitctl {

bool eliminate_no_ops(Graph& g);

}  // namespace jitctl
