#pragma once
// Removes the exit statements the emitter leaves in a graph: prim::LoopContinuation (from break and
// continue, targeting the innermost loop) and prim::ReturnStmt (targeting the graph or a closure).
// Nodes after an exit that is certain to happen are deleted; when an exit only might have happened
// (inside an if), the rest of the block is guarded by an If on a "has exited" flag. The exit values
// become the target block's outputs; the emitter's output placeholder (whatever follows the final
// ReturnStmt) is deleted on the way. Blocks that always raise are treated as not reaching the end,
// so a branch that raises adds no flags.
//
// PyTorch's TransformExits, the last step of ConvertToSSA. Every run creates values even when there
// is nothing to transform (two `true`/`false`/`Uninitialized bool` triples at the top of the graph
// and an Uninitialized of the return type), and their ids show in printed graphs.
#include "lib/ir/ir.h"

namespace jitctl {

void transform_exits(Graph& g);

}  // namespace jitctl
