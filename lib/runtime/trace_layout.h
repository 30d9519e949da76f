#pragma once
// From what the tracer recorded to the graph PyTorch shows for a traced module's
// `.inlined_graph`. The recording holds prim::TracedAttr values for parameters and submodules and
// a prim::TracedModuleForward block for each submodule call (lib/runtime/trace_builder.h); as
// PyTorch's FixupTraceScopeBlocks does for a module, each block becomes a method of its module:
// attribute reads become prim::GetAttr chains at the start of the tightest block that can reach
// them, values are lifted out of the blocks that use them elsewhere, blocks with several
// results return a tuple, and each block is lambda-lifted into a graph called by
// prim::CallMethod. Every method then gets the clean-up the tracer runs (simple tuples lowered,
// dead code removed), and the calls are inlined with each callee's optimized graph (pipeline
// `preoptimize`: constants pooled at the top of each inlined body), which is what `.inlined_graph`
// inlines.
#include <memory>
#include <string>
#include <vector>

#include "lib/ir/ir.h"

namespace jitctl {

// A method of a submodule made from the trace of its calls: what torch.jit.trace gives the
// traced module's submodule, named as PyTorch names them per module in call order (forward,
// forward1, ...).
struct TracedMethod {
  std::string module;  // the submodule's path from the root, "net.0"
  std::string name;
  std::shared_ptr<Graph> graph;  // graph(%self, ...), calls of its own submodules' traced methods
};

struct TraceLayout {
  std::shared_ptr<Graph> inlined;  // the traced method's `.inlined_graph`: no calls
  std::shared_ptr<Graph> calls;    // the traced method itself, calling the submodules' methods
  std::vector<TracedMethod> methods;
};

// `recorded` is consumed (changed in place).
TraceLayout lay_out_trace(Graph& recorded);

}  // namespace jitctl
