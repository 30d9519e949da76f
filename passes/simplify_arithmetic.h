#pragma once
// Arithmetic identities where what is known of the operands (passes/analysis/tensor_facts.h)
// proves the result is the input itself: x * 1, x / 1, x + 0 and x - 0 (any alpha), with the 1 or
// 0 a Python number or a one-element tensor constant, become x when
//  - the result's dtype is x's: a number promotes only across categories (an int keeps any
//    non-bool dtype, a float keeps a floating one, x / 1 needs a floating x); a tensor constant
//    of x's dtype keeps it, and a zero-dim one of a category no higher keeps it for an x of rank 1
//    or more;
//  - the result's shape is x's: a number, or a constant of at most x's rank with every size 1;
//  - and nothing changes what aliases what: nothing writes to x or to the result, and not both
//    reach outside the graph (alias analysis: safeToChangeAliasingRelationship).
// PyTorch's peephole pass does the int cases without knowing dtypes; this does them with. One
// difference from running the op remains, as in PyTorch's: x + 0 turns -0.0 into +0.0, and
// without the add x keeps -0.0 (equal under ==). Not a PyTorch pass; `jitctl optimize` runs it.
// Returns whether anything changed.
#include "lib/ir/ir.h"

namespace jitctl {

bool simplify_arithmetic(Graph& g);

}  // namespace jitctl
