#include "passes/eliminate_dead_branches.h"

#include <vector>

#include "lib/ir/constants.h"
#include "passes/analysis/tensor_facts.h"

namespace jitctl {
namespace {

bool inside(const Node* user, const Block* b) {
  for (const Block* at = user->owning_block(); at; at = at->owning_node() ? at->owning_node()->owning_block() : nullptr)
    if (at == b) return true;
  return false;
}

// Is `user` (or the node of `n`'s block that holds it) after `n`?
bool after(const Node* user, const Node* n) {
  const Node* at = user;
  while (at && at->owning_block() != n->owning_block()) at = at->owning_block()->owning_node();
  return at && at != n && at->is_after(n);
}

void collect_ifs(Block* b, std::vector<Node*>& out) {
  for (Node* n : b->nodes()) {
    if (n->kind() == prim::If) out.push_back(n);
    for (Block* sub : n->blocks()) collect_ifs(sub, out);
  }
}

class Decider {
 public:
  explicit Decider(Graph& g) : g_(g) {}

  bool run() {
    std::vector<Node*> ifs;
    collect_ifs(g_.block(), ifs);
    for (Node* n : ifs) {
      Value* c = n->input(0);
      if (c->node()->kind() == prim::Constant) continue;
      Block* then_b = n->blocks().at(0);
      Block* else_b = n->blocks().at(1);
      decide(c, true, [&](const Node* u) { return inside(u, then_b); });
      decide(c, false, [&](const Node* u) { return inside(u, else_b); });
      // Only one of them can raise for the code after the If to run at all.
      const bool then_raises = block_always_raises(then_b), else_raises = block_always_raises(else_b);
      if (then_raises != else_raises) decide(c, else_raises, [&](const Node* u) { return after(u, n); });
    }
    inline_decided(g_.block());
    return changed_;
  }

 private:
  // `c` is `value` wherever `where` says; so is the negation of its negation.
  template <class Where>
  void decide(Value* c, bool value, const Where& where) {
    // The negations first: a `not c` computed outside the region and read inside it.
    const std::vector<Use> uses = c->uses();
    for (const Use& u : uses)
      if (u.user->kind() == Symbol::aten("__not__") && u.user->outputs().size() == 1)
        replace_uses(u.user->output(), !value, where);
    if (c->node()->kind() == Symbol::aten("__not__")) replace_uses(c->node()->input(0), !value, where);
    replace_uses(c, value, where);
  }

  template <class Where>
  void replace_uses(Value* v, bool value, const Where& where) {
    if (v->type()->kind() != TypeKind::Bool) return;
    const std::vector<Use> uses = v->uses();
    for (const Use& u : uses) {
      if (!where(u.user)) continue;
      WithInsertPoint guard(u.user);
      u.user->replace_input(u.offset, g_.insert_constant(IValue(value)));
      changed_ = true;
    }
  }

  // Replaces each If on a constant condition by the block it takes, innermost first.
  void inline_decided(Block* b) {
    for (auto it = b->nodes().begin(); it != b->nodes().end();) {
      Node* n = *it;
      ++it;  // n may go
      if (n->kind() == prim::If && n->input(0)->node()->kind() == prim::Constant) {
        Block* taken = n->blocks().at(to_ivalue(n->input(0))->to_bool() ? 0 : 1);
        inline_decided(taken);
        for (auto inner = taken->nodes().begin(); inner != taken->nodes().end();) {
          Node* m = *inner;
          ++inner;
          m->move_before(n);
        }
        for (size_t i = 0; i < n->outputs().size(); ++i) n->output(i)->replace_all_uses_with(taken->outputs().at(i));
        n->destroy();
        changed_ = true;
      } else {
        for (Block* sub : n->blocks()) inline_decided(sub);
      }
    }
  }

  Graph& g_;
  bool changed_ = false;
};

}  // namespace

bool eliminate_dead_branches(Graph& g) { return Decider(g).run(); }

}  // namespace jitctl
