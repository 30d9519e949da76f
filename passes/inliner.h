#pragma once
// PyTorch 1.13's Inline pass.
//
// Inline replaces every prim::CallMethod on an object of a class (not of an interface) and every
// prim::CallFunction by the callee's graph, in place (inlineCallTo): the callee's nodes are cloned
// in front of the call with their names, types and source locations; the call's outputs hand their
// names to the values that replace them; the call goes. A CallFunction's function constant stays,
// unused: Inline does not clean up. Nodes it inserts are not visited again, because PyTorch inlines
// callees' *optimized* graphs, in which every call has been inlined already.
//
// The graphs calls are replaced by come from a callback (passes/pass_context.h): PyTorch inlines
// each callee's optimized_graph(), which lib/frontend/graph_function.h makes (and which is where
// `.inlined_graph` is made too). The pass knows nothing of archives or the compiler.
#include <memory>

#include "lib/ir/ir.h"
#include "passes/pass_context.h"

namespace jitctl {

// PyTorch's Inline(graph): each call is replaced by exactly the graph `callee_graph` returns
// (whose own calls are not inlined; see above).
void inline_calls(Graph& g, const CalleeGraphFn& callee_graph);

// inlineCallTo: `call` (a prim::CallMethod, or a CallFunction without its function input) replaced
// by a copy of `callee`, as above. Freezing inlines interface calls with it once it knows the
// module behind the interface.
void inline_call(Node* call, const Graph& callee);

// The pass as the registry runs it, with the callees of `ctx` (std::logic_error without them).
void inline_calls_pass(Graph& g, const PassContext& ctx);

// g.copy() whose nodes keep the schemas they were matched to. Graph::copy and create_clone drop
// them, as PyTorch's do, but a copy has the same input types, so the schemas still hold; alias
// analysis in the passes that run on an inlined or optimized graph reads them, as PyTorch's would
// find them again by matching.
std::shared_ptr<Graph> copy_graph_with_schemas(const Graph& g);

// The same for one node cloned with Graph::create_clone: `to` (and the nodes of its blocks) take
// the schemas of `from`'s.
void copy_schemas(const Node& from, Node& to);

}  // namespace jitctl
