#include "passes/exit_transforms.h"

#include <stdexcept>
#include <unordered_map>
#include <utility>
#include <vector>

#include "lib/ir/constants.h"

namespace jitctl {
namespace {

const Symbol kWith = Symbol::prim("With");

// Whether the end of a block (or a node) is reached after an exit: certainly (Will), perhaps
// (Might), never (Wont), or never because it always raises (Throws). Throws lets an if with one
// raising branch take the other branch's status instead of needing a flag.
enum class ExitStatus { Will, Might, Wont, Throws };

// The "has exited" flag and the values an exit carries to its target block.
struct ExitPair {
  Value* has_exited = nullptr;
  std::vector<Value*> values;
};

std::vector<Value*> tail(const std::vector<Value*>& vs, size_t n) {
  return std::vector<Value*>(vs.end() - static_cast<std::ptrdiff_t>(n), vs.end());
}

class ExitTransformer {
 public:
  // The flags are made once per transformer, used or not: the ids they take are part of what a
  // printed graph shows.
  explicit ExitTransformer(Graph& g) : g_(g) {
    WithInsertPoint guard(*g.block()->nodes().begin());
    true_ = g.insert_constant(true);
    false_ = g.insert_constant(false);
    // Stands for "always raises"; never read, because the raise comes first.
    throws_ = unit_value(BoolType::get());
  }

  void run(Symbol exit_kind) {
    exit_kind_ = exit_kind;
    transform_block(g_.block());
  }

 private:
  ExitPair throws_pair() const { return {throws_, {}}; }
  ExitPair wont_pair() const { return {false_, {}}; }
  ExitPair will_pair(std::vector<Value*> values) const { return {true_, std::move(values)}; }

  ExitStatus status(const ExitPair& p) const {
    if (p.has_exited == true_) return ExitStatus::Will;
    if (p.has_exited == false_) return ExitStatus::Wont;
    if (p.has_exited == throws_) return ExitStatus::Throws;
    return ExitStatus::Might;
  }

  static Symbol owner_kind(const Block* b) { return b->owning_node() ? b->owning_node()->kind() : Symbol(); }

  static void replace_block_outputs(Block* b, const std::vector<Value*>& outs) {
    while (!b->outputs().empty()) b->erase_output(0);
    for (Value* v : outs) b->register_output(v);
  }

  static void add_if_outputs(Node* n, const std::vector<Value*>& then_outs, const std::vector<Value*>& else_outs) {
    Block* then_block = n->blocks().at(0);
    Block* else_block = n->blocks().at(1);
    for (Value* v : then_outs) then_block->register_output(v);
    for (Value* v : else_outs) else_block->register_output(v);
    for (size_t i = 0; i < then_outs.size(); ++i) {
      auto unified = unify_types(then_outs[i]->type(), else_outs[i]->type(), /*default_to_union=*/true);
      n->add_output()->set_type(*unified);
    }
  }

  // One Uninitialized per type, cached by type object as PyTorch caches by TypePtr: equal types
  // that are distinct objects get one each. Each goes right after the parameters.
  Value* unit_value(const TypePtr& type) {
    if (auto it = units_.find(type.get()); it != units_.end()) return it->second;
    Node* n = g_.create_uninitialized(type);
    n->insert_after(g_.param_node());
    units_.emplace(type.get(), n->output());
    return n->output();
  }

  std::vector<Value*> units_like(const std::vector<Value*>& values) {
    std::vector<Value*> out;
    for (Value* v : values) out.push_back(unit_value(v->type()));
    return out;
  }

  ExitPair transform_loop(Node* loop) {
    Block* body = loop->blocks().at(0);
    ExitPair pair = transform_block(body);
    // A loop may run zero times, so a body that always raises does not make the loop raise.
    const ExitStatus st = status(pair);
    if (st == ExitStatus::Wont || st == ExitStatus::Throws) return wont_pair();

    // Stop iterating once the exit has happened: continue = has_exited ? false : condition.
    Node* stop;
    {
      WithInsertPoint guard(body);
      stop = g_.insert_node(g_.create(prim::If, 0));
    }
    stop->add_input(pair.has_exited);
    stop->add_block()->register_output(false_);
    stop->add_block()->register_output(body->outputs().at(0));
    Value* keep_going = stop->add_output()->set_type(BoolType::get());
    body->erase_output(0);
    body->insert_output(0, keep_going);

    // Carry the flag (false if the loop never runs) and the exit values out of the loop.
    loop->add_input(false_);
    body->add_input()->set_type(BoolType::get());
    body->register_output(pair.has_exited);
    Value* has_exited = loop->add_output()->set_type(BoolType::get());
    for (Value* v : pair.values) {
      const TypePtr type = v->type();
      loop->add_input(unit_value(type));
      loop->add_output()->set_type(type);
      body->add_input()->set_type(type);
      body->register_output(v);
    }
    return {has_exited, tail(loop->outputs(), pair.values.size())};
  }

  static ExitStatus if_status(ExitStatus then_st, ExitStatus else_st) {
    if (then_st == ExitStatus::Throws) return else_st;
    if (else_st == ExitStatus::Throws) return then_st;
    if (then_st == ExitStatus::Wont && else_st == ExitStatus::Wont) return ExitStatus::Wont;
    if (then_st == ExitStatus::Will && else_st == ExitStatus::Will) return ExitStatus::Will;
    return ExitStatus::Might;
  }

  ExitPair transform_if(Node* n) {
    ExitPair then_pair = transform_block(n->blocks().at(0));
    ExitPair else_pair = transform_block(n->blocks().at(1));
    const ExitStatus then_st = status(then_pair);
    const ExitStatus else_st = status(else_pair);
    const ExitStatus st = if_status(then_st, else_st);
    if (st == ExitStatus::Throws) return throws_pair();
    if (st == ExitStatus::Wont) return wont_pair();

    // The branch that does not exit outputs placeholders for the exit values; they are never read.
    if (then_st == ExitStatus::Wont || then_st == ExitStatus::Throws) {
      then_pair.values = units_like(else_pair.values);
    } else if (else_st == ExitStatus::Wont || else_st == ExitStatus::Throws) {
      else_pair.values = units_like(then_pair.values);
    }

    Value* has_exited = nullptr;
    if (st == ExitStatus::Will) {
      has_exited = true_;
    } else {
      add_if_outputs(n, {then_pair.has_exited}, {else_pair.has_exited});
      has_exited = n->outputs().back();
    }
    add_if_outputs(n, then_pair.values, else_pair.values);
    return {has_exited, tail(n->outputs(), then_pair.values.size())};
  }

  // Moves the rest of the block, from `it` on, into the else branch of an If on the flag; the then
  // branch holds a fresh exit node, which the recursive transform_if then removes.
  ExitPair guard_rest(Block* block, const ExitPair& pair, NodeIterator it) {
    Node* guard = g_.create(prim::If, 0)->insert_before(*it);
    guard->add_input(pair.has_exited);
    Block* exit_block = guard->add_block();
    Block* rest_block = guard->add_block();
    while (it != block->nodes().end()) {
      Node* n = *it++;
      n->move_before(rest_block->return_node());
    }

    const std::vector<Value*> outs = block->outputs();
    const std::vector<Value*> placeholders = units_like(outs);
    for (size_t i = 0; i < outs.size(); ++i) {
      exit_block->register_output(placeholders[i]);
      rest_block->register_output(outs[i]);
      guard->add_output()->set_type(outs[i]->type());
    }
    replace_block_outputs(block, guard->outputs());

    g_.create(exit_kind_, pair.values, 0)->insert_before(exit_block->return_node());
    return transform_if(guard);
  }

  // Nodes after a certain exit never run; values still used (as block outputs, say) get placeholders.
  void destroy_after_exit(Node* n) {
    for (Value* out : n->outputs())
      if (out->has_uses()) out->replace_all_uses_with(unit_value(out->type()));
    n->destroy();
  }

  void delete_from(Block* block, NodeIterator it) {
    if (it == block->nodes().end()) return;
    Node* first = *it;
    // Last node first, so that users go before the values they use.
    for (Node* n = block->return_node()->prev(); n != first;) {
      Node* prev = n->prev();
      destroy_after_exit(n);
      n = prev;
    }
    destroy_after_exit(first);
  }

  // Loop bodies are the targets of loop continuations, the graph and closures those of returns.
  void update_target(Block* block) {
    const Symbol kind = owner_kind(block);
    if (exit_kind_ == prim::LoopContinuation && kind == prim::Loop) {
      target_ = block;
    } else if (exit_kind_ == prim::ReturnStmt && (block->owning_node() == nullptr || kind == prim::Closure)) {
      target_ = block;
    }
  }

  ExitPair transform_block(Block* block) {
    Block* const outer_target = target_;
    update_target(block);
    ExitPair pair = wont_pair();

    for (auto it = block->nodes().begin(); it != block->nodes().end();) {
      Node* n = *it++;
      switch (n->kind()) {
        case prim::RaiseException: pair = throws_pair(); break;
        case prim::ReturnStmt:
        case prim::LoopContinuation:
          if (n->kind() == exit_kind_) {
            pair = will_pair(n->inputs());
            n->destroy();
          }
          break;
        case prim::If: pair = transform_if(n); break;
        case prim::Closure: transform_block(n->blocks().at(0)); break;  // its returns stay inside
        case prim::Loop: pair = transform_loop(n); break;
        default:
          if (n->kind() == kWith) pair = transform_block(n->blocks().at(0));
          break;
      }
      const ExitStatus st = status(pair);
      if (st == ExitStatus::Will || st == ExitStatus::Throws) {
        delete_from(block, it);
        break;
      }
      if (st == ExitStatus::Might) {
        if (it != block->nodes().end()) pair = guard_rest(block, pair, it);
        break;
      }
    }

    if (target_ == block) {
      // The exit ends here: its values become the block's outputs.
      if (status(pair) == ExitStatus::Might) {
        Node* pick = g_.create(prim::If, 0)->insert_before(block->return_node());
        pick->add_block();
        pick->add_block();
        pick->add_input(pair.has_exited);
        add_if_outputs(pick, pair.values, block->outputs());
        replace_block_outputs(block, pick->outputs());
      } else if (status(pair) == ExitStatus::Will) {
        replace_block_outputs(block, pair.values);
      }
      // Neither an exit nor a raise propagates past its target (a loop may not run at all).
      pair = wont_pair();
    }
    target_ = outer_target;
    return pair;
  }

  Graph& g_;
  Symbol exit_kind_;
  Value* true_ = nullptr;
  Value* false_ = nullptr;
  Value* throws_ = nullptr;
  Block* target_ = nullptr;
  std::unordered_map<const Type*, Value*> units_;
};

// --- consecutive ifs ------------------------------------------------------------------------------

// An early return leaves `if c: ...exit...` followed by an If on the first one's flag output. When
// that flag is a different constant in each branch, the second If's branches are copied into the
// first one's and the second If goes away.
bool merge_with_next_if(Node* first) {
  Node* second = first->next();
  if (first->kind() != prim::If || second->kind() != prim::If) return false;
  Value* cond = second->inputs().at(0);
  if (cond->node() != first) return false;

  const size_t at = cond->offset();
  const auto then_flag = to_ivalue(first->blocks().at(0)->outputs().at(at));
  const auto else_flag = to_ivalue(first->blocks().at(1)->outputs().at(at));
  if (!then_flag || !else_flag || then_flag->to_bool() == else_flag->to_bool()) return false;

  for (int i = 0; i < 2; ++i) {
    Block* into = first->blocks().at(i);
    const bool flag = (i == 0 ? *then_flag : *else_flag).to_bool();
    Block* from = second->blocks().at(flag ? 0 : 1);
    into->clone_from(from, [&](Value* v) { return v->node() == first ? into->outputs().at(v->offset()) : v; });
  }
  const std::vector<Value*> outs = second->outputs();
  for (Value* out : outs) {
    Value* merged = first->add_output()->copy_metadata(out);
    out->replace_all_uses_with(merged);
  }
  second->destroy();
  return true;
}

void merge_consecutive_ifs(Block* block) {
  for (auto it = block->nodes().begin(); it != block->nodes().end();) {
    for (Block* b : (*it)->blocks()) merge_consecutive_ifs(b);
    // After a merge, the same node may merge with its new successor.
    if (!merge_with_next_if(*it)) ++it;
  }
}

// --- with blocks ------------------------------------------------------------------------------------

void collect_preorder(Block* b, std::vector<Node*>& out) {
  for (Node* n : b->nodes()) {
    out.push_back(n);
    for (Block* sub : n->blocks()) collect_preorder(sub, out);
  }
}

// prim::Enter ... prim::Exit become Enter, With{body; Exit}, so that an exit inside a `with` is
// guarded like one inside an if. Innermost pairs first.
void enter_exit_to_with(Graph& g) {
  std::vector<Node*> all;
  collect_preorder(g.block(), all);
  std::vector<std::pair<Node*, Node*>> pairs;
  std::vector<Node*> open;
  for (Node* n : all) {
    if (n->kind() == prim::Enter) {
      open.push_back(n);
    } else if (n->kind() == prim::Exit) {
      if (open.empty() || open.back()->inputs().at(0) != n->inputs().at(0))
        throw std::logic_error("transform_exits: prim::Exit without its prim::Enter");
      pairs.emplace_back(open.back(), n);
      open.pop_back();
    }
  }
  if (!open.empty()) throw std::logic_error("transform_exits: prim::Enter without its prim::Exit");

  for (auto [enter, exit] : pairs) {
    Node* with = g.create(kWith, 0);
    Block* body = with->add_block();
    Block* exit_block = with->add_block();
    Node* at = body->param_node();
    for (Node* cur = enter->next(); cur != exit;) {
      Node* next = cur->next();
      cur->move_after(at);
      at = cur;
      cur = next;
    }
    exit->move_after(exit_block->param_node());
    with->insert_after(enter);
  }
}

void with_to_enter_exit(Graph& g) {
  std::vector<Node*> all;
  collect_preorder(g.block(), all);
  for (Node* with : all) {
    if (with->kind() != kWith) continue;
    std::vector<Node*> inner;
    for (Block* b : with->blocks())
      for (Node* n : b->nodes()) inner.push_back(n);
    Node* at = with->prev();
    for (Node* n : inner) {
      n->move_after(at);
      at = n;
    }
    with->destroy();
  }
}

}  // namespace

void transform_exits(Graph& g) {
  enter_exit_to_with(g);
  ExitTransformer(g).run(prim::LoopContinuation);
  ExitTransformer(g).run(prim::ReturnStmt);
  merge_consecutive_ifs(g.block());
  with_to_enter_exit(g);
}

}  // namespace jitctl
