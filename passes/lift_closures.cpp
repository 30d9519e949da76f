#include "passes/lift_closures.h"

#include <unordered_map>

#include "passes/registry.h"

namespace jitctl {
namespace {

void lift(Graph& g, Node* closure) {
  // The values the closure uses from outside, in order of first use, packed into one tuple.
  Node* pack = g.create(prim::TupleConstruct, 1)->insert_after(closure);
  auto sub = std::make_shared<Graph>();
  Value* context = sub->add_input("context");
  Node* unpack = sub->create(prim::TupleUnpack, {context}, 0);
  sub->block()->append_node(unpack);
  std::unordered_map<Value*, Value*> captured;
  sub->block()->clone_from(closure->blocks().at(0), [&](Value* v) -> Value* {
    auto it = captured.find(v);
    if (it != captured.end()) return it->second;
    pack->add_input(v);
    Value* inner = unpack->add_output()->copy_metadata(v);
    captured.emplace(v, inner);
    return inner;
  });
  std::vector<TypePtr> types;
  for (Value* v : pack->inputs()) types.push_back(v->type());
  pack->output()->set_type(TupleType::create(types));
  context->set_type(pack->output()->type());

  Node* closure_tuple = g.create(prim::TupleConstruct, {closure->output(), pack->output()}, 1)->insert_after(pack);
  closure_tuple->output()->set_type(TupleType::create({closure->output()->type(), pack->output()->type()}));
  // Every other use of the closure now sees (closure, captures).
  std::vector<Use> uses = closure->output()->uses();
  for (const Use& u : uses)
    if (u.user != closure_tuple) u.user->replace_input(u.offset, closure_tuple->output());
  closure->erase_block(0);
  closure->g_(attr::Subgraph, sub);
  run_pipeline("cleanup", *sub);
}

void lift_in_block(Graph& g, Block* b) {
  for (auto it = b->nodes().begin(); it != b->nodes().end();) {
    Node* n = *it++;
    if (n->kind() == prim::Closure) lift(g, n);
    else
      for (Block* inner : n->blocks()) lift_in_block(g, inner);
  }
}

}  // namespace

void lift_closures(Graph& g) { lift_in_block(g, g.block()); }

}  // namespace jitctl
