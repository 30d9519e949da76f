#include "lib/frontend/schema_matching.h"

#include <fmt/format.h>

#include <algorithm>

#include "lib/core/error.h"
#include "lib/ops/schema_registry.h"

namespace jitctl {
namespace {

TypePtr unwrap_optional(const TypePtr& t) {
  if (auto* o = t->cast<OptionalType>()) return o->elem();
  return t;
}

bool convertible_to_list(const TypePtr& type, const TypePtr& list_type) {
  auto* list = list_type->cast<ListType>();
  if (!list) return false;
  if (type->is_subtype_of(*list_type)) return true;
  if (auto* tuple = type->cast<TupleType>()) {
    return std::all_of(tuple->elements().begin(), tuple->elements().end(),
                       [&](const TypePtr& t) { return t->is_subtype_of(*list->elem()); });
  }
  return false;
}

// `int[2] stride`: a single int may stand for the whole list.
bool int_or_float_used_as_list(const Value* v, const Argument& arg) {
  const auto k = v->type()->kind();
  if (k != TypeKind::Float && k != TypeKind::Int) return false;
  auto* list = unwrap_optional(arg.type)->cast<ListType>();
  return list && list->elem()->kind() == k && arg.N;
}

// Trailing positional arguments may be packed into the last non-keyword list argument.
bool varargs_can_be_used_as_list(const FunctionSchema& schema, size_t i, const Argument& arg) {
  const bool last = i + 1 == schema.arguments.size() || schema.arguments[i + 1].kwarg_only;
  auto* list = arg.type->cast<ListType>();
  const bool typevar_list = list && list->elem()->kind() == TypeKind::Var;
  return last && list && !arg.N && !typevar_list;
}

std::vector<Value*> tuple_unpack(Graph& g, Value* tuple) {
  if (tuple->node()->kind() == prim::TupleConstruct) return tuple->node()->inputs();
  Node* n = g.insert_node(g.create_tuple_unpack(tuple));
  return n->outputs();
}

Value* try_match_argument(const Argument& arg, Graph& g, const std::optional<SourceLocation>& loc, const NamedValue& nv,
                          bool allow_conversions, TypeEnv& env, std::string* why_not) {
  Value* value = nv.materialize(g);
  if (int_or_float_used_as_list(value, arg)) {
    std::vector<Value*> repeated(static_cast<size_t>(*arg.N), value);
    value = g.insert_node(g.create_list(value->type(), repeated))->output();
  }
  if (std::string why = match_type_variables(arg.type, value->type(), env); !why.empty()) {
    if (why_not) *why_not = fmt::format("argument '{}': {}", arg.name, why);
    return nullptr;
  }
  TypePtr concrete = try_eval_type_variables(arg.type, env);
  if (!concrete) {
    if (why_not) *why_not = fmt::format("argument '{}': could not infer the type variables of {}", arg.name, arg.type->str());
    return nullptr;
  }
  value = try_convert_to_type(g, loc, concrete, value, allow_conversions);
  if (!value->type()->is_subtype_of(*concrete)) {
    if (why_not)
      *why_not = fmt::format("expected a value of type '{}' for argument '{}' but found '{}'", concrete->str(), arg.name,
                             value->type()->str());
    return nullptr;
  }
  return value;
}

Value* try_create_list(const TypePtr& elem_type, Graph& g, const std::optional<SourceLocation>& loc,
                       const std::vector<NamedValue>& varargs, size_t from, bool allow_conversions, TypeEnv& env,
                       std::string* why_not) {
  Argument elem;
  elem.name = "<varargs>";
  elem.type = elem.real_type = elem_type;
  std::vector<Value*> items;
  for (size_t i = from; i < varargs.size(); ++i) {
    Value* v = try_match_argument(elem, g, loc, varargs[i], allow_conversions, env, why_not);
    if (!v) return nullptr;
    items.push_back(v);
  }
  return g.insert_node(g.create_list(elem_type, items))->output();
}

}  // namespace

Value* NamedValue::materialize(Graph& g) const {
  if (value) return value;
  return g.insert_constant(*constant);
}

Value* try_convert_to_type(Graph& g, const std::optional<SourceLocation>& loc, const TypePtr& type, Value* v,
                           bool allow_conversions) {
  // Conversion to Optional[T] is conversion to T.
  if (auto* o = type->cast<OptionalType>()) {
    if (v->type()->kind() != TypeKind::Optional && !v->type()->is_subtype_of(*NoneType::get()))
      return try_convert_to_type(g, loc, o->elem(), v, allow_conversions);
  }
  if (auto* vt = v->type()->cast<TupleType>()) {
    // Homogeneous tuples become lists where a list is expected.
    if (convertible_to_list(v->type(), unwrap_optional(type))) {
      auto items = tuple_unpack(g, v);
      v = g.insert_node(g.create_list(unwrap_optional(type)->expect<ListType>().elem(), items))->output();
    }
    if (auto* ct = type->cast<TupleType>()) {
      if (vt && !v->type()->is_subtype_of(*type) && ct->elements().size() == vt->elements().size()) {
        auto items = tuple_unpack(g, v);
        std::vector<Value*> converted;
        for (size_t i = 0; i < ct->elements().size(); ++i)
          converted.push_back(try_convert_to_type(g, loc, ct->elements()[i], items[i], allow_conversions));
        v = g.insert_node(g.create_tuple(converted))->output();
      }
    }
  }
  if (allow_conversions) {
    const Type& vt = *v->type();
    const bool is_tensor = vt.is_subtype_of(*TensorType::get());
    const bool is_number = vt.equals(*NumberType::get());
    const auto k = type->kind();
    auto convert = [&](const char* op) { return emit_builtin_call(g, loc, op, {NamedValue{"", v, {}}}, {}, std::nullopt, ""); };
    if (is_tensor) {
      if (k == TypeKind::Float) v = convert("aten::FloatImplicit");
      else if (k == TypeKind::Complex) v = convert("aten::ComplexImplicit");
      else if (k == TypeKind::Int) v = convert("aten::IntImplicit");
      else if (k == TypeKind::Number) v = convert("aten::ScalarImplicit");
    } else if (is_number) {
      if (k == TypeKind::Float) v = convert("aten::Float");
      else if (k == TypeKind::Complex) v = convert("aten::Complex");
      else if (k == TypeKind::Int) v = convert("aten::Int");
    } else if (vt.kind() == TypeKind::Bool) {
      if (k == TypeKind::Float) v = convert("aten::Float");
      else if (k == TypeKind::Int || k == TypeKind::Number) v = convert("aten::Int");
    }
    if (v->type()->is_subtype_of(*StringType::get()) && type->is_subtype_of(*DeviceObjType::get()))
      return convert("aten::device");
  }
  return v;
}

std::optional<MatchedSchema> try_match_schema(const FunctionSchema& schema, Graph& g,
                                              const std::optional<SourceLocation>& loc,
                                              const std::vector<NamedValue>& args,
                                              const std::vector<NamedValue>& kwargs,
                                              const std::optional<NamedValue>& self_in, bool allow_conversions,
                                              std::string* why_not) {
  TypeEnv env;
  std::optional<NamedValue> self = self_in;
  std::vector<Value*> inputs;
  std::vector<bool> used_kwarg(kwargs.size(), false);
  size_t used_args = 0;
  for (size_t i = 0; i < schema.arguments.size(); ++i) {
    const Argument& arg = schema.arguments[i];
    std::optional<NamedValue> actual;
    if (arg.name == "self" && self) {
      actual = self;
      self.reset();
    } else if (!arg.kwarg_only && used_args < args.size()) {
      if (allow_conversions && varargs_can_be_used_as_list(schema, i, arg)) {
        Value* first = args[used_args].materialize(g);
        if (first->type()->kind() != TypeKind::List && !convertible_to_list(first->type(), unwrap_optional(arg.type))) {
          const TypePtr elem = unwrap_optional(arg.type)->expect<ListType>().elem();
          Value* list = try_create_list(elem, g, loc, args, used_args, allow_conversions, env, why_not);
          if (!list) return std::nullopt;
          used_args = args.size();
          inputs.push_back(list);
          continue;
        }
      }
      actual = args[used_args++];
    } else if (auto it = std::find_if(kwargs.begin(), kwargs.end(), [&](const NamedValue& k) { return k.name == arg.name; });
               it != kwargs.end()) {
      const size_t k = static_cast<size_t>(it - kwargs.begin());
      if (used_kwarg[k]) {
        if (why_not) *why_not = fmt::format("argument '{}' specified twice", arg.name);
        return std::nullopt;
      }
      used_kwarg[k] = true;
      actual = *it;
    } else if (arg.default_value) {
      actual = NamedValue{arg.name, nullptr, arg.default_value};
    } else {
      if (why_not) *why_not = fmt::format("argument '{}' not provided", arg.name);
      return std::nullopt;
    }
    Value* v = try_match_argument(arg, g, loc, *actual, allow_conversions, env, why_not);
    if (!v) return std::nullopt;
    inputs.push_back(v);
  }
  if (self) {
    if (why_not) *why_not = "provided self argument not used in schema";
    return std::nullopt;
  }
  if (schema.is_vararg)
    for (; used_args < args.size(); ++used_args) inputs.push_back(args[used_args].materialize(g));
  if (used_args < args.size()) {
    if (why_not) *why_not = fmt::format("expected at most {} arguments but found {}", used_args, args.size());
    return std::nullopt;
  }
  for (size_t k = 0; k < kwargs.size(); ++k)
    if (!used_kwarg[k]) {
      if (why_not) *why_not = fmt::format("keyword argument {} unknown", kwargs[k].name);
      return std::nullopt;
    }
  MatchedSchema m;
  m.inputs = std::move(inputs);
  m.schema = &schema;
  const bool named_returns = std::all_of(schema.returns.begin(), schema.returns.end(), [](const Argument& r) { return !r.name.empty(); });
  for (const auto& r : schema.returns) {
    TypePtr t = try_eval_type_variables(r.type, env);
    if (!t) throw InvalidInput(fmt::format("{}: return type {} has unbound type variables", schema.str(), r.type->str()));
    m.return_types.push_back(t);
    if (named_returns) m.return_field_names.push_back(r.name);
  }
  if (!named_returns) m.return_field_names.clear();
  return m;
}

std::pair<size_t, MatchedSchema> match_schemas(const std::vector<const FunctionSchema*>& schemas, Graph& g,
                                               const std::optional<SourceLocation>& loc,
                                               const std::vector<NamedValue>& args,
                                               const std::vector<NamedValue>& kwargs,
                                               const std::optional<NamedValue>& self, const std::string& where) {
  std::string reasons;
  const bool single = schemas.size() == 1;
  for (bool allow_conversions : {false, true}) {
    if (single && !allow_conversions) continue;
    reasons.clear();
    for (size_t i = 0; i < schemas.size(); ++i) {
      std::string why;
      if (auto m = try_match_schema(*schemas[i], g, loc, args, kwargs, self, allow_conversions, &why))
        return {i, std::move(*m)};
      reasons += fmt::format("; {}: {}", schemas[i]->full_name(), why);
    }
  }
  throw InvalidInput(fmt::format("{}: arguments for call are not valid{}", where, reasons.substr(0, 600)));
}

Value* pack_outputs(Graph& g, const std::vector<Value*>& values, const std::vector<std::string>& field_names) {
  if (values.size() == 1) return values[0];
  TypePtr named;
  if (!field_names.empty() || values.empty()) {
    std::vector<TypePtr> types;
    for (auto* v : values) types.push_back(v->type());
    named = TupleType::create_named("", field_names, types);
  }
  return g.insert_node(g.create_tuple(values, named))->output();
}

Value* emit_builtin_call(Graph& g, const std::optional<SourceLocation>& loc, const std::string& name,
                         const std::vector<NamedValue>& args, const std::vector<NamedValue>& kwargs,
                         const std::optional<NamedValue>& self, const std::string& where) {
  // Code written before an operator changed matches its old schema first (gelu(x) of an archive
  // before version 10 is gelu(Tensor self), which the upgrader then turns into gelu(x, "none")).
  std::vector<const FunctionSchema*> schemas = historic_overloads(name);
  for (const auto& s : SchemaRegistry::builtin().overloads(name)) schemas.push_back(&s);
  if (schemas.empty()) throw Unsupported(fmt::format("{}: unknown builtin op {}", where, name));
  auto [index, m] = match_schemas(schemas, g, loc, args, kwargs, self, where);
  Node* n = g.insert_node(g.create(Symbol::from_qual_string(name), m.inputs, 0));
  n->set_source_location(loc);
  for (const auto& t : m.return_types) n->add_output()->set_type(t);
  n->set_schema(m.schema);  // after the outputs: adding one clears it
  return pack_outputs(g, n->outputs(), m.return_field_names);
}

const FunctionSchema* match_builtin_schema(const Node* n) {
  for (const FunctionSchema& s : SchemaRegistry::builtin().overloads(n->kind().qual_string())) {
    if (s.is_vararg ? n->inputs().size() < s.arguments.size() : n->inputs().size() != s.arguments.size()) continue;
    if (!s.is_varret && n->outputs().size() != s.returns.size()) continue;
    TypeEnv env;
    bool fits = true;
    for (size_t i = 0; i < s.arguments.size() && fits; ++i) {
      const TypePtr& formal = s.arguments[i].type;
      const TypePtr& actual = n->input(i)->type();
      fits = formal->has_free_variables() ? match_type_variables(formal, actual, env).empty()
                                          : actual->is_subtype_of(formal);
    }
    if (fits) return &s;
  }
  return nullptr;
}

void attach_builtin_schemas(Block* b) {
  for (Node* n : b->nodes()) {
    if (!n->schema() && (n->kind().is_aten() || n->kind().is_prim()))
      if (const FunctionSchema* s = match_builtin_schema(n)) n->set_schema(s);
    for (Block* sub : n->blocks()) attach_builtin_schemas(sub);
  }
}

}  // namespace jitctl
