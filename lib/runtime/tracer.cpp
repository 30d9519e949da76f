// The tracer's evaluator: runs a method's graph node by node (not its plan: it must see every
// call, branch and loop as the Python code made them), with the interpreter's kernels, and hands
// each operator call to the recording rules of trace_ops.h.
#include <fmt/format.h>

#include <set>
#include <string_view>
#include <unordered_map>

#include "lib/core/error.h"
#include "lib/core/future.h"
#include "lib/core/run_limits.h"
#include "lib/frontend/graph_function.h"
#include "lib/frontend/schema_matching.h"
#include "lib/ir/constants.h"
#include "lib/runtime/execute.h"
#include "lib/runtime/interpreter.h"
#include "lib/runtime/prim_ops.h"
#include "lib/runtime/trace.h"
#include "lib/runtime/trace_builder.h"
#include "lib/runtime/trace_layout.h"
#include "lib/runtime/trace_ops.h"
#include "lib/runtime/trace_source.h"
#include "lib/serialization/load_module.h"

namespace jitctl {
namespace {

constexpr size_t kMaxCallDepth = 512;

// A graph torch.jit.trace made: its nodes point at Python stack frames, which carry no column
// (`file:line:0`); a compiled function's nodes point into its source, always past column 0.
bool is_traced_code(const Block& b, bool& located) {
  for (const Node* n : b.nodes()) {
    if (const auto& loc = n->source_location(); loc && loc->line > 0) {
      if (loc->col != 0) return false;
      located = true;
    }
    for (const Block* sub : n->blocks())
      if (!is_traced_code(*sub, located)) return false;
  }
  return true;
}

class Tracer {
 public:
  Tracer(LoadedModule& m, TraceContext& ctx) : m_(m), ctx_(ctx), b_(ctx.builder) {}

  std::vector<Traced> call_method(const IValue& self, const std::string& method, std::vector<Traced> args) {
    const auto& obj = self.to_object();
    if (!obj->cls) throw Unsupported(fmt::format("calling {}.{}: a class jitctl has no code for", obj->type_name, method));
    GraphFunction* fn = m_.cu->graph_function(obj->cls->qualified_name(), method);
    if (!fn) throw Unsupported(fmt::format("tracing a call of {}.{}: a method without code", obj->type_name, method));
    args.insert(args.begin(), Traced{self, nullptr});
    const std::string* path = b_.module_path(obj.get());
    const bool scope = method == "forward" && obj->cls->is_module_class() && path && depth_ > 0;
    if (scope) b_.push_scope(*path);
    std::vector<Traced> out = run_graph(*fn->graph(), std::move(args));
    if (scope) b_.pop_scope();
    return out;
  }

  std::vector<Traced> run_graph(const Graph& g, std::vector<Traced> args) {
    if (depth_ >= kMaxCallDepth) throw InvalidInput(fmt::format("calls nest more than {} deep (a recursive call?)", kMaxCallDepth));
    if (args.size() != g.inputs().size())
      throw InvalidInput(fmt::format("a call passes {} argument(s) to a graph of {}", args.size(), g.inputs().size()));
    ++depth_;
    const bool outer_traced = ctx_.traced_code;
    ctx_.traced_code = traced_code(g);
    Env env;
    for (size_t i = 0; i < args.size(); ++i) env[g.inputs()[i]] = std::move(args[i]);
    run_block(*g.block(), env);
    std::vector<Traced> out;
    for (Value* v : g.outputs()) out.push_back(get(env, v));
    ctx_.traced_code = outer_traced;
    --depth_;
    return out;
  }

 private:
  using Env = std::unordered_map<const Value*, Traced>;

  bool traced_code(const Graph& g) {
    auto it = traced_.find(&g);
    if (it != traced_.end()) return it->second;
    bool located = false;
    const bool traced = is_traced_code(*g.block(), located) && located;
    traced_[&g] = traced;
    return traced;
  }

  static const Traced& get(Env& env, const Value* v) {
    auto it = env.find(v);
    if (it == env.end()) throw std::logic_error(fmt::format("tracer: value used before its definition: %{} (made by {})", v->debug_name(), v->node()->kind().qual_string()));
    return it->second;
  }

  void run_block(const Block& b, Env& env) {
    for (const Node* n : b.nodes()) run_node(*n, env);
  }

  std::vector<Traced> inputs_of(const Node& n, Env& env) {
    std::vector<Traced> in;
    in.reserve(n.inputs().size());
    for (Value* v : n.inputs()) in.push_back(get(env, v));
    return in;
  }

  void set_outputs(const Node& n, Env& env, std::vector<Traced> out) {
    if (out.size() != n.outputs().size())
      throw InvalidInput(fmt::format("{}: expected {} value(s), got {}", n.kind().qual_string(), n.outputs().size(), out.size()));
    for (size_t i = 0; i < out.size(); ++i) env[n.output(i)] = std::move(out[i]);
  }

  void run_node(const Node& n, Env& env) {
    b_.set_location(n.source_location());
    switch (n.kind()) {
      case prim::Constant: {
        if (n.output()->type()->kind() == TypeKind::Function) {
          env[n.output()] = {};  // the callee, read from the type by prim::CallFunction
          return;
        }
        auto v = to_ivalue(n.output());
        if (!v) throw Unsupported(fmt::format("a constant of type {}", n.output()->type()->str()));
        env[n.output()] = {std::move(*v), nullptr};
        return;
      }
      case prim::Uninitialized: env[n.output()] = {}; return;
      case prim::If: return run_if(n, env);
      case prim::Loop: return run_loop(n, env);
      case prim::unchecked_cast:
      case prim::unchecked_unwrap_optional: env[n.output()] = get(env, n.input(0)); return;
      case prim::GetAttr: {
        const auto& obj = get(env, n.input(0)).v.to_object();
        const IValue* v = obj->attr(n.s(attr::name));
        if (!v) throw InvalidInput(fmt::format("object of class {} has no attribute '{}'", obj->type_name, n.s(attr::name)));
        env[n.output()] = {*v, nullptr};
        return;
      }
      case prim::SetAttr: {
        const auto& obj = get(env, n.input(0)).v.to_object();
        const std::string& name = n.s(attr::name);
        for (auto& [k, v] : obj->attrs)
          if (k == name) {
            v = get(env, n.input(1)).v;
            return;
          }
        throw InvalidInput(fmt::format("object of class {} has no attribute '{}'", obj->type_name, name));
      }
      case prim::CallMethod: {
        std::vector<Traced> in = inputs_of(n, env);
        IValue self = in[0].v;
        in.erase(in.begin());
        return set_outputs(n, env, call_method(self, n.s(attr::name), std::move(in)));
      }
      case prim::CallFunction: {
        const auto& fn_type = n.input(0)->type()->expect<FunctionType>();
        GraphFunction* fn = m_.cu->graph_function(fn_type.qualified_name(), "");
        if (!fn) throw Unsupported("tracing a call of " + fn_type.qualified_name());
        std::vector<Traced> in = inputs_of(n, env);
        in.erase(in.begin());
        return set_outputs(n, env, run_graph(*fn->graph(), std::move(in)));
      }
      case prim::fork: {
        // Run at once: the trace records the forked code where it is forked.
        std::vector<Traced> out = run_graph(*n.g(attr::Subgraph), inputs_of(n, env));
        auto fut = std::make_shared<FutureData>();
        fut->set_value(out.empty() ? IValue() : out[0].v);
        env[n.output()] = {IValue(std::move(fut)), nullptr};
        return;
      }
      case prim::CreateObject: {
        const auto* cls = n.output()->type()->cast<ClassType>();
        if (!cls) throw Unsupported("prim::CreateObject of " + n.output()->type()->str());
        auto o = std::make_shared<ObjectData>();
        o->type_name = cls->qualified_name();
        o->cls = std::static_pointer_cast<ClassType>(std::const_pointer_cast<Type>(cls->shared_from_this()));
        for (const auto& a : cls->attributes()) o->attrs.emplace_back(a.name, IValue());
        env[n.output()] = {IValue(std::move(o)), nullptr};
        return;
      }
      case prim::isinstance: {
        const IValue& v = get(env, n.input(0)).v;
        bool r = false;
        for (const auto& t : n.tys(attr::types)) r = r || value_is_instance(v, t);
        env[n.output()] = {IValue(r), nullptr};
        return;
      }
      case prim::RaiseException: {
        const IValue msg = get(env, n.input(0)).v;
        std::string cls = n.inputs().size() > 1 && !get(env, n.input(1)).v.is_none() ? get(env, n.input(1)).v.to_string() : "";
        std::string line = fmt::format("{}: {}", cls.empty() ? "RuntimeError" : cls, msg.to_string());
        if (const auto& loc = n.source_location()) line += fmt::format(" (raised at {})", loc->str());
        throw RaisedException(line, cls, msg.to_string());
      }
      case prim::Enter:
      case prim::Exit: {
        IValue obj = get(env, n.input(0)).v;
        std::vector<Traced> args;
        if (n.kind() == prim::Exit) args.assign(3, Traced{});
        std::vector<Traced> out = call_method(obj, n.kind() == prim::Enter ? "__enter__" : "__exit__", std::move(args));
        if (!n.outputs().empty()) set_outputs(n, env, std::move(out));
        return;
      }
      default: return run_operator(n, env);
    }
  }

  void run_if(const Node& n, Env& env) {
    const bool c = bake(ctx_, get(env, n.input(0)), "a Python boolean").to_bool();
    const Block& b = *n.blocks()[c ? 0 : 1];
    run_block(b, env);
    std::vector<Traced> out;
    for (Value* v : b.outputs()) out.push_back(get(env, v));
    set_outputs(n, env, std::move(out));
  }

  [[noreturn]] static void stop_in_loop(const Node& n) {
    try {
      throw_stop_reason();
    } catch (const LimitReached& e) {
      const auto& loc = n.source_location();
      throw LimitReached(fmt::format("{} while tracing the loop at {}", e.what(),
                                     loc && !loc->file.empty() ? loc->str() : std::string("prim::Loop")),
                         true);
    }
  }

  // `for row in x` over a tensor compiles to a loop over aten::len(x) selecting row i at the loop's
  // own location; Python iterates a tensor through x.unbind(0), which its tracer records once, each
  // row an output of the unpacked list. The body's select, or nullptr for any other loop.
  static const Node* tensor_iteration(const Node& loop) {
    const Node* len = loop.input(0)->node();
    if (len->kind().qual_string() != std::string_view("aten::len") || len->inputs().size() != 1 ||
        len->input(0)->type()->kind() != TypeKind::Tensor)
      return nullptr;
    const Block& body = *loop.blocks()[0];
    for (const Node* s : body.nodes()) {
      if (s->kind() != aten::select || s->inputs().size() != 3 || s->input(0) != len->input(0) ||
          s->input(2) != body.inputs()[0] || s->source_location() != loop.source_location())
        continue;
      auto dim = to_ivalue(s->input(1));
      if (dim && dim->is(IValue::Kind::Int) && dim->to_int() == 0) return s;
    }
    return nullptr;
  }

  void record_rows(const Node& select, const Tensor& x) {
    Graph& g = *b_.graph();
    Node* unbind = b_.insert(g.create(Symbol::aten("unbind"), {b_.value_of(x), b_.constant(IValue(int64_t{0}))}));
    unbind->output()->set_type(ListType::create(TensorType::get()));
    Node* unpack = b_.insert(g.create_list_unpack(unbind->output(), static_cast<size_t>(x.dim() > 0 ? x.sizes()[0] : 0)), false);
    std::vector<Value*> rows(unpack->outputs().begin(), unpack->outputs().end());
    rows_[&select] = std::move(rows);
  }

  void run_loop(const Node& n, Env& env) {
    const int64_t trips = bake(ctx_, get(env, n.input(0)), "a Python index").to_int();
    const Block& body = *n.blocks()[0];
    if (const Node* select = tensor_iteration(n)) {
      const IValue& x = get(env, select->input(0)).v;
      if (x.is_tensor() && x.to_tensor().dim() > 0 && x.to_tensor().sizes()[0] == trips) record_rows(*select, x.to_tensor());
    }
    b_.set_location(n.source_location());
    bool cond = bake(ctx_, get(env, n.input(1)), "a Python boolean").to_bool();
    std::vector<Traced> carried;
    for (size_t i = 2; i < n.inputs().size(); ++i) carried.push_back(get(env, n.input(i)));
    for (int64_t i = 0; i < trips && cond; ++i) {
      if (stop_requested()) stop_in_loop(n);  // --timeout, or memory past --max-memory
      env[body.inputs()[0]] = {IValue(i), nullptr};
      for (size_t k = 0; k < carried.size(); ++k) env[body.inputs()[k + 1]] = carried[k];
      run_block(body, env);
      b_.set_location(n.source_location());
      cond = bake(ctx_, get(env, body.outputs()[0]), "a Python boolean").to_bool();
      for (size_t k = 0; k < carried.size(); ++k) carried[k] = get(env, body.outputs()[k + 1]);
    }
    set_outputs(n, env, std::move(carried));
  }

  struct Resolved {
    const FunctionSchema* schema = nullptr;
    KernelFn kernel = nullptr;
  };

  const Resolved& resolve(const Node& n) {
    auto it = ops_.find(&n);
    if (it != ops_.end()) return it->second;
    Resolved r;
    r.schema = n.schema() ? n.schema() : match_builtin_schema(&n);
    const std::string name = r.schema ? r.schema->full_name() : std::string(n.kind().qual_string());
    if (r.schema) r.kernel = find_kernel(name);
    if (!r.kernel) r.kernel = find_prim_op(name);
    if (!r.kernel) r.kernel = find_prim_op(n.kind().qual_string());
    if (!r.kernel)
      throw Unsupported(fmt::format("operator {} has no kernel", r.schema ? r.schema->str() : name));
    return ops_.emplace(&n, r).first->second;
  }

  void run_operator(const Node& n, Env& env) {
    const Resolved& r = resolve(n);
    if (auto rows = rows_.find(&n); rows != rows_.end()) {
      // A row of a tensor iterated by the loop: what the recorded unbind unpacked.
      Stack s;
      for (Value* v : n.inputs()) s.push_back(get(env, v).v);
      r.kernel(s);
      const int64_t i = get(env, n.input(2)).v.to_int();
      if (i >= 0 && static_cast<size_t>(i) < rows->second.size()) b_.set_value(s.at(0).to_tensor(), rows->second[static_cast<size_t>(i)]);
      env[n.output()] = {s.at(0), nullptr};
      return;
    }
    const bool keep = !ctx_.traced_code && ctx_.source && n.source_location() &&
                      ctx_.source->in_untraced_branch(*n.source_location());
    ctx_.keep_numbers = keep;
    std::vector<Traced> out = run_traced_op(ctx_, n, r.schema, r.kernel, inputs_of(n, env));
    ctx_.keep_numbers = false;
    if (!ctx_.traced_code && !keep) bake_erased_conversions(n, out);
    set_outputs(n, env, std::move(out));
  }

  // `int(x.size(0))` compiles to the size alone (an int of an int is the identity), but Python's
  // int() of a traced size bakes it: a followed number whose expression is the argument of int( or
  // float( in the original source is baked here, as the conversion TorchScript dropped would have.
  void bake_erased_conversions(const Node& n, std::vector<Traced>& out) {
    if (!ctx_.source || !n.source_location()) return;
    bool any = false;
    for (const auto& x : out) any = any || x.number;
    if (!any) return;
    const std::string_view call = ctx_.source->wrapping_conversion(*n.source_location());
    if (call.empty()) return;
    for (auto& x : out) {
      if (!x.number) continue;
      bake(ctx_, x, call == "int" ? "a Python integer" : "a Python float");
      x.number = nullptr;
    }
  }

  LoadedModule& m_;
  TraceContext& ctx_;
  TraceBuilder& b_;
  size_t depth_ = 0;
  std::unordered_map<const Graph*, bool> traced_;
  std::unordered_map<const Node*, Resolved> ops_;
  std::unordered_map<const Node*, std::vector<Value*>> rows_;  // tensor iterations' selects -> rows
};

// The trace's outputs, as PyTorch's TracingState::getOutput registers them.
Value* output_value(TraceBuilder& b, const Traced& x, size_t i, bool strict) {
  const IValue& v = x.v;
  if (x.number) return x.number;
  const ValueDepthGuard level("tracing");
  switch (v.kind()) {
    case IValue::Kind::Tensor: {
      Value* t = b.find(v.to_tensor());
      if (!t)
        throw UntraceableModel(fmt::format("output {} of the traced method does not depend on the trace's inputs", i));
      return t;
    }
    case IValue::Kind::Tuple: {
      std::vector<Value*> items;
      for (const auto& item : v.to_tuple()->items) items.push_back(output_value(b, {item, nullptr}, i, strict));
      return b.insert(b.graph()->create_tuple(items), false)->output();
    }
    case IValue::Kind::List: {
      std::vector<Value*> items;
      for (const auto& item : v.to_list()->items) {
        if (!item.is_tensor()) throw UntraceableModel(fmt::format("output {} is a list of other values than tensors", i));
        items.push_back(output_value(b, {item, nullptr}, i, strict));
      }
      return b.insert(b.graph()->create_list(TensorType::get(), items), false)->output();
    }
    case IValue::Kind::Dict: {
      if (strict)
        throw UntraceableModel(fmt::format("output {} is a dict: torch.jit.trace refuses one unless strict=False", i));
      std::vector<Value*> keys, values;
      const auto& d = *v.to_dict();
      for (const auto& [k, item] : d.items) {
        keys.push_back(k.is_tensor() ? b.value_of(k.to_tensor()) : b.constant(k));
        values.push_back(output_value(b, {item, nullptr}, i, strict));
      }
      TypePtr key = !d.items.empty() && d.items[0].first.is_tensor() ? TensorType::get() : StringType::get();
      return b.insert(b.graph()->create_dict(key, TensorType::get(), keys, values), false)->output();
    }
    default:
      throw UntraceableModel(fmt::format(
          "output {} of the traced method is {} {}: a trace returns only tensors, and tuples, lists and dicts of them", i,
          v.is_none() ? "" : "a", v.is_none() ? "None" : kind_name(v.kind())));
  }
}

}  // namespace

Trace trace_method(Runtime& rt, const std::string& method, std::vector<IValue> args, const TraceOptions& options) {
  LoadedModule& m = rt.loaded_module();
  GraphFunction* fn = m.cu->graph_function(m.class_name, method);
  if (!fn) throw InvalidInput(fmt::format("{}: class {} has no method '{}'", rt.path(), m.class_name, method));
  Trace result;
  TraceBuilder b;
  b.add_module_input(m.root);
  std::vector<Traced> in;
  for (size_t i = 0; i < args.size(); ++i) {
    b.add_argument(args[i], fmt::format("argument {}", i + 1));
    in.push_back({std::move(args[i]), nullptr});
  }
  const TraceSource source(*m.cu);
  TraceContext ctx{b, result.warnings, options.grad_enabled};
  ctx.source = &source;
  Tracer tracer(m, ctx);
  std::vector<Traced> out = tracer.call_method(m.root, method, std::move(in));
  const bool strict = options.strict && !is_traced_graph(*fn->inlined_graph());
  b.set_location(std::nullopt);
  b.graph()->set_insert_point(b.graph()->block());
  b.graph()->register_output(output_value(b, out.at(0), 0, strict));
  result.result = out.at(0).v;
  TraceLayout layout = lay_out_trace(*b.graph());
  result.graph = std::move(layout.inlined);
  result.calls = std::move(layout.calls);
  result.methods = std::move(layout.methods);
  return result;
}

bool is_traced_graph(const Graph& g) {
  bool located = false;
  return is_traced_code(*g.block(), located) && located;
}

std::vector<const Node*> nondeterministic_nodes(const Graph& g) {
  static const std::set<std::string_view> random = {
      "aten::dropout",   "aten::_fused_dropout", "aten::_standard_gamma", "aten::bernoulli",      "aten::multinomial",
      "aten::native_dropout", "aten::normal",   "aten::poisson",        "aten::binomial",       "aten::rrelu",
      "aten::rrelu_with_noise", "aten::rand",   "aten::rand_like",      "aten::randint",        "aten::randint_like",
      "aten::randn",     "aten::randn_like",     "aten::randperm",       "aten::feature_dropout", "aten::alpha_dropout",
      "aten::feature_alpha_dropout", "aten::dropout_", "aten::bernoulli_", "aten::normal_", "aten::uniform_",
      "aten::exponential_", "aten::random_", "aten::cauchy_", "aten::log_normal_", "aten::geometric_"};
  std::vector<const Node*> out;
  for (const Node* n : g.nodes()) {
    const std::string_view kind = n->kind().qual_string();
    if (!random.count(kind)) continue;
    // Dropout whose `train` input is the constant false is the identity (Node::isNondeterministic).
    if (kind.find("dropout") != std::string_view::npos && n->inputs().size() >= 3) {
      auto train = to_ivalue(n->input(2));
      if (train && train->is(IValue::Kind::Bool) && !train->to_bool()) continue;
      // p = 0 keeps every element: nothing is sampled that could show.
      auto p = to_ivalue(n->input(1));
      if (p && p->is(IValue::Kind::Double) && p->to_double() == 0) continue;
    }
    out.push_back(n);
  }
  return out;
}

}  // namespace jitctl
