#include "passes/control_flow_load_stores.h"

#include <memory>
#include <set>
#include <stdexcept>
#include <string>

#include "passes/ssa_scope.h"

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

class ControlFlowLoadStores {
 public:
  void run(Graph& g) { visit(g.block()); }

 private:
  using TypeScope = ssa::Scope<TypePtr>;

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

}  // namespace

void add_control_flow_load_stores(Graph& g) { ControlFlowLoadStores().run(g); }

}  // namespace jitctl
