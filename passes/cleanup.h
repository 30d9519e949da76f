#pragma once
// PyTorch's runCleanupPasses: what its compiler runs on every freshly emitted (and SSA-converted)
// graph, in its order, and on every closure and fork subgraph made from it. What `.graph` prints
// for a loaded module is the result.
#include "lib/ir/ir.h"

namespace jitctl {

void run_cleanup_passes(Graph& g);

}  // namespace jitctl
