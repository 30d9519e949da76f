#pragma once
// Dead code elimination as PyTorch 1.13's EliminateDeadCode(graph) runs it on a freshly compiled
// graph: nodes whose results nobody needs are deleted, unless they have side effects (raise, print,
// calls, writes that escape the graph) or write to memory a live value may point to; unused If
// outputs and loop-carried values that neither the loop's users nor its body read are deleted too.
#include "lib/ir/ir.h"

namespace jitctl {

void eliminate_dead_code(Graph& g);

// The variant PyTorch runs when it has no alias analysis (EliminateDeadCode(block), as
// PeepholeOptimize calls it): a node whose matched schema writes to an argument is always kept,
// and no node is kept merely for writing to a live value's memory.
void eliminate_dead_code_without_alias_db(Graph& g);

}  // namespace jitctl
