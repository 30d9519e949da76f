#pragma once
// The tracer: runs a method of a loaded module on concrete inputs and records what PyTorch's
// tracer (torch.jit.trace) records for the same Python code -- a straight-line graph over the
// inputs and the module's parameters and buffers:
//  - loops run and are unrolled, branches are resolved; a tensor turned into a Python bool, int or
//    float (an `if` on a tensor, int(t), float(t), t.item(), range() of a size) has its value
//    baked in, with a warning naming the source line, as PyTorch's TracerWarning does;
//  - sizes (x.size(d), x.shape, x.numel()) are recorded as aten::size / aten::numel followed by
//    prim::NumToTensor, and arithmetic on them as tensor ops, so shapes computed from them stay
//    dynamic where PyTorch keeps them dynamic; Python numbers are constants;
//  - a call of a submodule's forward is a scope, laid out as PyTorch lays out the traced module's
//    `.inlined_graph` (each submodule's attributes read at the start of its inlined body, its
//    own graph optimized as a callee's is);
//  - random ops and dropout in training mode run (their results differ from run to run) and
//    nondeterministic_nodes() lists them as PyTorch's Node::isNondeterministic does.
// A traced archive (its code already straight-line) traces to its own graph.
//
// `torch.jit.trace` traces with gradients enabled unless the caller disabled them; its checks run
// under torch.no_grad(). Library code that asks torch.is_grad_enabled() (the fused fast path of
// nn.TransformerEncoderLayer) takes different paths in the two: TraceOptions::grad_enabled.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lib/core/error.h"
#include "lib/core/ivalue.h"
#include "lib/ir/ir.h"
#include "lib/ir/source_location.h"
#include "lib/runtime/trace_layout.h"

namespace jitctl {

class Runtime;

struct TraceOptions {
  bool grad_enabled = true;  // what torch.is_grad_enabled() answers while tracing
  // torch.jit.trace(strict=...): refuse a dict among the outputs. A traced archive's own code is
  // not held to it (it was traced, so whoever traced it had strict off).
  bool strict = true;
};

// The method cannot be traced as torch.jit.trace would refuse it: an output that is not a tensor
// (nor a container of tensors), or one that does not depend on the inputs.
struct UntraceableModel : InvalidInput {
  using InvalidInput::InvalidInput;
};

// What PyTorch warns about with a TracerWarning: a value baked into the trace.
struct TracerWarning {
  std::string message;
  std::optional<SourceLocation> where;
};

struct Trace {
  // graph(%self, %inputs...): the method's trace, as `.inlined_graph` of the module that
  // torch.jit.trace returns; the first input is the module.
  std::shared_ptr<Graph> graph;
  // The same trace as torch.jit.trace structures the traced module: the method calling its
  // submodules' traced methods (what an archive of the trace holds).
  std::shared_ptr<Graph> calls;
  std::vector<TracedMethod> methods;
  IValue result;  // what the method returned while it was traced
  std::vector<TracerWarning> warnings;
};

// Traces `method` of the runtime's module on `args` (the arguments after self). Arguments must be
// tensors, or tuples, lists and dicts of tensors (what torch.jit.trace accepts): anything else is
// InvalidInput. An exception the model raises propagates (RaisedException); Unsupported names
// what the tracer cannot record. The module's state changes as running it would change it.
Trace trace_method(Runtime& rt, const std::string& method, std::vector<IValue> args, const TraceOptions& options = {});

// Was `g` made by torch.jit.trace (a traced archive's method)? Its nodes point at Python stack
// frames (`file:line:0`), where a compiled function's point into its source, past column 0.
bool is_traced_graph(const Graph& g);

// The nodes of `g` (top level) that PyTorch's Node::isNondeterministic() calls nondeterministic:
// random sampling, and dropout unless its `train` input is the constant false.
std::vector<const Node*> nondeterministic_nodes(const Graph& g);

}  // namespace jitctl
