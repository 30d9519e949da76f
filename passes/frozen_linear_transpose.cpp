#include "passes/frozen_linear_transpose.h"

#include <vector>

#include "passes/frozen_params.h"
#include "lib/ir/constants.h"
#include "lib/ops/schema_registry.h"

namespace jitctl {
namespace {

// Every aten::linear of the graph, depth first (a block's nodes before the next node of its owner's block).
void collect(Block* b, std::vector<Node*>& out) {
  for (Node* n : b->nodes()) {
    if (n->kind() == Symbol::aten("linear")) out.push_back(n);
    for (Block* sub : n->blocks()) collect(sub, out);
  }
}

Node* insert_op(Graph& g, std::string_view name, std::string_view overload, const std::vector<Value*>& inputs, Node* after) {
  Node* n = g.create(Symbol::from_qual_string(name), inputs);
  n->set_schema(SchemaRegistry::builtin().find(name, overload));
  n->insert_after(after);
  return n;
}

}  // namespace

bool frozen_linear_transpose(Graph& g, const PassContext& ctx) {
  if (!ctx.run_operator) return false;
  std::vector<Node*> linears;
  collect(g.block(), linears);
  bool changed = false;
  for (Node* n : linears) {
    if (n->inputs().size() != 3 || n->outputs().size() != 1 || !constant_parameters(n)) continue;
    const auto weight = to_ivalue(n->input(1));
    if (!weight || !weight->is(IValue::Kind::Tensor) || weight->to_tensor().dim() != 2) continue;
    // at::transpose(weight, 1, 0).clone(at::MemoryFormat::Contiguous)
    const IValue transposed = ctx.run_operator("aten::transpose.int", {*weight, IValue(int64_t{1}), IValue(int64_t{0})}).at(0);
    const IValue contiguous = ctx.run_operator("aten::clone", {transposed, IValue(int64_t{0})}).at(0);
    Node* matmul = nullptr;
    {
      WithInsertPoint guard(n);
      Value* weight_t = g.insert_constant(contiguous);
      matmul = insert_op(g, "aten::matmul", "", {n->input(0), weight_t}, n);
    }
    Value* result = matmul->output();
    if (n->input(2)->type()->kind() != TypeKind::None) {
      WithInsertPoint guard(matmul);
      Value* one = g.insert_constant(IValue(int64_t{1}));
      result = insert_op(g, "aten::add", "Tensor", {matmul->output(), n->input(2), one}, matmul)->output();
    }
    n->output()->replace_all_uses_with(result);
    n->destroy();
    changed = true;
  }
  return changed;
}

}  // namespace jitctl
