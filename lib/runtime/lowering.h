#pragma once
// Graph -> Plan: lowers If/Loop to jumps, assigns registers, folds constants into the
// operand table, marks each value's last use as a move, and resolves every operator to a kernel.
#include <memory>
#include <string>
#include <vector>

#include "lib/ir/ir.h"
#include "lib/runtime/plan.h"

namespace jitctl {

// What lowering a graph needs from outside it: the callees of its calls, planned (or nullptr
// where they cannot be), and a place to report operators without kernels.
class CalleeResolver {
 public:
  virtual ~CalleeResolver() = default;
  virtual const Plan* method(const std::shared_ptr<ClassType>& cls, const std::string& name) = 0;
  virtual const Plan* function(const std::string& qualified_name) = 0;
  // A prim::fork's subgraph.
  virtual const Plan* subgraph(const std::shared_ptr<Graph>& g, const std::string& name) = 0;
  // An interface call: every implementation the module may hold should be planned now, so that
  // missing operators show before running.
  virtual void interface_call(const std::string& method) = 0;
  // "aten::foo.bar(Tensor self) -> Tensor", or a prim the interpreter lacks; each once.
  virtual void missing(const std::string& op) = 0;
};

// Lowers `g` into `out` (whose name is set by the caller).
void lower_graph(const Graph& g, CalleeResolver& resolver, Plan& out);

}  // namespace jitctl
