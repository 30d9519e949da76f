#include "passes/erase_load_stores.h"

#include <memory>
#include <stdexcept>
#include <string>

#include "passes/ssa_scope.h"

namespace jitctl {
namespace {

class EraseLoadStores {
 public:
  void run(Graph& g) { visit(g.block()); }

 private:
  void visit(Block* block) {
    scope_ = std::make_shared<ssa::Scope<Value*>>(scope_);
    for (auto it = block->nodes().begin(); it != block->nodes().end();) {
      Node* n = *it++;
      switch (n->kind()) {
        case prim::Store:
          scope_->vars[n->s(attr::name)] = n->input();
          n->destroy();
          break;
        case prim::Load: {
          const std::string& name = n->s(attr::name);
          Value* v = scope_->find(name);
          if (!v) throw std::logic_error("convert_to_ssa: prim::Load of '" + name + "' before any Store");
          n->output()->replace_all_uses_with(v);
          n->destroy();
          break;
        }
        case prim::ComprehensionScope: {
          // Its variables stay inside; its nodes join the enclosing block.
          Block* body = n->blocks().at(0);
          visit(body);
          ssa::move_nodes_before(n, body);
          n->destroy();
          break;
        }
        default:
          for (Block* b : n->blocks()) visit(b);
          break;
      }
    }
    scope_ = scope_->next;
  }

  std::shared_ptr<ssa::Scope<Value*>> scope_;
};

}  // namespace

void erase_load_stores(Graph& g) { EraseLoadStores().run(g); }

}  // namespace jitctl
