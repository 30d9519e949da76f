#include "passes/canonicalize_outputs.h"

#include <algorithm>
#include <numeric>
#include <optional>

namespace jitctl {
namespace {

size_t block_index(const Block* b) {
  const auto& blocks = b->owning_node()->blocks();
  return static_cast<size_t>(std::find(blocks.begin(), blocks.end(), b) - blocks.begin());
}

// Print order: within a block by position, a node before everything nested in it, and nodes in
// different blocks of one node by block index. Not a topological order.
bool prints_before(const Node* a, const Node* b) {
  size_t da = a->blocks_from_graph_block();
  size_t db = b->blocks_from_graph_block();
  for (; da > db; --da) {
    a = a->owning_block()->owning_node();
    if (a == b) return false;
  }
  for (; db > da; --db) {
    b = b->owning_block()->owning_node();
    if (b == a) return true;
  }
  while (true) {
    if (a->owning_block() == b->owning_block()) return a->is_before(b);
    const Node* pa = a->owning_block()->owning_node();
    const Node* pb = b->owning_block()->owning_node();
    if (pa == pb) return block_index(a->owning_block()) < block_index(b->owning_block());
    a = pa;
    b = pb;
  }
}

bool use_before(const Use& a, const Use& b) {
  if (a.user == b.user) return a.offset < b.offset;
  return prints_before(a.user, b.user);
}

std::optional<Use> first_use(const Value* v) {
  if (v->uses().empty()) return std::nullopt;
  Use first = v->uses().front();
  for (const Use& u : v->uses())
    if (!(u == first) && !use_before(first, u)) first = u;
  return first;
}

std::vector<size_t> order_by_first_use(const std::vector<Value*>& values) {
  std::vector<size_t> order(values.size());
  std::iota(order.begin(), order.end(), 0);
  std::vector<std::optional<Use>> firsts;
  for (const Value* v : values) firsts.push_back(first_use(v));
  std::stable_sort(order.begin(), order.end(), [&](size_t i, size_t j) {
    if (!firsts[i] || !firsts[j]) return firsts[i].has_value() && !firsts[j].has_value();
    return use_before(*firsts[i], *firsts[j]);
  });
  return order;
}

void canonicalize(Block* b) {
  // Last node first: a node's order depends on uses that follow it.
  for (Node* n : b->nodes().reverse()) {
    if (n->kind() == prim::If) {
      auto order = order_by_first_use(n->outputs());
      n->permute_outputs(order);
      for (Block* sub : n->blocks()) sub->permute_outputs(order);
    } else if (n->kind() == prim::Loop) {
      auto order = order_by_first_use(n->outputs());
      auto shifted = [&](size_t by) {
        std::vector<size_t> out(by);
        std::iota(out.begin(), out.end(), 0);
        for (size_t i : order) out.push_back(i + by);
        return out;
      };
      n->permute_outputs(order);
      n->permute_inputs(shifted(2));
      Block* body = n->blocks().at(0);
      body->permute_outputs(shifted(1));
      body->permute_inputs(shifted(1));
    }
    for (Block* sub : n->blocks()) canonicalize(sub);
  }
}

}  // namespace

void canonicalize_outputs(Graph& g) { canonicalize(g.block()); }

}  // namespace jitctl
