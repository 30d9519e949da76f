#include "lib/bench/callers.h"

#include <fmt/format.h>

#include <cstring>
#include <map>
#include <memory>

#include "lib/frontend/graph_function.h"
#include "lib/serialization/load_module.h"
#include "passes/analysis/alias_db.h"

namespace jitctl {
namespace {

std::string first_writer(const Block* b, const AliasDb& db) {
  for (const Node* n : b->nodes()) {
    // Writes to a fresh object or tensor are private to the call; writes to anything reachable
    // from the graph's inputs (self, its attributes, the arguments) are not.
    if (db.writes_to_wildcard(n) && n->kind() == Symbol::prim("SetAttr")) return "prim::SetAttr";
    if (db.writes_to_wildcard(n))
      return fmt::format("{} (writes memory that outlives the call, or a call the analysis cannot see into)",
                         n->kind().qual_string());
    for (const Block* inner : n->blocks())
      if (std::string w = first_writer(inner, db); !w.empty()) return w;
  }
  return "";
}

IValue copy_value(const IValue& v, std::map<const Storage*, std::shared_ptr<Storage>>& storages) {
  const ValueDepthGuard level("copying");
  using K = IValue::Kind;
  switch (v.kind()) {
    case K::Tensor: {
      const Tensor& t = v.to_tensor();
      if (!t.defined()) return v;
      std::shared_ptr<Storage>& copy = storages[t.storage().get()];
      if (!copy) {
        copy = Storage::allocate(t.storage()->nbytes(), t.device());
        if (t.storage()->nbytes() > 0) std::memcpy(copy->mutable_data(), t.storage()->data(), t.storage()->nbytes());
      }
      auto impl = std::make_shared<TensorImpl>(t.impl());
      impl->storage = copy;
      return IValue(Tensor(std::move(impl)));
    }
    case K::Tuple: {
      auto out = std::make_shared<TupleData>();
      for (const auto& x : v.to_tuple()->items) out->items.push_back(copy_value(x, storages));
      return IValue(std::move(out));
    }
    case K::List: {
      auto out = std::make_shared<ListData>();
      out->elem_type = v.to_list()->elem_type;
      for (const auto& x : v.to_list()->items) out->items.push_back(copy_value(x, storages));
      return IValue(std::move(out));
    }
    case K::Dict: {
      auto out = std::make_shared<DictData>();
      out->key_type = v.to_dict()->key_type;
      out->value_type = v.to_dict()->value_type;
      for (const auto& [key, value] : v.to_dict()->items) out->set(copy_value(key, storages), copy_value(value, storages));
      return IValue(std::move(out));
    }
    default: return v;
  }
}

}  // namespace

std::string state_written_by(const std::string& model_path, const std::string& method) {
  LoadedModule m = load_module(model_path);
  GraphFunction* fn = m.cu ? m.cu->graph_function(m.class_name, method) : nullptr;
  if (!fn) return fmt::format("{} (a method jitctl cannot analyse)", method);
  return state_written_by(*fn->optimized_graph());
}

std::string state_written_by(const Graph& g) {
  const AliasDb db(g);
  return first_writer(g.block(), db);
}

std::vector<IValue> copy_arguments(const std::vector<IValue>& args) {
  std::map<const Storage*, std::shared_ptr<Storage>> storages;
  std::vector<IValue> out;
  out.reserve(args.size());
  for (const auto& a : args) out.push_back(copy_value(a, storages));
  return out;
}

Callers make_callers(const std::string& model_path, const std::string& method, const Method& m,
                     const std::vector<IValue>& args, size_t n) {
  Callers c;
  if (n > 1 && !model_path.empty()) c.own_instances_because = state_written_by(model_path, method);
  for (size_t i = 0; i < n; ++i) {
    c.args.push_back(copy_arguments(args));
    c.methods.push_back(i == 0 || c.own_instances_because.empty() ? m : Runtime::load(model_path).method(method));
  }
  return c;
}

}  // namespace jitctl
