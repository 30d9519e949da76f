#include "passes/convert_to_ssa.h"

#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "passes/exit_transforms.h"
#include "passes/inline_loop_condition.h"

namespace jitctl {
namespace {

// PyTorch's meaningfulName: compiler temporaries (`$x`) and the printer's `_N` names stay unnamed
// where this is checked.
bool meaningful_name(const std::string& name) {
  if (name.empty() || name[0] == '$') return false;
  if (name[0] != '_') return true;
  for (size_t i = 1; i < name.size(); ++i)
    if (name[i] < '0' || name[i] > '9') return true;
  return false;
}

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

// --- 1. outputs for Ifs and carried values for Loops --------------------------------------------

class ControlFlowLoadStores {
 public:
  void run(Graph& g) { visit(g.block()); }

 private:
  using TypeScope = Scope<TypePtr>;

  // Returns the block's scope, still chained to its enclosing scopes so that lookups through it
  // see variables defined before the block.
  std::shared_ptr<TypeScope> visit(Block* b) {
    scope_ = std::make_shared<TypeScope>(scope_);
    for (Node* n : b->nodes()) {  // also visits the Stores that If and Loop handling add after n
      switch (n->kind()) {
        case prim::If: visit_if(n); break;
        case prim::Loop: visit_loop(n); break;
        case prim::Closure:
          for (Block* sub : n->blocks()) visit(sub);
          break;
        case prim::ComprehensionScope: visit(n->blocks().at(0)); break;
        case prim::Store: scope_->vars[n->s(attr::name)] = n->input()->type(); break;
        default: break;
      }
    }
    auto done = scope_;
    scope_ = scope_->next;
    return done;
  }

  static void add_block_output(Block* b, const TypePtr& type, const std::string& name) {
    Graph& g = *b->owning_graph();
    WithInsertPoint guard(b);
    b->register_output(g.insert_node(g.create_load(name, type))->output());
  }

  static void add_node_output(Node* n, const TypePtr& type, const std::string& name) {
    Value* out = n->add_output()->set_type(type);
    if (meaningful_name(name)) out->set_debug_name(name);
    n->owning_graph()->create_store(name, out)->insert_after(n);
  }

  static void add_node_input(Node* n, const TypePtr& type, const std::string& name) {
    Graph& g = *n->owning_graph();
    n->add_input(g.create_load(name, type)->insert_before(n)->output());
  }

  // Named even when the name is not meaningful (`%_3` block inputs in printed graphs).
  static void add_block_input(Block* b, const TypePtr& type, const std::string& name) {
    Value* in = b->add_input(name)->set_type(type);
    b->owning_graph()->create_store(name, in)->insert_after(b->param_node());
  }

  void visit_if(Node* n) {
    Block* then_block = n->blocks().at(0);
    Block* else_block = n->blocks().at(1);
    auto then_scope = visit(then_block);
    auto else_scope = visit(else_block);

    // Stored in one branch and defined on the other path too (in it, or before the if).
    std::set<std::string> mutated;
    for (const auto& [name, type] : then_scope->vars)
      if (else_scope->find(name)) mutated.insert(name);
    for (const auto& [name, type] : else_scope->vars)
      if (then_scope->find(name)) mutated.insert(name);

    for (const std::string& name : mutated) {
      const TypePtr then_type = then_scope->find(name);
      const TypePtr else_type = else_scope->find(name);
      // Branch types that do not unify still give an output, of Union type, as in PyTorch 1.13
      // (testdata/ssa/cu_ununifiable_branches): the output takes ids and names either way.
      const TypePtr unified = *unify_types(then_type, else_type, /*default_to_union=*/true);
      add_block_output(then_block, then_type, name);
      add_block_output(else_block, else_type, name);
      add_node_output(n, unified, name);
    }
  }

  void visit_loop(Node* n) {
    Block* body = n->blocks().at(0);
    auto body_scope = visit(body);
    for (const auto& [name, body_type] : body_scope->vars) {
      const TypePtr outer_type = scope_->find(name);
      if (!outer_type) continue;  // local to the body
      // The loop may run zero times or many, so the carried type covers both.
      auto unified = unify_types(outer_type, body_type);
      if (!unified)
        throw std::logic_error("convert_to_ssa: loop-carried variable '" + name + "' changes type from " +
                               outer_type->str() + " to " + body_type->str());
      add_node_input(n, outer_type, name);
      add_block_input(body, *unified, name);
      add_block_output(body, body_type, name);
      add_node_output(n, *unified, name);
    }
  }

  std::shared_ptr<TypeScope> scope_;
};

// --- 2. break and continue ----------------------------------------------------------------------

void move_nodes_before(Node* before, Block* from) {
  for (auto it = from->nodes().begin(); it != from->nodes().end();) {
    Node* n = *it++;
    n->move_before(before);
  }
}

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
          move_nodes_before(n, header);
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

// --- 4. Loads and Stores go away ----------------------------------------------------------------

class EraseLoadStores {
 public:
  void run(Graph& g) { visit(g.block()); }

 private:
  void visit(Block* block) {
    scope_ = std::make_shared<Scope<Value*>>(scope_);
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
          move_nodes_before(n, body);
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

  std::shared_ptr<Scope<Value*>> scope_;
};

}  // namespace

void convert_to_ssa(Graph& g) {
  ControlFlowLoadStores().run(g);
  LoopContinuations().run(g.block());
  inline_loop_condition(g);
  EraseLoadStores().run(g);
  transform_exits(g);
}

}  // namespace jitctl
