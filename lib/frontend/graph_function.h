#pragma once
// One method or free function and the graphs made from it, each made once and shared by all who
// ask (PyTorch's GraphFunction): dump-graph, dump-code and export print graph(), callers inline
// optimized_graph(), the interpreter lowers optimized_graph(), `dump-graph --inline` prints
// inlined_graph(). A CompilationUnit holds one per function of its code (graph_function()).
//
// As in PyTorch 1.13:
//  - graph(): what `.graph` prints: the code emitted, converted to SSA and cleaned up
//    (compile_function, lib/frontend/ir_emitter.h);
//  - optimized_graph(): a copy of graph() after preoptimizeGraph (pipeline `preoptimize` of
//    passes/registry.def): Inline, with each callee's own optimized_graph() (so calls are inlined
//    recursively, each callee optimized once however many call sites name it), then peephole
//    without shape peepholes, constant propagation on immutable types and constant pooling. So a
//    callee's constants arrive pooled at the top of its inlined body;
//  - inlined_graph(): what `.inlined_graph` prints: a copy of graph() with its calls inlined the
//    same way, and no clean-up at all of the caller's own graph.
// Graphs returned as shared pointers are shared with every other user: copy before changing one
// (copy_graph_with_schemas, passes/inliner.h). Not thread-safe: callers serialize (the runtime
// makes graphs under its lock).
#include <functional>
#include <memory>
#include <string>

#include "lib/ir/ir.h"
#include "passes/pass_context.h"

namespace jitctl {

class GraphFunction {
 public:
  // What a call in this function's graphs names: its callee, or nullptr to leave the call in place
  // (a method of a C++ class, whose code jitctl does not have). Throws InvalidInput for a callee
  // that does not exist.
  using Resolver = std::function<GraphFunction*(const std::string& class_or_function_qualified_name, const std::string& method)>;

  // `make_graph` makes graph() (and throws what compiling throws), called at most once with success.
  GraphFunction(std::string qualified_name, std::function<std::shared_ptr<Graph>()> make_graph, Resolver resolve);
  GraphFunction(const GraphFunction&) = delete;
  GraphFunction& operator=(const GraphFunction&) = delete;

  const std::string& qualified_name() const { return name_; }  // "__torch__.Net.forward"

  const std::shared_ptr<Graph>& graph();
  // Throws InvalidInput on a recursive call chain: TorchScript does not support recursion.
  const std::shared_ptr<Graph>& optimized_graph();
  // A fresh graph on every call, the caller's to keep.
  std::shared_ptr<Graph> inlined_graph();

  // The callees of this function's calls as the `inline` pass takes them: their optimized graphs.
  CalleeGraphFn callee_graphs() const;

 private:
  std::string name_;
  std::function<std::shared_ptr<Graph>()> make_graph_;
  Resolver resolve_;
  std::shared_ptr<Graph> graph_, optimized_;
  bool optimizing_ = false;  // inside optimized_graph(): met again, a call chain came back here
};

}  // namespace jitctl
