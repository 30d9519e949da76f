#include "passes/remove_list_mutation.h"

namespace jitctl {
namespace {

// Does `n`, or a node in its blocks, read `v`?
bool uses(const Node* n, const Value* v) {
  for (const Value* in : n->inputs())
    if (in == v) return true;
  for (const Block* b : n->blocks()) {
    for (const Node* inner : b->nodes())
      if (uses(inner, v)) return true;
    for (const Value* out : b->outputs())
      if (out == v) return true;
  }
  return false;
}

// Can the ListConstruct making `list` move down to `append` (same block, after it), nothing in
// between reading the list?
bool can_move_to(const Node* construct, const Node* append) {
  if (construct->owning_block() != append->owning_block()) return false;
  for (const Node* n = construct->next(); n != append; n = n->next())
    if (uses(n, construct->output())) return false;
  return true;
}

bool run(Block* b) {
  bool changed = false;
  for (auto it = b->nodes().begin(); it != b->nodes().end();) {
    Node* n = *it;
    ++it;  // n may go
    for (Block* sub : n->blocks()) changed |= run(sub);
    if (n->kind() != Symbol::aten("append") || n->inputs().size() != 2) continue;
    Node* construct = n->input(0)->node();
    if (construct->kind() != prim::ListConstruct || !can_move_to(construct, n)) continue;
    construct->move_before(n);
    construct->add_input(n->input(1));
    n->output()->replace_all_uses_with(construct->output());
    n->destroy();
    changed = true;
  }
  return changed;
}

}  // namespace

bool remove_list_mutation(Graph& g) { return run(g.block()); }

}  // namespace jitctl
