// PyTorch 1.13's AttributePropagator (torch/csrc/jit/passes/freeze_module.cpp) over jitctl's
// loaded module, step for step; see freeze_module.h.
#include "lib/serialization/freeze_module.h"

#include <fmt/format.h>

#include <deque>
#include <functional>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "lib/core/error.h"
#include "lib/frontend/graph_function.h"
#include "passes/analysis/alias_db.h"
#include "passes/inliner.h"
#include "passes/registry.h"

namespace jitctl {
namespace {

using ObjectPtr = std::shared_ptr<ObjectData>;

std::vector<std::string> split_name(const std::string& name) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    const size_t dot = name.find('.', start);
    out.push_back(name.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) return out;
    start = dot + 1;
  }
}

IValue* find_attr(ObjectData& o, const std::string& name) {
  for (auto& [n, v] : o.attrs)
    if (n == name) return &v;
  return nullptr;
}

// AliasDb::isMutableType of the value's own type (what PyTorch asks of an attribute's value).
bool value_mutable(const IValue& v) {
  switch (v.kind()) {
    case IValue::Kind::Tensor:
    case IValue::Kind::List:
    case IValue::Kind::Dict:
    case IValue::Kind::Object:
    case IValue::Kind::Future: return true;
    case IValue::Kind::Tuple:
      for (const auto& x : v.to_tuple()->items)
        if (value_mutable(x)) return true;
      return false;
    default: return false;
  }
}

// IValue::HashAliasedIValue: tensors are the same when they share a storage, containers and
// objects when they are the same object.
const void* alias_key(const IValue& v) {
  switch (v.kind()) {
    case IValue::Kind::Tensor: return v.to_tensor().defined() ? v.to_tensor().storage().get() : nullptr;
    case IValue::Kind::List: return v.to_list().get();
    case IValue::Kind::Dict: return v.to_dict().get();
    case IValue::Kind::Tuple: return v.to_tuple().get();
    case IValue::Kind::Object: return v.to_object().get();
    default: return nullptr;
  }
}

// IValue::getSubValues: the value and everything it holds, by alias key.
void sub_values(const IValue& v, std::unordered_set<const void*>& out) {
  if (const void* k = alias_key(v); k && !out.insert(k).second) return;
  switch (v.kind()) {
    case IValue::Kind::List:
      for (const auto& x : v.to_list()->items) sub_values(x, out);
      return;
    case IValue::Kind::Tuple:
      for (const auto& x : v.to_tuple()->items) sub_values(x, out);
      return;
    case IValue::Kind::Dict:
      for (const auto& [k, x] : v.to_dict()->items) {
        sub_values(k, out);
        sub_values(x, out);
      }
      return;
    case IValue::Kind::Object:
      for (const auto& [n, x] : v.to_object()->attrs) sub_values(x, out);
      return;
    default: return;
  }
}

bool overlaps(const IValue& a, const IValue& b) {
  std::unordered_set<const void*> sa, sb;
  sub_values(a, sa);
  sub_values(b, sb);
  for (const void* k : sa)
    if (sb.count(k)) return true;
  return false;
}

// overrideGradient: constants cannot require grad; parameters become plain detached tensors.
IValue without_grad(const IValue& v) {
  switch (v.kind()) {
    case IValue::Kind::Tensor: {
      const Tensor& t = v.to_tensor();
      if (!t.defined() || !t.requires_grad()) return v;
      auto impl = std::make_shared<TensorImpl>(t.impl());
      impl->requires_grad = false;
      impl->is_parameter = false;
      return IValue(Tensor(std::move(impl)));
    }
    case IValue::Kind::Tuple: {
      auto t = std::make_shared<TupleData>();
      for (const auto& x : v.to_tuple()->items) t->items.push_back(without_grad(x));
      return IValue(std::move(t));
    }
    case IValue::Kind::List: {
      auto l = std::make_shared<ListData>(*v.to_list());
      for (auto& x : l->items) x = without_grad(x);
      return IValue(std::move(l));
    }
    default: return v;
  }
}

class Freezer {
 public:
  Freezer(LoadedModule& m, const FreezeOptions& options, const PassContext& ctx)
      : m_(m), options_(options), ctx_(ctx), module_(m.root.to_object()) {}

  FreezeResult run() {
    check_does_not_return_self();
    resolve_preserved();
    for (const std::string& method : methods_) {
      auto g = copy_graph_with_schemas(*m_.cu->graph_function(m_.class_name, method)->graph());
      for_graph_and_forks(*g, [&](Graph& sub) { inline_calls(sub, callees_); });
      inline_interface_calls(*g);
      graphs_[method] = std::move(g);
    }
    for (const auto& [cls, attrs] : interface_retypes_)
      for (const auto& [name, type] : attrs) cls->set_attribute_type(name, type);
    for (const std::string& method : methods_) record_mutable_attrs(*graphs_[method]);
    for (const std::string& method : methods_) {
      Graph& g = *graphs_[method];
      propagate_attributes(g);
      for_graph_and_forks(g, [&](Graph& sub) { run_pipeline("frozen-cleanup", sub, ctx_); });
    }
    cleanup();
    FreezeResult out;
    // torch.jit.freeze's run_frozen_optimizations: forward and the preserved methods, not forks.
    for (const std::string& method : methods_) {
      Graph& g = *graphs_[method];
      run_pipeline(options_.optimize_numerics ? "frozen-optimizations" : "frozen-optimizations-no-numerics", g, ctx_);
      out.graphs.emplace(std::make_pair(m_.class_name, method), graphs_[method]);
    }
    out.attributes_folded = folded_;
    out.attributes_removed = removed_;
    return out;
  }

 private:
  // ---- modules and their classes

  std::shared_ptr<ClassType> class_of(const ObjectData& o) const { return m_.cu->find_class(o.type_name); }

  bool is_module(const IValue& v) const {
    if (!v.is(IValue::Kind::Object)) return false;
    auto cls = class_of(*v.to_object());
    return cls && cls->is_module_class();
  }

  // The attribute, or an InvalidInput naming it (PyTorch's Module::attr throws the same way).
  IValue& attr(const ObjectPtr& o, const std::string& name) const {
    if (IValue* v = find_attr(*o, name)) return *v;
    if (o->setstate_arg)
      throw Unsupported(fmt::format("freezing {}: its state is set by __setstate__, which jitctl freeze does not run",
                                    o->type_name));
    throw InvalidInput(fmt::format("freezing: module {} has no attribute '{}'", o->type_name, name));
  }

  void check_does_not_return_self() {
    const auto cls = class_of(*module_);
    if (!cls->find_method("forward")) return;
    for (const Value* out : m_.cu->graph_function(m_.class_name, "forward")->graph()->outputs())
      if (*out->type() == *cls) throw InvalidInput("attempted to freeze a module that returns itself");
  }

  // The constructor of PyTorch's AttributePropagator: forward, then what `preserve` names.
  void resolve_preserved() {
    const auto root_cls = class_of(*module_);
    if (root_cls->find_method("forward")) methods_.push_back("forward");
    for (const std::string& name : options_.preserve) {
      const auto parts = split_name(name);
      ObjectPtr cur = module_;
      std::vector<std::pair<ObjectPtr, std::string>> path;
      bool found = true;
      for (size_t i = 0; i + 1 < parts.size() && found; ++i) {
        IValue* child = find_attr(*cur, parts[i]);
        if (!child || !is_module(*child)) {
          found = false;
          break;
        }
        path.emplace_back(cur, parts[i]);
        cur = child->to_object();
      }
      const std::string& last = parts.back();
      const auto cls = found ? class_of(*cur) : nullptr;
      const bool is_attr = found && find_attr(*cur, last);
      const bool is_method = found && cls && cls->find_method(last);
      if (!is_attr && !is_method) throw InvalidInput("Unknown name: " + name);
      for (const auto& [parent, child] : path) user_preserved_[parent.get()].insert(child);
      if (is_attr) {
        IValue& value = *find_attr(*cur, last);
        if (is_module(value)) preserved_submodules_.insert(value.to_object().get());
        insert_mutable_attr(last, value, cur.get());
      } else {
        if (cur != module_)
          throw Unsupported(fmt::format("--preserve {}: preserving a method of a submodule is not supported", name));
        if (std::find(methods_.begin(), methods_.end(), last) == methods_.end()) methods_.push_back(last);
      }
    }
  }

  // insertMutableAttr: a value that can alias is kept by identity (every attribute holding it, or
  // sharing its storage, stays); a scalar by its owner and name.
  void insert_mutable_attr(const std::string& name, const IValue& value, const ObjectData* owner) {
    if (value_mutable(value)) {
      if (const void* k = alias_key(value); k && preserved_keys_.insert(k).second) preserved_values_.push_back(value);
    } else {
      preserved_scalars_[owner].insert(name);
    }
  }

  bool is_preserved(const IValue& v) const {
    const void* k = alias_key(v);
    return k && preserved_keys_.count(k);
  }

  // ---- walking graphs

  static void for_graph_and_forks(Graph& g, const std::function<void(Graph&)>& f) {
    f(g);
    walk(g, [&](Node* n) {
      if (n->kind() == prim::fork) for_graph_and_forks(*n->g(attr::Subgraph), f);
    });
  }

  // Every node, blocks depth first through a stack (PyTorch's order), with `f` able to run a
  // fork's subgraph with the module its first input holds.
  static void walk(Graph& g, const std::function<void(Node*)>& f) {
    std::vector<Block*> blocks{g.block()};
    while (!blocks.empty()) {
      Block* b = blocks.back();
      blocks.pop_back();
      // `f` may change what follows `n` (inlining), never `n` itself, so the next node is taken
      // after it.
      for (Node* n : b->nodes()) {
        for (Block* sub : n->blocks()) blocks.push_back(sub);
        f(n);
      }
    }
  }

  // applyToForkSubgraph: a fork whose first input is a submodule runs with that module as `self`.
  void in_fork(Node* fork, Graph& g, const std::function<void(Graph&)>& f) {
    ObjectPtr saved = module_;
    Node* first = fork->inputs().empty() ? nullptr : fork->input(0)->node();
    if (first && first->kind() == prim::GetAttr && first->output()->type()->kind() == TypeKind::Class) {
      ObjectPtr owner = module_;
      const std::string name = first->s(attr::name);
      if (!find_constant_attr(first->input(0), name, owner, g)) return;  // the module stays
      module_ = attr(owner, name).to_object();
    }
    f(*fork->g(attr::Subgraph));
    module_ = saved;
  }

  // _loadModulePath: the GetAttr names from the graph's `self` to `v`, or false when `v` is not
  // reached from `self` through GetAttrs alone.
  bool module_path(Value* v, const Graph& g, std::deque<std::string>& names) const {
    names.clear();
    const TypePtr& self_type = g.inputs().at(0)->type();
    Node* n = v->node();
    while (!(*n->outputs().at(0)->type() == *self_type)) {
      if (n->kind() != prim::GetAttr) return false;
      names.push_front(n->s(attr::name));
      n = n->input(0)->node();
    }
    return true;
  }

  // findConstantAttr: whether the attribute `name` of the module `v` holds may become a constant;
  // `owner` (starting at the current module) ends at that module.
  bool find_constant_attr(Value* v, const std::string& name, ObjectPtr& owner, const Graph& g) {
    const TypePtr& t = v->type();
    const auto* cls = t->cast<ClassType>();
    if (t->kind() != TypeKind::Interface && !(cls && cls->is_module_class())) return false;
    if (!module_path(v, g, names_)) return false;
    for (const std::string& step : names_) {
      IValue& child = attr(owner, step);
      if (is_preserved(child) || !child.is(IValue::Kind::Object)) return false;
      owner = child.to_object();
    }
    IValue* value = find_attr(*owner, name);
    if (!value) {
      attr(owner, name);  // throws the reason
      return false;
    }
    if (!value_mutable(*value)) {
      auto it = preserved_scalars_.find(owner.get());
      return it == preserved_scalars_.end() || !it->second.count(name);
    }
    if (is_preserved(*value)) return false;
    if (!value->is(IValue::Kind::Object))
      for (const IValue& p : preserved_values_)
        if (!p.is(IValue::Kind::Object) && overlaps(p, *value)) return false;
    return true;
  }

  // ---- interfaces

  // inlineInterfaceCalls: a GetAttr of an interface-typed attribute becomes one of the module it
  // holds, and the methods called on it are inlined.
  void inline_interface_calls(Graph& g) {
    walk(g, [&](Node* n) {
      if (n->kind() == prim::GetAttr) {
        if (n->output()->type()->kind() != TypeKind::Interface) return;
        const std::string name = n->s(attr::name);
        ObjectPtr owner = module_;
        if (!find_constant_attr(n->input(0), name, owner, g))
          throw InvalidInput("failed to freeze interface attribute '" + name + "'");
        const IValue& value = attr(owner, name);
        const auto cls = value.is(IValue::Kind::Object) ? class_of(*value.to_object()) : nullptr;
        if (!cls) throw InvalidInput("failed to freeze interface attribute '" + name + "'");
        const std::vector<Use> uses = n->output()->uses();
        for (const Use& use : uses) {
          if (use.user->kind() != prim::CallMethod) continue;
          GraphFunction* callee = m_.cu->graph_function(cls->qualified_name(), use.user->s(attr::name));
          if (callee) inline_call(use.user, *callee->optimized_graph());
        }
        n->output()->set_type(cls);
        interface_retypes_[class_of(*owner)].emplace_back(name, cls);
      } else if (n->kind() == prim::SetAttr) {
        const auto* cls = n->input(0)->type()->cast<ClassType>();
        if (!cls || !cls->is_module_class()) return;
        const TypePtr declared = cls->find_attribute(n->s(attr::name));
        if (declared && declared->kind() == TypeKind::Interface)
          throw InvalidInput("Freezing does not support SetAttr on an interface type. SetAttr is attempted on '" +
                             n->s(attr::name) + "'");
      } else if (n->kind() == prim::fork) {
        in_fork(n, g, [&](Graph& sub) { inline_interface_calls(sub); });
      }
    });
  }

  // ---- what the code changes

  void record_mutable_attrs(Graph& g) {
    const AliasDb aliases(g, /*frozen=*/true);
    walk(g, [&](Node* n) {
      static const Symbol kModuleContainerIndex = Symbol::prim("ModuleContainerIndex");
      if (n->kind() == kModuleContainerIndex)
        throw InvalidInput("Freezing modules containing prim::ModuleContainerIndex is not supported");
      if (n->kind() == prim::SetAttr || n->kind() == prim::GetAttr) {
        const std::string name = n->s(attr::name);
        ObjectPtr owner = module_;
        if (!find_constant_attr(n->input(0), name, owner, g)) return;
        const IValue& value = attr(owner, name);
        // Submodules are not recorded: their attributes are, one by one.
        if (n->kind() == prim::GetAttr && (value.is(IValue::Kind::Object) || !value_mutable(value))) return;
        if (n->kind() == prim::SetAttr || aliases.has_output_writers(n)) insert_mutable_attr(name, value, owner.get());
      } else if (n->kind() == prim::fork) {
        in_fork(n, g, [&](Graph& sub) { record_mutable_attrs(sub); });
      }
    });
  }

  // ---- attributes become constants

  void propagate_attributes(Graph& g) {
    // Every constant goes in front of what was the first node, so it dominates every use.
    WithInsertPoint guard(*g.nodes().begin() == g.return_node() ? g.return_node() : *g.nodes().begin());
    std::map<std::pair<const ObjectData*, std::string>, Value*> made;
    walk(g, [&](Node* n) {
      if (n->kind() == prim::GetAttr) {
        const std::string name = n->s(attr::name);
        ObjectPtr owner = module_;
        if (!find_constant_attr(n->input(0), name, owner, g)) return;
        Value*& constant = made[{owner.get(), name}];
        if (!constant) {
          const IValue value = without_grad(attr(owner, name));
          // Modules (and objects: jitctl makes no object constants) stay GetAttrs.
          if (value.is(IValue::Kind::Object)) return;
          constant = g.try_insert_constant(value);
          if (!constant) return;
          std::string full = "self.";
          for (const std::string& step : names_) full += step + ".";
          full += name;
          if (Value::is_valid_name(full)) constant->set_debug_name(full);
        }
        n->output()->replace_all_uses_with(constant);
        n->remove_all_inputs();
        ++folded_;
      } else if (n->kind() == prim::fork) {
        in_fork(n, g, [&](Graph& sub) { propagate_attributes(sub); });
      }
    });
  }

  // ---- clean-up of the module

  void cleanup() {
    for (const std::string& method : methods_) {
      Graph& g = *graphs_[method];
      record_referenced_attrs(g);
      keep_attributes(module_, g);
      remove_extra_waits(g.block());
    }
    remove_unused_attrs();
  }

  // recordReferencedAttrs: attributes still read (GetAttrs that did not fold) stay.
  void record_referenced_attrs(Graph& g) {
    std::vector<ObjectPtr> modules{module_};
    walk(g, [&](Node* n) {
      if (n->kind() == prim::GetAttr) {
        const std::string& name = n->s(attr::name);
        // Every module of the GetAttr's input type may be the one it reads.
        const size_t count = modules.size();
        for (size_t i = 0; i < count; ++i) {
          const ObjectPtr mod = modules[i];
          const auto cls = class_of(*mod);
          if (!cls || !(*cls == *n->input(0)->type())) continue;
          const IValue& value = attr(mod, name);
          insert_mutable_attr(name, value, mod.get());
          if (is_module(value) &&
              std::find(modules.begin(), modules.end(), value.to_object()) == modules.end())
            modules.push_back(value.to_object());
        }
      } else if (n->kind() == prim::fork) {
        in_fork(n, g, [&](Graph& sub) { record_referenced_attrs(sub); });
      }
    });
    // Submodules on the way to a preserved name stay even when no graph reads them.
    for (const auto& [owner, names] : user_preserved_)
      for (const std::string& name : names)
        if (const IValue* value = find_attr(*owner, name)) insert_mutable_attr(name, *value, owner);
  }

  bool escapes(const ObjectPtr& mod, const Graph& g) const {
    const auto cls = class_of(*mod);
    for (const Value* out : g.outputs())
      if (cls->is_subtype_of(out->type())) return true;
    return preserved_submodules_.count(mod.get()) > 0;
  }

  // handleSharedClassType: which attribute slots of each class stay (all of them for a module a
  // method returns).
  void keep_attributes(const ObjectPtr& mod, const Graph& g) {
    const auto cls = class_of(*mod);
    KeepSet& keep = keep_[cls];
    if (escapes(mod, g)) {
      keep.all = true;
      return;
    }
    auto& instances = instances_[cls];
    if (std::find(instances.begin(), instances.end(), mod) == instances.end()) instances.push_back(mod);
    auto scalars = preserved_scalars_.find(mod.get());
    const auto& attrs = cls->attributes();
    for (size_t i = 0; i < attrs.size(); ++i) {
      const IValue* value = find_attr(*mod, attrs[i].name);
      if (!value) continue;
      const bool kept = value_mutable(*value)
                            ? is_preserved(*value)
                            : scalars != preserved_scalars_.end() && scalars->second.count(attrs[i].name) > 0;
      if (!kept) continue;
      keep.slots.insert(attrs[i].name);
      if (is_module(*value)) {
        if (attrs[i].type->kind() == TypeKind::Interface)
          throw InvalidInput("Unexpected interface attribute '" + attrs[i].name + "' during freezing");
        keep_attributes(value->to_object(), g);
      }
    }
  }

  // removeExtraWaitCalls: aten::wait of something that is not a future (an inlined fork) goes.
  static void remove_extra_waits(Block* b) {
    static const Symbol kWait = Symbol::aten("wait");
    for (auto it = b->nodes().begin(); it != b->nodes().end();) {
      Node* n = *it++;
      if (n->kind() == kWait && n->inputs().size() == 1 && n->input(0)->type()->kind() != TypeKind::Future) {
        n->output()->replace_all_uses_with(n->input(0));
        n->destroy();
      }
    }
    for (Node* n : b->nodes())
      for (Block* sub : n->blocks()) remove_extra_waits(sub);
  }

  // removeUnusedAttrs: slots not kept leave the class and its instances, and methods not kept
  // leave the class.
  void remove_unused_attrs() {
    for (auto& [cls, keep] : keep_) {
      if (keep.all) continue;
      std::vector<std::string> drop;
      for (const auto& a : cls->attributes())
        if (!keep.slots.count(a.name)) drop.push_back(a.name);
      for (const std::string& name : drop) {
        for (const ObjectPtr& o : instances_[cls])
          removed_ += std::erase_if(o->attrs, [&](const auto& a) { return a.first == name; });
        cls->remove_attribute(name);
      }
      std::vector<std::string> methods;
      for (const auto& method : cls->methods())
        if (cls.get() != class_of(*module_).get() ||
            std::find(methods_.begin(), methods_.end(), method.name) == methods_.end())
          methods.push_back(method.name);
      for (const std::string& name : methods) cls->remove_method(name);
      // Pickled as attributes from now on, unless __setstate__ is still there to read a state.
      if (!cls->find_method("__setstate__"))
        for (const ObjectPtr& o : instances_[cls]) o->setstate_arg.reset();
    }
  }

  struct KeepSet {
    bool all = false;
    std::set<std::string> slots;
  };

  LoadedModule& m_;
  const FreezeOptions& options_;
  PassContext ctx_;
  CalleeGraphFn callees_ = [this](const std::string& owner, const std::string& method) -> std::shared_ptr<Graph> {
    GraphFunction* fn = m_.cu->graph_function(owner, method);
    return fn ? fn->optimized_graph() : nullptr;
  };
  ObjectPtr module_;  // the module GetAttr chains start from (a fork's may differ)
  std::vector<std::string> methods_;
  std::map<std::string, std::shared_ptr<Graph>> graphs_;
  std::unordered_set<const void*> preserved_keys_;
  std::vector<IValue> preserved_values_;
  std::unordered_map<const ObjectData*, std::unordered_set<std::string>> preserved_scalars_;
  std::unordered_set<const ObjectData*> preserved_submodules_;
  std::map<ObjectData*, std::set<std::string>> user_preserved_;
  std::map<std::shared_ptr<ClassType>, std::vector<std::pair<std::string, TypePtr>>> interface_retypes_;
  std::map<std::shared_ptr<ClassType>, KeepSet> keep_;
  std::map<std::shared_ptr<ClassType>, std::vector<ObjectPtr>> instances_;
  std::deque<std::string> names_;  // the path module_path last found
  size_t folded_ = 0, removed_ = 0;
};

// The attributes a simple __setstate__ sets from its state tuple: (attribute, field index).
std::vector<std::pair<std::string, size_t>> setstate_copies(const Graph& g, const std::string& cls) {
  auto unsupported = [&] {
    return Unsupported(fmt::format("freezing {}: its __setstate__ does more than copy fields of its state into "
                                   "attributes, and jitctl does not run it",
                                   cls));
  };
  if (g.inputs().size() != 2) throw unsupported();
  const Value* self = g.inputs()[0];
  const Value* state = g.inputs()[1];
  std::unordered_map<const Value*, size_t> field;  // values that are state[k]
  std::vector<std::pair<std::string, size_t>> copies;
  for (const Node* n : g.nodes()) {
    if (n->kind() == prim::Constant) continue;
    if (n->kind() == prim::TupleIndex && n->input(0) == state && n->input(1)->node()->kind() == prim::Constant &&
        n->input(1)->type()->kind() == TypeKind::Int) {
      const int64_t k = n->input(1)->node()->i(attr::value);
      if (k < 0) throw unsupported();
      field[n->output()] = static_cast<size_t>(k);
    } else if (n->kind() == prim::TupleUnpack && n->input(0) == state) {
      for (size_t i = 0; i < n->outputs().size(); ++i) field[n->output(i)] = i;
    } else if (n->kind() == prim::SetAttr && n->input(0) == self && field.count(n->input(1))) {
      copies.emplace_back(n->s(attr::name), field.at(n->input(1)));
    } else {
      throw unsupported();
    }
  }
  return copies;
}

void restore_object(LoadedModule& m, const IValue& v, std::unordered_set<const void*>& seen) {
  switch (v.kind()) {
    case IValue::Kind::Object: {
      const ObjectPtr& o = v.to_object();
      if (!seen.insert(o.get()).second) return;
      const auto cls = m.cu->find_class(o->type_name);
      if (o->setstate_arg && cls && cls->find_method("__setstate__") && o->attrs.empty()) {
        const auto copies = setstate_copies(*m.cu->graph_function(cls->qualified_name(), "__setstate__")->graph(),
                                            cls->qualified_name());
        const IValue& state = *o->setstate_arg;
        if (!state.is(IValue::Kind::Tuple))
          throw InvalidInput(fmt::format("{}: state of class {} is a {}, not a tuple", m.archive->where("data.pkl"),
                                         o->type_name, kind_name(state.kind())));
        const auto& items = state.to_tuple()->items;
        for (const auto& a : cls->attributes())
          for (const auto& [name, index] : copies)
            if (name == a.name) {
              if (index >= items.size())
                throw InvalidInput(fmt::format("{}: state of class {} has {} fields, __setstate__ reads field {}",
                                               m.archive->where("data.pkl"), o->type_name, items.size(), index));
              o->attrs.emplace_back(name, items[index]);
            }
      }
      for (const auto& [name, x] : o->attrs) restore_object(m, x, seen);
      return;
    }
    case IValue::Kind::List:
      for (const auto& x : v.to_list()->items) restore_object(m, x, seen);
      return;
    case IValue::Kind::Tuple:
      for (const auto& x : v.to_tuple()->items) restore_object(m, x, seen);
      return;
    case IValue::Kind::Dict:
      for (const auto& [k, x] : v.to_dict()->items) restore_object(m, x, seen);
      return;
    default: return;
  }
}

}  // namespace

void restore_setstate_attributes(LoadedModule& m) {
  std::unordered_set<const void*> seen;
  restore_object(m, m.root, seen);
}

FreezeResult freeze_module(LoadedModule& m, const FreezeOptions& options, const PassContext& ctx) {
  return Freezer(m, options, ctx).run();
}

}  // namespace jitctl
