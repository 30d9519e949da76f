#pragma once
// The emitter leaves each prim::Loop with its condition in a second block. This pass gives the loop
// its SSA form: a copy of the condition goes in front of the loop as the start condition (a new
// input after the trip count), and the condition's own nodes move to the end of the body, whose
// first output becomes the continue condition. Nested loops are handled before their enclosing one.
//
// PyTorch's InlineLoopCondition, step 3 of ConvertToSSA. The copies take new value ids, in node
// order, and copy the originals' names (renaming the originals), which is visible in printed graphs.
#include "lib/ir/ir.h"

namespace jitctl {

void inline_loop_condition(Graph& g);

}  // namespace jitctl
