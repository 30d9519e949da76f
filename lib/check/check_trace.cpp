#include "lib/check/check_trace.h"

#include <fmt/format.h>

#include <chrono>
#include <algorithm>
#include <map>
#include <set>

#include "lib/check/graph_diff.h"
#include "lib/check/output_compare.h"
#include "lib/check/traced_assumptions.h"
#include "lib/core/error.h"
#include "lib/frontend/graph_function.h"
#include "lib/frontend/ir_emitter.h"
#include "lib/ir/constants.h"
#include "lib/ir/graph_printer.h"
#include "lib/runtime/device_dispatch.h"
#include "lib/runtime/inputs.h"
#include "lib/runtime/interpreter.h"
#include "lib/serialization/export.h"
#include "lib/serialization/load_module.h"

namespace jitctl {
namespace {

// How many arguments (after self) the method takes: at least `min`, at most `max`.
struct Arity {
  size_t min = 0, max = 0;
};

Arity arity_of(const FunctionSchema& s) {
  Arity a;
  a.max = s.arguments.empty() ? 0 : s.arguments.size() - 1;
  a.min = a.max;
  while (a.min > 0 && s.arguments[a.min].default_value) --a.min;
  return a;
}

std::vector<IValue> read_inputs(const std::string& path, const Arity& a, const std::string& method) {
  std::vector<IValue> args = load_inputs(path);
  if (args.size() < a.min || args.size() > a.max)
    throw InvalidInput(fmt::format("{}: method '{}' takes {} argument(s), the file gives {}", path, method,
                                   a.min == a.max ? std::to_string(a.max) : fmt::format("{} to {}", a.min, a.max),
                                   args.size()));
  return args;
}

// The model raising on an input set is the input's problem, as for `jitctl run`.
template <class F>
auto model_call(const std::string& what, const std::string& inputs, F&& f) {
  try {
    return f();
  } catch (const RaisedException& e) {
    throw InvalidInput(fmt::format("{}: {} raises: {}", inputs, what, e.what()));
  }
}

// On the selected GPU when there is one (--device cuda): the trace's outputs are computed there
// and compared on the host with the model's.
IValue run_graph_method(const Method& m, const IValue& self, std::vector<IValue> args) {
  for (IValue& a : args) a = values_to_device(a);
  args.insert(args.begin(), self);
  return values_to_host(m(std::move(args)));
}

std::vector<OutputMismatch> compare_outputs(const IValue& actual, const IValue& expected, const std::string& against,
                                            double rtol, const std::optional<double>& atol) {
  std::vector<OutputMismatch> out;
  const std::vector<Tensor> a = compared_tensors(actual), e = compared_tensors(expected);
  for (size_t i = 0; i < a.size() && i < e.size(); ++i) {
    const double at = atol ? *atol
                           : (a[i].defined() && e[i].defined() ? default_atol(a[i].dtype(), e[i].dtype()) : 0.0);
    if (auto why = tensors_mismatch(a[i], e[i], rtol, at)) out.push_back({i + 1, against, *why});
  }
  return out;
}

// PyTorch compares the tensor constants of two traces in order, up to the first node whose kind
// differs, with torch.testing's default tolerances.
std::string tensor_constants_differ(const Graph& a, const Graph& b) {
  auto ia = a.nodes().begin(), ib = b.nodes().begin();
  for (; ia != a.nodes().end() && ib != b.nodes().end(); ++ia, ++ib) {
    const Node* na = *ia;
    const Node* nb = *ib;
    if (na->kind() != nb->kind()) break;
    if (na->kind() != prim::Constant || !na->has_attribute(attr::value) || !nb->has_attribute(attr::value)) continue;
    if (na->kind_of(attr::value) != AttributeKind::t || nb->kind_of(attr::value) != AttributeKind::t) continue;
    const Tensor& ta = na->t(attr::value);
    const Tensor& tb = nb->t(attr::value);
    std::optional<std::string> why;
    if (ta.dtype() != tb.dtype())
      why = fmt::format("dtypes differ: {} and {}", dtype_name(ta.dtype()), dtype_name(tb.dtype()));
    else
      why = tensors_mismatch(tb, ta, default_rtol(ta.dtype(), tb.dtype()), default_atol(ta.dtype(), tb.dtype()));
    if (why) {
      std::string where = na->source_location() ? fmt::format(" at {}:{}", na->source_location()->file, na->source_location()->line) : "";
      std::string node = node_to_string(*na);
      if (!node.empty() && node.back() == '\n') node.pop_back();
      return fmt::format("{}{}: {}", node, where, *why);
    }
  }
  return "";
}

std::string first_difference(const GraphDiff& d) {
  const GraphLine *a = nullptr, *b = nullptr;
  for (const auto& h : d.hunks)
    for (const auto& l : h) {
      if (l.op == '-' && !a) a = &l.line;
      if (l.op == '+' && !b) b = &l.line;
    }
  auto show = [](const char* label, const GraphLine* l) {
    if (!l) return fmt::format("  {}: (nothing)\n", label);
    return fmt::format("  {}: {}{}\n", label, l->text, l->where.empty() ? "" : "  # " + l->where);
  };
  return show("first trace", a) + show("this trace ", b);
}

const ObjectData* module_at(const IValue& root, const std::string& path) {
  const IValue* v = &root;
  size_t start = 0;
  while (start <= path.size()) {
    if (!v->is_object()) return nullptr;
    const size_t dot = path.find('.', start);
    const std::string atom = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    v = v->to_object()->attr(atom);
    if (!v) return nullptr;
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return v->is_object() ? v->to_object().get() : nullptr;
}

// The number of arguments (self included) a class's method declares; nullopt without one.
std::optional<size_t> declared_arguments(LoadedModule& m, const std::string& cls, const std::string& method) {
  const auto* fn = m.cu->find_method(cls, method);
  if (!fn) return std::nullopt;
  return schema_of(*m.cu, *fn).arguments.size();
}

void module_objects(const IValue& v, std::map<std::string, std::vector<const ObjectData*>>& out) {
  if (!v.is_object()) return;
  const ObjectData& o = *v.to_object();
  auto& list = out[o.type_name];
  if (std::find(list.begin(), list.end(), &o) != list.end()) return;
  list.push_back(&o);
  for (const auto& [name, a] : o.attrs) module_objects(a, out);
}

// A traced module declares its parameters and buffers as they are (`bias : Tensor`), where a
// scripted class may declare them Optional (nn.Conv2d's bias): the classes whose methods the
// trace replaces take the traced module's declarations, when every object of the class holds a
// tensor there.
void refine_optional_tensors(LoadedModule& m, const std::map<std::pair<std::string, std::string>, const TracedMethod*>& chosen) {
  std::map<std::string, std::vector<const ObjectData*>> objects;
  module_objects(m.root, objects);
  std::set<std::string> classes;
  for (const auto& [key, tm] : chosen) classes.insert(key.first);
  for (const auto& name : classes) {
    auto cls = m.cu->find_class(name);
    if (!cls) continue;
    std::vector<std::string> refine;
    for (const auto& a : cls->attributes()) {
      if (a.kind == ClassType::AttributeKind::Regular || a.type->kind() != TypeKind::Optional ||
          a.type->contained()[0]->kind() != TypeKind::Tensor)
        continue;
      bool all_tensors = true;
      for (const ObjectData* o : objects[name]) {
        const IValue* v = o->attr(a.name);
        all_tensors = all_tensors && v && v->is_tensor() && v->to_tensor().defined();
      }
      if (all_tensors) refine.push_back(a.name);
    }
    for (const auto& a : refine) cls->set_attribute_type(a, TensorType::get());
  }
}

using MethodKey = std::pair<std::string, std::string>;

void called_methods(const Block& b, std::vector<MethodKey>& out) {
  for (const Node* n : b.nodes()) {
    if (n->kind() == prim::CallMethod && !n->inputs().empty())
      if (const auto* cls = n->input(0)->type()->cast<ClassType>()) out.push_back({cls->qualified_name(), n->s(attr::name)});
    for (const Block* sub : n->blocks()) called_methods(*sub, out);
  }
}

// The code the saved trace keeps: every method of a class the trace replaces no method of, and of
// the traced classes what the root's other methods reach through calls. A traced class's other
// methods go (torch.jit.trace's modules have only their traced methods): `drop` lists them.
// Returns false when kept code calls one of `resigned` (methods whose arguments the trace changes).
bool keep_code(LoadedModule& m, const std::string& traced_method, const std::set<MethodKey>& resigned,
               const GraphOverrides& overrides, std::vector<MethodKey>& drop) {
  std::map<std::string, std::vector<const ObjectData*>> objects;
  module_objects(m.root, objects);
  std::set<std::string> traced;
  for (const auto& [key, g] : overrides) traced.insert(key.first);
  std::set<MethodKey> kept;
  std::vector<MethodKey> queue;
  for (const auto& [name, objs] : objects) {
    auto cls = m.cu->find_class(name);
    if (!cls) continue;
    for (const auto& sig : cls->methods()) {
      const bool root_other = name == m.class_name && sig.name != traced_method;
      if (!traced.count(name) || root_other) queue.push_back({name, sig.name});
    }
  }
  while (!queue.empty()) {
    const MethodKey key = queue.back();
    queue.pop_back();
    if (overrides.count(key) || !kept.insert(key).second) continue;
    GraphFunction* fn = m.cu->graph_function(key.first, key.second);
    if (!fn) continue;
    std::vector<MethodKey> calls;
    called_methods(*fn->graph()->block(), calls);
    for (const auto& c : calls) {
      if (resigned.count(c)) return false;
      queue.push_back(c);
    }
  }
  for (const auto& name : traced) {
    auto cls = m.cu->find_class(name);
    if (!cls) continue;
    for (const auto& sig : cls->methods())
      if (!overrides.count({name, sig.name}) && !kept.count({name, sig.name})) drop.push_back({name, sig.name});
  }
  return true;
}

// Writes the trace as torch.jit.trace's module holds it: the traced method calling each submodule's
// traced methods, which take the place of (or, for a module called again, join) the methods of the
// submodule's class -- so that PyTorch's `.inlined_graph` of the archive inlines them as it does
// for its own traced modules. A traced method takes the tensors it was called with (nn.GRU's
// forward takes its input alone); it is declared so. The traced classes keep only the methods the
// root's other methods still call (keep_code). A scripted archive shares a class among equal
// submodules: when two of them traced differently (a Conv2d with a bias and one without), or kept
// code calls a method whose arguments change, the trace is written as one method instead.
void save_trace(Runtime& rt, const std::string& method, const Trace& trace, const std::string& path) {
  LoadedModule& m = rt.loaded_module();
  std::map<MethodKey, const TracedMethod*> chosen;
  std::set<MethodKey> resigned;
  bool structured = trace.calls != nullptr;
  if (structured && declared_arguments(m, m.class_name, method) != trace.calls->inputs().size())
    resigned.insert({m.class_name, method});
  for (const auto& tm : trace.methods) {
    const ObjectData* obj = structured ? module_at(m.root, tm.module) : nullptr;
    if (!obj) {
      structured = false;
      break;
    }
    const auto key = std::make_pair(obj->type_name, tm.name);
    if (auto it = chosen.find(key); it != chosen.end()) {
      structured = canonical_graph_text(*it->second->graph) == canonical_graph_text(*tm.graph);
      if (!structured) break;
      continue;
    }
    const auto declared = declared_arguments(m, obj->type_name, tm.name);
    if (declared && *declared != tm.graph->inputs().size()) resigned.insert(key);
    chosen[key] = &tm;
  }
  GraphOverrides overrides;
  std::vector<MethodKey> drop;
  if (structured) {
    overrides[{m.class_name, method}] = trace.calls;
    for (const auto& [key, tm] : chosen) overrides[key] = tm->graph;
    structured = keep_code(m, method, resigned, overrides, drop);
  }
  if (!structured) {
    overrides.clear();
    overrides[{m.class_name, method}] = trace.graph;
    export_module(m, path, overrides);
    return;
  }
  refine_optional_tensors(m, chosen);
  for (const auto& [cls, name] : drop)
    if (auto c = m.cu->find_class(cls)) c->remove_method(name);
  for (const auto& [key, tm] : chosen) {
    if (declared_arguments(m, key.first, key.second)) continue;
    // A second call's method (forward1): declared from its graph, as PyTorch declares it.
    auto cls = m.cu->find_class(key.first);
    if (!cls) throw std::logic_error("save-trace: no class " + key.first);
    MethodSignature sig;
    sig.name = key.second;
    const Graph& g = *tm->graph;
    for (size_t i = 0; i < g.inputs().size(); ++i) {
      const Value* v = g.inputs()[i];
      sig.arguments.push_back({i == 0 ? "self" : v->has_debug_name() ? v->debug_name_base() : fmt::format("argument_{}", i), v->type()});
    }
    sig.returns.push_back({"", g.outputs().at(0)->type()});
    cls->add_method(std::move(sig));
  }
  export_module(m, path, overrides);
}

}  // namespace

std::string InputSetCheck::status() const {
  if (!run_error.empty()) return "the first trace fails on it";
  if (graphs_differ || !assumptions.empty()) return "graphs differ";
  if (!cannot_tell.empty() && constants_differ.empty() && outputs.empty()) return "cannot tell (graphs may differ)";
  if (!constants_differ.empty()) return "tensor constants differ";
  if (!outputs.empty()) return "outputs differ";
  return "ok";
}

CheckTraceReport check_trace(const std::string& model, const std::vector<std::string>& inputs,
                             const std::vector<std::string>& expected, const CheckTraceOptions& o) {
  if (inputs.empty()) throw InvalidInput("check-trace: give at least one input set (--inputs F)");
  if (!expected.empty() && expected.size() != inputs.size())
    throw InvalidInput(fmt::format("check-trace: --expected: one file per input set ({} given for {})", expected.size(),
                                   inputs.size()));
  const auto start = std::chrono::steady_clock::now();
  auto since = [](std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  };
  CheckTraceReport report;
  report.model = model;
  report.method = o.method;
  report.rtol = o.rtol;
  report.atol = o.atol;
  Runtime rt = Runtime::load(model);
  LoadedModule& m = rt.loaded_module();
  check_method(m, o.method);
  // Not planned: the model runs through the tracer, which needs kernels only for what it reaches.
  const Arity own = arity_of(rt.schema(o.method));
  // The inlined graph: a traced module whose forward only calls submodules has no located node of its own.
  report.traced_archive = is_traced_graph(*m.cu->graph_function(m.class_name, o.method)->inlined_graph());
  const IValue self = rt.module();

  // 1. The trace, on the first input set.
  std::vector<IValue> first_args = read_inputs(inputs[0], own, o.method);
  const auto first_start = std::chrono::steady_clock::now();
  Trace first;
  try {
    first = model_call("the model", inputs[0], [&] {
      return trace_method(rt, o.method, read_inputs(inputs[0], own, o.method), {o.traced_with_grad, o.strict});
    });
  } catch (const UntraceableModel& e) {
    report.verdict = "untraceable";
    report.untraceable = e.what();
    report.seconds = since(start);
    return report;
  }
  report.trace = first.graph;
  report.warnings = first.warnings;
  for (const Node* n : nondeterministic_nodes(*first.graph)) {
    std::string s = node_to_string(*n);
    while (!s.empty() && s.back() == '\n') s.pop_back();
    report.nondeterministic.push_back(s);
  }
  const Method first_run = plan_graph(first.graph);
  const std::vector<GraphLine> first_lines = canonical_graph_lines(*first.graph);
  TracedAssumptions assumed;
  if (report.traced_archive) assumed = find_traced_assumptions(*first.graph, m, self, first_args);
  // The first input set's time includes making the trace (and what is derived from it).
  const double first_seconds = since(first_start);

  // 2. Every input set.
  for (size_t k = 0; k < inputs.size(); ++k) {
    const auto t0 = std::chrono::steady_clock::now();
    InputSetCheck set;
    set.inputs = inputs[k];
    if (!expected.empty()) set.expected = expected[k];
    Trace again;
    try {
      again = model_call("the model", inputs[k], [&] {
        return trace_method(rt, o.method, read_inputs(inputs[k], own, o.method), {false, o.strict});
      });
    } catch (const UntraceableModel& e) {
      report.verdict = "untraceable";
      report.untraceable = fmt::format("{}: {}", inputs[k], e.what());
      report.seconds = since(start);
      return report;
    } catch (const Unsupported&) {
      throw;
    } catch (const Error& e) {
      // A traced archive's code is the trace itself: failing on this set is the trace failing on
      // it (its shapes baked in), which the verdict counts as graphs that differ.
      if (!report.traced_archive) throw;
      set.run_error = e.what();
      BrokenAssumptions broken = broken_assumptions(assumed, self, read_inputs(inputs[k], own, o.method));
      set.assumptions = std::move(broken.certain);
      set.cannot_tell = std::move(broken.cannot_tell);
      set.seconds = since(t0) + (k == 0 ? first_seconds : 0);
      report.sets.push_back(std::move(set));
      continue;
    }
    set.warnings = again.warnings;
    const std::vector<GraphLine> lines = canonical_graph_lines(*again.graph);
    GraphDiff diff = diff_graphs(first_lines, lines);
    if (!diff.equal()) {
      set.graphs_differ = true;
      set.graph_diff = format_graph_diff(diff, fmt::format("trace of input set 1 ({})", inputs[0]),
                                         fmt::format("trace of input set {} ({})", k + 1, inputs[k]));
      set.first_difference = first_difference(diff);
    } else {
      set.constants_differ = tensor_constants_differ(*first.graph, *again.graph);
    }

    // The first trace on this input set, against the model's own outputs (or the expected ones):
    // what the model returned while it was traced again on the set, under no_grad as PyTorch's check
    // runs the Python. A trace that samples (random ops, dropout in training mode) gives other values
    // than the model's own run wherever its samples reach an output: PyTorch then reports the output
    // as not matching, after its warning that the trace had nondeterministic nodes. jitctl's samples
    // are not PyTorch's, but whether they reach an output is the model's, not the stream's.
    IValue traced_out;
    bool ran = false;
    try {
      traced_out = run_graph_method(first_run, self, read_inputs(inputs[k], own, o.method));
      ran = true;
    } catch (const Unsupported&) {
      throw;
    } catch (const Error& e) {
      set.run_error = e.what();
    }
    if (ran) {
      IValue reference;
      std::string against;
      if (!expected.empty()) {
        std::vector<IValue> e = load_inputs(expected[k]);
        reference = e.size() == 1 ? e[0] : IValue([&] {
          auto t = std::make_shared<TupleData>();
          t->items = std::move(e);
          return t;
        }());
        against = "the expected outputs";
      } else {
        reference = again.result;
        against = "the model";
      }
      set.outputs = compare_outputs(traced_out, reference, against, o.rtol, o.atol);
      if (set.outputs.empty()) {
        const Method again_run = plan_graph(again.graph);
        IValue repeated;
        try {
          repeated = run_graph_method(again_run, self, read_inputs(inputs[k], own, o.method));
          set.outputs = compare_outputs(traced_out, repeated, "the repeated trace", o.rtol, o.atol);
        } catch (const Unsupported&) {
          throw;
        } catch (const Error& e) {
          set.run_error = fmt::format("the repeated trace fails: {}", e.what());
        }
      }
    }
    if (report.traced_archive) {
      BrokenAssumptions broken = broken_assumptions(assumed, self, read_inputs(inputs[k], own, o.method));
      set.assumptions = std::move(broken.certain);
      set.cannot_tell = std::move(broken.cannot_tell);
    }
    set.seconds = since(t0) + (k == 0 ? first_seconds : 0);
    report.sets.push_back(std::move(set));
  }
  report.seconds = since(start);
  if (!o.save_trace.empty()) save_trace(rt, o.method, first, o.save_trace);

  // 3. The verdict, in PyTorch's order.
  report.verdict = "ok";
  for (const auto& s : report.sets) {
    if (!s.run_error.empty() || s.graphs_differ || !s.assumptions.empty()) {
      // A traced archive's graph that fails on an input set was specialized to the traced one's
      // shapes: the Python would have traced another graph for it, which PyTorch checks first.
      const bool graphs = s.graphs_differ || !s.assumptions.empty() || report.traced_archive;
      report.verdict = graphs ? "graphs_differ" : "outputs_differ";
      return report;
    }
    if (!s.constants_differ.empty()) {
      report.verdict = "outputs_differ";
      return report;
    }
  }
  for (const auto& s : report.sets)
    if (!s.outputs.empty()) report.verdict = "outputs_differ";
  if (report.verdict == "ok" && report.traced_archive) {
    report.certain = false;
    for (const auto& s : report.sets)
      if (!s.cannot_tell.empty()) report.verdict = "graphs_differ";
  }
  return report;
}

}  // namespace jitctl
