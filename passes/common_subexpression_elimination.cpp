#include "passes/common_subexpression_elimination.h"

#include <functional>
#include <memory>
#include <unordered_set>

#include "passes/analysis/alias_db.h"
#include "passes/analysis/node_equality.h"
#include "passes/analysis/nondeterministic.h"

namespace jitctl {
namespace {

struct NodeHash {
  size_t operator()(const Node* n) const { return constant_hash(n); }
};
struct NodeEqual {
  bool operator()(const Node* a, const Node* b) const { return nodes_equal(a, b); }
};

using Lookup = std::function<Node*(Node*)>;

class Eliminator {
 public:
  explicit Eliminator(Graph& g) : graph_(g) {}

  bool run(Block* b, const Lookup& in_parents) {
    std::unordered_set<Node*, NodeHash, NodeEqual> seen;
    bool changed = false;
    for (auto it = b->nodes().begin(); it != b->nodes().end();) {
      Node* n = *it++;
      if (n->kind() == prim::profile || kind_has_side_effects(n->kind()) || is_nondeterministic(n)) continue;
      if (!n->blocks().empty()) {
        const Lookup inner = [&](Node* x) -> Node* {
          if (auto found = seen.find(x); found != seen.end()) return *found;
          return in_parents(x);
        };
        for (Block* sub : n->blocks()) changed |= run(sub, inner);
        continue;
      }
      if (alias_db().has_writers(n)) continue;
      if (Node* outer = in_parents(n)) {
        if (!alias_db().safe_to_change_aliasing_relationship(n->outputs(), outer->outputs())) continue;
        n->replace_all_uses_with(outer);
        n->destroy();
        changed = true;
        continue;
      }
      auto [existing, added] = seen.insert(n);
      if (added) continue;
      const std::vector<Value*>& outputs = graph_.outputs();
      if (alias_db().may_contain_alias(n->outputs(), outputs) &&
          alias_db().may_contain_alias((*existing)->outputs(), outputs))
        continue;
      n->replace_all_uses_with(*existing);
      n->destroy();
      changed = true;
    }
    return changed;
  }

 private:
  const AliasDb& alias_db() {
    if (!alias_db_) alias_db_ = std::make_unique<AliasDb>(graph_);
    return *alias_db_;
  }

  Graph& graph_;
  std::unique_ptr<AliasDb> alias_db_;
};

}  // namespace

bool eliminate_common_subexpressions(Graph& g) {
  return Eliminator(g).run(g.block(), [](Node*) -> Node* { return nullptr; });
}

}  // namespace jitctl
