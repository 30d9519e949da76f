#include "lib/frontend/ir_emitter.h"

#include <fmt/format.h>

#include <map>
#include <unordered_map>

#include "lib/core/error.h"
#include "lib/frontend/schema_matching.h"
#include "lib/frontend/type_parser.h"
#include "passes/canonicalize_outputs.h"
#include "passes/constant_pooling.h"
#include "passes/convert_to_ssa.h"
#include "passes/lower_simple_tuples.h"

namespace jitctl {
namespace {

// A name the emitter gives to values: not "", not "$tmp", not "_" followed by digits only.
bool meaningful(const std::string& name) {
  if (name.empty() || name[0] == '$') return false;
  if (name[0] != '_' || name.size() == 1) return true;
  return name.find_first_not_of("0123456789", 1) != std::string::npos;
}

// What an expression denotes before it becomes a value: PyTorch's SugaredValue kinds.
struct Sugared {
  enum class Kind {
    Simple,      // a graph value
    Method,      // value.name(...) on a class or interface: prim::CallMethod
    Builtin,     // an operator: name "aten::relu", value = self for method syntax (may be null)
    Function,    // a free TorchScript function by qualified name: prim::CallFunction
    Namespace,   // torch, ops.aten, __torch__.a.b: attribute access goes deeper
    Constants,   // CONSTANTS
    SpecialForm, // annotate, unchecked_cast, uninitialized, fork
  } kind = Kind::Simple;
  Value* value = nullptr;
  std::string name;
};

class Emitter {
 public:
  Emitter(CompilationUnit& cu, const CompilationUnit::Function& fn) : cu_(cu), fn_(fn), file_(*fn.file) {
    graph_ = std::make_shared<Graph>();
  }

  std::shared_ptr<Graph> run() {
    frames_.push_back(Frame{graph_->block(), {}, {}});
    const FunctionDef& def = *fn_.def;
    const FunctionSchema schema = schema_of(cu_, fn_);
    declared_return_ = schema.returns.at(0).type;
    emit_formal_arguments(def, schema);
    emit_statements(def.body);
    // The output placeholder: ConvertToSSA puts the returned value in its place.
    Value* placeholder = graph_->insert_node(graph_->create_uninitialized(declared_return_))->output();
    graph_->register_output(placeholder);
    return graph_;
  }

 private:
  struct Frame {
    Block* block;
    std::map<std::string, TypePtr> type_table;
    std::map<std::string, Sugared> value_table;
  };

  [[noreturn]] void unsupported(const SourceRange& r, const std::string& what) const {
    throw Unsupported(fmt::format("{}:{}:{}: {} is not supported yet", file_.where, r.line, r.col, what));
  }
  [[noreturn]] void invalid(const SourceRange& r, const std::string& what) const {
    throw InvalidInput(fmt::format("{}:{}:{}: {}", file_.where, r.line, r.col, what));
  }
  std::string where(const SourceRange& r) const { return fmt::format("{}:{}:{}", file_.where, r.line, r.col); }

  // The `# file:line:col` of the original source that generated the code at `r`.
  std::optional<SourceLocation> loc(const SourceRange& r) const { return file_.map.location_for(r.start); }

  // ---- environment (PyTorch's Environment: Store/Load, naming) ----
  Frame& frame() { return frames_.back(); }

  Value* insert_load(const std::string& name, const TypePtr& type) {
    Node* n = graph_->insert_node(graph_->create_load(name, type));
    if (meaningful(name)) n->output()->set_debug_name(name);
    return n->output();
  }
  void insert_store(const std::string& name, const SourceRange& r, Value* v, const TypePtr& type) {
    graph_->insert_node(graph_->create_store(name, v))->set_source_location(loc(r));
    frame().type_table[name] = type;
  }
  std::optional<Sugared> find_in_frame(Frame& f, const std::string& name) {
    if (auto it = f.value_table.find(name); it != f.value_table.end()) return it->second;
    if (auto it = f.type_table.find(name); it != f.type_table.end()) return Sugared{Sugared::Kind::Simple, insert_load(name, it->second), ""};
    return std::nullopt;
  }
  std::optional<Sugared> find_in_any_frame(const std::string& name, size_t from_top = 0) {
    for (size_t i = frames_.size() - from_top; i-- > 0;)
      if (auto r = find_in_frame(frames_[i], name)) return r;
    return std::nullopt;
  }
  void set_var(const SourceRange& r, const std::string& name, Sugared value, const TypePtr& annotated = nullptr) {
    Value* simple = value.kind == Sugared::Kind::Simple ? value.value : nullptr;
    if (simple && !simple->has_debug_name() && meaningful(name) && simple->node()->owning_block() == frame().block)
      simple->set_debug_name(name);
    if (frames_.size() > 1) {
      if (auto parent = find_in_any_frame(name, 1)) {
        if (!simple || parent->kind != Sugared::Kind::Simple)
          invalid(r, fmt::format("cannot re-assign '{}': only first-class values can be re-assigned", name));
        const TypePtr parent_type = unshaped_type(parent->value->type());
        simple = try_convert_to_type(*graph_, loc(r), parent_type, simple, true);
        if (!simple->type()->is_subtype_of(*parent_type))
          invalid(r, fmt::format("variable '{}' previously had type {} but is now assigned a value of type {}", name,
                                 parent_type->str(), simple->type()->str()));
      }
    }
    if (simple) insert_store(name, r, simple, annotated ? annotated : simple->type());
    else frame().value_table[name] = std::move(value);
  }

  Sugared get_var(const std::string& name, const SourceRange& r) {
    if (auto v = find_in_any_frame(name)) return *v;
    // What the archive's resolver provides for loaded code.
    if (name == "torch") return {Sugared::Kind::Namespace, nullptr, "aten"};
    if (name == "ops") return {Sugared::Kind::Namespace, nullptr, "ops"};
    if (name == "__torch__") return {Sugared::Kind::Namespace, nullptr, "__torch__"};
    if (name == "CONSTANTS") return {Sugared::Kind::Constants, nullptr, ""};
    if (name == "annotate" || name == "unchecked_cast" || name == "uninitialized" || name == "fork")
      return {Sugared::Kind::SpecialForm, nullptr, name};
    unsupported(r, fmt::format("the name '{}'", name));
  }

  // ---- literals ----
  template <class Map, class T>
  Value* materialize(Map& cache, T v, const SourceRange& r) {
    if (auto it = cache.find(v); it != cache.end()) return it->second;
    // Int and float literals live once per function, at the very top of the graph.
    WithInsertPoint guard(graph_->block()->nodes().empty() ? graph_->return_node() : *graph_->block()->nodes().begin());
    Value* c = graph_->insert_constant(IValue(v), loc(r));
    cache[v] = c;
    return c;
  }
  Value* emit_int(uint64_t magnitude, bool negative, const SourceRange& r) {
    if (magnitude > (negative ? uint64_t(1) << 63 : uint64_t(INT64_MAX))) invalid(r, "integer literal out of range");
    const int64_t v = negative ? static_cast<int64_t>(0 - magnitude) : static_cast<int64_t>(magnitude);
    return materialize(int_constants_, v, r);
  }
  Value* emit_float(double d, const SourceRange& r) { return materialize(float_constants_, d, r); }

  // ---- expressions ----
  Value* as_value(const Sugared& s, const SourceRange& r) {
    if (s.kind == Sugared::Kind::Simple) return s.value;
    unsupported(r, "using this name as a value");
  }
  Value* emit_expr(const Expr& e) { return as_value(emit_sugared(e), e.range); }

  std::vector<NamedValue> emit_args(const std::vector<ExprPtr>& xs, size_t from, std::vector<NamedValue>* kwargs) {
    std::vector<NamedValue> args;
    for (size_t i = from; i < xs.size(); ++i) {
      const Expr& a = *xs[i];
      if (a.kind == ExprKind::Starred) unsupported(a.range, "*args in a call");
      if (a.kind == ExprKind::Keyword) continue;
      args.push_back(NamedValue{"", emit_expr(a), {}});
    }
    for (size_t i = from; i < xs.size(); ++i)
      if (xs[i]->kind == ExprKind::Keyword) kwargs->push_back(NamedValue{xs[i]->text, emit_expr(*xs[i]->children[0]), {}});
    return args;
  }

  Sugared simple(Value* v) { return {Sugared::Kind::Simple, v, ""}; }

  Sugared emit_sugared(const Expr& e) {
    switch (e.kind) {
      case ExprKind::Name: return get_var(e.text, e.range);
      case ExprKind::Int: return simple(emit_int(e.int_value, false, e.range));
      case ExprKind::Float: return simple(emit_float(e.float_value, e.range));
      case ExprKind::True: return simple(graph_->insert_constant(IValue(true), loc(e.range)));
      case ExprKind::False: return simple(graph_->insert_constant(IValue(false), loc(e.range)));
      case ExprKind::None: return simple(graph_->insert_constant(IValue(), loc(e.range)));
      case ExprKind::String: return simple(graph_->insert_constant(IValue(e.text), loc(e.range)));
      case ExprKind::Unary: {
        const Expr& x = *e.children[0];
        // PyTorch's parser folds `-<number>` into one constant with the number's range.
        if (e.op == Op::Neg && x.kind == ExprKind::Int) return simple(emit_int(x.int_value, true, x.range));
        if (e.op == Op::Neg && x.kind == ExprKind::Float) return simple(emit_float(-x.float_value, x.range));
        unsupported(e.range, fmt::format("the unary operator '{}'", op_spelling(e.op)));
      }
      case ExprKind::Tuple: {
        std::vector<Value*> items;
        for (const auto& c : e.children) items.push_back(emit_expr(*c));
        return simple(graph_->insert_node(graph_->create_tuple(items))->output());
      }
      case ExprKind::List: {
        if (e.children.empty()) unsupported(e.range, "an empty list literal without annotate()");
        std::vector<Value*> items;
        std::vector<TypePtr> types;
        for (const auto& c : e.children) {
          items.push_back(emit_expr(*c));
          types.push_back(items.back()->type());
        }
        auto elem = unify_type_list(types);
        if (!elem) elem = unify_types(types[0], types[0], true);
        return simple(graph_->insert_node(graph_->create_list(*elem, items))->output());
      }
      case ExprKind::Attribute: {
        Sugared obj = emit_sugared(*e.children[0]);
        return attr(obj, e.text, e.range);
      }
      case ExprKind::Call: return emit_call(e);
      default: unsupported(e.range, fmt::format("this expression ({})", dump(e).substr(0, 40)));
    }
  }

  Sugared attr(const Sugared& obj, const std::string& field, const SourceRange& r) {
    switch (obj.kind) {
      case Sugared::Kind::Namespace: {
        if (obj.name == "aten") return {Sugared::Kind::Builtin, nullptr, "aten::" + field};
        if (obj.name == "ops") return {Sugared::Kind::Namespace, nullptr, "ops." + field};
        if (obj.name.rfind("ops.", 0) == 0) return {Sugared::Kind::Builtin, nullptr, obj.name.substr(4) + "::" + field};
        const std::string q = obj.name + "." + field;
        if (cu_.find_function(q)) return {Sugared::Kind::Function, nullptr, q};
        if (cu_.find_type(q)) unsupported(r, fmt::format("using the class {} as a value", q));
        return {Sugared::Kind::Namespace, nullptr, q};
      }
      case Sugared::Kind::Simple: {
        const TypePtr& t = obj.value->type();
        if (auto* cls = t->cast<ClassType>()) {
          if (cls->find_method(field)) return {Sugared::Kind::Method, obj.value, field};
          if (cls->find_attribute_slot(field))
            return simple(graph_->insert_node(graph_->create_get_attr(obj.value, field))->output());
          invalid(r, fmt::format("'{}' object has no attribute or method '{}'", cls->qualified_name(), field));
        }
        if (auto* iface = t->cast<InterfaceType>()) {
          if (iface->find_method(field)) return {Sugared::Kind::Method, obj.value, field};
        }
        // Method syntax on other values calls the builtin with `self`.
        return {Sugared::Kind::Builtin, obj.value, "aten::" + field};
      }
      case Sugared::Kind::Constants: return simple(emit_constant_table(field, r));
      default: unsupported(r, fmt::format("attribute '{}' of this value", field));
    }
  }

  Value* emit_constant_table(const std::string& field, const SourceRange& r) {
    const auto& table = cu_.constants();
    size_t i = 0;
    if (field.size() < 2 || field[0] != 'c' || field.find_first_not_of("0123456789", 1) != std::string::npos ||
        (i = std::stoul(field.substr(1))) >= table.size())
      invalid(r, fmt::format("invalid constant specifier: {}", field));
    if (table[i].is_object()) unsupported(r, "an object constant");
    Value* v = graph_->insert_constant(table[i], loc(r));
    v->set_type(unshaped_type(v->type()));
    return v;
  }

  // The range PyTorch gives a call: its callee expression's.
  Sugared emit_call(const Expr& e) {
    const Expr& callee_expr = *e.children[0];
    Sugared callee = emit_sugared(callee_expr);
    const auto callee_loc = loc(callee_expr.range);
    if (callee.kind == Sugared::Kind::SpecialForm) return emit_special_form(callee.name, e);
    std::vector<NamedValue> kwargs;
    std::vector<NamedValue> args = emit_args(e.children, 1, &kwargs);
    switch (callee.kind) {
      case Sugared::Kind::Builtin: {
        std::optional<NamedValue> self;
        if (callee.value) self = NamedValue{"self", callee.value, {}};
        return simple(emit_builtin_call(*graph_, callee_loc, callee.name, args, kwargs, self, where(e.range)));
      }
      case Sugared::Kind::Method: {
        const FunctionSchema* schema = method_schema(callee.value->type(), callee.name, callee_expr.range);
        args.insert(args.begin(), NamedValue{"", callee.value, {}});
        auto [i, m] = match_schemas({schema}, *graph_, callee_loc, args, kwargs, std::nullopt, where(e.range));
        Node* n = graph_->insert_node(graph_->create(prim::CallMethod, m.inputs, 1));
        n->s_(attr::name, callee.name);
        n->output()->set_type(m.return_types.at(0));
        n->set_source_location(callee_loc);
        return simple(n->output());
      }
      case Sugared::Kind::Function: {
        const auto* fn = cu_.find_function(callee.name);
        const FunctionSchema& schema = function_schema(*fn);
        auto [i, m] = match_schemas({&schema}, *graph_, callee_loc, args, kwargs, std::nullopt, where(e.range));
        Node* c = graph_->insert_node(graph_->create(prim::Constant, 1));
        c->s_(attr::name, fn->def->name);
        c->output()->set_type(FunctionType::create(fn->qualified_name));
        std::vector<Value*> inputs{c->output()};
        inputs.insert(inputs.end(), m.inputs.begin(), m.inputs.end());
        Node* n = graph_->insert_node(graph_->create(prim::CallFunction, inputs, 1));
        n->output()->set_type(m.return_types.at(0));
        n->set_source_location(callee_loc);
        return simple(n->output());
      }
      default: unsupported(callee_expr.range, "calling this value");
    }
  }

  Sugared emit_special_form(const std::string& form, const Expr& e) {
    const SourceRange& r = e.range;
    if (form == "uninitialized") {
      if (e.children.size() != 2) invalid(r, "uninitialized() takes one type");
      Node* n = graph_->insert_node(graph_->create_uninitialized(type_of(*e.children[1])));
      n->set_source_location(loc(r));
      return simple(n->output());
    }
    if (form == "unchecked_cast") {
      if (e.children.size() != 3) invalid(r, "unchecked_cast() takes a type and a value");
      TypePtr t = type_of(*e.children[1]);
      Value* v = emit_expr(*e.children[2]);
      if (v->node()->kind() == prim::unchecked_cast && v->type()->equals(*t)) return simple(v);
      return simple(graph_->insert_unchecked_cast(v, t));
    }
    unsupported(r, fmt::format("{}()", form));
  }

  TypePtr type_of(const Expr& e) {
    TypeParseContext ctx;
    ctx.file = file_.where;
    ctx.resolve = [this](const std::string& n) { return cu_.find_type(n); };
    return type_from_expr(e, ctx);
  }

  const FunctionSchema* method_schema(const TypePtr& t, const std::string& method, const SourceRange& r) {
    const std::string cls = t->cast<ClassType>() ? t->expect<ClassType>().qualified_name() : t->expect<InterfaceType>().qualified_name();
    if (t->cast<InterfaceType>()) unsupported(r, "calling an interface method");
    const auto* fn = cu_.find_method(cls, method);
    if (!fn) invalid(r, fmt::format("class {} has no method {}", cls, method));
    return &function_schema(*fn);
  }
  const FunctionSchema& function_schema(const CompilationUnit::Function& fn) {
    auto it = schemas_.find(&fn);
    if (it == schemas_.end()) it = schemas_.emplace(&fn, schema_of(cu_, fn)).first;
    return it->second;
  }

  // ---- statements ----
  void emit_formal_arguments(const FunctionDef& def, const FunctionSchema& schema) {
    for (size_t i = 0; i < def.params.size(); ++i) {
      const Param& p = def.params[i];
      Value* in = graph_->add_input();
      if (i == 0 && fn_.owner) {
        in->set_debug_name(p.name);  // self: named even when the name is not meaningful
      } else if (meaningful(p.name)) {
        in->set_debug_name(p.name);
      }
      in->set_type(schema.arguments[i].type);
      set_var(p.range, p.name, simple(in));
    }
  }

  void emit_statements(const std::vector<StmtPtr>& body) {
    for (const auto& s : body) {
      switch (s->kind) {
        case StmtKind::Assign: emit_assign(*s); break;
        case StmtKind::Expr: emit_sugared(*s->value); break;
        case StmtKind::Pass: break;
        case StmtKind::Return: return emit_return(*s);  // what follows a return is never emitted
        default: unsupported(s->range, fmt::format("this statement ({})", dump(*s).substr(0, 30)));
      }
    }
  }

  void emit_assign(const Stmt& s) {
    if (s.targets.size() != 1) unsupported(s.range, "chained assignment");
    if (!s.value) unsupported(s.range, "a declaration without a value");
    const Expr& target = *s.targets[0];
    if (target.kind == ExprKind::Name) {
      TypePtr annotated = s.annotation ? type_of(*s.annotation) : nullptr;
      Sugared v = emit_sugared(*s.value);
      set_var(target.range, target.text, v, annotated);
      return;
    }
    if (target.kind == ExprKind::Tuple) {
      Value* v = emit_expr(*s.value);
      std::vector<Value*> items;
      if (v->type()->kind() == TypeKind::Tuple) {
        items = v->node()->kind() == prim::TupleConstruct ? v->node()->inputs()
                                                          : graph_->insert_node(graph_->create_tuple_unpack(v))->outputs();
      } else if (v->type()->kind() == TypeKind::List) {
        items = graph_->insert_node(graph_->create_list_unpack(v, target.children.size()))->outputs();
      } else {
        invalid(s.range, fmt::format("cannot unpack a value of type {}", v->type()->str()));
      }
      if (items.size() != target.children.size())
        invalid(s.range, fmt::format("expected {} values to unpack, got {}", target.children.size(), items.size()));
      for (size_t i = 0; i < items.size(); ++i) {
        const Expr& t = *target.children[i];
        if (t.kind != ExprKind::Name) unsupported(t.range, "this assignment target");
        set_var(t.range, t.text, simple(items[i]));
      }
      return;
    }
    unsupported(target.range, "this assignment target");
  }

  void emit_return(const Stmt& s) {
    Value* v = s.value ? emit_expr(*s.value) : graph_->insert_constant(IValue(), loc(s.range));
    if (!(v->type()->is_subtype_of(*TensorType::get()) && v->type()->is_subtype_of(*NoneType::get())))
      v = try_convert_to_type(*graph_, loc(s.range), declared_return_, v, true);
    if (!v->type()->is_subtype_of(*declared_return_))
      invalid(s.range, fmt::format("returns a value of type {} but is declared to return {}", v->type()->str(),
                                   declared_return_->str()));
    graph_->insert_node(graph_->create(prim::ReturnStmt, {v}, 0));
  }

  CompilationUnit& cu_;
  const CompilationUnit::Function& fn_;
  const CompilationUnit::CodeFile& file_;
  std::shared_ptr<Graph> graph_;
  std::vector<Frame> frames_;
  TypePtr declared_return_;
  std::unordered_map<int64_t, Value*> int_constants_;
  std::unordered_map<double, Value*> float_constants_;
  std::unordered_map<const CompilationUnit::Function*, FunctionSchema> schemas_;
};

}  // namespace

FunctionSchema schema_of(CompilationUnit& cu, const CompilationUnit::Function& fn) {
  const CompilationUnit::CodeFile& f = *fn.file;
  TypeParseContext ctx;
  ctx.file = f.where;
  ctx.resolve = [&cu](const std::string& n) { return cu.find_type(n); };
  FunctionSchema s;
  s.name = fn.def->name;
  for (size_t i = 0; i < fn.def->params.size(); ++i) {
    const Param& p = fn.def->params[i];
    Argument a;
    a.name = p.name;
    if (i == 0 && fn.owner) a.type = fn.owner;
    else a.type = p.annotation ? type_from_expr(*p.annotation, ctx) : TensorType::get();
    a.real_type = a.type;
    if (p.default_value) {
      // Defaults are literals in printed code; anything else is compiled by PyTorch too, later.
      const Expr& d = *p.default_value;
      IValue v;
      switch (d.kind) {
        case ExprKind::None: break;
        case ExprKind::True: v = IValue(true); break;
        case ExprKind::False: v = IValue(false); break;
        case ExprKind::Int: v = IValue(static_cast<int64_t>(d.int_value)); break;
        case ExprKind::Float: v = IValue(d.float_value); break;
        case ExprKind::String: v = IValue(d.text); break;
        default:
          throw Unsupported(fmt::format("{}:{}:{}: this default value is not supported yet", f.where, d.range.line, d.range.col));
      }
      a.default_value = v;
    }
    s.arguments.push_back(std::move(a));
  }
  Argument r;
  r.type = r.real_type = fn.def->returns ? type_from_expr(*fn.def->returns, ctx) : NoneType::get();
  s.returns.push_back(std::move(r));
  return s;
}

std::shared_ptr<Graph> emit_function(CompilationUnit& cu, const CompilationUnit::Function& fn) {
  return Emitter(cu, fn).run();
}

std::shared_ptr<Graph> compile_function(CompilationUnit& cu, const CompilationUnit::Function& fn) {
  auto g = emit_function(cu, fn);
  convert_to_ssa(*g);
  // PyTorch's runCleanupPasses, in its order (closures are lifted by the emitter itself).
  lower_simple_tuples(*g);  // ends with dead code elimination
  pool_constants(*g);
  canonicalize_outputs(*g);
  return g;
}

}  // namespace jitctl
