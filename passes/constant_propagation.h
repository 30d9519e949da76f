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
//
// PyTorch 1.13's ConstantPropagation (the variant freezing runs, `constant-propagation`) walks the
// same way, but alias analysis rather than types decides what may fold, so tensors fold too: a
// node on constants folds when it is deterministic and nothing writes to memory its inputs or
// outputs may share (the analysis is built once, before the walk, and not updated as the graph
// changes: PyTorch's is not either). Scalars, strings and tuples fold as above; every other node
// runs through PassContext::evaluate (the interpreter's kernels), and without it does not fold.
// Results that require grad or hold objects do not fold (jitctl makes no object constants).
#include "lib/ir/ir.h"
#include "passes/pass_context.h"

namespace jitctl {

bool propagate_immutable_constants(Graph& g);
bool propagate_constants(Graph& g, const PassContext& ctx);

}  // namespace jitctl
