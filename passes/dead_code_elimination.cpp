#include "passes/dead_code_elimination.h"

#include <algorithm>
#include <memory>
#include <unordered_map>
#include <unordered_set>

#include "lib/ops/schema.h"
#include "passes/analysis/alias_db.h"

namespace jitctl {
namespace {

// Inverse mark and sweep. Marking starts from the graph's outputs and from nodes with side
// effects and spreads to the producers of everything a marked node reads; a node that writes to
// memory a live value may alias is live as well. Sweeping deletes what is unmarked and unused.
class DeadCodeEliminator {
 public:
  DeadCodeEliminator(Graph& g, bool use_alias_db) : graph_(g), use_alias_db_(use_alias_db) {}

  void run() {
    Block* top = graph_.block();
    eliminate_dead_fork_inputs(top);
    mark(top->return_node());
    mark(top);
    sweep(top);
  }

 private:
  void eliminate_dead_fork_inputs(Block* b) {
    for (Node* n : b->nodes()) {
      for (Block* sub : n->blocks()) eliminate_dead_fork_inputs(sub);
      if (n->kind() != prim::fork || !n->has_attribute(attr::Subgraph)) continue;
      Graph& sub = *n->g(attr::Subgraph);
      for (size_t i = 0; i < sub.inputs().size(); ++i) {
        if (sub.inputs()[i]->has_uses()) continue;
        // As PyTorch does, the index is not revisited after an erase.
        sub.erase_input(i);
        n->remove_input(i);
      }
    }
  }

  // A block's return node reads only the outputs the owning node's users need; a loop body's also
  // what the next iteration reads, and its continue condition.
  bool mark_return_node(Node* ret) {
    if (marked_.count(ret)) return false;
    Node* outer = ret->owning_block()->owning_node();
    if (!outer) return mark(ret);
    if (outer->kind() == prim::Loop) {
      Block* body = ret->owning_block();
      for (size_t i = 0; i < outer->outputs().size(); ++i) {
        if (live_.count(outer->output(i)) || body->inputs().at(i + 1)->has_uses())
          live_.insert(body->outputs().at(i + 1));
      }
      live_.insert(body->outputs().at(0));
    } else {
      for (size_t i = 0; i < outer->outputs().size(); ++i)
        if (live_.count(outer->output(i))) live_.insert(ret->inputs().at(i));
    }
    marked_.insert(ret);
    return true;
  }

  // A loop body is marked until nothing new turns up: a write in a later iteration can make an
  // earlier node live.
  bool mark_loop(Node* loop) {
    bool any = false;
    while (mark(loop->blocks().at(0))) any = true;
    return any;
  }

  bool mark(Block* b) {
    bool any = false;
    for (Node* n : b->nodes())
      if (has_side_effects(n)) any |= mark(n);
    any |= mark_return_node(b->return_node());
    for (Node* n : b->nodes().reverse()) {
      if (n->kind() == prim::Loop) {
        any |= mark_loop(n);
      } else {
        for (Block* sub : n->blocks()) any |= mark(sub);
      }
      any |= mark_if_live(n);
    }
    return any;
  }

  bool mark_if_live(Node* n) {
    for (Value* out : n->outputs())
      if (live_.count(out)) return mark(n);
    if (use_alias_db_ && alias_db().writes_to_alias(n, live_)) return mark(n);
    return false;
  }

  // A live node makes every node that encloses it live, and everything it reads.
  bool mark(Node* n) {
    if (marked_.count(n)) return false;
    marked_.insert(n);
    for (Node* cur = n; cur && cur->owning_block(); cur = cur->owning_block()->owning_node()) mark(cur);
    for (Value* in : n->inputs()) live_.insert(in);
    return true;
  }

  void sweep(Block* b) {
    auto nodes = b->nodes().reverse();
    for (auto it = nodes.begin(); it != nodes.end();) {
      Node* n = *it;
      ++it;
      remove_dead_if_outputs(n);
      remove_dead_loop_outputs(n);
      for (Block* sub : n->blocks()) sweep(sub);
      if (!marked_.count(n) && !n->has_uses()) n->destroy();
    }
  }

  bool has_side_effects(Node* n) {
    if (auto it = memo_.find(n); it != memo_.end()) return it->second;
    bool result = kind_has_side_effects(n->kind());
    for (Block* b : n->blocks()) {
      if (result) break;
      for (Node* inner : b->nodes())
        if (has_side_effects(inner)) {
          result = true;
          break;
        }
    }
    result = result || (use_alias_db_ ? alias_db().writes_to_wildcard(n) : writes_to_an_argument(n));
    memo_.emplace(n, result);
    return result;
  }

  // Without alias analysis every mutation is a possible side effect.
  static bool writes_to_an_argument(const Node* n) {
    return n->kind() == prim::SetAttr || (n->schema() && n->schema()->is_mutable());
  }

  static void remove_dead_if_outputs(Node* n) {
    if (n->kind() != prim::If) return;
    for (size_t i = n->outputs().size(); i-- > 0;) {
      if (n->output(i)->has_uses()) continue;
      n->erase_output(i);
      for (Block* b : n->blocks()) b->erase_output(i);
    }
  }

  static void remove_dead_loop_outputs(Node* n) {
    if (n->kind() != prim::Loop) return;
    Block* body = n->blocks().at(0);
    for (size_t i = n->outputs().size(); i-- > 0;) {
      if (n->output(i)->has_uses() || body->inputs().at(i + 1)->has_uses()) continue;
      n->erase_output(i);
      n->remove_input(i + 2);
      body->erase_input(i + 1);
      body->erase_output(i + 1);
    }
  }

  // Built on first use, on the graph as it was before anything was deleted.
  const AliasDb& alias_db() {
    if (!alias_db_) alias_db_ = std::make_unique<AliasDb>(graph_);
    return *alias_db_;
  }

  Graph& graph_;
  bool use_alias_db_;
  std::unique_ptr<AliasDb> alias_db_;
  std::unordered_map<const Node*, bool> memo_;
  std::unordered_set<const Node*> marked_;
  std::unordered_set<const Value*> live_;
};

}  // namespace

void eliminate_dead_code(Graph& g) { DeadCodeEliminator(g, true).run(); }

void eliminate_dead_code_without_alias_db(Graph& g) { DeadCodeEliminator(g, false).run(); }

}  // namespace jitctl
