#include "lib/check/traced_assumptions.h"

#include <fmt/format.h>

#include <map>
#include <tuple>
#include <set>
#include <unordered_map>

#include "lib/ir/constants.h"
#include "lib/serialization/load_module.h"
#include "lib/frontend/graph_function.h"

namespace jitctl {
namespace {

std::string strip_mangling(std::string name) {
  for (size_t i; (i = name.find("___torch_mangle_")) != std::string::npos;) {
    size_t j = i + 16;
    while (j < name.size() && std::isdigit(static_cast<unsigned char>(name[j]))) ++j;
    name.erase(i, j + 1 - i);
  }
  return name;
}

const IValue* item_at(const std::vector<IValue>& args, size_t argument, const std::vector<size_t>& path) {
  if (argument >= args.size()) return nullptr;
  const IValue* v = &args[argument];
  for (size_t i : path) {
    const std::vector<IValue>* items = v->is(IValue::Kind::Tuple)  ? &v->to_tuple()->items
                                       : v->is(IValue::Kind::List) ? &v->to_list()->items
                                                                   : nullptr;
    if (!items || i >= items->size()) return nullptr;
    v = &(*items)[i];
  }
  return v;
}

// The trace's input tensors: graph inputs after self, and the items unpacked from them.
void input_tensors(Value* v, size_t argument, std::vector<size_t> path,
                   std::unordered_map<const Value*, std::pair<size_t, std::vector<size_t>>>& out) {
  out[v] = {argument, path};
  for (const Use& u : v->uses()) {
    const Symbol k = u.user->kind();
    if (k != prim::TupleUnpack && k != prim::ListUnpack) continue;
    for (size_t i = 0; i < u.user->outputs().size(); ++i) {
      auto p = path;
      p.push_back(i);
      input_tensors(u.user->output(i), argument, p, out);
    }
  }
}

void enumerated_dimensions(const Graph& trace, const std::vector<IValue>& args, TracedAssumptions& a) {
  std::unordered_map<const Value*, std::pair<size_t, std::vector<size_t>>> inputs;
  for (size_t i = 1; i < trace.inputs().size(); ++i) input_tensors(trace.inputs()[i], i - 1, {}, inputs);
  struct Seen {
    std::set<int64_t> indices;
    std::set<std::string> lines;
  };
  // Keyed by the source line too: `x[0]` before a loop over x's rows is not one of its iterations.
  std::map<std::tuple<const Value*, int64_t, std::string>, Seen> seen;
  for (const Node* n : trace.nodes()) {
    if (n->kind() != aten::select || n->inputs().size() != 3 || !inputs.count(n->input(0))) continue;
    auto dim = to_ivalue(n->input(1)), index = to_ivalue(n->input(2));
    if (!dim || !index || !dim->is(IValue::Kind::Int) || !index->is(IValue::Kind::Int)) continue;
    const auto& loc = n->source_location();
    const std::string line = loc ? fmt::format("{}:{}", loc->file, loc->line) : "";
    Seen& s = seen[{n->input(0), dim->to_int(), line}];
    s.indices.insert(index->to_int());
    s.lines.insert(line);
  }
  // x.unbind(d) unpacked into k values (a loop over its rows): k is the size of dimension d.
  for (const Node* n : trace.nodes()) {
    if (n->kind().qual_string() != std::string_view("aten::unbind") || n->inputs().size() != 2 || !inputs.count(n->input(0))) continue;
    auto dim = to_ivalue(n->input(1));
    if (!dim || !dim->is(IValue::Kind::Int)) continue;
    for (const Use& u : n->output()->uses()) {
      if (u.user->kind() != prim::ListUnpack) continue;
      const auto& [argument, path] = inputs.at(n->input(0));
      const IValue* arg = item_at(args, argument, path);
      if (!arg || !arg->is_tensor()) continue;
      const Tensor& t = arg->to_tensor();
      const int64_t d = dim->to_int() < 0 ? dim->to_int() + t.dim() : dim->to_int();
      const auto k = static_cast<int64_t>(u.user->outputs().size());
      if (d < 0 || d >= t.dim() || k != t.sizes()[static_cast<size_t>(d)]) continue;
      const auto& loc = n->source_location();
      a.sizes.push_back({argument, path, d, k, loc ? fmt::format("{}:{} (aten::unbind)", loc->file, loc->line) : "aten::unbind"});
    }
  }
  for (const auto& [key, s] : seen) {
    const auto& [value, dim, line] = key;
    const auto& [argument, path] = inputs.at(value);
    const IValue* arg = item_at(args, argument, path);
    if (!arg || !arg->is_tensor() || s.lines.size() != 1 || s.lines.begin()->empty()) continue;
    const Tensor& t = arg->to_tensor();
    const int64_t d = dim < 0 ? dim + t.dim() : dim;
    if (d < 0 || d >= t.dim()) continue;
    const int64_t k = static_cast<int64_t>(s.indices.size());
    if (k < 2 || k != t.sizes()[static_cast<size_t>(d)] || *s.indices.begin() != 0 || *s.indices.rbegin() != k - 1) continue;
    a.sizes.push_back({argument, path, d, k, *s.lines.begin()});
  }
}

bool has_node(const Graph& g, std::string_view kind) {
  for (const Node* n : g.nodes())
    if (n->kind().qual_string() == kind) return true;
  return false;
}

void grad_mode_paths(const LoadedModule& m, const IValue& module, const std::string& path, TracedAssumptions& a) {
  if (!module.is_object() || !module.to_object()->cls) return;
  const auto& obj = *module.to_object();
  const std::string cls = strip_mangling(obj.type_name);
  if (cls == "__torch__.torch.nn.modules.transformer.TransformerEncoderLayer") {
    const IValue* training = obj.attr("training");
    const IValue* attn = obj.attr("self_attn");
    const bool eval = training && training->is(IValue::Kind::Bool) && !training->to_bool();
    const bool packed = attn && attn->is_object() && attn->to_object()->attr("in_proj_weight") &&
                        attn->to_object()->attr("in_proj_weight")->is_tensor();
    GraphFunction* fn = obj.cls->find_method("forward") ? m.cu->graph_function(obj.cls->qualified_name(), "forward") : nullptr;
    if (eval && packed && fn) {
      auto g = fn->inlined_graph();
      if (!has_node(*g, "aten::_transformer_encoder_layer_fwd") && has_node(*g, "aten::layer_norm"))
        a.grad_mode_paths.push_back(fmt::format(
            "{} (nn.TransformerEncoderLayer, eval mode) was traced on its slow path, i.e. with gradients enabled; "
            "PyTorch's check re-traces under torch.no_grad(), where it takes the fused fast path "
            "(aten::_transformer_encoder_layer_fwd): the graphs differ",
            path));
    }
  }
  for (const auto& [name, v] : obj.attrs)
    if (v.is_object() && v.to_object()->cls && v.to_object()->cls->is_module_class())
      grad_mode_paths(m, v, path + "." + name, a);
}

std::string argument_text(const TracedAssumptions::DimensionSize& s) {
  std::string out = fmt::format("argument {}", s.argument + 1);
  for (size_t i : s.path) out += fmt::format("[{}]", i);
  return out;
}

}  // namespace

TracedAssumptions find_traced_assumptions(const Graph& trace, const LoadedModule& m,
                                          const std::vector<IValue>& traced_args) {
  TracedAssumptions a;
  enumerated_dimensions(trace, traced_args, a);
  grad_mode_paths(m, m.root, "self", a);
  return a;
}

std::vector<std::string> broken_assumptions(const TracedAssumptions& a, const std::vector<IValue>& args) {
  std::vector<std::string> out;
  for (const auto& s : a.sizes) {
    const IValue* v = item_at(args, s.argument, s.path);
    if (!v || !v->is_tensor()) continue;
    const Tensor& t = v->to_tensor();
    if (s.dim < t.dim() && t.sizes()[static_cast<size_t>(s.dim)] == s.size) continue;
    out.push_back(fmt::format(
        "the trace enumerates dimension {} of {} with aten::select at {} for indices 0..{} (a loop unrolled {} times "
        "for its size {}); here that dimension is {}: a trace would unroll differently and the graphs differ",
        s.dim, argument_text(s), s.where, s.size - 1, s.size, s.size,
        s.dim < t.dim() ? std::to_string(t.sizes()[static_cast<size_t>(s.dim)]) : "missing"));
  }
  for (const auto& m : a.grad_mode_paths) out.push_back(m);
  return out;
}

}  // namespace jitctl
