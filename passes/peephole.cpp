#include "passes/peephole.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "lib/ir/constants.h"
#include "passes/analysis/alias_db.h"
#include "passes/dead_code_elimination.h"

namespace jitctl {
namespace {

const Symbol kT = Symbol::aten("t");
const Symbol kFloorDiv = Symbol::aten("floordiv");
const Symbol kCeil = Symbol::aten("ceil");
const Symbol kFloatImplicit = Symbol::aten("FloatImplicit");
const Symbol kIntImplicit = Symbol::aten("IntImplicit");
const Symbol kUnwrapOptional = Symbol::aten("_unwrap_optional");
const Symbol kConv1d = Symbol::aten("conv1d");
const Symbol kConv3d = Symbol::aten("conv3d");

bool of_kind(const Value* v, TypeKind k) { return v->type()->kind() == k; }

// PyTorch's constant_as<T>: the value of a prim::Constant of that type.
std::optional<int64_t> constant_int(const Value* v) {
  if (v->node()->kind() != prim::Constant || !of_kind(v, TypeKind::Int)) return std::nullopt;
  auto iv = to_ivalue(v);
  return iv ? std::optional<int64_t>(iv->to_int()) : std::nullopt;
}

std::optional<bool> constant_bool(const Value* v) {
  if (v->node()->kind() != prim::Constant || !of_kind(v, TypeKind::Bool)) return std::nullopt;
  auto iv = to_ivalue(v);
  return iv ? std::optional<bool>(iv->to_bool()) : std::nullopt;
}

// A constant Scalar argument as a double (ints and floats alike), as at::Scalar::toDouble.
std::optional<double> constant_number(const Value* v) {
  auto iv = to_ivalue(v);
  if (!iv) return std::nullopt;
  if (iv->is(IValue::Kind::Int) || iv->is(IValue::Kind::Double)) return iv->to_double();
  if (iv->is(IValue::Kind::Bool)) return iv->to_bool() ? 1.0 : 0.0;
  return std::nullopt;
}

// Whether any node, in any block, satisfies `pred`. The sub-passes below use it to skip building
// an alias analysis (the costly part) for graphs with nothing for them to do; PyTorch builds one
// regardless, which changes nothing but time.
template <class Pred>
bool any_node(const Block* b, const Pred& pred) {
  for (Node* n : b->nodes()) {
    if (pred(n)) return true;
    for (const Block* sub : n->blocks())
      if (any_node(sub, pred)) return true;
  }
  return false;
}

Value* insert_constant_before(Node* n, const IValue& v) {
  WithInsertPoint guard(n);
  return n->owning_graph()->insert_constant(v);
}

// ---- 1. the peepholes of PeepholeOptimizeImpl that do not need shapes ----

bool optimize_basic(Block* b) {
  bool changed = false;
  for (Node* n : b->nodes()) {
    for (Block* sub : n->blocks()) changed |= optimize_basic(sub);
    const Symbol k = n->kind();
    if (k == aten::_grad_sum_to_size && n->inputs().size() == 2 && n->outputs().size() == 1) {
      if (n->input(1)->must_be_none()) {
        n->output()->replace_all_uses_with(n->input(0));
        changed = true;
      } else {
        const std::vector<Use> uses = n->output()->uses();
        for (const Use& u : uses) {
          const Node* user = u.user;
          if (user->kind() == aten::_grad_sum_to_size && user->inputs().size() == 2 && u.offset == 0 &&
              user->input(1)->type()->is_subtype_of(*ListType::create(IntType::get()))) {
            u.user->replace_input(0, n->input(0));
            changed = true;
          }
        }
      }
    } else if (k == kT && n->inputs().size() == 1 && of_kind(n->input(0), TypeKind::Tensor)) {
      Node* producer = n->input(0)->node();
      if (producer->kind() == kT && producer->inputs().size() == 1 && of_kind(producer->input(0), TypeKind::Tensor)) {
        n->output()->replace_all_uses_with(producer->input(0));
        changed = true;
      }
    } else if ((k == aten::Float || k == aten::Int || k == kFloatImplicit || k == kIntImplicit ||
                k == aten::ScalarImplicit) &&
               n->inputs().size() == 1 && n->outputs().size() == 1) {
      Node* producer = n->input(0)->node();
      if (producer->kind() == prim::NumToTensor && producer->inputs().size() == 1) {
        n->output()->replace_all_uses_with(producer->input(0));
        changed = true;
      }
    }
  }
  return changed;
}

// ---- 2. PeepholeOptimizeListIdioms (without list-length refinement, as peephole calls it) ----

std::optional<size_t> normalize_index(int64_t index, size_t len) {
  if (index < 0) index += static_cast<int64_t>(len);
  if (index >= 0 && index < static_cast<int64_t>(len)) return static_cast<size_t>(index);
  return std::nullopt;
}

// Python's slice index adjustment (PySlice_Unpack + PySlice_AdjustIndices), INT64_MAX standing for
// an omitted start or end; returns the number of elements.
int64_t slice_indices_adjust(int64_t length, int64_t* start, int64_t* stop, int64_t step) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  if (*start == kMax) *start = step < 0 ? kMax : 0;
  if (*stop == kMax) *stop = step < 0 ? kMin : kMax;
  auto adjust = [&](int64_t* i) {
    if (*i < 0) {
      *i += length;
      if (*i < 0) *i = step < 0 ? -1 : 0;
    } else if (*i >= length) {
      *i = step < 0 ? length - 1 : length;
    }
  };
  adjust(start);
  adjust(stop);
  if (step < 0) {
    if (*stop < *start) return (*start - *stop - 1) / (-step) + 1;
  } else if (*start < *stop) {
    return (*stop - *start - 1) / step + 1;
  }
  return 0;
}

class ListIdioms {
 public:
  explicit ListIdioms(Graph& g) : graph_(g) {}

  bool run() {
    const bool candidates = any_node(graph_.block(), [](const Node* n) {
      const Symbol k = n->kind();
      return (k == aten::len || k == aten::__getitem__ || k == prim::ListUnpack || k == aten::add || k == aten::slice) &&
             !n->inputs().empty() && of_kind(n->input(0), TypeKind::List) &&
             n->input(0)->node()->kind() == prim::ListConstruct;
    });
    if (!candidates) return false;
    alias_db_ = std::make_unique<AliasDb>(graph_);
    collect_mutated(graph_.block());
    return run_block(graph_.block());
  }

 private:
  void check(Value* v) {
    if (of_kind(v, TypeKind::List) && alias_db_->has_writers(v)) mutated_.insert(v);
  }

  void collect_mutated(Block* b) {
    for (Value* v : b->inputs()) check(v);
    for (Node* n : b->nodes()) {
      for (Value* v : n->outputs()) check(v);
      for (Block* sub : n->blocks()) collect_mutated(sub);
    }
  }

  Node* new_list_before(Node* n) {
    WithInsertPoint guard(n);
    Node* lc = graph_.insert_node(graph_.create(prim::ListConstruct));
    lc->output()->set_type(n->output()->type());
    return lc;
  }

  void replace_list(Node* n, Node* lc) {
    n->output()->replace_all_uses_with(lc->output());
    if (mutated_.count(n->output())) mutated_.insert(lc->output());
  }

  bool run_block(Block* b) {
    bool changed = false;
    for (Node* n : b->nodes()) {
      for (Block* sub : n->blocks()) changed |= run_block(sub);
      if (n->inputs().empty() || !of_kind(n->input(0), TypeKind::List)) continue;
      Value* list = n->input(0);
      if (mutated_.count(list)) continue;
      Node* producer = list->node();
      const bool constructed = producer->kind() == prim::ListConstruct;
      const Symbol k = n->kind();
      if (k == aten::len) {
        if (!constructed) continue;
        n->output()->replace_all_uses_with(
            insert_constant_before(n, IValue(static_cast<int64_t>(producer->inputs().size()))));
        changed = true;
      } else if (k == aten::__getitem__) {
        if (!constructed || n->inputs().size() != 2) continue;
        auto index = to_ivalue(n->input(1));
        if (!index || !index->is(IValue::Kind::Int)) continue;
        if (auto i = normalize_index(index->to_int(), producer->inputs().size())) {
          n->output()->replace_all_uses_with(producer->input(*i));
          changed = true;
        }
      } else if (k == prim::ListUnpack) {
        // Unequal sizes fail at run time; that stays as it is.
        if (!constructed || producer->inputs().size() != n->outputs().size()) continue;
        for (size_t i = 0; i < n->outputs().size(); ++i) {
          n->output(i)->replace_all_uses_with(producer->input(i));
          changed = true;
        }
      } else if (k == aten::add) {
        if (n->inputs().size() != 2) continue;
        Value* second = n->input(1);
        if (mutated_.count(second)) continue;
        if (!constructed || second->node()->kind() != prim::ListConstruct) continue;
        Node* lc = new_list_before(n);
        for (Value* v : producer->inputs()) lc->add_input(v);
        for (Value* v : second->node()->inputs()) lc->add_input(v);
        replace_list(n, lc);
        changed = true;
      } else if (k == aten::slice) {
        if (!constructed || n->inputs().size() != 4) continue;
        auto start_v = to_ivalue(n->input(1));
        auto end_v = to_ivalue(n->input(2));
        auto step_v = to_ivalue(n->input(3));
        // Every bound must be known (None counts as known: the default).
        if (!start_v || !end_v || !step_v) continue;
        constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
        int64_t start = start_v->is(IValue::Kind::Int) ? start_v->to_int() : kMax;
        int64_t end = end_v->is(IValue::Kind::Int) ? end_v->to_int() : kMax;
        const int64_t step = step_v->is(IValue::Kind::Int) ? step_v->to_int() : 1;
        // PyTorch throws on a zero step here; leaving the slice keeps the error for run time.
        if (step == 0) continue;
        const int64_t count =
            slice_indices_adjust(static_cast<int64_t>(producer->inputs().size()), &start, &end, step);
        Node* lc = new_list_before(n);
        for (int64_t j = 0, i = start; j < count; ++j, i += step) lc->add_input(producer->input(static_cast<size_t>(i)));
        replace_list(n, lc);
        changed = true;
      }
    }
    return changed;
  }

  Graph& graph_;
  std::unique_ptr<AliasDb> alias_db_;
  std::unordered_set<const Value*> mutated_;
};

// ---- 3. PeepholeOptimizeDictIdioms ----

class DictIdioms {
 public:
  explicit DictIdioms(Graph& g) : graph_(g) {}

  bool run() {
    const bool candidates = any_node(graph_.block(), [](const Node* n) {
      return (n->kind() == aten::len || n->kind() == aten::__getitem__) && !n->inputs().empty() &&
             of_kind(n->input(0), TypeKind::Dict) && n->input(0)->node()->kind() == prim::DictConstruct;
    });
    if (!candidates) return false;
    alias_db_ = std::make_unique<AliasDb>(graph_);
    collect_mutated(graph_.block());
    return run_block(graph_.block());
  }

 private:
  // The keys of a DictConstruct when they are distinct constants of a key type PyTorch handles
  // (int, float, str); nullopt otherwise.
  struct Entries {
    std::vector<std::pair<IValue, Value*>> items;
  };

  static bool same_key(TypeKind k, const IValue& a, const IValue& b) {
    switch (k) {
      case TypeKind::Int: return a.to_int() == b.to_int();
      case TypeKind::Float: return a.to_double() == b.to_double();
      default: return a.to_string() == b.to_string();
    }
  }

  static std::optional<Entries> entries_of(const Node* dict) {
    const auto contained = dict->output()->type()->contained();
    if (contained.size() != 2) return std::nullopt;
    const TypeKind key_kind = contained[0]->kind();
    if (key_kind != TypeKind::Int && key_kind != TypeKind::Float && key_kind != TypeKind::String) return std::nullopt;
    Entries e;
    bool optimizable = true;
    for (size_t i = 0; i + 1 < dict->inputs().size(); i += 2) {
      auto key = to_ivalue(dict->input(i));
      if (!key) {
        optimizable = false;
        continue;
      }
      const bool seen = std::any_of(e.items.begin(), e.items.end(),
                                    [&](const auto& kv) { return same_key(key_kind, kv.first, *key); });
      if (seen) {
        optimizable = false;
      } else {
        e.items.emplace_back(*key, dict->input(i + 1));
      }
    }
    if (!optimizable) return std::nullopt;
    return e;
  }

  void check(Value* v) {
    if (of_kind(v, TypeKind::Dict) && alias_db_->has_writers(v)) mutated_.insert(v);
  }

  void collect_mutated(Block* b) {
    for (Value* v : b->inputs()) check(v);
    for (Node* n : b->nodes()) {
      for (Value* v : n->outputs()) check(v);
      for (Block* sub : n->blocks()) collect_mutated(sub);
    }
  }

  bool run_block(Block* b) {
    bool changed = false;
    for (Node* n : b->nodes()) {
      for (Block* sub : n->blocks()) changed |= run_block(sub);
      if (n->inputs().empty() || !of_kind(n->input(0), TypeKind::Dict)) continue;
      if (mutated_.count(n->input(0))) continue;
      Node* producer = n->input(0)->node();
      if (producer->kind() != prim::DictConstruct) continue;
      if (n->kind() == aten::len) {
        auto e = entries_of(producer);
        if (!e) continue;
        n->output()->replace_all_uses_with(insert_constant_before(n, IValue(static_cast<int64_t>(e->items.size()))));
        changed = true;
      } else if (n->kind() == aten::__getitem__ && n->inputs().size() == 2) {
        auto key = to_ivalue(n->input(1));
        if (!key) continue;
        auto e = entries_of(producer);
        if (!e) continue;
        const TypeKind key_kind = producer->output()->type()->contained()[0]->kind();
        for (const auto& [k, v] : e->items) {
          if (k.kind() != key->kind() && key_kind != TypeKind::Float) continue;
          if (same_key(key_kind, k, *key)) {
            n->output()->replace_all_uses_with(v);
            changed = true;
            break;
          }
        }
      }
    }
    return changed;
  }

  Graph& graph_;
  std::unique_ptr<AliasDb> alias_db_;
  std::unordered_set<const Value*> mutated_;
};

// ---- 4. PeepholeOptimizeAliasSensitive, shape peepholes off ----

class AliasSensitive {
 public:
  explicit AliasSensitive(Graph& g) : graph_(g) {}

  bool run() {
    const bool candidates = any_node(graph_.block(), [](const Node* n) {
      const Symbol k = n->kind();
      if (k == kConv1d || k == aten::conv2d || k == kConv3d) return true;
      return (k == aten::add || k == aten::sub || k == aten::mul) && !n->inputs().empty() &&
             of_kind(n->input(0), TypeKind::Tensor);
    });
    if (!candidates) return false;
    alias_db_ = std::make_unique<AliasDb>(graph_);
    return run(graph_.block());
  }

 private:
  bool run(Block* b) {
    bool changed = false;
    for (Node* n : b->nodes()) {
      for (Block* sub : n->blocks()) changed |= run(sub);
      const Symbol k = n->kind();
      if (k == kConv1d || k == aten::conv2d || k == kConv3d) {
        // dim(conv(x)) is common and blocks conv-batchnorm folding.
        std::vector<Node*> dims;
        for (const Use& u : n->output()->uses())
          if (u.user->kind() == aten::dim) dims.push_back(u.user);
        if (dims.empty()) continue;
        const int64_t rank = k == kConv1d ? 3 : (k == aten::conv2d ? 4 : 5);
        // With writers (a resize_), PyTorch moves the dim next to the conv when it can; jitctl
        // leaves those alone.
        if (alias_db_->has_writers(n->output())) continue;
        for (Node* d : dims) d->output()->replace_all_uses_with(insert_constant_before(d, IValue(rank)));
        changed = true;
      } else if ((k == aten::add || k == aten::sub) && n->inputs().size() == 3 && n->outputs().size() == 1 &&
                 of_kind(n->input(0), TypeKind::Tensor)) {
        auto other = constant_number(n->input(1));
        auto alpha = constant_number(n->input(2));
        if (!other || !alpha) continue;
        // Without dtypes (shape peepholes off) only int scalars are known not to promote.
        if (!of_kind(n->input(1), TypeKind::Int) || !of_kind(n->input(2), TypeKind::Int)) continue;
        if (*alpha == 1 && *other == 0) changed |= replace_output_with_input(n->input(0), n->output());
      } else if ((k == aten::mul || k == aten::div) && n->inputs().size() == 2 && n->outputs().size() == 1 &&
                 of_kind(n->input(0), TypeKind::Tensor)) {
        auto other = constant_number(n->input(1));
        if (!other || !(of_kind(n->input(1), TypeKind::Int) || of_kind(n->input(1), TypeKind::Float) ||
                        of_kind(n->input(1), TypeKind::Number)))
          continue;
        if (k == aten::div || !of_kind(n->input(1), TypeKind::Int)) continue;
        if (*other == 1) changed |= replace_output_with_input(n->input(0), n->output());
      }
    }
    return changed;
  }

  // The alias analysis is not updated as values merge; values touched once are "stale" and not
  // touched again (PyTorch checks may-alias against them; jitctl checks identity).
  bool replace_output_with_input(Value* input, Value* output) {
    if (!alias_db_->safe_to_change_aliasing_relationship({input}, {output})) return false;
    if (stale_.count(input) || stale_.count(output)) return false;
    output->replace_all_uses_with(input);
    stale_.insert(input);
    stale_.insert(output);
    return true;
  }

  Graph& graph_;
  std::unique_ptr<AliasDb> alias_db_;
  std::unordered_set<const Value*> stale_;
};

// ---- 5. PeepholeOptimizeNonTensor ----

// Integer binary arithmetic: the constant operand, moved second for the commutative kinds (a
// permutation PyTorch makes whether or not anything simplifies).
std::optional<int64_t> check_arith_node(Node* n) {
  if (n->inputs().size() != 2 || !of_kind(n->input(0), TypeKind::Int) || !of_kind(n->input(1), TypeKind::Int))
    return std::nullopt;
  if (n->kind() == aten::mul || n->kind() == aten::add) {
    if (auto c = constant_int(n->input(0))) {
      n->permute_inputs({1, 0});
      return c;
    }
  }
  return constant_int(n->input(1));
}

bool simplify_mul_or_div(Node* n) {
  auto c = check_arith_node(n);
  if (!c || *c != 1) return false;
  n->output()->replace_all_uses_with(n->input(0));
  return true;
}

bool simplify_add_or_sub(Node* n) {
  auto c = check_arith_node(n);
  if (!c) return false;
  if (*c == 0) {
    n->output()->replace_all_uses_with(n->input(0));
    return true;
  }
  Node* dep = n->input(0)->node();
  if (dep->kind() != aten::add && dep->kind() != aten::sub) return false;
  auto delta = check_arith_node(dep);
  if (!delta) return false;
  const int64_t merged = dep->kind() == n->kind() ? *c + *delta : *c - *delta;
  if (merged == 0) {
    n->output()->replace_all_uses_with(dep->input(0));
  } else {
    n->replace_input(0, dep->input(0));
    n->replace_input(1, insert_constant_before(n, IValue(merged)));
  }
  return true;
}

bool immutable_scalar_kind(TypeKind k) {
  return k == TypeKind::Bool || k == TypeKind::Int || k == TypeKind::Float || k == TypeKind::None;
}

// aten::eq/ne of a value with itself cannot throw for these (a tensor or a list of tensors may).
bool comparison_cannot_throw(const TypePtr& t) {
  const auto contained = t->contained();
  if (t->kind() == TypeKind::List) return immutable_scalar_kind(contained[0]->kind());
  if (t->kind() == TypeKind::Dict)
    return immutable_scalar_kind(contained[0]->kind()) && immutable_scalar_kind(contained[1]->kind());
  return immutable_scalar_kind(t->kind());
}

bool optimize_non_tensor(Graph& g, Block* b) {
  bool changed = false;
  for (Node* n : b->nodes()) {
    for (Block* sub : n->blocks()) changed |= optimize_non_tensor(g, sub);
    const Symbol k = n->kind();
    if (k != prim::Constant) {
      // A None-typed value is always None: an optional attribute that was initialized as None.
      for (Value* out : n->outputs()) {
        if (!of_kind(out, TypeKind::None)) continue;
        out->replace_all_uses_with(insert_constant_before(n, IValue()));
        changed = true;
      }
    }
    if (k == prim::If) {
      Block* then_b = n->blocks().at(0);
      Block* else_b = n->blocks().at(1);
      for (size_t i = 0; i < n->outputs().size(); ++i) {
        if (!of_kind(n->output(i), TypeKind::Bool)) continue;
        const bool true_val = constant_bool(then_b->outputs().at(i)).value_or(false);
        const bool false_val = constant_bool(else_b->outputs().at(i)).value_or(true);
        // `c and True`, `c or False`: the output is the condition.
        if (true_val && !false_val) {
          n->output(i)->replace_all_uses_with(n->input(0));
          changed = true;
        }
      }
      for (size_t i = 0; i < n->outputs().size(); ++i) {
        const TypePtr& tt = then_b->outputs().at(i)->type();
        const TypePtr& et = else_b->outputs().at(i)->type();
        if (tt->kind() == TypeKind::Optional || et->kind() == TypeKind::Optional) continue;
        if (!of_kind(n->output(i), TypeKind::Optional)) continue;
        if (auto unified = unify_types(tt, et)) {
          n->output(i)->set_type(*unified);
          changed = true;
        }
      }
    } else if (k == aten::__is__ || k == aten::__isnot__) {
      if (n->inputs().size() != 2) continue;
      for (size_t none_index : {0, 1}) {
        if (n->input(none_index)->must_be_none() && n->input(1 - none_index)->must_not_be_none()) {
          n->output()->replace_all_uses_with(insert_constant_before(n, IValue(k == aten::__isnot__)));
          changed = true;
        }
      }
    } else if (k == prim::unchecked_unwrap_optional || k == kUnwrapOptional) {
      if (n->inputs().size() == 1 && n->input(0)->must_not_be_none()) {
        n->output()->replace_all_uses_with(n->input(0));
        changed = true;
      }
    } else if (k == prim::unchecked_cast) {
      if (n->inputs().size() == 1 &&
          unshaped_type(n->input(0)->type())->is_subtype_of(*unshaped_type(n->output()->type()))) {
        n->output()->replace_all_uses_with(n->input(0));
        changed = true;
      }
    } else if ((k == aten::Int || k == kCeil) && n->inputs().size() == 1 && of_kind(n->input(0), TypeKind::Int)) {
      n->output()->replace_all_uses_with(n->input(0));
      changed = true;
    } else if (k == aten::ne || k == aten::eq) {
      if (n->inputs().size() != 2 || n->input(0) != n->input(1)) continue;
      if (comparison_cannot_throw(n->input(0)->type())) {
        n->output()->replace_all_uses_with(insert_constant_before(n, IValue(k == aten::eq)));
        changed = true;
      }
    } else if (k == aten::mul || k == kFloorDiv || k == aten::div) {
      changed |= simplify_mul_or_div(n);
    } else if (k == aten::add || k == aten::sub) {
      changed |= simplify_add_or_sub(n);
    }
  }
  return changed;
}

// ---- 6. CombineConcats ----

class ConcatCombiner {
 public:
  explicit ConcatCombiner(Graph& g) : graph_(g) {}

  bool run() {
    if (!any_node(graph_.block(), [](const Node* n) { return n->kind() == aten::cat; })) return false;
    alias_db_ = std::make_unique<AliasDb>(graph_);
    collect(graph_.block());
    if (pairs_.empty()) return false;
    combine();
    eliminate_dead_code(graph_);
    return true;
  }

 private:
  struct Pair {
    Node* first;
    Node* second;
    size_t idx;  // where the first concat's output sits in the second's list
  };

  // Pre-order, as PyTorch's DepthFirstGraphNodeIterator.
  void collect(Block* b) {
    for (Node* n : b->nodes()) {
      if (n->kind() == aten::cat) handle(n);
      for (Block* sub : n->blocks()) collect(sub);
    }
  }

  void handle(Node* n) {
    if (n->inputs().size() != 2) return;
    auto dim = constant_int(n->input(1));
    if (!dim) return;
    Node* list = n->input(0)->node();
    // PyTorch asks whether the list could move next to the concat; an unmutated list always can.
    if (list->kind() != prim::ListConstruct || alias_db_->has_writers(list->output())) return;
    if (n->output()->uses().size() != 1) return;
    Node* next_list = n->output()->uses()[0].user;
    if (next_list->kind() != prim::ListConstruct || next_list->output()->uses().size() != 1) return;
    Node* next = next_list->output()->uses()[0].user;
    if (next->kind() != aten::cat || next->inputs().size() != 2) return;
    auto next_dim = constant_int(next->input(1));
    if (!next_dim || *next_dim != *dim) return;
    const auto& ins = next_list->inputs();
    const size_t idx = static_cast<size_t>(std::find(ins.begin(), ins.end(), n->output()) - ins.begin());
    pairs_.push_back({n, next, idx});
  }

  static std::vector<Value*> concat_inputs(const Node* cat) { return cat->input(0)->node()->inputs(); }

  void combine() {
    // concat -> the inputs its new list gets, in the order the concats were first combined.
    std::vector<std::pair<Node*, std::vector<Value*>>> lists;
    auto find = [&](Node* c) {
      return std::find_if(lists.begin(), lists.end(), [&](const auto& e) { return e.first == c; });
    };
    for (const Pair& p : pairs_) {
      const std::vector<Value*> to_add = concat_inputs(p.second);
      std::vector<Value*> cur;
      if (auto it = find(p.first); it != lists.end()) {
        cur = std::move(it->second);
        lists.erase(it);
      } else {
        cur = concat_inputs(p.first);
      }
      cur.insert(cur.begin(), to_add.begin(), to_add.begin() + static_cast<std::ptrdiff_t>(p.idx));
      cur.insert(cur.end(), to_add.begin() + static_cast<std::ptrdiff_t>(p.idx) + 1, to_add.end());
      lists.emplace_back(p.second, std::move(cur));
    }
    for (auto& [cat, inputs] : lists) {
      Node* old_list = cat->input(0)->node();
      Node* lc = graph_.create(prim::ListConstruct, inputs);
      lc->output()->set_type(old_list->output()->type());
      lc->insert_before(cat);
      old_list->replace_all_uses_with(lc);
    }
  }

  Graph& graph_;
  std::unique_ptr<AliasDb> alias_db_;
  std::vector<Pair> pairs_;
};

}  // namespace

bool peephole_optimize(Graph& g) {
  bool changed = optimize_basic(g.block());
  changed |= ListIdioms(g).run();
  changed |= DictIdioms(g).run();
  changed |= AliasSensitive(g).run();
  changed |= optimize_non_tensor(g, g.block());
  changed |= ConcatCombiner(g).run();
  if (changed) eliminate_dead_code_without_alias_db(g);
  return changed;
}

}  // namespace jitctl
