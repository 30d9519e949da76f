#pragma once
// PyTorch 1.13's RemoveListMutation (remove_mutation.cpp), which runOptimization runs after
// unrolling constant loops: `l = prim::ListConstruct(...)` followed in the same block by
// `aten::append(l, v)` becomes `l = prim::ListConstruct(..., v)`, the ListConstruct moved to
// where the append was -- when nothing between them uses the list (PyTorch's alias analysis
// refuses the move then: a len(l), a cat(l), an append it could not merge). Appends in nested
// blocks stay. This is what turns an unrolled list comprehension back into one ListConstruct.
// Returns whether anything changed.
#include "lib/ir/ir.h"

namespace jitctl {

bool remove_list_mutation(Graph& g);

}  // namespace jitctl
