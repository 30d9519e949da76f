#include "passes/constant_propagation.h"

#include <algorithm>
#include <memory>
#include <optional>

#include "lib/ir/constants.h"
#include "passes/analysis/alias_db.h"
#include "passes/analysis/immutable_ops.h"
#include "passes/analysis/node_equality.h"
#include "passes/analysis/nondeterministic.h"
#include "passes/dead_code_elimination.h"

namespace jitctl {
namespace {

// Kinds that are never folded, whatever their inputs.
bool skipped_kind(Symbol k) {
  static const Symbol kDequantize = Symbol::aten("dequantize");  // interned once, not per node
  return k == prim::If || k == prim::Loop || k == prim::Closure || k == prim::Constant || k == prim::AutogradZero ||
         k == prim::Uninitialized || k == prim::Guard || k == prim::profile || k == prim::profile_ivalue ||
         k == prim::unchecked_unwrap_optional || k == kDequantize;
}

bool all_immutable(const std::vector<Value*>& values) {
  return std::none_of(values.begin(), values.end(), [](const Value* v) { return AliasDb::is_mutable_type(v->type()); });
}

std::optional<bool> constant_bool(const Value* v) {
  if (v->node()->kind() != prim::Constant || v->type()->kind() != TypeKind::Bool) return std::nullopt;
  return to_ivalue(v)->to_bool();
}

std::optional<int64_t> constant_int(const Value* v) {
  if (v->node()->kind() != prim::Constant || v->type()->kind() != TypeKind::Int) return std::nullopt;
  return to_ivalue(v)->to_int();
}

// What a folded value may not hold: a tensor that requires grad (a constant cannot), or an object.
bool foldable_result(const IValue& v) {
  switch (v.kind()) {
    case IValue::Kind::Tensor: return !v.to_tensor().defined() || !v.to_tensor().requires_grad();
    case IValue::Kind::Object: return false;
    case IValue::Kind::Tuple:
      return std::all_of(v.to_tuple()->items.begin(), v.to_tuple()->items.end(), foldable_result);
    case IValue::Kind::List:
      return std::all_of(v.to_list()->items.begin(), v.to_list()->items.end(), foldable_result);
    case IValue::Kind::Dict:
      for (const auto& [k, x] : v.to_dict()->items)
        if (!foldable_result(k) || !foldable_result(x)) return false;
      return true;
    default: return true;
  }
}

class ConstantPropagator {
 public:
  // `ctx` null: the immutable-types variant; else the alias-analysis one.
  ConstantPropagator(Graph& g, const PassContext* ctx) : graph_(g), ctx_(ctx) {}

  bool run() {
    propagate(graph_.block());
    return changed_;
  }

 private:
  void propagate(Block* b) {
    for (auto it = b->nodes().begin(); it != b->nodes().end();) {
      Node* n = *it;
      ++it;  // n may be destroyed
      propagate(n);
    }
  }

  void propagate(Node* n) {
    const bool constant_inputs = std::all_of(n->inputs().begin(), n->inputs().end(),
                                             [](const Value* v) { return v->node()->kind() == prim::Constant; });
    if (n->kind() == prim::If) {
      if (constant_inputs) {
        inline_if(n);
      } else {
        for (Block* b : n->blocks()) propagate(b);
        remove_extra_if_outputs(n);
      }
    } else if (n->kind() == prim::Loop) {
      if (loop_will_not_run(n)) {
        remove_loop(n);
      } else {
        for (Block* b : n->blocks()) propagate(b);
        remove_extra_loop_outputs(n);
      }
    } else if (constant_inputs && supported(n)) {
      fold(n);
    } else {
      for (Block* b : n->blocks()) propagate(b);
    }
  }

  bool supported(const Node* n) {
    const bool no_mutation =
        ctx_ ? !alias_db().has_writers(n) : all_immutable(n->inputs()) && all_immutable(n->outputs());
    return no_mutation && !n->kind().is_onnx() && !skipped_kind(n->kind()) && (!ctx_ || !is_nondeterministic(n)) &&
           !kind_has_side_effects(n->kind()) && n->blocks().empty();
  }

  const AliasDb& alias_db() {
    if (!alias_db_) alias_db_ = std::make_unique<AliasDb>(graph_);
    return *alias_db_;
  }

  std::optional<std::vector<IValue>> run(const Node* n, const std::vector<IValue>& args) {
    std::optional<std::vector<IValue>> results;
    if (all_immutable(n->inputs()) && all_immutable(n->outputs())) results = run_immutable_op(n, args);
    if (!results && ctx_ && ctx_->evaluate) results = ctx_->evaluate(*n, args);
    if (results && !std::all_of(results->begin(), results->end(), foldable_result)) return std::nullopt;
    return results;
  }

  void fold(Node* n) {
    std::vector<IValue> args;
    for (const Value* in : n->inputs()) {
      auto v = to_ivalue(in);
      if (!v) return;
      args.push_back(std::move(*v));
    }
    auto results = run(n, args);
    if (!results || results->size() != n->outputs().size()) return;
    WithInsertPoint guard(n);
    bool folded = false;
    for (size_t i = 0; i < results->size(); ++i) {
      Value* c = graph_.try_insert_constant((*results)[i]);
      if (!c) continue;  // not representable: the node stays, DCE keeps it
      changed_ = folded = true;
      const TypePtr& old_type = n->output(i)->type();
      // None keeps the type its use expects; a tuple keeps its NamedTuple name, which the value
      // alone does not carry.
      if ((*results)[i].is_none() || (old_type->kind() == TypeKind::Tuple && old_type->expect<TupleType>().is_named()))
        c->set_type(old_type);
      n->output(i)->replace_all_uses_with(c);
    }
    if (folded && ctx_ && ctx_->stats) ++ctx_->stats->constants_folded;
  }

  void inline_if(Node* n) {
    const bool cond = to_ivalue(n->input(0))->to_bool();
    Block* taken = n->blocks().at(cond ? 0 : 1);
    propagate(taken);
    for (auto it = taken->nodes().begin(); it != taken->nodes().end();) {
      Node* inner = *it;
      ++it;
      inner->move_before(n);
    }
    for (size_t i = 0; i < n->outputs().size(); ++i) n->output(i)->replace_all_uses_with(taken->outputs().at(i));
    // The untaken branch goes with the node, side effects and all.
    n->destroy();
    changed_ = true;
  }

  static void replace_and_remove_if_output(Node* n, size_t i, Value* replacement) {
    n->output(i)->replace_all_uses_with(replacement);
    n->erase_output(i);
    n->blocks().at(0)->erase_output(i);
    n->blocks().at(1)->erase_output(i);
  }

  void remove_extra_if_outputs(Node* n) {
    Block* t = n->blocks().at(0);
    Block* f = n->blocks().at(1);
    const size_t before = t->outputs().size();
    WithInsertPoint guard(n);
    for (size_t i = 0; i < t->outputs().size();) {
      Value* tv = t->outputs().at(i);
      Value* fv = f->outputs().at(i);
      if (tv == fv) {
        replace_and_remove_if_output(n, i, tv);
        continue;
      }
      auto constant = to_ivalue(tv);
      if (constant && nodes_equal(tv->node(), fv->node())) {
        replace_and_remove_if_output(n, i, graph_.insert_constant(*constant));
        continue;
      }
      ++i;
    }
    changed_ |= before != t->outputs().size();
  }

  static bool loop_will_not_run(const Node* n) {
    const int64_t trips = constant_int(n->input(0)).value_or(1);
    const bool cond = constant_bool(n->input(1)).value_or(true);
    return !(cond && trips > 0);
  }

  void remove_loop(Node* n) {
    for (size_t i = 0; i < n->outputs().size(); ++i) n->output(i)->replace_all_uses_with(n->input(i + 2));
    changed_ = true;
    n->destroy();
  }

  void remove_extra_loop_outputs(Node* n) {
    Block* body = n->blocks().at(0);
    const size_t before = n->outputs().size();
    for (size_t i = n->outputs().size(); i-- > 0;) {
      if (body->inputs().at(i + 1) != body->outputs().at(i + 1)) continue;
      Value* initial = n->input(i + 2);
      n->output(i)->replace_all_uses_with(initial);
      body->inputs().at(i + 1)->replace_all_uses_with(initial);
      n->erase_output(i);
      n->remove_input(i + 2);
      body->erase_input(i + 1);
      body->erase_output(i + 1);
    }
    changed_ |= before != n->outputs().size();
  }

  Graph& graph_;
  const PassContext* ctx_;
  std::unique_ptr<AliasDb> alias_db_;
  bool changed_ = false;
};

}  // namespace

bool propagate_immutable_constants(Graph& g) {
  const bool changed = ConstantPropagator(g, nullptr).run();
  if (changed) eliminate_dead_code(g);
  return changed;
}

bool propagate_constants(Graph& g, const PassContext& ctx) {
  const bool changed = ConstantPropagator(g, &ctx).run();
  if (changed) eliminate_dead_code(g);
  return changed;
}

}  // namespace jitctl
