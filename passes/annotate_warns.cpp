#include "passes/annotate_warns.h"

#include <atomic>
#include <cstdint>

namespace jitctl {
namespace {

std::atomic<int64_t> next_warn_id{0};

void annotate(Block* b) {
  for (Node* n : b->nodes()) {
    for (Block* sub : n->blocks()) annotate(sub);
    if (n->kind() == aten::warn) n->i_(attr::warn_id, next_warn_id++);
  }
}

}  // namespace

void annotate_warns(Graph& g) { annotate(g.block()); }

}  // namespace jitctl
