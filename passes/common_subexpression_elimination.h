#pragma once
// PyTorch 1.13's EliminateCommonSubexpression: a node equal to an earlier one (same kind, output
// types, input values and attributes: passes/analysis/node_equality.h) in its block, or in an
// enclosing block, is replaced by it and destroyed. Skipped: nodes with side effects or blocks
// (their blocks are walked, seeing what the enclosing blocks hold), random nodes, prim::profile,
// and nodes whose inputs or outputs something writes to (alias analysis, built once before the
// walk, as PyTorch's). A replacement from an enclosing block needs PyTorch's
// safeToChangeAliasingRelationship; one within the block must not make two graph outputs alias.
// Returns whether anything changed.
#include "lib/ir/ir.h"

namespace jitctl {

bool eliminate_common_subexpressions(Graph& g);

}  // namespace jitctl
