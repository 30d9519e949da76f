#pragma once
// Running operators at optimization time, for the passes that fold tensors (passes/pass_context.h):
// the interpreter's own kernels and prim ops, so that a folded constant is exactly what running
// the graph would have computed, as PyTorch's constant propagation runs its interpreter's
// operators. Passes sit below the runtime and cannot include it; whoever runs them fills the
// context with these.
#include "passes/pass_context.h"

namespace jitctl {

// PassContext::evaluate: a node's operator (its schema, or the builtin overload its input types
// match) on constant inputs; prim::ListConstruct/TupleConstruct/DictConstruct/ListUnpack by the
// node's types, as PyTorch's constant propagation builds them. nullopt for vararg operators,
// operators without a kernel, and anything that throws.
NodeEvaluator node_evaluator();

// PassContext::run_operator: a kernel by schema name.
OperatorRunner operator_runner();

// A context with both.
PassContext evaluating_pass_context();

}  // namespace jitctl
