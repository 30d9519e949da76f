#pragma once
// inlineForkedClosures: `fork(closure)` (prim::forkClosure over a lifted closure) becomes one
// prim::fork node carrying the closure's graph as attr::Subgraph, with the captured values as its
// inputs -- what str(graph) prints as `prim::fork_0(...)` and `with prim::fork_0 = graph(...)`.
#include "lib/ir/ir.h"

namespace jitctl {

void inline_forked_closures(Graph& g);

}  // namespace jitctl
