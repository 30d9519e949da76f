#pragma once
// Constant pooling as PyTorch 1.13's ConstantPooling: every prim::Constant moves to the top of the
// graph and equal constants collapse into the first one met. The walk is in node order, descending
// into blocks where it meets them, and each newly met constant is moved in front of the graph's
// first node, so the pooled constants print in reverse order of first encounter; the survivor
// keeps its own id and source location. Constants of mutable types merge only when alias
// analysis says the merge cannot be observed.
#include "lib/ir/ir.h"

namespace jitctl {

void pool_constants(Graph& g);

}  // namespace jitctl
