#pragma once
// What the SSA conversion steps share (passes/registry.def, pipeline convert-to-ssa): a chain of
// variable scopes, one per block, and moving a block's nodes out of it.
#include <map>
#include <memory>
#include <string>
#include <utility>

#include "lib/ir/ir.h"

namespace jitctl::ssa {

// One scope per block, chained to the enclosing block's. The map is ordered because variables are
// always taken in sorted order, which decides the order of new ids.
template <class T>
struct Scope {
  explicit Scope(std::shared_ptr<Scope> outer) : next(std::move(outer)) {}
  T find_here(const std::string& name) const {
    auto it = vars.find(name);
    return it == vars.end() ? T() : it->second;
  }
  T find(const std::string& name) const {
    for (const Scope* s = this; s; s = s->next.get())
      if (T v = s->find_here(name)) return v;
    return T();
  }
  std::shared_ptr<Scope> next;
  std::map<std::string, T> vars;
};

// Moves every node of `from` in front of `before`, in order.
inline void move_nodes_before(Node* before, Block* from) {
  for (auto it = from->nodes().begin(); it != from->nodes().end();) {
    Node* n = *it++;
    n->move_before(before);
  }
}

}  // namespace jitctl::ssa
