#include "passes/loop_continuations.h"

#include <stdexcept>
#include <vector>

#include "passes/ssa_scope.h"

namespace jitctl {
namespace {

Value* same(Value* v) { return v; }

// prim::BreakStmt and prim::ContinueStmt become prim::LoopContinuation(continue?, carried...):
// `false` for a break, a fresh copy of the loop condition for a continue, followed by copies of the
// Loads the loop body ends with.
class LoopContinuations {
 public:
  void run(Block* b) {
    g_ = b->owning_graph();
    {
      WithInsertPoint guard(*b->nodes().begin());
      false_ = g_->insert_constant(false);
    }
    visit(b);
  }

 private:
  void add_carried_values(Node* continuation) {
    WithInsertPoint guard(continuation);
    const std::vector<Value*> outs = loop_->blocks().at(0)->outputs();
    for (Value* out : outs) {
      Node* load = out->node();
      if (load->kind() != prim::Load) throw std::logic_error("convert_to_ssa: loop body output is not a Load");
      continuation->add_input(g_->insert_node(g_->create_clone(load, same))->output());
    }
  }

  void visit(Block* block) {
    for (auto it = block->nodes().begin(); it != block->nodes().end();) {
      Node* n = *it++;
      switch (n->kind()) {
        case prim::If:
          visit(n->blocks().at(0));
          visit(n->blocks().at(1));
          break;
        case prim::Closure: LoopContinuations().run(n->blocks().at(0)); break;
        case prim::Loop: {
          Node* outer = loop_;
          loop_ = n;
          visit(n->blocks().at(0));
          loop_ = outer;
          break;
        }
        case prim::ContinueStmt: {
          if (!loop_) throw std::logic_error("convert_to_ssa: continue outside a loop");
          Node* cont = g_->create(prim::LoopContinuation, 0)->insert_after(n);
          Block* header = cont->add_block();
          header->clone_from(loop_->blocks().at(1), same);
          ssa::move_nodes_before(n, header);
          cont->add_input(header->outputs().at(0));
          cont->erase_block(0);
          add_carried_values(cont);
          n->destroy();
          break;
        }
        case prim::BreakStmt: {
          if (!loop_) throw std::logic_error("convert_to_ssa: break outside a loop");
          Node* cont = g_->create(prim::LoopContinuation, 0)->insert_after(n);
          cont->add_input(false_);
          add_carried_values(cont);
          n->destroy();
          break;
        }
        default: break;
      }
    }
  }

  Graph* g_ = nullptr;
  Value* false_ = nullptr;
  Node* loop_ = nullptr;
};

}  // namespace

void convert_loop_continuations(Graph& g) { LoopContinuations().run(g.block()); }

}  // namespace jitctl
