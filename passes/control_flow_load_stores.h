#pragma once
// Step 1 of PyTorch 1.13's ConvertToSSA (pipeline convert-to-ssa in passes/registry.def): each If
// gets one output per variable stored in one branch and visible in the other (3 ids: a Load at the
// end of each branch, the output, which is named; its type unifies the branches' types, a Union
// when nothing narrower does), each Loop one carried value per variable stored in its body and
// defined outside (4 ids: a Load in front of the loop, a body input named after the variable, a
// Load at the end of the body, the named output). Nested control flow first, variables in sorted
// order.
#include "lib/ir/ir.h"

namespace jitctl {

// Throws std::logic_error if a loop-carried variable's type in the body does not unify with its
// type before the loop.
void add_control_flow_load_stores(Graph& g);

}  // namespace jitctl
