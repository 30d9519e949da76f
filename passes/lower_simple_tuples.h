#pragma once
// PyTorch 1.13's LowerSimpleTuples: a TupleUnpack, TupleIndex (constant index) or TupleSlice of a
// value that a TupleConstruct built reads the construct's inputs instead, in every block; then
// dead code elimination removes the constructs nobody reads any more. A slice becomes a new,
// smaller TupleConstruct (new value id) in front of it.
#include "lib/ir/ir.h"

namespace jitctl {

void lower_simple_tuples(Graph& g);

}  // namespace jitctl
