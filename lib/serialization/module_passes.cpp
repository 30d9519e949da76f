#include "lib/serialization/module_passes.h"

#include <unordered_set>

#include "lib/frontend/graph_function.h"
#include "lib/frontend/ir_emitter.h"

namespace jitctl {
namespace {

void run_on(LoadedModule& m, const CompilationUnit::Function& fn, const std::pair<std::string, std::string>& key,
            const GraphRewrite& rewrite, const PassContext& base, GraphOverrides& changed) {
  // The passes change the graph, so it is compiled afresh rather than taken from the shared
  // GraphFunction; `inline` gets the callees' shared optimized graphs.
  auto g = compile_function(*m.cu, fn);
  PassContext ctx = base;
  ctx.callees = m.cu->graph_function(key.first, key.second)->callee_graphs();
  const std::string before = g->str();
  rewrite(*g, ctx);
  if (g->str() != before) changed.emplace(key, std::move(g));
}

// Objects reachable from `v`, each visited once (submodules may be shared).
void set_eval(LoadedModule& m, const IValue& v, std::unordered_set<const void*>& seen, size_t& switched) {
  switch (v.kind()) {
    case IValue::Kind::Object: {
      const auto& o = v.to_object();
      if (!seen.insert(o.get()).second) return;
      const auto cls = m.cu->find_class(o->type_name);
      for (auto& [name, value] : o->attrs) {
        if (name == "training" && cls && cls->is_module_class() && value.is(IValue::Kind::Bool)) {
          switched += value.to_bool();
          value = false;
        } else {
          set_eval(m, value, seen, switched);
        }
      }
      return;
    }
    case IValue::Kind::List:
      for (const auto& i : v.to_list()->items) set_eval(m, i, seen, switched);
      return;
    case IValue::Kind::Tuple:
      for (const auto& i : v.to_tuple()->items) set_eval(m, i, seen, switched);
      return;
    case IValue::Kind::Dict:
      for (const auto& [k, i] : v.to_dict()->items) set_eval(m, i, seen, switched);
      return;
    default: return;
  }
}

}  // namespace

size_t set_eval_mode(LoadedModule& m) {
  std::unordered_set<const void*> seen;
  size_t switched = 0;
  set_eval(m, m.root, seen, switched);
  return switched;
}

GraphOverrides run_passes_on_module(LoadedModule& m, std::span<const PassInfo* const> passes) {
  if (passes.empty()) return {};
  return rewrite_module_graphs(m, [&](Graph& g, const PassContext& ctx) {
    for (const PassInfo* p : passes) p->run(g, ctx);
  });
}

GraphOverrides rewrite_module_graphs(LoadedModule& m, const GraphRewrite& rewrite, const PassContext& base) {
  GraphOverrides changed;
  for (const auto& file : m.cu->files()) {
    for (const auto& s : file->ast.body) {
      if (s->kind == StmtKind::Def) {
        const std::string name = file->qualifier + "." + s->def->name;
        if (const auto* fn = m.cu->find_function(name)) run_on(m, *fn, {name, ""}, rewrite, base, changed);
      } else if (s->kind == StmtKind::Class) {
        // Interfaces, NamedTuples and enums define no graphs; only classes have method bodies.
        const std::string name = file->qualifier + "." + s->cls->name;
        const auto cls = m.cu->find_class(name);
        if (!cls) continue;
        for (const auto& method : cls->methods())
          if (const auto* fn = m.cu->find_method(name, method.name))
            run_on(m, *fn, {name, method.name}, rewrite, base, changed);
      }
    }
  }
  return changed;
}

}  // namespace jitctl
