#pragma once
// PyTorch 1.13's ConstantPropagationImmutableTypes, the variant the compiler runs after emitting a
// method (no alias analysis: only nodes whose inputs and outputs are all of immutable types fold):
//  - a node whose inputs are all constants is run and its outputs replaced by new constants,
//    inserted in front of it (new ids, no source location); passes/analysis/immutable_ops.h lists the
//    operators jitctl can run;
//  - an If on a constant condition is replaced by the branch taken (its nodes move out);
//  - If outputs that are the same value in both branches, or equal constants, are removed (the
//    latter replaced by one new constant in front of the If);
//  - a Loop that cannot run is removed; loop-carried values the body passes through unchanged
//    are removed;
//  - when anything changed, dead code elimination runs.
// Returns whether anything changed.
#include "lib/ir/ir.h"

namespace jitctl {

bool propagate_immutable_constants(Graph& g);

}  // namespace jitctl
