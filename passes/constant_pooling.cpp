#include "passes/constant_pooling.h"

#include <unordered_map>
#include <vector>

#include "lib/ir/constants.h"
#include "passes/analysis/alias_db.h"
#include "passes/analysis/node_equality.h"

namespace jitctl {
namespace {

// Whether two constants hold the very same object, in which case merging them changes no
// aliasing. Only mutable values (tensors, containers) need the identity; scalars compare by value.
bool same_object(const Value* a, const Value* b) {
  auto va = to_ivalue(a);
  auto vb = to_ivalue(b);
  if (!va || !vb || va->kind() != vb->kind()) return false;
  switch (va->kind()) {
    case IValue::Kind::Tensor: return va->to_tensor().same(vb->to_tensor());
    case IValue::Kind::List: return va->to_list() == vb->to_list();
    case IValue::Kind::Dict: return va->to_dict() == vb->to_dict();
    case IValue::Kind::Tuple: return va->to_tuple() == vb->to_tuple();
    case IValue::Kind::String: return false;  // a fresh string per lookup, as in PyTorch
    default: return va->identical(*vb);
  }
}

class ConstantPooler {
 public:
  explicit ConstantPooler(Graph& g) : graph_(g), alias_db_(g) {}

  void run() { pool(graph_.block()); }

 private:
  void pool(Block* b) {
    for (auto it = b->nodes().begin(); it != b->nodes().end();) {
      Node* n = *it;
      ++it;  // n may move to the top of the graph
      if (!n->blocks().empty()) {
        for (Block* sub : n->blocks()) pool(sub);
        continue;
      }
      if (n->kind() != prim::Constant) continue;
      if (Node* existing = find_equal(n)) {
        if (!same_object(existing->output(), n->output()) &&
            !alias_db_.safe_to_change_aliasing_relationship(n->outputs(), existing->outputs()))
          continue;
        n->replace_all_uses_with(existing);
        n->destroy();
        continue;
      }
      seen_.emplace(constant_hash(n), n);
      Node* first = *graph_.block()->nodes().begin();
      if (n != first) n->move_before(first);
    }
  }

  Node* find_equal(const Node* n) const {
    auto [lo, hi] = seen_.equal_range(constant_hash(n));
    for (auto it = lo; it != hi; ++it)
      if (nodes_equal(it->second, n)) return it->second;
    return nullptr;
  }

  Graph& graph_;
  AliasDb alias_db_;
  std::unordered_multimap<size_t, Node*> seen_;
};

}  // namespace

void pool_constants(Graph& g) { ConstantPooler(g).run(); }

}  // namespace jitctl
