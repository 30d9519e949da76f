#include "lib/check/traced_assumptions.h"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

#include "lib/check/graph_diff.h"
#include "lib/check/output_compare.h"
#include "lib/frontend/graph_function.h"
#include "lib/frontend/schema_matching.h"
#include "lib/ir/constants.h"
#include "lib/runtime/interpreter.h"
#include "lib/serialization/load_module.h"

namespace jitctl {
namespace {

using InputMap = std::unordered_map<const Value*, std::pair<size_t, std::vector<size_t>>>;

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

const Tensor* tensor_at(const std::vector<IValue>& args, size_t argument, const std::vector<size_t>& path) {
  const IValue* v = item_at(args, argument, path);
  return v && v->is_tensor() ? &v->to_tensor() : nullptr;
}

std::string argument_text(size_t argument, const std::vector<size_t>& path) {
  std::string out = fmt::format("argument {}", argument + 1);
  for (size_t i : path) out += fmt::format("[{}]", i);
  return out;
}

// The trace's input tensors: graph inputs after self, and the items unpacked from them.
void input_tensors(Value* v, size_t argument, std::vector<size_t> path, InputMap& out) {
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

InputMap trace_inputs(const Graph& trace) {
  InputMap inputs;
  for (size_t i = 1; i < trace.inputs().size(); ++i) input_tensors(trace.inputs()[i], i - 1, {}, inputs);
  return inputs;
}

std::string line_of(const Node* n) {
  const auto& loc = n->source_location();
  return loc && !loc->file.empty() ? fmt::format("{}:{}", loc->file, loc->line) : "";
}

std::string value_text(const Value* v, const InputMap& inputs) {
  if (auto it = inputs.find(v); it != inputs.end()) return argument_text(it->second.first, it->second.second);
  const std::string line = line_of(v->node());
  return fmt::format("%{} ({}{})", v->debug_name(), v->node()->kind().qual_string(), line.empty() ? "" : " at " + line);
}

// ---- enumerated dimensions, measured by running the trace ----

struct Candidate {
  const Value* value;
  int64_t dim, size;
  std::string what;
};

// Values computed the same way get the same key: each iteration of `for i in range(x.size(1)):
// x[:, i]` records its own aten::slice of x before its aten::select, and those are one value.
class StructuralKeys {
 public:
  const std::string& of(const Value* v) {
    auto it = keys_.find(v);
    if (it != keys_.end()) return it->second;
    std::string key;
    const Node* n = v->node();
    if (n->kind() == prim::Param) {
      key = fmt::format("in{}", v->offset());
    } else if (n->kind() == prim::Constant) {
      auto c = to_ivalue(v);
      key = c && !c->is_tensor() ? "c:" + format_ivalue(*c) : fmt::format("v{}", v->unique());
    } else if (!n->blocks().empty()) {
      key = fmt::format("v{}", v->unique());
    } else {
      key = std::string(n->kind().qual_string()) + "(";
      for (const Value* in : n->inputs()) key += of(in) + ",";
      key += fmt::format(")#{}", v->offset());
    }
    return keys_.emplace(v, std::move(key)).first->second;
  }

 private:
  std::unordered_map<const Value*, std::string> keys_;
};

std::vector<Candidate> enumeration_candidates(const Graph& trace, const InputMap& inputs) {
  struct Seen {
    const Value* value = nullptr;  // the first of the equivalent values
    std::set<int64_t> indices;
  };
  StructuralKeys keys;
  // Keyed by the source line too: `x[0]` before a loop over x's rows is not one of its iterations.
  std::map<std::tuple<std::string, int64_t, std::string>, Seen> seen;
  std::vector<Candidate> out;
  for (const Node* n : trace.nodes()) {
    const std::string_view kind = n->kind().qual_string();
    if (kind == "aten::select" && n->inputs().size() == 3) {
      auto dim = to_ivalue(n->input(1)), index = to_ivalue(n->input(2));
      if (!dim || !index || !dim->is(IValue::Kind::Int) || !index->is(IValue::Kind::Int)) continue;
      const std::string line = line_of(n);
      if (line.empty()) continue;
      Seen& s = seen[{keys.of(n->input(0)), dim->to_int(), line}];
      if (!s.value) s.value = n->input(0);
      s.indices.insert(index->to_int());
    } else if (kind == "aten::unbind" && n->inputs().size() == 2) {
      auto dim = to_ivalue(n->input(1));
      if (!dim || !dim->is(IValue::Kind::Int)) continue;
      for (const Use& u : n->output()->uses())
        if (u.user->kind() == prim::ListUnpack && u.user->outputs().size() >= 2)
          out.push_back({n->input(0), dim->to_int(), static_cast<int64_t>(u.user->outputs().size()),
                         fmt::format("dimension {} of {}, unbound at {} into {} values", dim->to_int(),
                                     value_text(n->input(0), inputs), line_of(n), u.user->outputs().size())});
    }
  }
  for (const auto& [key, s] : seen) {
    const auto& [value, dim, line] = key;
    const auto k = static_cast<int64_t>(s.indices.size());
    if (k < 2 || *s.indices.begin() != 0 || *s.indices.rbegin() != k - 1) continue;
    out.push_back({s.value, dim, k,
                   fmt::format("dimension {} of {}, enumerated by aten::select at {} for indices 0..{}", dim,
                               value_text(s.value, inputs), line, k - 1)});
  }
  return out;
}

// The trace with the candidates' sizes as extra outputs.
std::shared_ptr<Graph> probe_graph(const Graph& trace, const std::vector<Candidate>& candidates) {
  auto g = trace.copy();
  std::unordered_map<const Value*, Value*> map;
  for (size_t i = 0; i < trace.inputs().size(); ++i) map[trace.inputs()[i]] = g->inputs()[i];
  auto a = trace.nodes().begin();
  auto b = g->nodes().begin();
  for (; a != trace.nodes().end() && b != g->nodes().end(); ++a, ++b)
    for (size_t i = 0; i < (*a)->outputs().size() && i < (*b)->outputs().size(); ++i) map[(*a)->output(i)] = (*b)->output(i);
  g->set_insert_point(g->block());
  for (const auto& c : candidates) {
    Value* dim = g->insert_constant(IValue(c.dim));
    Node* size = g->insert_node(g->create(aten::size, {map.at(c.value), dim}));
    size->output()->set_type(IntType::get());
    g->register_output(size->output());
  }
  return g;
}

// The probe's extra outputs (the sizes) on `args`; empty when the trace fails on them.
std::vector<int64_t> run_probe(const std::shared_ptr<Graph>& probe, const IValue& self, std::vector<IValue> args) {
  try {
    Method m = plan_graph(probe);
    args.insert(args.begin(), self);
    IValue out = m(std::move(args));
    std::vector<int64_t> sizes;
    if (!out.is(IValue::Kind::Tuple)) return sizes;
    const auto& items = out.to_tuple()->items;
    for (size_t i = 1; i < items.size(); ++i) sizes.push_back(items[i].to_int());
    return sizes;
  } catch (const Error&) {
    return {};
  }
}

void enumerated_dimensions(const Graph& trace, const IValue& self, const InputMap& inputs, TracedAssumptions& a) {
  std::vector<Candidate> candidates = enumeration_candidates(trace, inputs);
  if (candidates.empty()) return;
  auto probe = probe_graph(trace, candidates);
  const std::vector<int64_t> sizes = run_probe(probe, self, a.traced_args);
  if (sizes.size() != candidates.size()) return;
  for (size_t i = 0; i < candidates.size(); ++i)
    if (sizes[i] == candidates[i].size) a.enumerated.push_back({i, candidates[i].size, candidates[i].what});
  if (!a.enumerated.empty()) a.probe = probe;
}

// ---- constants that may be baked numbers ----

const FunctionSchema* schema_of(const Node* n) { return n->schema() ? n->schema() : match_builtin_schema(n); }

// Significant digits of the shortest decimal that reads back as the float32 `f`.
int float32_digits(float f) {
  std::string s = fmt::format("{}", f);
  if (size_t e = s.find_first_of("eE"); e != std::string::npos) s.resize(e);
  std::string digits;
  for (char c : s)
    if (std::isdigit(static_cast<unsigned char>(c))) digits += c;
  const size_t first = digits.find_first_not_of('0'), last = digits.find_last_not_of('0');
  return first == std::string::npos ? 0 : static_cast<int>(last - first + 1);
}

// A number an operator reads from a constant: a Python number, or a 0-dim tensor (how a Python
// number passed as a tensor operand shows in a trace).
std::optional<double> constant_number(const Value* v) {
  if (v->node()->kind() != prim::Constant) return std::nullopt;
  auto c = to_ivalue(v);
  if (!c) return std::nullopt;
  if (c->is(IValue::Kind::Double)) return c->to_double();
  if (c->is(IValue::Kind::Int)) return static_cast<double>(c->to_int());
  if (c->is_tensor() && c->to_tensor().dim() == 0 && c->to_tensor().numel() == 1) {
    const Tensor& t = c->to_tensor();
    if (t.dtype() == DType::Float32) return static_cast<double>(*static_cast<const float*>(t.data()));
    if (t.dtype() == DType::Float64) return *static_cast<const double*>(t.data());
    if (t.dtype() == DType::Int64) return static_cast<double>(*static_cast<const int64_t*>(t.data()));
  }
  return std::nullopt;
}

bool is_float_constant(const Value* v) {
  auto c = to_ivalue(v);
  if (!c) return false;
  if (c->is(IValue::Kind::Double)) return true;
  return c->is_tensor() && (c->to_tensor().dtype() == DType::Float32 || c->to_tensor().dtype() == DType::Float64);
}

struct SizeDims {
  std::map<int64_t, std::vector<TracedAssumptions::InputDim>> by_size;
};

SizeDims traced_sizes(const std::vector<IValue>& args, const InputMap& inputs) {
  SizeDims out;
  for (const auto& [value, where] : inputs) {
    const Tensor* t = tensor_at(args, where.first, where.second);
    if (!t) continue;
    for (int64_t d = 0; d < t->dim(); ++d)
      out.by_size[t->sizes()[static_cast<size_t>(d)]].push_back({where.first, where.second, d});
  }
  return out;
}

std::string constant_text(double v) { return v == std::floor(v) && std::fabs(v) < 1e15 ? fmt::format("{}", static_cast<int64_t>(v)) : fmt::format("{}", v); }

void baked_numbers(const Graph& trace, const InputMap& inputs, TracedAssumptions& a) {
  const SizeDims sizes = traced_sizes(a.traced_args, inputs);
  static const std::set<std::string_view> shape_args = {"size", "shape", "length", "end", "output_size"};
  static const std::set<std::string_view> arithmetic = {"aten::mul", "aten::div", "aten::add", "aten::sub",
                                                        "aten::true_divide", "aten::rsub"};
  std::set<const Node*> reported;
  // PyTorch's and torchvision's own modules keep sizes traced (they are what torch.jit.trace is
  // tested on): their constants are the modules' hyperparameters, not baked sizes.
  auto library = [](const Node* n) {
    const auto& loc = n->source_location();
    return loc && (loc->file.find("-packages/torch/") != std::string::npos ||
                   loc->file.find("-packages/torchvision/") != std::string::npos);
  };
  auto add_baked = [&](const Node* user, const Value* c, int64_t size, const std::string& form, const std::string& arg) {
    auto it = sizes.by_size.find(size);
    if (it == sizes.by_size.end() || !reported.insert(c->node()).second) return;
    const std::string line = line_of(user);
    a.baked_sizes.push_back({fmt::format("the constant {} in {}'s `{}`{} equals {} {} in the traced input set", constant_text(*constant_number(c)),
                                         user->kind().qual_string(), arg, line.empty() ? "" : " at " + line, form, size),
                             size, it->second});
  };
  for (const Node* n : trace.nodes()) {
    const std::string_view kind = n->kind().qual_string();
    const FunctionSchema* s = schema_of(n);
    if (library(n)) continue;
    for (size_t i = 0; i < n->inputs().size(); ++i) {
      const Value* in = n->input(i);
      const std::string arg = s && i < s->arguments.size() ? s->arguments[i].name : "";
      // int(x.size(d)) in a shape: the constant is the traced set's size. 2 is left out: the most
      // common batch size and the most common literal in a shape.
      if (shape_args.count(arg)) {
        std::vector<const Value*> items;
        if (in->node()->kind() == prim::ListConstruct)
          for (const Value* item : in->node()->inputs()) items.push_back(item);
        else
          items.push_back(in);
        for (const Value* item : items) {
          auto v = constant_number(item);
          if (v && *v >= 3 && *v == std::floor(*v) && !is_float_constant(item))
            add_baked(n, item, static_cast<int64_t>(*v), "a dimension's size", arg);
        }
        continue;
      }
      // float(x.size(d)), math.sqrt(x.size(d)) as an operand of arithmetic, for sizes of 8 or more.
      if (arithmetic.count(kind) && i == 1 && is_float_constant(in)) {
        const double v = *constant_number(in);
        for (const auto& [size, dims] : sizes.by_size) {
          // Small numbers (2.0, 3.0, 0.5, 0.25) are far more often literals than sizes.
          if (size < 8) continue;
          const double s = static_cast<double>(size), r = std::sqrt(s);
          auto near = [&](double x) { return std::fabs(v - x) <= 1e-6 * std::fabs(x); };
          if (near(s)) add_baked(n, in, size, "a dimension's size", arg);
          else if (near(1 / s)) add_baked(n, in, size, "1 / a dimension's size", arg);
          else if (near(r)) add_baked(n, in, size, "the square root of a dimension's size", arg);
          else if (near(1 / r)) add_baked(n, in, size, "1 / the square root of a dimension's size", arg);
        }
      }
    }
  }
}

void computed_constants(const Graph& trace, TracedAssumptions& a) {
  for (const Node* n : trace.nodes()) {
    for (const Value* in : n->inputs()) {
      if (in->node()->kind() != prim::Constant || !is_float_constant(in)) continue;
      const double v = *constant_number(in);
      const float f = static_cast<float>(v);
      if (!std::isfinite(v) || static_cast<double>(f) != v || float32_digits(f) < 6) continue;
      const std::string line = line_of(n);
      a.computed_constants.push_back(fmt::format(
          "the constant {} in {}{} is a float32 value of {} significant digits, as .item() or float() of a float32 tensor "
          "bakes one (literals are short decimals); if it was computed from the input, a trace of this input set bakes "
          "another value",
          fmt::format("{}", f), n->kind().qual_string(), line.empty() ? "" : " at " + line, float32_digits(f)));
    }
  }
}

// ---- grad-mode paths of library layers ----

bool has_node(const Graph& g, std::string_view kind) {
  for (const Node* n : g.nodes())
    if (n->kind().qual_string() == kind) return true;
  return false;
}

bool eval_mode(const ObjectData& obj) {
  const IValue* training = obj.attr("training");
  return training && training->is(IValue::Kind::Bool) && !training->to_bool();
}

bool requires_grad(const ObjectData& obj, const char* name) {
  const IValue* t = obj.attr(name);
  return t && t->is_tensor() && t->to_tensor().requires_grad();
}

// nn.MultiheadAttention's fast path (1.13): batched self-attention (query is key is value), batch_first,
// eval mode, packed projection, no bias_k/bias_v, no attention mask, an even number of heads, dropout 0.
// Its traced forward takes the one tensor and starts by transposing it (batch_first).
std::optional<std::string> mha_slow_path(const LoadedModule& m, const ObjectData& obj, const std::string& path) {
  if (!eval_mode(obj) || !requires_grad(obj, "in_proj_weight") || obj.attr("bias_k")) return std::nullopt;
  if (!obj.cls->find_method("forward")) return std::nullopt;
  GraphFunction* fn = m.cu->graph_function(obj.cls->qualified_name(), "forward");
  if (!fn) return std::nullopt;
  auto g = fn->inlined_graph();
  if (g->inputs().size() != 2 || has_node(*g, "aten::_native_multi_head_attention")) return std::nullopt;
  bool transposed = false;
  for (const Node* n : g->nodes()) {
    if (n->kind().qual_string() != std::string_view("aten::transpose") || n->input(0) != g->inputs()[1]) continue;
    auto d0 = to_ivalue(n->input(1)), d1 = to_ivalue(n->input(2));
    transposed = transposed || (d0 && d1 && d0->is(IValue::Kind::Int) && d1->is(IValue::Kind::Int) && d0->to_int() == 1 && d1->to_int() == 0);
  }
  if (!transposed) return std::nullopt;
  // head_dim = embed_dim // num_heads: the divisor is the number of heads.
  for (const Node* n : g->nodes()) {
    if (n->kind().qual_string() != std::string_view("aten::div") || n->inputs().size() != 3) continue;
    auto heads = constant_number(n->input(1));
    if (heads && *heads >= 1 && static_cast<int64_t>(*heads) % 2 == 1) return std::nullopt;
  }
  return fmt::format(
      "{} (nn.MultiheadAttention, eval mode, self-attention, batch_first) was traced on its slow path, i.e. with "
      "gradients enabled; PyTorch's check re-traces under torch.no_grad(), where it takes the fused fast path "
      "(aten::_native_multi_head_attention) unless the layer's dropout is nonzero, which a traced archive does not record",
      path);
}

void grad_mode_paths(const LoadedModule& m, const IValue& module, const std::string& path, bool in_encoder_layer,
                     TracedAssumptions& a, std::vector<std::string>& uncertain) {
  if (!module.is_object() || !module.to_object()->cls) return;
  const auto& obj = *module.to_object();
  const std::string cls = strip_mangling(obj.type_name);
  bool encoder_layer = false;
  if (cls == "__torch__.torch.nn.modules.transformer.TransformerEncoderLayer") {
    encoder_layer = true;
    const IValue* attn = obj.attr("self_attn");
    const bool packed = attn && attn->is_object() && attn->to_object()->attr("in_proj_weight") &&
                        attn->to_object()->attr("in_proj_weight")->is_tensor();
    GraphFunction* fn = obj.cls->find_method("forward") ? m.cu->graph_function(obj.cls->qualified_name(), "forward") : nullptr;
    if (eval_mode(obj) && packed && fn) {
      auto g = fn->inlined_graph();
      if (!has_node(*g, "aten::_transformer_encoder_layer_fwd") && has_node(*g, "aten::layer_norm"))
        a.grad_mode_paths.push_back(fmt::format(
            "{} (nn.TransformerEncoderLayer, eval mode) was traced on its slow path, i.e. with gradients enabled; "
            "PyTorch's check re-traces under torch.no_grad(), where it takes the fused fast path "
            "(aten::_transformer_encoder_layer_fwd): the graphs differ",
            path));
    }
  } else if (cls == "__torch__.torch.nn.modules.activation.MultiheadAttention" && !in_encoder_layer) {
    if (auto why = mha_slow_path(m, obj, path)) uncertain.push_back(*why);
  }
  for (const auto& [name, v] : obj.attrs)
    if (v.is_object() && v.to_object()->cls && v.to_object()->cls->is_module_class())
      grad_mode_paths(m, v, path + "." + name, encoder_layer, a, uncertain);
}

bool same_values(const IValue& a, const IValue& b) {
  if (a.is_tensor() != b.is_tensor()) return false;
  if (a.is_tensor()) {
    const Tensor &x = a.to_tensor(), &y = b.to_tensor();
    return x.dtype() == y.dtype() && !tensors_mismatch(x, y, 0, 0);
  }
  const std::vector<IValue>* ia = a.is(IValue::Kind::Tuple) ? &a.to_tuple()->items : a.is(IValue::Kind::List) ? &a.to_list()->items : nullptr;
  const std::vector<IValue>* ib = b.is(IValue::Kind::Tuple) ? &b.to_tuple()->items : b.is(IValue::Kind::List) ? &b.to_list()->items : nullptr;
  if (!ia || !ib || ia->size() != ib->size()) return false;
  for (size_t i = 0; i < ia->size(); ++i)
    if (!same_values((*ia)[i], (*ib)[i])) return false;
  return true;
}

}  // namespace

TracedAssumptions find_traced_assumptions(const Graph& trace, const LoadedModule& m, const IValue& self,
                                          const std::vector<IValue>& traced_args) {
  TracedAssumptions a;
  a.traced_args = traced_args;
  const InputMap inputs = trace_inputs(trace);
  enumerated_dimensions(trace, self, inputs, a);
  baked_numbers(trace, inputs, a);
  computed_constants(trace, a);
  std::vector<std::string> uncertain;
  grad_mode_paths(m, m.root, "self", false, a, uncertain);
  // Kept with the computed constants: every input set other than the traced one breaks them.
  for (auto& u : uncertain) a.computed_constants.push_back(std::move(u));
  return a;
}

BrokenAssumptions broken_assumptions(const TracedAssumptions& a, const IValue& self, const std::vector<IValue>& args) {
  BrokenAssumptions out;
  if (a.probe) {
    const std::vector<int64_t> sizes = run_probe(a.probe, self, args);
    for (const auto& e : a.enumerated) {
      if (e.output < sizes.size() && sizes[e.output] == e.size) continue;
      out.certain.push_back(fmt::format(
          "the trace enumerates {} (a loop unrolled {} times for its size {}); here that dimension is {}: a trace "
          "would unroll differently and the graphs differ",
          e.what, e.size, e.size, e.output < sizes.size() ? std::to_string(sizes[e.output]) : "not measured (the trace fails)"));
    }
  }
  for (const auto& m : a.grad_mode_paths) out.certain.push_back(m);

  bool same_as_traced = args.size() == a.traced_args.size();
  for (size_t i = 0; same_as_traced && i < args.size(); ++i) same_as_traced = same_values(args[i], a.traced_args[i]);
  if (same_as_traced) return out;
  for (const auto& b : a.baked_sizes) {
    for (const auto& d : b.dims) {
      const Tensor* t = tensor_at(args, d.argument, d.path);
      if (!t || (d.dim < t->dim() && t->sizes()[static_cast<size_t>(d.dim)] == b.size)) continue;
      out.cannot_tell.push_back(fmt::format(
          "{} (dimension {} of {}); here that dimension is {}: if the Python computed the constant from the size "
          "(int(), float(), math.sqrt() of x.size()), a trace of this input set differs; if it is a literal, it does not",
          b.what, d.dim, argument_text(d.argument, d.path), d.dim < t->dim() ? std::to_string(t->sizes()[static_cast<size_t>(d.dim)]) : "missing"));
      break;
    }
  }
  for (const auto& c : a.computed_constants) out.cannot_tell.push_back(c);
  // Ranks: a branch on x.dim() leaves no mark in a trace.
  const InputMap none;
  for (size_t i = 0; i < args.size() && i < a.traced_args.size(); ++i) {
    if (!args[i].is_tensor() || !a.traced_args[i].is_tensor()) continue;
    const int64_t r = args[i].to_tensor().dim(), r0 = a.traced_args[i].to_tensor().dim();
    if (r != r0)
      out.cannot_tell.push_back(fmt::format(
          "argument {} has {} dimension(s) here and {} in the traced input set: Python that branches on its rank "
          "(x.dim(), len(x.shape)) traces another graph, and a trace records no such branch",
          i + 1, r, r0));
  }
  return out;
}

}  // namespace jitctl
