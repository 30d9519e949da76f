#include "passes/lower_simple_tuples.h"

#include <optional>

#include "lib/ir/constants.h"
#include "passes/dead_code_elimination.h"

namespace jitctl {
namespace {

std::optional<int64_t> constant_int(const Value* v) {
  if (v->node()->kind() != prim::Constant || v->type()->kind() != TypeKind::Int) return std::nullopt;
  return to_ivalue(v)->to_int();
}

void forward_tuple_reads(Node* n) {
  const Symbol k = n->kind();
  if (k != prim::TupleUnpack && k != prim::TupleIndex && k != prim::TupleSlice) return;
  Node* construct = n->input(0)->node();
  if (construct->kind() != prim::TupleConstruct) return;
  if (k == prim::TupleUnpack) {
    for (size_t i = 0; i < n->outputs().size(); ++i) n->output(i)->replace_all_uses_with(construct->input(i));
  } else if (k == prim::TupleIndex) {
    auto index = constant_int(n->input(1));
    if (!index) return;
    const auto len = static_cast<int64_t>(construct->output()->type()->contained().size());
    if (*index < 0) *index += len;
    // A tuple of one element type may be indexed by a value, so the bound is not guaranteed.
    if (*index >= 0 && *index < len) n->output()->replace_all_uses_with(construct->input(static_cast<size_t>(*index)));
  } else {
    std::vector<Value*> values;
    for (int64_t i = n->i(Symbol::attr("beg")); i < n->i(Symbol::attr("end")); ++i)
      values.push_back(construct->input(static_cast<size_t>(i)));
    Graph& g = *n->owning_graph();
    Node* slice = g.create_tuple(values);
    {
      WithInsertPoint guard(n);
      g.insert_node(slice);
    }
    n->output()->replace_all_uses_with(slice->output());
  }
}

void lower(Block* b) {
  for (Node* n : b->nodes()) {
    forward_tuple_reads(n);
    for (Block* sub : n->blocks()) lower(sub);
  }
}

}  // namespace

void lower_simple_tuples(Graph& g) {
  lower(g.block());
  eliminate_dead_code(g);
}

}  // namespace jitctl
