#pragma once
// liftClosures, the first of PyTorch's clean-up passes: each prim::Closure's block becomes a graph
// of its own (attr::Subgraph) taking its captured values as one tuple, and the closure's output
// becomes (closure, captures) -- the form inline_forked_closures and the interpreter expect.
#include "lib/ir/ir.h"

namespace jitctl {

void lift_closures(Graph& g);

}  // namespace jitctl
