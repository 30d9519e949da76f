#include "passes/eliminate_no_ops.h"

#include <algorithm>

#include "passes/dead_code_elimination.h"

namespace jitctl {
namespace {

bool compares_tensor_identity(const Block* b) {
  static const Symbol kIs = Symbol::aten("__is__"), kIsNot = Symbol::aten("__isnot__");
  for (const Node* n : b->nodes()) {
    if ((n->kind() == kIs || n->kind() == kIsNot) &&
        std::all_of(n->inputs().begin(), n->inputs().end(),
                    [](const Value* v) { return v->type()->kind() == TypeKind::Tensor; }))
      return true;
  }
  return false;
}

bool remove_detach(Block* b) {
  static const Symbol kDetach = Symbol::aten("detach");
  bool changed = false;
  for (Node* n : b->nodes()) {
    if (n->kind() == kDetach) {
      n->output()->replace_all_uses_with(n->input(0));
      changed = true;
    }
    for (Block* sub : n->blocks()) changed |= remove_detach(sub);
  }
  return changed;
}

}  // namespace

bool eliminate_no_ops(Graph& g) {
  // PyTorch looks at the top-level nodes only for this check.
  if (compares_tensor_identity(g.block())) return false;
  const bool changed = remove_detach(g.block());
  if (changed) eliminate_dead_code(g);
  return changed;
}

}  // namespace jitctl
