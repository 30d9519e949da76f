#pragma once
// Step 2 of PyTorch 1.13's ConvertToSSA (pipeline convert-to-ssa in passes/registry.def): one
// `false` constant at the top of the graph (and one per closure); prim::BreakStmt and
// prim::ContinueStmt become prim::LoopContinuation carrying the loop's values.
#include "lib/ir/ir.h"

namespace jitctl {

// Throws std::logic_error for a break or continue outside a loop.
void convert_loop_continuations(Graph& g);

}  // namespace jitctl
