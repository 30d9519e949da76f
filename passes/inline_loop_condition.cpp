#include "passes/inline_loop_condition.h"

namespace jitctl {
namespace {

void move_nodes_before(Node* before, Block* from) {
  for (auto it = from->nodes().begin(); it != from->nodes().end();) {
    Node* n = *it++;
    n->move_before(before);
  }
}

void inline_condition(Node* loop) {
  Block* body = loop->blocks().at(0);
  Block* condition = loop->blocks().at(1);

  // The copy is built in a scratch block first because clone_from is what copies names the way
  // PyTorch's Block::cloneFrom does.
  Block* scratch = loop->add_block();
  scratch->clone_from(condition, [](Value* v) { return v; });
  move_nodes_before(loop, scratch);
  loop->insert_input(1, scratch->outputs().at(0));
  loop->erase_block(2);

  move_nodes_before(body->return_node(), condition);
  body->insert_output(0, condition->outputs().at(0));
  loop->erase_block(1);
}

void visit(Block* b) {
  for (Node* n : b->nodes()) {
    for (Block* sub : n->blocks()) visit(sub);
    if (n->kind() == prim::Loop) inline_condition(n);
  }
}

}  // namespace

void inline_loop_condition(Graph& g) { visit(g.block()); }

}  // namespace jitctl
