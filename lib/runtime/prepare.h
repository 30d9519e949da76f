#pragma once
// Node preparation at lowering, for speed (issue 12): a convolution or linear whose weight and
// bias are constants of the graph (a frozen module's) becomes one prepared instruction holding
// its weights packed once for the CPU's kernel, with the elementwise ops that consume its output
// alone (ReLU and the other activations, a residual add) fused into the kernel's output loop,
// and with its output left channels-last when every reader of it accepts any layout.
//
// This is a runtime-only lowering: the graph is not changed, archives written from it keep
// standard ATen ops, and a group that meets inputs it cannot take at run time (a residual of
// another shape or dtype, an unbatched input) runs the original ops' kernels one by one.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kernels/prepared.h"
#include "lib/ir/ir.h"

namespace jitctl {

// Nodes the lowering emits as one prepared instruction.
struct PreparedGroup {
  std::vector<Node*> nodes;    // the convolution or linear, then the fused ops, in graph order
  std::vector<Value*> inputs;  // what the instruction reads: the input, then the residual if any
  Value* output = nullptr;     // the value it defines: the last node's output
  std::shared_ptr<const PreparedKernel> op;
};

// The group anchored at `n` (a convolution or linear with constant weights), or nullopt.
// `lookup(node)` gives a node's kernel as the lowering resolves it (nullptr if none); nodes for
// which `taken(node)` is true belong to an earlier group and are not taken again.
std::optional<PreparedGroup> prepare_group(Node* n, KernelFn (*lookup)(const Node*), const std::function<bool(const Node*)>& taken);

// A kernel's own preparer (kernels/prepared.h) for `n`, given its constant inputs, or nullptr.
std::shared_ptr<const PreparedKernel> prepare_kernel(const Node* n, const std::string& schema_name);

// A value's constant: a prim::Constant, or a list built from constants (how traced graphs pass
// stride and padding); nullopt when computed.
std::optional<IValue> constant_of(const Value* v);

// Off with JITCTL_PREPARE=0 (to compare with the unprepared kernels).
bool preparation_enabled();

}  // namespace jitctl
