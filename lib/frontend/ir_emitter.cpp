#include "lib/frontend/ir_emitter.h"

#include <fmt/format.h>

#include <limits>
#include <map>
#include <set>
#include <unordered_map>

#include "lib/core/error.h"
#include "lib/core/enum_value.h"
#include "lib/frontend/schema_matching.h"
#include "lib/frontend/type_parser.h"
#include "lib/ops/schema_registry.h"
#include "passes/replace_old_operators.h"
#include "lib/ir/constants.h"
#include "passes/analysis/immutable_ops.h"
#include "passes/registry.h"

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
    SpecialForm, // annotate, unchecked_cast, uninitialized, fork, getattr, range
    Cast,        // int(), float(), bool(), str()
    Range,       // range(...): name indexes the emitter's ranges_
    Class,       // a class or NamedTuple named by its qualified name (name)
    ClassNew,    // Class.__new__ (name: the class)
    Closure,     // a nested `def` (value: the prim::Closure output)
    Print,       // print(...): prim::Print
    None,        // what print() returns: usable only as a discarded statement value
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
    push_frame(graph_->block());
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
  // One scope of variables: the function body, an if branch, a loop body or condition. Popped
  // frames keep their parent link, because the if-merge looks variables up through them.
  struct Frame {
    Block* block;
    std::map<std::string, TypePtr> type_table;   // first-class variables (Store/Load)
    std::map<std::string, Sugared> value_table;  // sugared ones (modules seen as values, functions)
    std::shared_ptr<Frame> next;
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
  Frame& frame() { return *frame_; }
  void push_frame(Block* b) { frame_ = std::make_shared<Frame>(Frame{b, {}, {}, frame_}); }
  std::shared_ptr<Frame> pop_frame() {
    auto f = frame_;
    frame_ = f->next;
    return f;
  }

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
  // Looking a variable up creates a Load wherever it is found in a type table, as in PyTorch.
  std::optional<Sugared> find_in_any_frame(const std::shared_ptr<Frame>& from, const std::string& name) {
    for (Frame* f = from.get(); f; f = f->next.get())
      if (auto r = find_in_frame(*f, name)) return r;
    return std::nullopt;
  }
  void set_var(const SourceRange& r, const std::string& name, Sugared value, const TypePtr& annotated = nullptr) {
    Value* simple = value.kind == Sugared::Kind::Simple ? value.value : nullptr;
    if (simple && !simple->has_debug_name() && meaningful(name) && simple->node()->owning_block() == frame().block)
      simple->set_debug_name(name);
    {
      if (auto parent = find_in_any_frame(frame_->next, name)) {
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
    if (auto v = find_in_any_frame(frame_, name)) return *v;
    // What the archive's resolver provides for loaded code.
    if (name == "torch") return {Sugared::Kind::Namespace, nullptr, "aten"};
    if (name == "ops") return {Sugared::Kind::Namespace, nullptr, "ops"};
    if (name == "__torch__") return {Sugared::Kind::Namespace, nullptr, "__torch__"};
    if (name == "CONSTANTS") return {Sugared::Kind::Constants, nullptr, ""};
    if (name == "annotate" || name == "unchecked_cast" || name == "uninitialized" || name == "fork" ||
        name == "getattr" || name == "range" || name == "isinstance" || name == "hasattr")
      return {Sugared::Kind::SpecialForm, nullptr, name};
    if (name == "int" || name == "float" || name == "bool" || name == "str") return {Sugared::Kind::Cast, nullptr, name};
    if (name == "print") return {Sugared::Kind::Print, nullptr, name};
    // PyTorch's globals table: builtins callable by their Python name.
    static const std::map<std::string, std::string> builtins = {
        {"len", "aten::len"},     {"hex", "aten::hex"},       {"oct", "aten::oct"},     {"round", "aten::round"},
        {"hash", "aten::hash"},   {"id", "prim::id"},         {"min", "prim::min"},     {"max", "prim::max"},
        {"abs", "prim::abs"},     {"all", "aten::all"},       {"any", "aten::any"},     {"divmod", "aten::divmod"},
        {"sum", "aten::sum"},     {"ord", "aten::ord"},       {"chr", "aten::chr"},     {"bin", "aten::bin"},
        {"pow", "aten::pow"},     {"complex", "aten::complex"}, {"rangelist", "prim::rangelist"},
        {"sorted", "aten::sorted"}};
    if (auto it = builtins.find(name); it != builtins.end()) return {Sugared::Kind::Builtin, nullptr, it->second};
    // The archive resolver's floats: inserted where they are used, not materialized at the top.
    if (name == "inf" || name == "nan") {
      const double d = name == "inf" ? std::numeric_limits<double>::infinity() : std::numeric_limits<double>::quiet_NaN();
      return simple(graph_->insert_constant(IValue(d), loc(r)));
    }
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
  Value* emit_expr(const Expr& e, const TypePtr& hint = nullptr) { return as_value(emit_sugared(e, hint), e.range); }

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

  Sugared emit_sugared(const Expr& e, const TypePtr& hint = nullptr) {
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
        if (e.op == Op::Neg) return simple(emit_unary(e, "aten::neg"));
        if (e.op == Op::Invert) return simple(emit_unary(e, "aten::bitwise_not"));
        if (e.op == Op::Not) {
          Value* v = emit_to_bool(emit_expr(x), x.range);
          return simple(emit_builtin_call(*graph_, loc(e.range), "aten::__not__", {NamedValue{"", v, {}}}, {}, std::nullopt,
                                          where(e.range)));
        }
        unsupported(e.range, fmt::format("the unary operator '{}'", op_spelling(e.op)));
      }
      case ExprKind::Tuple: {
        std::vector<Value*> items;
        for (const auto& c : e.children) items.push_back(emit_expr(*c));
        return simple(graph_->insert_node(graph_->create_tuple(items))->output());
      }
      case ExprKind::List: return simple(emit_list_literal(e, hint));
      case ExprKind::Dict: return simple(emit_dict_literal(e, hint));
      case ExprKind::Subscript: return emit_subscript(e);
      case ExprKind::Attribute: {
        Sugared obj = emit_sugared(*e.children[0]);
        return attr(obj, e.text, e.range);
      }
      case ExprKind::Call: return emit_call(e, hint);
      default: unsupported(e.range, fmt::format("this expression ({})", dump(e).substr(0, 40)));
    }
  }

  // `-x` and `~x` (PyTorch's emitUnaryOp): the builtin, then, when every input is a constant, its
  // result as a new constant with the expression's range (the op node is left for DCE).
  Value* emit_unary(const Expr& e, const std::string& op) {
    const Expr& x = *e.children[0];
    Value* v = emit_expr(x);
    if (v->type()->cast<ClassType>()) unsupported(e.range, fmt::format("'{}' on an object", op_spelling(e.op)));
    Value* out = emit_builtin_call(*graph_, loc(e.range), op, {NamedValue{"", v, {}}}, {}, std::nullopt, where(e.range));
    if (out->node()->kind() != Symbol::from_qual_string(op)) return out;
    std::vector<IValue> args;
    for (Value* in : out->node()->inputs()) {
      auto c = to_ivalue(in);
      if (!c) return out;
      args.push_back(*c);
    }
    auto folded = run_immutable_op(out->node(), args);
    if (!folded || folded->size() != 1) return out;
    return graph_->insert_constant(folded->at(0), loc(e.range));
  }

  Value* emit_list_literal(const Expr& e, const TypePtr& hint) {
    std::vector<Value*> items;
    for (const auto& c : e.children) items.push_back(emit_expr(*c));
    const ListType* hinted = hint ? hint->cast<ListType>() : nullptr;
    if (items.empty() && !hinted) {
      Node* n = graph_->insert_node(graph_->create(Symbol::prim("EmptyListLiteral"), 1));
      n->output()->set_type(ListType::create(TensorType::get()));
      return n->output();
    }
    TypePtr elem = hinted ? hinted->elem() : TensorType::get();
    if (!items.empty()) {
      std::vector<TypePtr> types;
      for (auto* v : items) types.push_back(v->type());
      std::string why;
      auto unified = unify_type_list(types, &why);
      if (!unified) unified = unify_types(types[0], types[1 % types.size()], true);
      if (hinted && std::all_of(types.begin(), types.end(), [&](const TypePtr& t) { return t->is_subtype_of(*hinted->elem()); }))
        elem = hinted->elem();
      else if (unified) elem = *unified;
    }
    return graph_->insert_node(graph_->create_list(elem, items))->output();
  }

  Value* emit_dict_literal(const Expr& e, const TypePtr& hint) {
    std::vector<Value*> keys, values;
    TypePtr value_type;
    for (size_t i = 0; i + 1 < e.children.size(); i += 2) {
      keys.push_back(emit_expr(*e.children[i]));
      values.push_back(emit_expr(*e.children[i + 1]));
      value_type = value_type ? unify_types(value_type, values.back()->type(), true).value_or(values.back()->type())
                              : values.back()->type();
    }
    TypePtr key_type = keys.empty() ? StringType::get() : keys[0]->type();
    if (!value_type) value_type = TensorType::get();
    if (const auto* d = hint ? hint->cast<DictType>() : nullptr) {
      key_type = d->key();
      value_type = d->value();
    }
    return graph_->insert_node(graph_->create_dict(key_type, value_type, keys, values))->output();
  }

  Sugared emit_subscript(const Expr& e) {
    if (e.children.size() != 2 || e.children[1]->kind == ExprKind::Slice) unsupported(e.range, "slicing");
    Value* obj = emit_expr(*e.children[0]);
    Value* idx = emit_expr(*e.children[1]);
    const TypePtr& t = obj->type();
    if (auto* tuple = t->cast<TupleType>()) {
      auto k = to_ivalue(idx);
      if (!k || !k->is(IValue::Kind::Int)) unsupported(e.range, "indexing a tuple with a non-constant");
      int64_t i = k->to_int();
      const auto n = static_cast<int64_t>(tuple->elements().size());
      if (i < 0) i += n;
      if (i < 0 || i >= n) invalid(e.range, "tuple index out of range");
      return simple(graph_->insert_node(graph_->create_tuple_index(obj, idx, tuple->elements()[static_cast<size_t>(i)]))->output());
    }
    if (t->cast<ListType>() || t->kind() == TypeKind::String || t->cast<DictType>())
      return simple(emit_builtin_call(*graph_, loc(e.range), "aten::__getitem__", {NamedValue{"", obj, {}}, NamedValue{"", idx, {}}},
                                      {}, std::nullopt, where(e.range)));
    unsupported(e.range, fmt::format("indexing a value of type {}", t->str()));
  }

  Sugared attr(const Sugared& obj, const std::string& field, const SourceRange& r) {
    switch (obj.kind) {
      case Sugared::Kind::Namespace: {
        if (obj.name == "aten") return {Sugared::Kind::Builtin, nullptr, "aten::" + field};
        if (obj.name == "ops") return {Sugared::Kind::Namespace, nullptr, "ops." + field};
        if (obj.name.rfind("ops.", 0) == 0) return {Sugared::Kind::Builtin, nullptr, obj.name.substr(4) + "::" + field};
        const std::string q = obj.name + "." + field;
        if (cu_.find_function(q)) return {Sugared::Kind::Function, nullptr, q};
        if (cu_.find_type(q)) return {Sugared::Kind::Class, nullptr, q};
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
        if (auto* e = t->cast<EnumType>(); e && (field == "value" || field == "name")) {
          Node* n = graph_->insert_node(graph_->create(field == "value" ? prim::EnumValue : prim::EnumName, {obj.value}, 1));
          // PyTorch gives these nodes no source range.
          n->output()->set_type(field == "value" ? e->value_type() : StringType::get());
          return simple(n->output());
        }
        if (field == "tolist" && t->is_subtype_of(*TensorType::get())) return {Sugared::Kind::SpecialForm, nullptr, field};
        // Method syntax on other values calls the builtin with `self`.
        return {Sugared::Kind::Builtin, obj.value, "aten::" + field};
      }
      case Sugared::Kind::Constants: return simple(emit_constant_table(field, r));
      case Sugared::Kind::Class:
        if (field == "__new__") return {Sugared::Kind::ClassNew, nullptr, obj.name};
        if (TypePtr t = cu_.find_type(obj.name); t && t->cast<EnumType>()) {
          for (const auto& [name, value] : t->cast<EnumType>()->names_values()) {
            if (name != field) continue;
            Value* v = graph_->insert_constant(make_enum_value(obj.name, name, value), loc(r));
            v->set_type(t);
            return simple(v);
          }
          invalid(r, fmt::format("enum {} has no member '{}'", obj.name, field));
        }
        unsupported(r, fmt::format("attribute '{}' of class {}", field, obj.name));
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
  Sugared emit_call(const Expr& e, const TypePtr& hint) {
    const Expr& callee_expr = *e.children[0];
    Sugared callee = emit_sugared(callee_expr);
    const auto callee_loc = loc(callee_expr.range);
    if (callee.kind == Sugared::Kind::SpecialForm) return emit_special_form(callee.name, e, hint);
    if (callee.kind == Sugared::Kind::ClassNew) {
      // Class.__new__(Class): an object whose __init__ is called next.
      if (e.children.size() != 2) invalid(e.range, "only one argument to __new__ allowed");
      Sugared arg = emit_sugared(*e.children[1]);
      if (arg.kind != Sugared::Kind::Class) invalid(e.range, "expected a class as the argument of __new__");
      auto cls = cu_.find_class(arg.name);
      if (!cls) unsupported(e.range, fmt::format("creating an object of {}", arg.name));
      Node* n = graph_->insert_node(graph_->create(prim::CreateObject, 1));
      n->output()->set_type(cls);
      n->set_source_location(callee_loc);
      return simple(n->output());
    }
    std::vector<NamedValue> kwargs;
    std::vector<NamedValue> args = emit_args(e.children, 1, &kwargs);
    switch (callee.kind) {
      case Sugared::Kind::Cast: return simple(emit_cast(callee.name, args, kwargs, callee_loc, e.range));
      case Sugared::Kind::Print: {
        if (!kwargs.empty()) invalid(e.range, "print doesn't accept any keyword arguments");
        std::vector<Value*> values;
        for (const auto& a : args) values.push_back(a.value);
        graph_->insert_node(graph_->create(prim::Print, values, 0))->set_source_location(callee_loc);
        return {Sugared::Kind::None, nullptr, ""};
      }
      case Sugared::Kind::Class: {
        const TypePtr t = cu_.find_type(callee.name);
        const auto* tuple = t->cast<TupleType>();
        if (!tuple || !tuple->is_named()) unsupported(callee_expr.range, fmt::format("calling the class {}", callee.name));
        // A NamedTuple's constructor: its fields as a schema, then one TupleConstruct.
        FunctionSchema schema;
        schema.name = tuple->qualified_name();
        for (size_t i = 0; i < tuple->field_names().size(); ++i) {
          Argument a;
          a.name = tuple->field_names()[i];
          a.type = a.real_type = tuple->elements()[i];
          if (i < tuple->field_defaults().size()) a.default_value = tuple->field_defaults()[i];
          schema.arguments.push_back(std::move(a));
        }
        Argument ret;
        ret.type = ret.real_type = t;
        schema.returns.push_back(ret);
        auto [i, m] = match_schemas({&schema}, *graph_, callee_loc, args, kwargs, std::nullopt, where(e.range));
        Node* n = graph_->insert_node(graph_->create_tuple(m.inputs, t));
        n->set_source_location(callee_loc);
        n->output()->set_type(t);
        return simple(n->output());
      }
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

  // int(x), float(x), bool(x), str(x): PyTorch's CastValue, which always inserts a 0 first.
  Value* emit_cast(const std::string& name, const std::vector<NamedValue>& args, const std::vector<NamedValue>& kwargs,
                   const std::optional<SourceLocation>& call_loc, const SourceRange& r) {
    const TypePtr type = name == "int" ? IntType::get() : name == "float" ? FloatType::get() : name == "bool" ? BoolType::get()
                                                                                             : StringType::get();
    if (args.size() == 1 && kwargs.empty()) {
      Value* zero = graph_->insert_constant(IValue(int64_t(0)));
      Value* v = args[0].value;
      if (v->type()->is_subtype_of(*type)) return v;
      if (name == "bool" && (v->type()->kind() == TypeKind::List || v->type()->kind() == TypeKind::String ||
                             v->type()->kind() == TypeKind::Dict)) {
        Value* len = emit_builtin_call(*graph_, call_loc, "aten::len", {NamedValue{"", v, {}}}, {}, std::nullopt, where(r));
        return emit_builtin_call(*graph_, call_loc, "aten::gt", {NamedValue{"", len, {}}, NamedValue{"", zero, {}}}, {},
                                 std::nullopt, where(r));
      }
    }
    const std::string op = name == "int" ? "aten::Int" : name == "float" ? "aten::Float" : name == "bool" ? "aten::Bool" : "aten::str";
    return emit_builtin_call(*graph_, call_loc, op, args, kwargs, std::nullopt, where(r));
  }

  // `if c:` / `while c:` conditions go through bool() (its 0 constant included).
  Value* emit_to_bool(Value* v, const SourceRange& r) {
    Value* out = emit_cast("bool", {NamedValue{"", v, {}}}, {}, loc(r), r);
    if (!out->type()->is_subtype_of(*BoolType::get())) invalid(r, fmt::format("could not cast a value of type {} to bool", v->type()->str()));
    return out;
  }

  Sugared emit_special_form(const std::string& form, const Expr& e, const TypePtr& hint) {
    const SourceRange& r = e.range;
    if (form == "tolist") {
      // PyTorch emits the tensor a second time here (its first emission, for the callee, is left as is).
      if (!hint) invalid(r, "expected a type hint for the result of tolist()");
      Value* v = emit_expr(*e.children[0]->children[0]);
      int64_t dim = 0;
      TypePtr elem = hint;
      while (const auto* l = elem->cast<ListType>()) {
        elem = l->elem();
        ++dim;
      }
      const TypeKind k = elem->kind();
      if (k != TypeKind::Int && k != TypeKind::Float && k != TypeKind::Bool && k != TypeKind::Complex)
        invalid(r, fmt::format("{} is not one of the supported element types for tolist: int, float, complex, bool", elem->str()));
      const int64_t elem_code = k == TypeKind::Int ? 0 : k == TypeKind::Float ? 1 : k == TypeKind::Bool ? 2 : 3;
      Value* dim_v = graph_->insert_constant(IValue(dim));
      Value* elem_v = graph_->insert_constant(IValue(elem_code));
      Node* n = graph_->insert_node(graph_->create(Symbol::prim("tolist"), {v, dim_v, elem_v}, 1));
      n->output()->set_type(hint);
      return simple(n->output());
    }
    if (form == "getattr") {
      if (e.children.size() != 3 || e.children[2]->kind != ExprKind::String) unsupported(r, "this form of getattr()");
      Sugared obj = emit_sugared(*e.children[1]);
      return attr(obj, e.children[2]->text, r);
    }
    if (form == "isinstance") {
      if (e.children.size() != 3) invalid(r, "isinstance expected exactly 2 arguments");
      return simple(emit_isinstance(*e.children[1], *e.children[2]));
    }
    if (form == "hasattr") {
      if (e.children.size() != 3 || e.children[2]->kind != ExprKind::String) invalid(r, "hasattr takes an object and a string literal");
      Sugared obj = emit_sugared(*e.children[1]);
      const std::string& field = e.children[2]->text;
      const ClassType* cls = obj.kind == Sugared::Kind::Simple ? obj.value->type()->cast<ClassType>() : nullptr;
      if (!cls) unsupported(r, "hasattr() on this value");
      const bool has = cls->find_attribute(field) || cls->find_method(field) || cls->find_constant(field);
      return simple(graph_->insert_constant(IValue(has), loc(e.children[1]->range)));
    }
    if (form == "annotate") {
      if (e.children.size() != 3) invalid(r, "annotate() takes a type and a value");
      TypePtr t = type_of(*e.children[1]);
      Value* v = try_convert_to_type(*graph_, loc(r), t, emit_expr(*e.children[2], t), true);
      if (!v->type()->is_subtype_of(*t))
        invalid(r, fmt::format("annotate: expected a value of type {} but found {}", t->str(), v->type()->str()));
      const bool holds_none = t->kind() == TypeKind::Optional ||
                              (t->kind() == TypeKind::Union && t->expect<UnionType>().can_hold(*NoneType::get()));
      if (holds_none && v->type()->is_subtype_of(*NoneType::get())) {
        // A None that remembers its Optional[T], so variables assigned from it keep the type.
        Node* none = graph_->insert_node(graph_->create_none());
        none->output()->set_type(t);
        return simple(none->output());
      }
      return simple(v);
    }
    if (form == "fork") {
      if (e.children.size() != 2) unsupported(r, "fork() with arguments");
      Sugared c = emit_sugared(*e.children[1]);
      if (c.kind != Sugared::Kind::Closure) unsupported(r, "fork() of something other than a nested function");
      Node* n = graph_->insert_node(graph_->create(Symbol::prim("forkClosure"), {c.value}, 1));
      n->output()->set_type(FutureType::create(c.value->node()->blocks().at(0)->outputs().at(0)->type()));
      n->set_source_location(loc(e.children[0]->range));
      return simple(n->output());
    }
    if (form == "range") {
      std::vector<Value*> in;
      for (size_t i = 1; i < e.children.size(); ++i) in.push_back(emit_expr(*e.children[i]));
      for (auto* v : in)
        if (v->type()->kind() != TypeKind::Int) invalid(r, "range() takes ints");
      RangeArgs ra{};
      if (in.size() == 1) {
        ra = {graph_->insert_constant(IValue(int64_t(0)), loc(r)), in[0], graph_->insert_constant(IValue(int64_t(1)), loc(r)), true};
      } else if (in.size() == 2 || in.size() == 3) {
        ra = {in[0], in[1], in.size() == 3 ? in[2] : graph_->insert_constant(IValue(int64_t(1)), loc(r)), false};
      } else {
        invalid(r, "range() takes 1 to 3 arguments");
      }
      ranges_.push_back(ra);
      return {Sugared::Kind::Range, nullptr, std::to_string(ranges_.size() - 1)};
    }
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

  // isinstance(v, T) / isinstance(v, (T, U)) (PyTorch's emitIsInstance): a bool constant (with the
  // object's range) when the static type decides it, else prim::isinstance (no range).
  Value* emit_isinstance(const Expr& obj, const Expr& classinfo) {
    std::vector<TypePtr> types;
    std::function<void(const Expr&)> gather = [&](const Expr& c) {
      if (c.kind == ExprKind::Tuple) {
        for (const auto& x : c.children) gather(*x);
        return;
      }
      types.push_back(type_of(c));
    };
    gather(classinfo);
    Value* v = emit_expr(obj);
    const TypePtr& actual = v->type();
    bool statically_true = false;
    for (const auto& t : types) statically_true = statically_true || actual->is_subtype_of(*t);
    if (statically_true) return graph_->insert_constant(IValue(true), loc(obj.range));
    auto maybe_of_kind = [&](TypeKind k) {
      if (actual->kind() == TypeKind::Any) return true;
      if (const auto* o = actual->cast<OptionalType>()) return o->elem()->kind() == k;
      return false;
    };
    bool statically_false = true;
    for (const auto& t : types) {
      if (t->is_subtype_of(*actual) || (t->kind() == TypeKind::List && maybe_of_kind(TypeKind::List)) ||
          (t->kind() == TypeKind::Tuple && maybe_of_kind(TypeKind::Tuple)))
        statically_false = false;
    }
    if (statically_false) return graph_->insert_constant(IValue(false), loc(obj.range));
    return graph_->insert_node(graph_->create_is_instance(v, types))->output();
  }

  TypePtr type_of(const Expr& e) {
    TypeParseContext ctx;
    ctx.file = file_.where;
    ctx.resolve = [this](const std::string& n) { return cu_.find_type(n); };
    return type_from_expr(e, ctx);
  }

  const FunctionSchema* method_schema(const TypePtr& t, const std::string& method, const SourceRange& r) {
    const std::string cls = t->cast<ClassType>() ? t->expect<ClassType>().qualified_name() : t->expect<InterfaceType>().qualified_name();
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
      if (i == 0 && fn_.self_type) {
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
        case StmtKind::Return: emit_return(*s); break;
        case StmtKind::If: emit_if(*s); break;
        case StmtKind::While: emit_loop(*s, nullptr); break;
        case StmtKind::For: emit_for(*s); break;
        case StmtKind::Def: emit_closure(*s->def); break;
        case StmtKind::With: emit_with(*s); break;
        default: unsupported(s->range, fmt::format("this statement ({})", dump(*s).substr(0, 30)));
      }
      // Whatever follows an exit in the same block is unreachable and never emitted.
      if (exit_blocks_.count(frame().block)) return;
    }
  }

  // A nested def (the printer writes every fork as one): a prim::Closure whose block holds the body,
  // emitted with the enclosing function's counters and constants.
  void emit_closure(const FunctionDef& def) {
    if (!def.params.empty()) unsupported(def.range, "a nested function with parameters");
    Node* n = graph_->insert_node(graph_->create(prim::Closure, 1));
    n->output()->set_type(NoneType::get());
    Block* b = n->add_block();
    const TypePtr saved_declared = declared_return_, saved_merged = merged_return_;
    declared_return_ = def.returns ? type_of(*def.returns) : nullptr;
    merged_return_ = nullptr;
    push_frame(b);
    {
      WithInsertPoint guard(b);
      emit_statements(def.body);
      if (!merged_return_) merged_return_ = declared_return_ ? declared_return_ : NoneType::get();
      Value* placeholder = graph_->insert_node(graph_->create_uninitialized(merged_return_))->output();
      b->register_output(placeholder);
    }
    pop_frame();
    declared_return_ = saved_declared;
    merged_return_ = saved_merged;
    frame().value_table[def.name] = Sugared{Sugared::Kind::Closure, n->output(), def.name};
  }

  std::shared_ptr<Frame> emit_branch(Block* b, const std::vector<StmtPtr>& body) {
    push_frame(b);
    WithInsertPoint guard(b);
    emit_statements(body);
    return pop_frame();
  }

  void emit_if(const Stmt& s) {
    Value* cond = emit_to_bool(emit_expr(*s.value), s.value->range);
    // A constant condition compiles only the branch it selects (PyTorch's static if).
    if (auto c = to_ivalue(cond); c && c->is(IValue::Kind::Bool)) {
      emit_statements(c->to_bool() ? s.body : s.orelse);
      return;
    }
    Node* n = graph_->insert_node(graph_->create(prim::If, 0));
    n->set_source_location(loc(s.range));
    n->add_input(cond);
    Block* tb = n->add_block();
    Block* fb = n->add_block();
    auto save_true = emit_branch(tb, s.body);
    auto save_false = emit_branch(fb, s.orelse);
    const bool true_exits = exit_blocks_.count(tb) > 0, false_exits = exit_blocks_.count(fb) > 0;
    if (true_exits && false_exits) exit_blocks_.insert(n->owning_block());

    // Variables defined in one branch and visible in the other leave the if (each look-up in the
    // other branch's scope inserts a Load there, as PyTorch's does).
    std::set<std::string> mutated;
    for (const auto& [v, t] : save_true->type_table) {
      WithInsertPoint guard(fb);
      if (find_in_any_frame(save_false, v) || false_exits) mutated.insert(v);
    }
    for (const auto& [v, t] : save_false->type_table) {
      WithInsertPoint guard(tb);
      if (find_in_any_frame(save_true, v) || true_exits) mutated.insert(v);
    }
    for (const auto& x : mutated) {
      Value* tv = nullptr;
      Value* fv = nullptr;
      if (!true_exits) {
        WithInsertPoint guard(tb);
        tv = as_value(*find_in_any_frame(save_true, x), s.range);
      }
      if (!false_exits) {
        WithInsertPoint guard(fb);
        fv = as_value(*find_in_any_frame(save_false, x), s.range);
      }
      if (true_exits && false_exits) continue;
      if (true_exits) {
        tv = graph_->create_uninitialized(fv->type())->insert_before(tb->return_node())->output();
        graph_->create_store(x, tv)->insert_before(tb->return_node());
      } else if (false_exits) {
        fv = graph_->create_uninitialized(tv->type())->insert_before(fb->return_node())->output();
        graph_->create_store(x, fv)->insert_before(fb->return_node());
      }
      auto unified = unify_types(tv->type(), fv->type(), true);
      if (!unified) continue;  // differently typed in each branch: an error only if used later
      frame().type_table[x] = *unified;
    }
  }

  void emit_for(const Stmt& s) {
    Sugared it = emit_sugared(*s.value);
    if (s.targets.size() != 1 || s.targets[0]->kind != ExprKind::Name) unsupported(s.range, "this for-loop target");
    emit_loop(s, &it);
  }

  // while loops (iter null) and for loops over range() or a list.
  void emit_loop(const Stmt& s, const Sugared* iter) {
    Value* max_trip = nullptr;
    const RangeArgs* range = nullptr;
    Value* list = nullptr;
    if (iter) {
      if (iter->kind == Sugared::Kind::Range) {
        range = &ranges_.at(std::stoul(iter->name));
        if (!range->only_end) unsupported(s.range, "range() with a start or a step");
        max_trip = range->end;
      } else if (iter->kind == Sugared::Kind::Simple && iter->value->type()->kind() == TypeKind::List) {
        list = iter->value;
        max_trip = emit_builtin_call(*graph_, loc(s.range), "aten::len", {NamedValue{"", list, {}}}, {}, std::nullopt, where(s.range));
      } else {
        unsupported(s.value->range, "iterating over this value");
      }
    } else {
      max_trip = materialize(int_constants_, INT64_MAX, s.range);
    }
    Node* n = graph_->insert_node(graph_->create(prim::Loop, 0));
    n->set_source_location(loc(s.range));
    Block* body = n->add_block();
    {
      Block* cond_block = n->add_block();
      push_frame(cond_block);
      Value* out;
      if (!iter) {
        WithInsertPoint guard(cond_block);
        out = emit_to_bool(emit_expr(*s.value), s.value->range);
      } else {
        WithInsertPoint guard(n);
        out = graph_->insert_constant(IValue(true), loc(s.range));
      }
      cond_block->register_output(out);
      pop_frame();
    }
    n->add_input(max_trip);
    Value* trip = body->add_input()->set_type(IntType::get());
    push_frame(body);
    {
      WithInsertPoint guard(body);
      if (iter) {
        Value* elem = range ? trip
                            : emit_builtin_call(*graph_, loc(s.range), "aten::__getitem__",
                                                {NamedValue{"", list, {}}, NamedValue{"", trip, {}}}, {}, std::nullopt, where(s.range));
        set_var(s.targets[0]->range, s.targets[0]->text, simple(elem));
      }
      emit_statements(s.body);
    }
    pop_frame();
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
    if (target.kind == ExprKind::Attribute) {
      emit_select_assign(s, target);
      return;
    }
    unsupported(target.range, "this assignment target");
  }

  // `obj.field = v` (PyTorch's emitSelectAssign and SimpleValue::setAttr): the object first, then the
  // value, then prim::SetAttr (no output, no source range). The attribute keeps its declared type:
  // no implicit conversion is made.
  void emit_select_assign(const Stmt& s, const Expr& target) {
    TypePtr hint = s.annotation ? type_of(*s.annotation) : nullptr;
    Sugared obj = emit_sugared(*target.children[0]);
    Value* v = emit_expr(*s.value, hint);
    const std::string& field = target.text;
    const ClassType* cls = obj.kind == Sugared::Kind::Simple ? obj.value->type()->cast<ClassType>() : nullptr;
    if (!cls) unsupported(target.range, "assigning an attribute of this value");
    TypePtr expected = cls->find_attribute(field);
    if (!expected) {
      // Setting an attribute the class does not declare (property setters) is not something printed code does.
      invalid(s.range, fmt::format("tried to set nonexistent attribute '{}' of {}", field, cls->qualified_name()));
    }
    if (!v->type()->is_subtype_of(*expected))
      invalid(s.range, fmt::format("wrong type for attribute assignment: expected {} but got {}", expected->str(), v->type()->str()));
    graph_->insert_node(graph_->create_set_attr(obj.value, field, v));
  }

  // `with a as b, c:` (PyTorch's emitWith): prim::Enter of each object (its output typed as __enter__'s
  // return, assigned to the target), the body, then one prim::Exit per object, innermost first.
  void emit_with(const Stmt& s) {
    std::vector<Value*> entered;
    for (size_t i = 0; i < s.items.size(); ++i) {
      Value* obj = emit_expr(*s.items[i]);
      Node* n = graph_->insert_node(graph_->create(prim::Enter, {obj}, 1));
      entered.push_back(obj);
      const ClassType* cls = obj->type()->cast<ClassType>();
      if (!cls) invalid(s.items[i]->range, "with item expression must return an object");
      const auto* enter = cu_.find_method(cls->qualified_name(), "__enter__");
      const auto* exit = cu_.find_method(cls->qualified_name(), "__exit__");
      if (!enter || !exit) invalid(s.items[i]->range, "object returned by with item expression does not define __enter__ and __exit__");
      n->output()->set_type(function_schema(*enter).returns.at(0).type);
      const Expr* t = i < s.targets.size() ? s.targets[i].get() : nullptr;
      if (t) {
        if (t->kind != ExprKind::Name) unsupported(t->range, "this with target");
        set_var(t->range, t->text, simple(n->output()));
      }
    }
    emit_statements(s.body);
    for (auto it = entered.rbegin(); it != entered.rend(); ++it) graph_->insert_node(graph_->create(prim::Exit, {*it}, 1));
  }

  void emit_return(const Stmt& s) {
    Value* v = s.value ? emit_expr(*s.value, declared_return_) : graph_->insert_constant(IValue(), loc(s.range));
    if (declared_return_) {
      if (!(v->type()->is_subtype_of(*TensorType::get()) && v->type()->is_subtype_of(*NoneType::get())))
        v = try_convert_to_type(*graph_, loc(s.range), declared_return_, v, true);
      if (!v->type()->is_subtype_of(*declared_return_))
        invalid(s.range, fmt::format("returns a value of type {} but is declared to return {}", v->type()->str(),
                                     declared_return_->str()));
    }
    const TypePtr result = declared_return_ ? declared_return_ : v->type();
    if (!merged_return_) merged_return_ = result;
    else if (auto u = unify_types(merged_return_, result)) merged_return_ = *u;
    graph_->insert_node(graph_->create(prim::ReturnStmt, {v}, 0));
    exit_blocks_.insert(frame().block);
  }

  CompilationUnit& cu_;
  const CompilationUnit::Function& fn_;
  const CompilationUnit::CodeFile& file_;
  std::shared_ptr<Graph> graph_;
  std::shared_ptr<Frame> frame_;
  std::set<const Block*> exit_blocks_;  // blocks that end in a return (or whose ifs all exit)
  struct RangeArgs {
    Value* start;
    Value* end;
    Value* step;
    bool only_end;
  };
  std::vector<RangeArgs> ranges_;
  TypePtr declared_return_;  // null for a nested def without a return annotation
  TypePtr merged_return_;
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
    if (i == 0 && fn.self_type) a.type = fn.self_type;
    else a.type = p.annotation ? type_from_expr(*p.annotation, ctx) : TensorType::get();
    a.real_type = a.type;
    if (p.default_value) {
      // Defaults are literals in printed code; anything else is compiled by PyTorch too, later.
      const Expr& d = *p.default_value;
      auto v = literal_value(d);
      if (!v)
        throw Unsupported(fmt::format("{}:{}:{}: this default value is not supported yet", f.where, d.range.line, d.range.col));
      a.default_value = *v;
    }
    s.arguments.push_back(std::move(a));
  }
  Argument r;
  r.type = r.real_type = fn.def->returns ? type_from_expr(*fn.def->returns, ctx) : NoneType::get();
  s.returns.push_back(std::move(r));
  return s;
}

std::shared_ptr<Graph> emit_function(CompilationUnit& cu, const CompilationUnit::Function& fn) {
  ScopedSchemaVersion schemas(cu.schema_version(), cu.format_version());
  return Emitter(cu, fn).run();
}

std::shared_ptr<Graph> compile_function(CompilationUnit& cu, const CompilationUnit::Function& fn) {
  ScopedSchemaVersion schemas(cu.schema_version(), cu.format_version());
  auto g = emit_function(cu, fn);
  // As PyTorch 1.13 after emitDef: old operators become their upgraders' bodies.
  if (cu.format_version() >= 0) {
    replace_old_operators(*g, cu.format_version());
    attach_builtin_schemas(g->block());
  }
  run_pipeline("convert-to-ssa", *g);
  run_pipeline("cleanup", *g);
  return g;
}

}  // namespace jitctl
