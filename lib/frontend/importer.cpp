#include "lib/frontend/importer.h"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <limits>
#include <optional>

#include "lib/core/error.h"
#include "lib/frontend/graph_function.h"
#include "lib/frontend/ir_emitter.h"
#include "lib/frontend/parser.h"
#include "lib/ops/schema_registry.h"
#include "lib/frontend/type_parser.h"

namespace jitctl {
namespace {

// Nesting of types defined through one another (a NamedTuple field of a NamedTuple ...): a hostile
// chain must end in an error, not a stack overflow.
constexpr size_t kMaxDefinitionDepth = 128;

[[noreturn]] void fail_at(const CompilationUnit::CodeFile& f, const SourceRange& r, const std::string& what) {
  throw InvalidInput(fmt::format("{}:{}:{}: {}", f.where, r.line, r.col, what));
}

std::string base_name(const ClassDef& c) {
  if (c.bases.empty()) return "object";
  const Expr& b = *c.bases[0];
  if (b.kind == ExprKind::Name) return b.text;
  if (b.kind == ExprKind::Attribute && b.children[0]->kind == ExprKind::Name) return b.children[0]->text + "." + b.text;
  return "";
}

}  // namespace

// Literal values of class bodies (Final constants, enum members, NamedTuple defaults) and of
// parameter defaults.
std::optional<IValue> literal_value(const Expr& e) {
  switch (e.kind) {
    case ExprKind::Int:
      if (e.int_value > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return std::nullopt;
      return IValue(static_cast<int64_t>(e.int_value));
    case ExprKind::Float: return IValue(e.float_value);
    case ExprKind::String: return IValue(e.text);
    case ExprKind::None: return IValue();
    case ExprKind::True: return IValue(true);
    case ExprKind::False: return IValue(false);
    case ExprKind::Name:
      if (e.text == "inf") return IValue(std::numeric_limits<double>::infinity());
      if (e.text == "nan") return IValue(std::numeric_limits<double>::quiet_NaN());
      return std::nullopt;
    case ExprKind::Unary: {
      if (e.op != Op::Neg) return std::nullopt;
      const Expr& x = *e.children[0];
      if (x.kind == ExprKind::Int && x.int_value <= uint64_t(1) << 63)
        return IValue(static_cast<int64_t>(0 - x.int_value));
      auto v = literal_value(x);
      if (v && v->is(IValue::Kind::Double)) return IValue(-v->to_double());
      return std::nullopt;
    }
    case ExprKind::Tuple:
    case ExprKind::List: {
      auto t = std::make_shared<TupleData>();
      for (const auto& c : e.children) {
        auto v = literal_value(*c);
        if (!v) return std::nullopt;
        t->items.push_back(*v);
      }
      if (e.kind == ExprKind::Tuple) return IValue(t);
      auto l = std::make_shared<ListData>();
      l->items = std::move(t->items);
      return IValue(l);
    }
    default: return std::nullopt;
  }
}

namespace {

std::optional<IValue> literal(const Expr& e) { return literal_value(e); }

std::vector<std::string> string_list(const Expr& e, const CompilationUnit::CodeFile& f) {
  if (e.kind != ExprKind::List) fail_at(f, e.range, "expected a list of attribute names");
  std::vector<std::string> out;
  for (const auto& c : e.children) {
    if (c->kind != ExprKind::String) fail_at(f, c->range, "expected a quoted attribute name");
    out.push_back(c->text);
  }
  return out;
}

bool is_name(const Expr& e, std::string_view s) { return e.kind == ExprKind::Name && e.text == s; }

}  // namespace

CompilationUnit::CompilationUnit(std::string origin) : origin_(std::move(origin)) {}

// Does code call `torch.NAME` for an operator 2.0 has and 1.13 does not?
static bool calls_operator_new_in_2_0(const std::string& text) {
  const SchemaRegistry& old = SchemaRegistry::for_version("1.13");
  for (size_t at = text.find("torch."); at != std::string::npos; at = text.find("torch.", at + 6)) {
    // `torch.X(`, not `__torch__.torch.nn...` nor `a.torch.x`
    if (at > 0 && (std::isalnum(static_cast<unsigned char>(text[at - 1])) || text[at - 1] == '_' || text[at - 1] == '.')) continue;
    size_t end = at + 6;
    while (end < text.size() && (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '_')) ++end;
    const std::string op = "aten::" + text.substr(at + 6, end - at - 6);
    // 2.0's index is built only for a name 1.13 lacks (code that 1.13 compiles never pays).
    if (old.overloads(op).empty() && !SchemaRegistry::for_version("2.0").overloads(op).empty()) return true;
  }
  return false;
}

std::string_view CompilationUnit::schema_version() const {
  std::call_once(scanned_, [this] {
    if (!scan_for_2_0_) return;
    for (const auto& f : files_)
      if (calls_operator_new_in_2_0(f->text)) {
        schema_version_ = "2.0";
        return;
      }
  });
  return schema_version_;
}

void CompilationUnit::add_file(std::unique_ptr<CodeFile> f) {
  for (const auto& s : f->ast.body) {
    if (s->kind == StmtKind::Class) {
      const std::string name = f->qualifier + "." + s->cls->name;
      if (!definitions_.emplace(name, Definition{s->cls.get(), f.get()}).second)
        fail_at(*f, s->range, fmt::format("class {} is defined twice", name));
    } else if (s->kind == StmtKind::Def) {
      const std::string name = f->qualifier + "." + s->def->name;
      if (!functions_.emplace(name, Function{name, s->def.get(), f.get(), nullptr, nullptr}).second)
        fail_at(*f, s->range, fmt::format("function {} is defined twice", name));
    }
  }
  files_.push_back(std::move(f));
}

CompilationUnit::~CompilationUnit() {
  for (auto& c : classes_) c->release();
  for (auto& i : interfaces_) i->release();
}

TypePtr CompilationUnit::find_type(std::string_view qualified_name) {
  if (auto it = types_.find(qualified_name); it != types_.end()) return it->second;
  auto d = definitions_.find(qualified_name);
  if (d == definitions_.end()) return nullptr;
  return define(d->first, d->second);
}

std::shared_ptr<ClassType> CompilationUnit::find_class(std::string_view qualified_name) {
  auto t = find_type(qualified_name);
  if (!t || !t->cast<ClassType>()) return nullptr;
  for (const auto& c : classes_)
    if (c.get() == t.get()) return c;
  return nullptr;
}

const CompilationUnit::Function* CompilationUnit::find_method(std::string_view class_name, std::string_view method) {
  const TypePtr t = find_type(class_name);
  if (!t || (!t->cast<ClassType>() && !t->cast<InterfaceType>())) return nullptr;
  auto it = functions_.find(fmt::format("{}.{}", class_name, method));
  return it == functions_.end() ? nullptr : &it->second;
}

const CompilationUnit::Function* CompilationUnit::find_function(std::string_view qualified_name) {
  auto it = functions_.find(qualified_name);
  return it == functions_.end() || it->second.owner ? nullptr : &it->second;
}

GraphFunction* CompilationUnit::graph_function(const std::string& owner, const std::string& method) {
  const auto key = std::make_pair(owner, method);
  if (auto it = graph_functions_.find(key); it != graph_functions_.end()) return it->second.get();
  const Function* fn = method.empty() ? find_function(owner) : find_method(owner, method);
  if (!fn) {
    if (method.empty())
      throw InvalidInput(fmt::format("{}: a call to function {}, which the archive does not define", origin_, owner));
    if (find_class(owner)) throw InvalidInput(fmt::format("{}: class {} has no method '{}'", origin_, owner, method));
    return nullptr;  // a class the code does not define: a torch.classes C++ class
  }
  auto made = std::make_unique<GraphFunction>(
      fn->qualified_name, [this, fn] { return compile_function(*this, *fn); },
      [this](const std::string& o, const std::string& m) { return graph_function(o, m); });
  return graph_functions_.emplace(key, std::move(made)).first->second.get();
}

TypePtr CompilationUnit::type_of(const Expr& e, const CodeFile& file) {
  TypeParseContext ctx;
  ctx.file = file.where;
  ctx.resolve = [this](const std::string& name) { return find_type(name); };
  return type_from_expr(e, ctx);
}

MethodSignature CompilationUnit::signature_of(const FunctionDef& def, const CodeFile& file) {
  MethodSignature sig;
  sig.name = def.name;
  for (const auto& p : def.params) {
    if (p.stars) fail_at(file, p.range, "*args and **kwargs are not TorchScript");
    // Python's default for an unannotated parameter is Tensor (self's type is known anyway).
    sig.arguments.push_back({p.name, p.annotation ? type_of(*p.annotation, file) : TensorType::get()});
  }
  sig.returns.push_back({"", def.returns ? type_of(*def.returns, file) : NoneType::get()});
  return sig;
}

TypePtr CompilationUnit::define(const std::string& name, const Definition& d) {
  const CodeFile& f = *d.file;
  const ClassDef& c = *d.cls;
  if (defining_.count(name)) fail_at(f, c.range, fmt::format("type {} is defined in terms of itself", name));
  if (defining_.size() >= kMaxDefinitionDepth)
    fail_at(f, c.range, fmt::format("types nest deeper than {}", kMaxDefinitionDepth));
  defining_.insert(name);
  struct Done {
    std::set<std::string, std::less<>>& s;
    const std::string& n;
    ~Done() { s.erase(n); }
  } done{defining_, name};

  const std::string base = base_name(c);
  if (base == "Module" || base == "object") {
    auto cls = ClassType::create(name, base == "Module");
    classes_.push_back(cls);
    types_[name] = cls;  // before filling: attributes and methods may name the class itself
    fill_class(*cls, d);
    return cls;
  }
  if (base == "Interface" || base == "ModuleInterface") {
    auto iface = InterfaceType::create(name, base == "ModuleInterface");
    interfaces_.push_back(iface);
    types_[name] = iface;
    for (const auto& s : c.body)
      if (s->kind == StmtKind::Def) {
        iface->add_method(signature_of(*s->def, f));
        const std::string qn = name + "." + s->def->name;
        functions_[qn] = Function{qn, s->def.get(), &f, nullptr, iface};
      }
    return iface;
  }
  if (base == "NamedTuple") {
    std::vector<std::string> fields;
    std::vector<TypePtr> types;
    std::vector<std::optional<IValue>> defaults;
    bool any_default = false;
    for (const auto& s : c.body) {
      if (s->kind == StmtKind::Pass) continue;
      if (s->kind != StmtKind::Assign || !s->annotation || s->targets.size() != 1 || s->targets[0]->kind != ExprKind::Name)
        fail_at(f, s->range, "expected a NamedTuple field `name : Type`");
      fields.push_back(s->targets[0]->text);
      types.push_back(type_of(*s->annotation, f));
      defaults.push_back(s->value ? literal(*s->value) : std::nullopt);
      if (s->value && !defaults.back()) fail_at(f, s->value->range, "a NamedTuple default must be a literal");
      any_default = any_default || s->value;
    }
    if (!any_default) defaults.clear();
    return types_[name] = TupleType::create_named(name, std::move(fields), std::move(types), std::move(defaults));
  }
  if (base == "Enum") {
    std::vector<std::pair<std::string, IValue>> members;
    TypePtr value_type;
    for (const auto& s : c.body) {
      if (s->kind == StmtKind::Pass) continue;
      std::optional<IValue> v;
      if (s->kind == StmtKind::Assign && s->targets.size() == 1 && s->targets[0]->kind == ExprKind::Name && s->value)
        v = literal(*s->value);
      if (!v) fail_at(f, s->range, "expected an enum member `NAME = literal`");
      TypePtr t = v->is(IValue::Kind::Int) ? IntType::get() : v->is(IValue::Kind::Double) ? FloatType::get()
                : v->is(IValue::Kind::String) ? StringType::get() : nullptr;
      if (!t || (value_type && !t->equals(*value_type))) fail_at(f, s->range, "enum values must all be int, float or str");
      value_type = t;
      members.emplace_back(s->targets[0]->text, *v);
    }
    if (!value_type) fail_at(f, c.range, "an enum needs members");
    return types_[name] = EnumType::create(name, value_type, std::move(members));
  }
  fail_at(f, c.range, fmt::format("class {} has an unknown base '{}'", name, base));
}

void CompilationUnit::fill_class(ClassType& cls, const Definition& d) {
  const CodeFile& f = *d.file;
  std::vector<std::string> params, buffers;
  for (const auto& s : d.cls->body) {
    if (s->kind != StmtKind::Assign || s->targets.size() != 1 || s->annotation || !s->value) continue;
    if (is_name(*s->targets[0], "__parameters__")) params = string_list(*s->value, f);
    if (is_name(*s->targets[0], "__buffers__")) buffers = string_list(*s->value, f);
  }
  auto kind_of = [&](const std::string& n) {
    for (const auto& p : params)
      if (p == n) return ClassType::AttributeKind::Parameter;
    for (const auto& b : buffers)
      if (b == n) return ClassType::AttributeKind::Buffer;
    return ClassType::AttributeKind::Regular;
  };
  for (const auto& s : d.cls->body) {
    switch (s->kind) {
      case StmtKind::Assign: {
        const Expr& target = *s->targets[0];
        if (s->annotation && target.kind == ExprKind::Name) {
          TypeParseContext ctx;
          ctx.file = f.where;
          ctx.resolve = [this](const std::string& n) { return find_type(n); };
          const Annotation a = annotation_from_expr(*s->annotation, ctx);
          if (a.is_final) {
            auto v = s->value ? literal(*s->value) : std::nullopt;
            if (!v) fail_at(f, s->range, fmt::format("constant {} needs a literal value", target.text));
            cls.add_constant(target.text, *v);
          } else {
            cls.add_attribute(target.text, a.type, kind_of(target.text));
          }
        } else if (!s->annotation && target.kind == ExprKind::Subscript && is_name(*target.children[0], "__annotations__") &&
                   target.children.size() == 2 && target.children[1]->kind == ExprKind::String && s->value) {
          // `__annotations__["0"] = T`: an attribute whose name is not an identifier.
          cls.add_attribute(target.children[1]->text, type_of(*s->value, f), kind_of(target.children[1]->text));
        } else if (!is_name(target, "__parameters__") && !is_name(target, "__buffers__")) {
          fail_at(f, s->range, "unexpected assignment in a class body");
        }
        break;
      }
      case StmtKind::Def: {
        cls.add_method(signature_of(*s->def, f));
        const std::string qn = cls.qualified_name() + "." + s->def->name;
        functions_[qn] = Function{qn, s->def.get(), &f, nullptr, nullptr};
        break;
      }
      case StmtKind::Pass:
      case StmtKind::Expr: break;  // pass, docstrings
      default: fail_at(f, s->range, "unexpected statement in a class body");
    }
  }
  // Methods remember their class (set after the loop: find_class() needs the type registered).
  for (auto& c : classes_)
    if (c.get() == &cls)
      for (const auto& m : cls.methods()) {
        auto& fn = functions_[cls.qualified_name() + "." + m.name];
        fn.owner = c;
        fn.self_type = c;
      }
}

}  // namespace jitctl
