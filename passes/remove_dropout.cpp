#include "passes/remove_dropout.h"

#include <vector>

#include "lib/ir/constants.h"

namespace jitctl {
namespace {

bool is_dropout(Symbol k) {
  static const Symbol kinds[] = {Symbol::aten("dropout"), Symbol::aten("dropout_"), Symbol::aten("feature_dropout"),
                                 Symbol::aten("feature_dropout_")};
  for (Symbol s : kinds)
    if (k == s) return true;
  return false;
}

bool in_eval_mode(const Node* n) {
  if (n->inputs().size() != 3) return false;
  const auto train = to_ivalue(n->input(2));
  return train && train->is(IValue::Kind::Bool) && !train->to_bool();
}

bool remove_in(Block* b) {
  std::vector<Node*> removed;
  bool changed = false;
  // Last to first, as PyTorch walks, so that a chain of dropouts collapses onto its first input.
  for (Node* n : b->nodes().reverse()) {
    for (Block* sub : n->blocks()) changed |= remove_in(sub);
    if (is_dropout(n->kind()) && in_eval_mode(n)) {
      n->output()->replace_all_uses_with(n->input(0));
      removed.push_back(n);
    }
  }
  for (Node* n : removed) n->destroy();
  return changed || !removed.empty();
}

}  // namespace

bool remove_dropout(Graph& g) { return remove_in(g.block()); }

}  // namespace jitctl
