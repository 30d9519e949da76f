#pragma once
// PyTorch 1.13's Inline pass and what `.inlined_graph` does with it.
//
// Inline replaces every prim::CallMethod on an object of a class (not of an interface) and every
// prim::CallFunction by the callee's graph, in place (inlineCallTo): the callee's nodes are cloned
// in front of the call with their names, types and source locations; the call's outputs hand their
// names to the values that replace them; the call goes. A CallFunction's function constant stays,
// unused: Inline does not clean up. Nodes it inserts are not visited again, because PyTorch inlines
// callees' *optimized* graphs, in which every call has been inlined already.
//
// `.inlined_graph` is `graph.copy(); Inline(copy)` with each callee's graph taken from
// GraphFunction::optimized_graph(): a copy of the callee's graph after preoptimizeGraph -- Inline
// (recursively, the same way), PeepholeOptimize without shape peepholes, constant propagation on
// immutable types and constant pooling (autocast, also in that list, changes nothing with autocast
// off). So a callee's constants arrive pooled at the top of its inlined body, while the caller's own
// graph gets no clean-up at all.
//
// The pass knows nothing of archives or the compiler: graphs come from a callback.
#include <functional>
#include <memory>
#include <string>

#include "lib/ir/ir.h"

namespace jitctl {

// The graph a call runs. For prim::CallMethod: the class's qualified name and the method name; for
// prim::CallFunction: the function's qualified name (the FunctionType of its function constant)
// and "". nullptr leaves that call in place. Errors (a callee that does not compile) propagate.
using CalleeGraphFn =
    std::function<std::shared_ptr<Graph>(const std::string& class_or_function_qualified_name, const std::string& method)>;

// PyTorch's Inline(graph): each call is replaced by exactly the graph `callee_graph` returns
// (whose own calls are not inlined; see above).
void inline_calls(Graph& g, const CalleeGraphFn& callee_graph);

// `.inlined_graph` of a function whose graph is `g`: `graph_of` returns the unoptimized graph of a
// callee (what compile_function gives); each callee is optimized once, as optimized_graph() does,
// and reused for every call to it. Throws InvalidInput on a recursive call chain.
std::shared_ptr<Graph> inlined_graph(const Graph& g, const CalleeGraphFn& graph_of);

// GraphFunction::optimized_graph() for a function whose graph is `g`, its callees from `graph_of`.
std::shared_ptr<Graph> optimized_graph(const Graph& g, const CalleeGraphFn& graph_of);

}  // namespace jitctl
