#include "passes/analysis/alias_db.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string_view>
#include <unordered_map>

#include "lib/ops/schema.h"
#include "lib/ir/constants.h"

namespace jitctl {
namespace {

// A set of element indices. Graphs have a few thousand mutable values at most, so a plain bit
// vector is both the simplest and the fastest choice.
class Bits {
 public:
  void set(size_t i) {
    if (i / 64 >= words_.size()) words_.resize(i / 64 + 1, 0);
    words_[i / 64] |= uint64_t{1} << (i % 64);
  }
  bool test(size_t i) const { return i / 64 < words_.size() && (words_[i / 64] >> (i % 64) & 1) != 0; }
  bool empty() const {
    return std::all_of(words_.begin(), words_.end(), [](uint64_t w) { return w == 0; });
  }
  Bits& operator|=(const Bits& o) {
    if (o.words_.size() > words_.size()) words_.resize(o.words_.size(), 0);
    for (size_t i = 0; i < o.words_.size(); ++i) words_[i] |= o.words_[i];
    return *this;
  }
  bool intersects(const Bits& o) const {
    const size_t n = std::min(words_.size(), o.words_.size());
    for (size_t i = 0; i < n; ++i)
      if ((words_[i] & o.words_[i]) != 0) return true;
    return false;
  }
  template <class F>
  void for_each(F&& f) const {
    for (size_t w = 0; w < words_.size(); ++w)
      for (uint64_t bits = words_[w]; bits != 0; bits &= bits - 1)
        f(w * 64 + static_cast<size_t>(__builtin_ctzll(bits)));
  }

 private:
  std::vector<uint64_t> words_;
};

struct Element {
  size_t index = 0;
  const Value* value = nullptr;  // nullptr: the wildcard location of some type
  Bits points_to;
  Bits contained;
  mutable std::optional<Bits> locations;  // filled on first query, as MemoryDAG caches
};

using AliasTypeSet = std::vector<TypePtr>;

std::optional<AliasTypeSet> alias_type_set(const TypePtr& type);

TypePtr single_type(const AliasTypeSet& types) { return types.size() == 1 ? types[0] : UnionType::create(types); }

// The "mutable equivalent" of a type: two values can alias only if their sets share a type.
// Tensors lose their refinements; immutable tuple members are dropped; Optional is transparent.
std::optional<AliasTypeSet> alias_type_set(const TypePtr& type) {
  switch (type->kind()) {
    case TypeKind::List:
    case TypeKind::Dict:
    case TypeKind::Class:
    case TypeKind::Tensor: return AliasTypeSet{unshaped_type(type)};
    case TypeKind::Union: {
      AliasTypeSet out;
      for (const TypePtr& t : type->contained())
        if (auto inner = alias_type_set(t)) out.insert(out.end(), inner->begin(), inner->end());
      if (out.empty()) return std::nullopt;
      return out;
    }
    case TypeKind::Optional: return alias_type_set(type->expect<OptionalType>().elem());
    case TypeKind::Any: return AliasTypeSet{type};
    case TypeKind::Future: {
      auto inner = alias_type_set(type->expect<FutureType>().elem());
      if (!inner) return std::nullopt;
      return AliasTypeSet{FutureType::create(single_type(*inner))};
    }
    case TypeKind::Tuple: {
      std::vector<TypePtr> members;
      for (const TypePtr& t : type->expect<TupleType>().elements())
        if (auto inner = alias_type_set(t)) members.insert(members.end(), inner->begin(), inner->end());
      if (members.empty()) return std::nullopt;
      return AliasTypeSet{TupleType::create(std::move(members))};
    }
    default: return std::nullopt;
  }
}

// c10's containedTypes(): a class contains its attributes' types.
std::vector<TypePtr> contained_types(const TypePtr& type) {
  if (const auto* cls = type->cast<ClassType>()) {
    std::vector<TypePtr> out;
    for (const auto& a : cls->attributes()) out.push_back(a.type);
    return out;
  }
  auto span = type->contained();
  return {span.begin(), span.end()};
}

bool is_kind(const Node* n, std::initializer_list<Symbol> kinds) {
  return std::find(kinds.begin(), kinds.end(), n->kind()) != kinds.end();
}

// Operators registered with AliasAnalysisKind::CONSERVATIVE in PyTorch 1.13 (read from its
// operator registry; everything else in aten:: and prim:: is FROM_SCHEMA or special-cased).
bool conservative_operator(Symbol kind) {
  static const std::unordered_set<std::string_view> names = {
      "aten::backward",          "aten::dist_backward",         "aten::is_autocast_cpu_enabled",
      "aten::is_autocast_enabled", "aten::is_grad_enabled",     "aten::set_grad_enabled",
      "prim::StaticRuntimeCopyOuts", "profiler::_record_function_exit", "static_runtime::VarTupleUnpack",
      "static_runtime::create_owned_ref", "static_runtime::dict_unpack"};
  const std::string_view ns = kind.ns_string();
  return ns == "c10d" || ns == "_test" || names.count(kind.qual_string()) > 0;
}

std::optional<size_t> argument_named(const Node* n, std::string_view name, size_t fallback) {
  if (const FunctionSchema* s = n->schema()) {
    for (size_t i = 0; i < s->arguments.size(); ++i)
      if (s->arguments[i].name == name) return i < n->inputs().size() ? std::optional<size_t>(i) : std::nullopt;
    return std::nullopt;
  }
  return fallback < n->inputs().size() ? std::optional<size_t>(fallback) : std::nullopt;
}

std::optional<bool> constant_bool(const Value* v) {
  if (v->node()->kind() != prim::Constant || v->type()->kind() != TypeKind::Bool) return std::nullopt;
  return to_ivalue(v)->to_bool();
}

}  // namespace

bool kind_has_side_effects(Symbol kind) {
  static const std::unordered_set<std::string_view> names = {
      "prim::PythonOp",  "prim::IgnoredPythonOp", "prim::Print",      "prim::RaiseException", "aten::warn",
      "aten::save",      "aten::manual_seed",     "prim::AddStatValue", "prim::TimePoint",    "prim::CallFunction",
      "prim::CallMethod", "prim::BailoutTemplate", "prim::BailOut",   "prim::rpc_async",      "prim::rpc_sync",
      "prim::rpc_remote", "aten::wait",           "cuda::set_stream", "cuda::_set_device",    "cuda::_current_device",
      "cuda::synchronize", "prim::Enter",         "prim::Exit"};
  return names.count(kind.qual_string()) > 0 || conservative_operator(kind);
}

struct AliasDb::Impl {
  const Graph& graph;
  std::vector<std::unique_ptr<Element>> elements;
  std::unordered_map<const Value*, Element*> element_of;
  std::vector<std::pair<TypePtr, Element*>> wildcard_index;  // one location per mutable type
  std::vector<const Value*> wildcards;                       // values marked as wildcards
  std::unordered_set<const Value*> wildcard_set;
  // Writes as the analysis records them, then as memory locations once the DAG is complete.
  std::vector<std::pair<const Node*, const Value*>> writes, contained_writes;
  std::vector<const Node*> writes_to_all_wildcards;
  std::unordered_map<const Node*, Bits> write_index;
  Bits written_locations;

  bool frozen = false;

  Impl(const Graph& g, bool is_frozen) : graph(g), frozen(is_frozen) {
    for (Value* in : g.inputs()) set_wildcard(in);
    analyze(g.block());
    apply_wildcards();
    for (const auto& [n, v] : writes) write_index[n] |= locations(element_of.at(v));
    for (const auto& [n, v] : contained_writes) collect_contained(element_of.at(v), write_index[n]);
    for (const Node* n : writes_to_all_wildcards)
      for (const auto& w : wildcard_index) write_index[n].set(w.second->index);
    for (const auto& [n, locs] : write_index) written_locations |= locs;
  }

  // ---- elements and wildcards

  Element* make_element(const Value* v) {
    elements.push_back(std::make_unique<Element>());
    elements.back()->index = elements.size() - 1;
    elements.back()->value = v;
    return elements.back().get();
  }

  Element* find_wildcard(const TypePtr& key) const {
    for (const auto& [t, e] : wildcard_index)
      if (*t == *key) return e;
    return nullptr;
  }

  // The wildcard location a value of this type would point to, if one exists yet.
  Element* wildcard_for(const TypePtr& type) const {
    auto set = alias_type_set(type);
    return set ? find_wildcard(single_type(*set)) : nullptr;
  }

  Element* wildcard_for_or_create(const TypePtr& type) {
    auto set = alias_type_set(type);
    if (!set) return nullptr;
    TypePtr key = single_type(*set);
    if (Element* e = find_wildcard(key)) return e;
    Element* w = make_element(nullptr);
    wildcard_index.emplace_back(key, w);
    add_contained_wildcards(w, *set);
    return w;
  }

  // A fresh container may hold anything of its element types that escaped: those wildcards are
  // its contents. A union-typed value instead points at each member type's wildcard.
  void add_contained_wildcards(Element* e, const AliasTypeSet& set) {
    if (set.size() > 1) {
      for (const TypePtr& t : set)
        if (Element* w = wildcard_for_or_create(t)) e->points_to.set(w->index);
      return;
    }
    for (const TypePtr& t : set)
      for (const TypePtr& c : contained_types(t))
        if (Element* w = wildcard_for_or_create(c)) e->contained.set(w->index);
  }

  void give_fresh_alias(const Value* v, bool with_contained_wildcards = true) {
    auto set = alias_type_set(v->type());
    if (!set || element_of.count(v)) return;
    Element* e = make_element(v);
    element_of[v] = e;
    if (with_contained_wildcards) add_contained_wildcards(e, *set);
  }

  Element* element(const Value* v) {
    if (!element_of.count(v)) give_fresh_alias(v);
    return element_of.at(v);
  }

  Element* set_wildcard(const Value* v) {
    Element* w = wildcard_for_or_create(v->type());
    if (!w) return nullptr;
    element(v);
    if (wildcard_set.insert(v).second) wildcards.push_back(v);
    return w;
  }

  static bool non_aliasing(const Value* v) { return v->must_be_none() || v->node()->kind() == prim::Uninitialized; }

  void make_pointer_to(const Value* from, const Value* to) {
    if (non_aliasing(from) || non_aliasing(to)) {
      give_fresh_alias(from);
      give_fresh_alias(to);
      return;
    }
    const bool from_mutable = is_mutable_type(from->type());
    if (from_mutable != is_mutable_type(to->type()) || !from_mutable || from == to) return;
    Element* f = element(from);
    Element* t = element(to);
    f->points_to.set(t->index);
  }

  void add_to_contained(const Value* inner, const Value* container) {
    if (!is_mutable_type(inner->type())) return;
    Element* i = element(inner);
    element(container)->contained.set(i->index);
  }

  void register_write(const Value* v, const Node* n, bool to_contained = false) {
    if (!is_mutable_type(v->type())) return;
    (to_contained ? contained_writes : writes).emplace_back(n, v);
  }

  // ---- the walk

  void analyze(const Block* b) {
    for (const Node* n : b->nodes()) analyze(n);
  }

  void analyze(const Node* n) {
    const Symbol k = n->kind();
    if (k == prim::If) return analyze_if(n);
    if (k == prim::Loop) return analyze_loop(n);
    if (k == prim::fork || k == prim::rpc_async || k == prim::rpc_sync || k == prim::rpc_remote) {
      for (const Value* in : n->inputs()) set_wildcard(in);
      for (const Value* out : n->outputs()) give_fresh_alias(out);
      return;
    }
    if (k == aten::wait) {
      for (const Value* out : n->outputs()) set_wildcard(out);
      writes_to_all_wildcards.push_back(n);
      return;
    }
    if (k == aten::batch_norm) return analyze_norm(n, "training");
    // Interned once: looking a symbol up by name costs a format and a hash per node.
    static const Symbol kInstanceNorm = Symbol::aten("instance_norm");
    static const Symbol kFusedConcat = Symbol::prim("FusedConcat"), kMMBatchSide = Symbol::prim("MMBatchSide"),
                        kBroadcastSizes = Symbol::prim("BroadcastSizes"), kChunkSizes = Symbol::prim("ChunkSizes"),
                        kConstantMKLDNNTensor = Symbol::prim("ConstantMKLDNNTensor");
    if (k == kInstanceNorm) return analyze_norm(n, "use_input_stats");
    // Nodes that make new values from nothing. (PyTorch analyses the subgraph of fusion and
    // differentiable groups; the compiler never makes those, so they count as creators here.)
    if (is_kind(n, {prim::Constant, prim::AutogradZero, prim::AutogradAdd, prim::MMTreeReduce, prim::Closure,
                    prim::CreateObject, prim::tolist, prim::Uninitialized, prim::TensorExprGroup,
                    prim::MKLDNNGroup, prim::StaticSubgraph, prim::FusionGroup, prim::DifferentiableGraph}) ||
        is_kind(n, {kFusedConcat, kMMBatchSide, kBroadcastSizes, kChunkSizes, kConstantMKLDNNTensor})) {
      for (const Value* out : n->outputs()) give_fresh_alias(out);
      return;
    }
    if (k == prim::TupleConstruct) return analyze_tuple_construct(n);
    if (k == prim::ListConstruct || k == prim::DictConstruct) return analyze_container_construct(n);
    if (frozen && k == prim::GetAttr) {
      const auto* cls = n->input(0)->type()->cast<ClassType>();
      if (cls && cls->is_module_class()) {
        for (const Value* out : n->outputs()) give_fresh_alias(out);
        return;
      }
    }
    if (is_kind(n, {prim::TupleUnpack, prim::TupleIndex, prim::TupleSlice, prim::ListUnpack, prim::PythonOp,
                    prim::GetAttr})) {
      // Reading out of a composite: the analysis does not track what is inside.
      for (const Value* out : n->outputs()) set_wildcard(out);
      return;
    }
    if (k == prim::unchecked_cast || k == prim::profile || k == prim::profile_ivalue || k == prim::Guard) {
      make_pointer_to(n->output(), n->input(0));
      return;
    }
    if (k == prim::ConstantChunk) {
      for (const Value* out : n->outputs()) make_pointer_to(out, n->input(0));
      return;
    }
    if (k == prim::TypeCheck || k == prim::RequiresGradCheck) {
      for (size_t i = 0; i < n->inputs().size() && i < n->outputs().size(); ++i)
        make_pointer_to(n->output(i), n->input(i));
      return;
    }
    if (k == prim::SetAttr) {
      register_write(n->input(0), n);
      set_wildcard(n->input(1));
      return;
    }
    if (k == prim::CallFunction || k == prim::CallMethod || k == prim::Enter || k == prim::Exit ||
        conservative_operator(k))
      return analyze_conservative(n);
    if (k == prim::Print || k == prim::isinstance) return;
    analyze_from_schema(n);
  }

  void analyze_if(const Node* n) {
    const Block* t = n->blocks().at(0);
    const Block* f = n->blocks().at(1);
    analyze(t);
    analyze(f);
    for (size_t i = 0; i < n->outputs().size(); ++i) {
      make_pointer_to(n->output(i), t->outputs().at(i));
      make_pointer_to(n->output(i), f->outputs().at(i));
    }
  }

  void analyze_loop(const Node* n) {
    const Block* body = n->blocks().at(0);
    for (size_t i = 2; i < n->inputs().size(); ++i) make_pointer_to(body->inputs().at(i - 1), n->input(i));
    analyze(body);
    for (size_t i = 0; i < n->outputs().size(); ++i) make_pointer_to(n->output(i), body->outputs().at(i + 1));
  }

  // Normalization layers update their running statistics unless told statically not to.
  void analyze_norm(const Node* n, std::string_view flag) {
    for (const Value* out : n->outputs()) give_fresh_alias(out);
    // Freezing is for inference: its training flag will fold to False (PyTorch assumes the same).
    if (frozen) return;
    auto flag_index = argument_named(n, flag, 5);
    std::optional<bool> value = flag_index ? constant_bool(n->input(*flag_index)) : std::nullopt;
    if (value && !*value) return;
    if (auto i = argument_named(n, "running_mean", 3)) register_write(n->input(*i), n);
    if (auto i = argument_named(n, "running_var", 4)) register_write(n->input(*i), n);
  }

  // Calls and unknown effects: every mutable input may be written, contents included, and
  // everything involved escapes.
  void analyze_conservative(const Node* n) {
    for (const Value* in : n->inputs()) {
      if (!is_mutable_type(in->type())) continue;
      register_write(in, n, /*to_contained=*/true);
      set_wildcard(in);
    }
    for (const Value* out : n->outputs()) set_wildcard(out);
  }

  // A list consumed once by an op that neither keeps it nor returns part of it does not make its
  // elements escape.
  static bool functional_non_escaping_list_use(const Use& use) {
    if (use.user->inputs().at(use.offset)->type()->kind() != TypeKind::List) return false;
    static const Symbol kBroadcastTensors = Symbol::aten("broadcast_tensors"), kVstack = Symbol::aten("vstack"),
                        kHstack = Symbol::aten("hstack"), kDstack = Symbol::aten("dstack");
    return is_kind(use.user, {aten::cat, aten::stack, kBroadcastTensors, kVstack, kHstack, kDstack});
  }

  // A tuple whose one use is the graph's return contains exactly the values it was built from,
  // which do not escape through it (PyTorch's functionalNonEscapingTupleUse); any other tuple is
  // a container like a list. (torch's CSE decisions depend on it.)
  void analyze_tuple_construct(const Node* n) {
    const Value* tuple = n->output();
    if (!is_mutable_type(tuple->type())) return;
    const bool only_returned = tuple->uses().size() == 1 && tuple->uses()[0].user == graph.return_node();
    if (!only_returned) return analyze_container_construct(n);
    give_fresh_alias(tuple, false);
    for (const Value* in : n->inputs()) add_to_contained(in, tuple);
  }

  void analyze_container_construct(const Node* n) {
    const Value* container = n->output();
    if (!is_mutable_type(container->type())) return;
    if (container->uses().size() == 1 && functional_non_escaping_list_use(container->uses().front())) {
      give_fresh_alias(container, false);
      for (const Value* in : n->inputs()) add_to_contained(in, container);
      return;
    }
    give_fresh_alias(container);
    Element* c = element_of.at(container);
    for (const Value* in : n->inputs())
      if (Element* w = set_wildcard(in)) c->contained.set(w->index);
  }

  // Alias annotations bind schema names to values: `(a)` outputs point at the input bound to a,
  // `(a!)` records a write, `(*)` and `(a -> *)` make a value a wildcard. Without a schema a node
  // is taken to make fresh values and write nothing.
  void analyze_from_schema(const Node* n) {
    const FunctionSchema* s = n->schema();
    if (!s) {
      for (const Value* out : n->outputs()) give_fresh_alias(out);
      return;
    }
    std::vector<std::pair<std::string, const Value*>> bound;
    auto lookup = [&](const std::string& set) -> const Value* {
      for (const auto& [name, v] : bound)
        if (name == set) return v;
      return nullptr;
    };
    for (size_t i = 0; i < s->arguments.size() && i < n->inputs().size(); ++i) {
      const auto& formal = s->arguments[i].alias_info;
      const Value* actual = n->input(i);
      if (!formal || !is_mutable_type(actual->type()) || formal->before_sets.empty()) continue;
      const std::string& set = formal->before_sets.front();
      if (lookup(set)) continue;
      bound.emplace_back(set, actual);
      if (formal->is_write) register_write(actual, n);
      if (std::find(formal->after_sets.begin(), formal->after_sets.end(), "*") != formal->after_sets.end())
        set_wildcard(actual);
    }
    for (size_t i = 0; i < s->returns.size() && i < n->outputs().size(); ++i) {
      const Value* actual = n->output(i);
      const auto& formal = s->returns[i].alias_info;
      if (!formal) {
        give_fresh_alias(actual);
        continue;
      }
      if (!is_mutable_type(actual->type())) continue;
      const auto& sets = formal->before_sets;
      if (std::find(sets.begin(), sets.end(), "*") != sets.end()) {
        set_wildcard(actual);
        continue;
      }
      for (const std::string& set : sets) {
        if (const Value* to = lookup(set)) {
          make_pointer_to(actual, to);
        } else if (sets.size() == 1) {
          give_fresh_alias(actual);  // `-> Tensor(b)` with b bound nowhere: fresh
        }
      }
      if (formal->is_write) register_write(actual, n);
    }
  }

  // ---- the points-to graph

  const Bits& locations(const Element* e) const {
    if (e->locations) return *e->locations;
    Bits out;
    if (e->points_to.empty()) {
      out.set(e->index);
    } else {
      e->points_to.for_each([&](size_t i) { out |= locations(elements[i].get()); });
    }
    e->locations = std::move(out);
    return *e->locations;
  }

  // Every location of a wildcard value now also points at its type's wildcard location. Cached
  // answers are patched the way MemoryDAG::setWildcards patches them, so that queries answer
  // exactly as PyTorch's do.
  void apply_wildcards() {
    std::vector<std::pair<Element*, Bits>> updates;
    for (const Value* v : wildcards) {
      Element* w = wildcard_for(v->type());
      const Bits pointees = locations(element_of.at(v));
      pointees.for_each([&](size_t i) {
        if (elements[i].get() != w) elements[i]->points_to.set(w->index);
      });
      auto it = std::find_if(updates.begin(), updates.end(), [&](const auto& u) { return u.first == w; });
      if (it == updates.end()) updates.emplace_back(w, pointees);
      else it->second |= pointees;
    }
    for (const auto& e : elements) {
      if (!e->value) continue;
      Element* w = wildcard_for(e->value->type());
      if (!w) continue;
      auto it = std::find_if(updates.begin(), updates.end(), [&](const auto& u) { return u.first == w; });
      if (it == updates.end()) continue;
      if (locations(e.get()).intersects(it->second)) e->locations->set(w->index);
    }
  }

  void collect_contained(const Element* e, Bits& out) const {
    if (out.test(e->index)) return;
    out.set(e->index);
    locations(e).for_each([&](size_t i) { collect_contained(elements[i].get(), out); });
    e->contained.for_each([&](size_t i) { collect_contained(elements[i].get(), out); });
  }

  const Element* find(const Value* v) const {
    auto it = element_of.find(v);
    return it == element_of.end() ? nullptr : it->second;
  }

  void gather_writes(const Node* n, Bits& out) const {
    if (auto it = write_index.find(n); it != write_index.end()) out |= it->second;
    for (const Block* b : n->blocks())
      for (const Node* inner : b->nodes()) gather_writes(inner, out);
  }

  bool may_contain_alias(const std::vector<Value*>& a, const std::vector<Value*>& b) const {
    Bits la, lb;
    bool any_a = false, any_b = false;
    for (const Value* v : a)
      if (const Element* e = is_mutable_type(v->type()) ? find(v) : nullptr) {
        collect_contained(e, la);
        any_a = true;
      }
    for (const Value* v : b)
      if (const Element* e = is_mutable_type(v->type()) ? find(v) : nullptr) {
        collect_contained(e, lb);
        any_b = true;
      }
    return any_a && any_b && la.intersects(lb);
  }

  bool may_alias_wildcard(const Value* v) const {
    const Element* w = wildcard_for(v->type());
    const Element* e = find(v);
    return w && e && locations(e).intersects(locations(w));
  }

  bool escapes_scope(const std::vector<Value*>& vs) const {
    return may_contain_alias(graph.inputs(), vs) || may_contain_alias(graph.outputs(), vs) ||
           std::any_of(vs.begin(), vs.end(), [&](const Value* v) { return may_alias_wildcard(v); });
  }
};

AliasDb::AliasDb(const Graph& g, bool frozen) : impl_(std::make_unique<Impl>(g, frozen)) {}
AliasDb::~AliasDb() = default;

bool AliasDb::is_mutable_type(const TypePtr& type) {
  switch (type->kind()) {
    case TypeKind::Tensor:
    case TypeKind::List:
    case TypeKind::Class:
    case TypeKind::Dict: return true;
    default: return alias_type_set(type).has_value();
  }
}

bool AliasDb::writes_to_wildcard(const Node* n) const {
  auto it = impl_->write_index.find(n);
  if (it == impl_->write_index.end()) return false;
  return std::any_of(impl_->wildcard_index.begin(), impl_->wildcard_index.end(),
                     [&](const auto& w) { return it->second.test(w.second->index); });
}

bool AliasDb::writes_to_alias(const Node* n, const std::unordered_set<const Value*>& values) const {
  Bits written;
  impl_->gather_writes(n, written);
  if (written.empty()) return false;
  for (const Value* v : values)
    if (const Element* e = impl_->find(v); e && impl_->locations(e).intersects(written)) return true;
  return false;
}

bool AliasDb::has_writers(const Value* v) const {
  if (v->must_be_none()) return false;
  const Element* e = impl_->find(v);
  return e && impl_->written_locations.intersects(impl_->locations(e));
}

bool AliasDb::has_writers(const Node* n) const {
  auto any = [&](const std::vector<Value*>& vs) {
    return std::any_of(vs.begin(), vs.end(), [&](const Value* v) { return has_writers(v); });
  };
  return any(n->inputs()) || any(n->outputs());
}

bool AliasDb::has_output_writers(const Node* n) const {
  return std::any_of(n->outputs().begin(), n->outputs().end(), [&](const Value* v) { return has_writers(v); });
}

bool AliasDb::may_contain_alias(const std::vector<Value*>& a, const std::vector<Value*>& b) const {
  return impl_->may_contain_alias(a, b);
}

bool AliasDb::safe_to_change_aliasing_relationship(const std::vector<Value*>& a, const std::vector<Value*>& b) const {
  auto any_writers = [&](const std::vector<Value*>& vs) {
    return std::any_of(vs.begin(), vs.end(), [&](const Value* v) { return has_writers(v); });
  };
  if (any_writers(a) || any_writers(b)) return false;
  return !(impl_->escapes_scope(a) && impl_->escapes_scope(b));
}

}  // namespace jitctl
