// The code PyTorch prints for a module: one method (`.code`), or every code record of an archive
// as ScriptModuleSerializer writes them (torch/csrc/jit/serialization/export_module.cpp).
#include "lib/serialization/code_files.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "lib/core/error.h"
#include "lib/core/ivalue_equality.h"
#include "lib/frontend/graph_function.h"
#include "lib/frontend/ir_emitter.h"
#include "lib/ops/schema_registry.h"
#include "lib/ir/constants.h"
#include "lib/ir/python_printer.h"

namespace jitctl {
namespace {

PrintedSignature printed_signature(const FunctionSchema& schema, const std::string& name) {
  PrintedSignature sig;
  sig.name = name;
  for (const auto& a : schema.arguments)
    sig.arguments.push_back({a.name, a.real_type ? a.real_type : a.type, a.default_value, a.N});
  if (schema.returns.empty()) throw InvalidInput(fmt::format("{}: a function without a return type", name));
  sig.return_type = schema.returns[0].real_type ? schema.returns[0].real_type : schema.returns[0].type;
  return sig;
}

bool accepts(const TypePtr& param, const TypePtr& arg) {
  return param->has_free_variables() || arg->is_subtype_of(*param);
}

// The schema a node's operator was matched to: the one the compiler kept, or else the first
// overload whose parameters accept the node's inputs.
const FunctionSchema* schema_for(const Node& n) {
  if (n.schema()) return n.schema();
  for (const auto& s : SchemaRegistry::builtin().overloads(n.kind().qual_string())) {
    if (s.is_vararg ? s.arguments.size() > n.inputs().size() : s.arguments.size() != n.inputs().size()) continue;
    bool ok = true;
    for (size_t i = 0; i < s.arguments.size() && ok; ++i) ok = accepts(s.arguments[i].type, n.input(i)->type());
    if (ok) return &s;
  }
  return nullptr;
}

// PyTorch's CalculateNecessaryArgs: trailing `out=` arguments, and before them the arguments a
// call may leave out because the node passes their default value (as a constant).
std::pair<size_t, size_t> necessary_args(const FunctionSchema& s, const Node& n) {
  const auto& args = s.arguments;
  size_t end = args.size();
  while (end > 0 && args[end - 1].kwarg_only && args[end - 1].is_write()) --end;
  const size_t num_out = args.size() - end;
  if (args.size() < n.inputs().size()) return {n.inputs().size(), num_out};
  while (end > 0) {
    const Argument& a = args[end - 1];
    if (!a.default_value) return {end, num_out};
    auto actual = to_ivalue(n.input(end - 1));
    if (!actual || !ivalues_equal_strict(*a.default_value, *actual)) return {end, num_out};
    --end;
  }
  return {0, num_out};
}

}  // namespace

PythonPrinter::CallArguments operator_call_arguments(const Node& n) {
  PythonPrinter::CallArguments out;
  const FunctionSchema* s = schema_for(n);
  if (!s || s->arguments.empty()) {
    for (size_t i = 0; i < n.inputs().size(); ++i) out.push_back({i, ""});
    return out;
  }
  auto [necessary, num_out] = necessary_args(*s, n);
  for (size_t i = 0; i < necessary; ++i)
    out.push_back({i, i < s->arguments.size() && s->arguments[i].kwarg_only ? s->arguments[i].name : ""});
  for (size_t i = s->arguments.size() - num_out; i < s->arguments.size(); ++i)
    out.push_back({i, s->arguments[i].name});
  return out;
}

namespace {

std::string base_name(const std::string& qualified) { return qualified.substr(qualified.rfind('.') + 1); }

// Signatures for the functions and methods to print: nullopt when the caller has none to offer.
using SignatureProvider =
    std::function<std::optional<PrintedSignature>(const std::string& qualified_name, const std::string& method)>;

// ScriptModuleSerializer's convertNamedType loop: one printer per qualifier (file), sharing the
// dependency table and the constant table.
class CodeFilesPrinter {
 public:
  CodeFilesPrinter(const GraphProvider& graphs, SignatureProvider signatures, std::function<TypePtr(const std::string&)> find_type)
      : graphs_(graphs), signatures_(std::move(signatures)), find_type_(std::move(find_type)) {}

  // The classes of data.pkl's objects, in the order the pickler meets them.
  void add_objects(const IValue& v) {
    using K = IValue::Kind;
    switch (v.kind()) {
      case K::Object: {
        const auto& obj = v.to_object();
        if (!seen_objects_.insert(obj.get()).second) return;
        if (TypePtr t = find_type_(obj->type_name)) convert(t);
        if (obj->setstate_arg) {
          add_objects(*obj->setstate_arg);
        } else {
          for (const auto& [name, value] : obj->attrs) add_objects(value);
        }
        return;
      }
      case K::Tuple:
        for (const auto& x : v.to_tuple()->items) add_objects(x);
        return;
      case K::List:
        for (const auto& x : v.to_list()->items) add_objects(x);
        return;
      case K::Dict:
        for (const auto& [k, x] : v.to_dict()->items) {
          add_objects(k);
          add_objects(x);
        }
        return;
      default: return;
    }
  }

  // Without objects: the classes of attributes, depth first.
  void add_attribute_classes(const TypePtr& t) {
    if (t->kind() == TypeKind::Class) {
      if (!seen_types_.insert(key_of(*t)).second) return;
      convert(t);
      for (const auto& a : t->expect<ClassType>().attributes()) add_attribute_classes(a.type);
      return;
    }
    for (const auto& c : t->contained()) add_attribute_classes(c);
  }

  CodeFiles finish(const TypePtr& root) {
    add_dependency(root);
    for (size_t i = 0; i < deps_.size(); ++i) convert(deps_[i]);
    CodeFiles out;
    for (auto& [qualifier, printer] : files_) {
      CodeRecord rec;
      rec.path = "code/" + qualifier + ".py";
      std::replace(rec.path.begin() + 5, rec.path.end() - 3, '.', '/');
      rec.text = printer->str();
      const auto& ranges = printer->ranges();
      for (size_t i = 0; i < ranges.size(); ++i) {
        const size_t end = i + 1 < ranges.size() ? ranges[i + 1].begin : rec.text.size();
        if (ranges[i].source && end > ranges[i].begin)
          rec.ranges.push_back({static_cast<uint32_t>(ranges[i].begin), static_cast<uint32_t>(end), *ranges[i].source});
      }
      out.records.push_back(std::move(rec));
    }
    out.constants = std::move(constants_);
    return out;
  }

 private:
  static std::string key_of(const Type& t) {
    switch (t.kind()) {
      case TypeKind::Class: return "c:" + t.expect<ClassType>().qualified_name();
      case TypeKind::Interface: return "i:" + t.expect<InterfaceType>().qualified_name();
      case TypeKind::Enum: return "e:" + t.expect<EnumType>().qualified_name();
      case TypeKind::Tuple: return "t:" + t.expect<TupleType>().qualified_name();
      case TypeKind::Function: return "f:" + t.expect<FunctionType>().qualified_name();
      default: return "";
    }
  }
  static std::string name_of(const Type& t) { return key_of(t).substr(2); }

  void add_dependency(const TypePtr& t) {
    if (dep_keys_.insert(key_of(*t)).second) deps_.push_back(t);
  }

  // Without a signature from the caller: a method's from its class, a function's from its graph
  // (as PyTorch makes one for a graph: inputs' names and types); neither knows default values. A
  // graph that replaces a method with other arguments (a trace of it: only the tensors it was
  // called with) gets its own graph's signature.
  PrintedSignature signature(const std::string& name, const MethodSignature* m, const Graph& g) {
    if (auto s = signatures_(name, m ? m->name : "")) {
      if (s->arguments.size() == g.inputs().size()) return *s;
      return graph_signature(m ? m->name : base_name(name), g);
    }
    PrintedSignature sig;
    if (m) {
      sig.name = m->name;
      for (const auto& a : m->arguments) sig.arguments.push_back({a.name, a.type, std::nullopt, std::nullopt});
      sig.return_type = m->returns.at(0).type;
      return sig;
    }
    return graph_signature(base_name(name), g);
  }

  static PrintedSignature graph_signature(const std::string& name, const Graph& g) {
    PrintedSignature sig;
    sig.name = name;
    for (size_t i = 0; i < g.inputs().size(); ++i) {
      const Value* v = g.inputs()[i];
      sig.arguments.push_back({v->has_debug_name() ? v->debug_name_base() : fmt::format("argument_{}", i), v->type(),
                               std::nullopt, std::nullopt});
    }
    sig.return_type = g.outputs().at(0)->type();
    return sig;
  }

  std::shared_ptr<Graph> graph(const std::string& name, const std::string& method) {
    auto g = graphs_(name, method);
    if (!g) throw InvalidInput(fmt::format("no graph for {}{}{}", name, method.empty() ? "" : ".", method));
    return g;
  }

  PythonPrinter& printer_for(const std::string& qualifier) {
    for (auto& [q, p] : files_)
      if (q == qualifier) return *p;
    PythonPrinter::Hooks hooks;
    hooks.call_arguments = operator_call_arguments;
    hooks.on_dependency = [this](const TypePtr& t) { add_dependency(t); };
    files_.emplace_back(qualifier, std::make_unique<PythonPrinter>(constants_, hooks));
    return *files_.back().second;
  }

  void convert(const TypePtr& t) {
    if (!converted_.insert(key_of(*t)).second) return;
    const std::string name = name_of(*t);
    PythonPrinter& p = printer_for(name.substr(0, name.rfind('.')));
    switch (t->kind()) {
      case TypeKind::Class: {
        const auto& cls = t->expect<ClassType>();
        std::vector<std::pair<PrintedSignature, std::shared_ptr<Graph>>> methods;
        for (const auto& m : cls.methods()) {
          auto g = graph(name, m.name);
          methods.emplace_back(signature(name, &m, *g), g);
        }
        p.print_class(cls, methods);
        return;
      }
      case TypeKind::Function: {
        auto g = graph(name, "");
        p.print_function(signature(name, nullptr, *g), *g, /*is_method=*/false);
        return;
      }
      case TypeKind::Tuple: p.print_named_tuple(t->expect<TupleType>()); return;
      case TypeKind::Interface: p.print_interface(t->expect<InterfaceType>()); return;
      case TypeKind::Enum: p.print_enum(t->expect<EnumType>()); return;
      default: return;
    }
  }

  const GraphProvider& graphs_;
  SignatureProvider signatures_;
  std::function<TypePtr(const std::string&)> find_type_;
  std::vector<IValue> constants_;
  std::vector<TypePtr> deps_;
  std::set<std::string> dep_keys_, converted_, seen_types_;
  std::set<const ObjectData*> seen_objects_;
  std::vector<std::pair<std::string, std::unique_ptr<PythonPrinter>>> files_;
};

}  // namespace

CodeFiles print_code_files(LoadedModule& m, const GraphProvider& graphs) {
  auto signatures = [&m](const std::string& name, const std::string& method) -> std::optional<PrintedSignature> {
    const auto* fn = method.empty() ? m.cu->find_function(name) : m.cu->find_method(name, method);
    if (!fn) return std::nullopt;
    return printed_signature(schema_of(*m.cu, *fn), method.empty() ? base_name(name) : method);
  };
  CodeFilesPrinter p(graphs, signatures, [&m](const std::string& name) { return m.cu->find_type(name); });
  p.add_objects(m.root);
  return p.finish(m.cu->find_type(m.class_name));
}

std::shared_ptr<Graph> code_graph(LoadedModule& m, const std::string& name, const std::string& method) {
  GraphFunction* fn = (method.empty() ? m.cu->find_function(name) : m.cu->find_method(name, method))
                          ? m.cu->graph_function(name, method)
                          : nullptr;
  if (!fn)
    throw InvalidInput(fmt::format("{}: {}{}{} is not defined by the archive's code", m.archive->path(), name,
                                   method.empty() ? "" : ".", method));
  return fn->graph();
}

CodeFiles print_code_files(LoadedModule& m) {
  return print_code_files(m, [&m](const std::string& name, const std::string& method) { return code_graph(m, name, method); });
}

CodeFiles print_code_files(const std::shared_ptr<ClassType>& root, const GraphProvider& graphs) {
  CodeFilesPrinter p(
      graphs, [](const std::string&, const std::string&) { return std::optional<PrintedSignature>(); },
      [](const std::string&) { return TypePtr(); });
  p.add_attribute_classes(root);
  return p.finish(root);
}

std::string print_method_code(LoadedModule& m, const std::string& method) {
  const auto* fn = m.cu->find_method(m.class_name, method);
  if (!fn) throw InvalidInput(unknown_method_message(m, method));
  const std::shared_ptr<Graph>& graph = m.cu->graph_function(m.class_name, method)->graph();
  std::vector<IValue> constants;
  PythonPrinter::Hooks hooks;
  hooks.call_arguments = operator_call_arguments;
  PythonPrinter p(constants, hooks);
  p.print_function(printed_signature(schema_of(*m.cu, *fn), base_name(fn->qualified_name)), *graph,
                   /*is_method=*/true);
  return p.str();
}

}  // namespace jitctl
