#pragma once
// Dead branches on conditions known from the code around them. Inside an If's first block its
// condition is true and inside the second false; after an If one of whose blocks always raises
// (scripted code's checks, `if x.dim() != 4: raise ValueError(...)`), the condition has the value
// that did not raise. Uses of the condition there (and of its aten::__not__, one level either
// way) become constants, and every If whose condition is then a constant is replaced by the block
// it takes -- so a check repeated on the same condition, once common subexpression elimination
// has made the two one value, runs once. (Ifs on a constant condition in general are constant
// propagation's; this pass inlines the ones it decides and any it finds.) Not a PyTorch pass;
// `jitctl optimize` runs it. Returns whether anything changed.
#include "lib/ir/ir.h"

namespace jitctl {

bool eliminate_dead_branches(Graph& g);

}  // namespace jitctl
