#pragma once
// What a pass may need besides its graph, filled by whoever runs it (the registry's pipelines pass
// it to every step). Most passes need nothing; `inline` needs the graphs of the functions calls
// name, which only a layer above knows (lib/frontend's GraphFunction supplies them); passes that
// fold tensors need to run operators, which only the runtime can (lib/runtime/node_evaluator.h
// supplies that, running the interpreter's own kernels, as PyTorch's constant propagation runs its
// interpreter's operators).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lib/ir/ir.h"

namespace jitctl {

// The graph a call runs. For prim::CallMethod: the class's qualified name and the method name; for
// prim::CallFunction: the function's qualified name (the FunctionType of its function constant)
// and "". nullptr leaves that call in place. Errors (a callee that does not compile) propagate.
// The graph returned is shared: the inliner copies its nodes and never changes it.
using CalleeGraphFn =
    std::function<std::shared_ptr<Graph>(const std::string& class_or_function_qualified_name, const std::string& method)>;

// Runs node `n` on `inputs` (constants, one per input of `n`) as the interpreter would and returns
// its outputs; nullopt when it cannot (no kernel, a vararg operator, or the operator throws: as in
// PyTorch, a node whose operator fails is simply not folded).
using NodeEvaluator = std::function<std::optional<std::vector<IValue>>(const Node& n, const std::vector<IValue>& inputs)>;

// Runs the operator `schema_name` ("aten::mul.Tensor", "aten::rsqrt") on every argument of its
// schema, in order, and returns its outputs. Throws what the kernel throws, and Unsupported when
// there is no kernel of that name.
using OperatorRunner = std::function<std::vector<IValue>(std::string_view schema_name, std::vector<IValue> args)>;

// What passes tally for a report, when whoever runs them asks (jitctl optimize's report).
struct PassStats {
  // Nodes whose results were computed while optimizing and replaced by constants: constant
  // propagation's folds and the shape and dtype queries answered from facts.
  size_t constants_folded = 0;
};

struct PassContext {
  // For `inline`: the graph each call is replaced by (see passes/inliner.h). Running `inline`
  // without it is a programming error (std::logic_error).
  CalleeGraphFn callees;
  // For passes that compute tensors (constant-propagation, the frozen folding passes). Without
  // them those passes fold only what needs no operator run on a tensor (they say which).
  NodeEvaluator evaluate;
  OperatorRunner run_operator;
  // Called after every pass a pipeline (or PassInfo::run) runs, with the pass's name
  // (`jitctl optimize --print-after-each`).
  std::function<void(std::string_view pass, const Graph& g)> after_each;
  // For `replace-old-operators`: the file-format version of the archive whose code the graph was
  // compiled from (passes/replace_old_operators.h); -1 (not from an archive) leaves it alone.
  int64_t operator_version = -1;
  // Where passes count what they did; null: nothing is counted.
  PassStats* stats = nullptr;
};

}  // namespace jitctl
