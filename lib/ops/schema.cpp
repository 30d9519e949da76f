// The schema language of PyTorch 1.13's function_schema_parser.cpp and schema_type_parser.cpp,
// and FunctionSchema's printer. The parser keeps what the printer needs to reproduce its input:
// the real (written) type next to the compiler's, a fixed list size, alias sets in written order.
#include "lib/ops/schema.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <map>
#include <mutex>
#include <unordered_map>

#include "lib/core/error.h"
#include "lib/core/string_literal.h"

namespace jitctl {

// ---------------------------------------------------------------------------------------------
// Printing

bool AliasInfo::is_wildcard_before() const {
  return std::find(before_sets.begin(), before_sets.end(), "*") != before_sets.end();
}

bool AliasInfo::is_wildcard_after() const {
  return std::find(after_sets.begin(), after_sets.end(), "*") != after_sets.end();
}

namespace {

std::string join_sets(const std::vector<std::string>& sets) {
  std::string out;
  for (size_t i = 0; i < sets.size(); ++i) out += (i ? "|" : "") + sets[i];
  return out;
}

bool same_sets(std::vector<std::string> a, std::vector<std::string> b) {
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  return a == b;
}

}  // namespace

std::string AliasInfo::str() const {
  std::string out = "(" + join_sets(before_sets);
  if (is_write) out += "!";
  if (!same_sets(before_sets, after_sets)) out += " -> " + join_sets(after_sets);
  return out + ")";
}

// One quoting for schemas and graph attributes, as c10 has one printQuotedString.
std::string Argument::str() const {
  // Optional's `?` goes after the alias annotation (`Tensor(a)?`), the only order the parser takes.
  const auto* opt = real_type->cast<OptionalType>();
  const TypePtr& unopt = opt ? opt->elem() : real_type;
  std::string out;
  if (auto* list = unopt->cast<ListType>()) {
    // A fixed size lives on the argument, not on the type.
    out += list->elem()->str();
    if (alias_info && !alias_info->contained.empty()) out += alias_info->contained[0].str();
    out += N ? fmt::format("[{}]", *N) : "[]";
  } else {
    out += unopt->str();
  }
  if (alias_info && !alias_info->before_sets.empty()) out += alias_info->str();
  if (opt) out += "?";
  if (!name.empty()) out += " " + name;
  if (!default_value) return out;

  out += "=";
  const IValue& v = *default_value;
  const auto* rlist = real_type->cast<ListType>();
  if ((real_type->kind() == TypeKind::String || unopt->kind() == TypeKind::String) && v.is(IValue::Kind::String)) {
    out += quote_string(v.to_string());
  } else if (rlist && rlist->elem()->kind() == TypeKind::Int && v.is(IValue::Kind::List)) {
    // native_functions.yaml writes `int[2] stride=1` for [1, 1]; print it back that way.
    const auto& items = v.to_list()->items;
    const bool all_same = items.size() > 1 && std::all_of(items.begin(), items.end(), [&](const IValue& x) {
                            return x.to_int() == items[0].to_int();
                          });
    out += all_same ? format_ivalue(items[0]) : format_ivalue(v);
  } else {
    out += format_ivalue(v);
  }
  return out;
}

std::string FunctionSchema::full_name() const {
  return overload_name.empty() ? name : name + "." + overload_name;
}

std::string_view FunctionSchema::name_space() const {
  const auto colons = name.find("::");
  return colons == std::string::npos ? std::string_view() : std::string_view(name).substr(0, colons);
}

std::optional<size_t> FunctionSchema::argument_index(std::string_view arg_name) const {
  for (size_t i = 0; i < arguments.size(); ++i)
    if (arguments[i].name == arg_name) return i;
  return std::nullopt;
}

bool FunctionSchema::is_mutable() const {
  return std::any_of(arguments.begin(), arguments.end(), [](const Argument& a) { return a.is_write(); });
}

MethodSignature FunctionSchema::signature() const {
  MethodSignature sig;
  sig.name = name;
  for (const auto& a : arguments) sig.arguments.push_back({a.name, a.type});
  for (const auto& r : returns) sig.returns.push_back({r.name, r.type});
  return sig;
}

std::string FunctionSchema::str() const {
  std::string out = full_name() + "(";
  bool seen_kwarg_only = false;
  for (size_t i = 0; i < arguments.size(); ++i) {
    if (i > 0) out += ", ";
    if (arguments[i].kwarg_only && !seen_kwarg_only) {
      out += "*, ";
      seen_kwarg_only = true;
    }
    out += arguments[i].str();
  }
  if (is_vararg) out += arguments.empty() ? "..." : ", ...";
  out += ") -> ";

  // One return goes without parentheses -- unless its text starts with one, as a tuple's does
  // (`-> ((str, t)[])`), which would read back as a list of returns.
  bool paren = !((returns.size() == 1 && !is_varret) || (returns.empty() && is_varret));
  std::vector<std::string> rets;
  for (const auto& r : returns) rets.push_back(r.str());
  if (returns.size() == 1 && !is_varret && rets[0].starts_with("(")) paren = true;
  if (paren) out += "(";
  for (size_t i = 0; i < rets.size(); ++i) out += (i ? ", " : "") + rets[i];
  if (is_varret) out += returns.empty() ? "..." : ", ...";
  if (paren) out += ")";
  return out;
}

// ---------------------------------------------------------------------------------------------
// Custom classes

TypePtr custom_class_type(const std::string& qualified_name) {
  static std::mutex mu;
  static std::map<std::string, TypePtr, std::less<>> classes;
  std::lock_guard lock(mu);
  auto [it, inserted] = classes.try_emplace(qualified_name);
  if (inserted) it->second = ClassType::create(qualified_name, /*is_module=*/false);
  return it->second;
}

// ---------------------------------------------------------------------------------------------
// Parsing

namespace {

enum class T : uint8_t { End, Ident, Number, String, Arrow, Dots, Punct };

struct Token {
  T kind;
  std::string_view text;
  size_t pos;
};

class SchemaParser {
 public:
  explicit SchemaParser(std::string_view s, bool refined_tensors = false) : s_(s), refined_tensors_(refined_tensors) {
    tokenize();
  }

  TypePtr parse_single_type() {
    TypePtr fake, real;
    std::optional<AliasInfo> alias;
    parse_type(fake, real, alias);
    if (cur().kind != T::End) fail(cur(), "unexpected text after the type");
    return fake;
  }

  FunctionSchema parse() {
    FunctionSchema schema;
    parse_name(schema);
    bool kwarg_only = false;
    parse_list('(', ')', [&] {
      if (schema.is_vararg) fail(cur(), "... must be the last element of the argument list");
      if (next_if('*')) {
        kwarg_only = true;
      } else if (next_if(T::Dots)) {
        schema.is_vararg = true;
      } else {
        schema.arguments.push_back(parse_argument(/*is_return=*/false, kwarg_only));
      }
    });
    if (schema.is_vararg) {
      for (const auto& a : schema.arguments)
        if (a.default_value) fail(cur(), "schemas with vararg (...) can't have default value args");
    }
    expect(T::Arrow, "'->'");
    if (next_if(T::Dots)) {
      schema.is_varret = true;
    } else if (is('(')) {
      parse_list('(', ')', [&] {
        if (schema.is_varret) fail(cur(), "... must be the last element of the return list");
        if (next_if(T::Dots))
          schema.is_varret = true;
        else
          schema.returns.push_back(parse_argument(/*is_return=*/true, false));
      });
    } else {
      schema.returns.push_back(parse_argument(/*is_return=*/true, false));
    }
    if (cur().kind != T::End) fail(cur(), "unexpected text after the returns");
    return schema;
  }

 private:
  // -- tokens

  void tokenize() {
    size_t i = 0;
    auto push = [&](T k, size_t start, size_t end) { toks_.push_back({k, s_.substr(start, end - start), start}); };
    while (i < s_.size()) {
      const char c = s_[i];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        ++i;
      } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
        size_t j = i;
        while (j < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[j])) || s_[j] == '_')) ++j;
        push(T::Ident, i, j);
        i = j;
      } else if (std::isdigit(static_cast<unsigned char>(c)) ||
                 (c == '.' && i + 1 < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i + 1])))) {
        size_t j = i;
        while (j < s_.size() && std::isdigit(static_cast<unsigned char>(s_[j]))) ++j;
        if (j < s_.size() && s_[j] == '.') {
          ++j;
          while (j < s_.size() && std::isdigit(static_cast<unsigned char>(s_[j]))) ++j;
        }
        if (j < s_.size() && (s_[j] == 'e' || s_[j] == 'E')) {
          size_t k = j + 1;
          if (k < s_.size() && (s_[k] == '+' || s_[k] == '-')) ++k;
          if (k < s_.size() && std::isdigit(static_cast<unsigned char>(s_[k]))) {
            while (k < s_.size() && std::isdigit(static_cast<unsigned char>(s_[k]))) ++k;
            j = k;
          }
        }
        if (j < s_.size() && s_[j] == 'j') ++j;
        push(T::Number, i, j);
        i = j;
      } else if (c == '"' || c == '\'') {
        size_t j = i + 1;
        while (j < s_.size() && s_[j] != c) j += s_[j] == '\\' ? 2 : 1;
        if (j >= s_.size()) fail_at(i, "unterminated string literal");
        push(T::String, i, j + 1);
        i = j + 1;
      } else if (s_.substr(i, 3) == "...") {
        push(T::Dots, i, i + 3);
        i += 3;
      } else if (s_.substr(i, 2) == "->") {
        push(T::Arrow, i, i + 2);
        i += 2;
      } else if (std::string_view("()[],*!?|=.:-").find(c) != std::string_view::npos) {
        push(T::Punct, i, i + 1);
        ++i;
      } else {
        fail_at(i, fmt::format("unexpected character '{}'", c));
      }
    }
    toks_.push_back({T::End, {}, s_.size()});
  }

  const Token& cur() const { return toks_[pos_]; }
  const Token& peek(size_t n = 1) const { return toks_[std::min(pos_ + n, toks_.size() - 1)]; }
  bool is(char c) const { return cur().kind == T::Punct && cur().text[0] == c; }
  static bool is(const Token& t, char c) { return t.kind == T::Punct && t.text[0] == c; }
  bool is_ident(std::string_view text) const { return cur().kind == T::Ident && cur().text == text; }
  const Token& next() { return toks_[pos_ < toks_.size() - 1 ? pos_++ : pos_]; }
  bool next_if(char c) {
    if (!is(c)) return false;
    next();
    return true;
  }
  bool next_if(T k) {
    if (cur().kind != k) return false;
    next();
    return true;
  }
  void expect(char c) {
    if (!next_if(c)) fail(cur(), fmt::format("expected '{}'", c));
  }
  const Token& expect(T k, const char* what) {
    if (cur().kind != k) fail(cur(), fmt::format("expected {}", what));
    return next();
  }
  std::string_view expect_ident() { return expect(T::Ident, "an identifier").text; }

  [[noreturn]] void fail_at(size_t pos, const std::string& what) const {
    throw InvalidInput(fmt::format("invalid schema at column {}: {}: {}", pos + 1, what, s_));
  }
  [[noreturn]] void fail(const Token& at, const std::string& what) const {
    fail_at(at.pos, at.kind == T::End ? what + " (at the end)" : fmt::format("{} (at '{}')", what, at.text));
  }

  template <class F>
  void parse_list(char open, char close, F item) {
    expect(open);
    if (next_if(close)) return;
    do {
      item();
    } while (next_if(','));
    expect(close);
  }

  // -- names and arguments

  void parse_name(FunctionSchema& schema) {
    std::string name(expect_ident());
    if (next_if(':')) {
      expect(':');
      name += "::";
      name += expect_ident();
    }
    schema.name = std::move(name);
    if (next_if('.')) schema.overload_name = expect_ident();
  }

  Argument parse_argument(bool is_return, bool kwarg_only) {
    Argument arg;
    parse_type(arg.type, arg.real_type, arg.alias_info);
    if (next_if('[')) {
      // A fixed size can only follow the type of an argument: `int[2] stride`.
      arg.type = ListType::create(arg.type);
      arg.real_type = ListType::create(arg.real_type);
      const Token& n = expect(T::Number, "a list size");
      int32_t size = 0;
      auto [p, ec] = std::from_chars(n.text.data(), n.text.data() + n.text.size(), size);
      if (ec != std::errc() || p != n.text.data() + n.text.size()) fail(n, "invalid list size");
      arg.N = size;
      expect(']');
      wrap_list_alias(arg.alias_info);
      if (next_if('?')) {
        arg.type = OptionalType::create(arg.type);
        arg.real_type = OptionalType::create(arg.real_type);
      }
    }
    if (is_return) {
      if (cur().kind == T::Ident) arg.name = next().text;
    } else {
      arg.name = expect_ident();
      if (next_if('=')) arg.default_value = parse_default(*arg.type, arg.N);
    }
    arg.kwarg_only = !is_return && kwarg_only;
    return arg;
  }

  // After `[]` or `[N]`: the element's annotation moves inside the list's, which inherits its
  // write flag when the list has none of its own.
  void wrap_list_alias(std::optional<AliasInfo>& alias) {
    std::optional<AliasInfo> container = parse_alias();
    if (alias) {
      if (!container) {
        container.emplace();
        container->is_write = alias->is_write;
      }
      container->contained.push_back(std::move(*alias));
    }
    alias = std::move(container);
  }

  // -- types

  // c10's parseFakeAndRealType. Types nested in tuples, dicts, unions and futures keep only the
  // compiler's (fake) type, as c10's do.
  void parse_type(TypePtr& fake, TypePtr& real, std::optional<AliasInfo>& alias) {
    if (is('(')) {
      std::vector<TypePtr> elems;
      parse_list('(', ')', [&] {
        TypePtr f, r;
        std::optional<AliasInfo> a;
        parse_type(f, r, a);
        elems.push_back(f);
      });
      fake = real = TupleType::create(std::move(elems));
    } else if (is_ident("Future") || is_ident("RRef")) {
      const bool future = cur().text == "Future";
      next();
      expect('(');
      TypePtr f, r;
      std::optional<AliasInfo> a;
      parse_type(f, r, a);
      expect(')');
      fake = real = future ? FutureType::create(f) : RRefType::create(f);
    } else if (is_ident("Tensor")) {
      next();
      fake = real = TensorType::get();
      alias = parse_alias();
    } else if (is_ident("Dict")) {
      next();
      expect('(');
      TypePtr kf, key, vf, value;
      std::optional<AliasInfo> a;
      parse_type(kf, key, a);
      expect(',');
      parse_type(vf, value, a);
      expect(')');
      alias = parse_alias();
      try {
        fake = real = DictType::create(kf, vf);
      } catch (const InvalidInput& e) {
        fail(cur(), e.what());
      }
    } else if (is_ident("Union")) {
      next();
      expect('(');
      std::vector<TypePtr> members;
      do {
        TypePtr f, r;
        std::optional<AliasInfo> a;
        parse_type(f, r, a);
        members.push_back(f);
      } while (next_if(','));
      expect(')');
      alias = parse_alias();
      fake = real = UnionType::create(std::move(members));
    } else if (refined_tensors_ && cur().kind == T::Ident && dtype_from_scalar_name(cur().text) && is(peek(), '(')) {
      fake = real = parse_refined_tensor();
      alias = parse_alias();
    } else if (is_ident("__torch__")) {
      // Only torch's custom classes: __torch__.torch.classes.<namespace>.<name>
      std::string name = "__torch__";
      next();
      for (const char* part : std::initializer_list<const char*>{"torch", "classes", nullptr, nullptr}) {
        expect('.');
        const Token& t = expect(T::Ident, "a class name");
        if (part && t.text != part) fail(t, fmt::format("expected '{}' in a custom class name", part));
        name += ".";
        name += t.text;
      }
      fake = real = custom_class_type(name);
    } else {
      const Token& t = cur();
      real = base_type(expect_ident(), t);
      const TypeKind k = real->kind();
      fake = k == TypeKind::ScalarType || k == TypeKind::MemoryFormat || k == TypeKind::Layout || k == TypeKind::SymInt
                 ? IntType::get()
                 : real;
      alias = parse_alias();
    }
    for (;;) {
      if (is('[') && is(peek(), ']')) {
        next();
        next();
        fake = ListType::create(fake);
        real = ListType::create(real);
        wrap_list_alias(alias);
      } else if (next_if('?')) {
        fake = OptionalType::create(fake);
        real = OptionalType::create(real);
      } else {
        break;
      }
    }
  }

  static std::optional<DType> dtype_from_scalar_name(std::string_view name) {
    for (int i = 0; i <= static_cast<int>(DType::QUInt2x4); ++i)
      if (scalar_type_name(static_cast<DType>(i)) == name) return static_cast<DType>(i);
    return std::nullopt;
  }

  // c10's parseRefinedTensor: `Long(10, *, strides=[..], requires_grad=0, device=cuda:1)`, the
  // dimensions first.
  TypePtr parse_refined_tensor() {
    TensorType::Refinement r;
    r.dtype = dtype_from_scalar_name(next().text);
    TensorType::Dims dims;
    std::optional<TensorType::Dims> strides;
    expect('(');
    auto number = [&]() -> int64_t {
      const Token& t = expect(T::Number, "a number");
      int64_t v = 0;
      auto [p, ec] = std::from_chars(t.text.data(), t.text.data() + t.text.size(), v);
      if (ec != std::errc() || p != t.text.data() + t.text.size()) fail(t, "invalid integer");
      return v;
    };
    if (!next_if(')')) {
      do {
        if (cur().kind == T::Ident) {
          const Token& field = next();
          expect('=');
          if (field.text == "device") {
            if (r.device) fail(field, "'device' is specified twice");
            const Token& d = expect(T::Ident, "a device");
            std::string text(d.text);
            if (next_if(':')) text += fmt::format(":{}", number());
            r.device = Device::parse(text);
            if (!r.device || (r.device->type != Device::Type::CPU && r.device->type != Device::Type::CUDA))
              fail(d, fmt::format("cannot parse device type '{}'", text));
          } else if (field.text == "requires_grad") {
            if (r.requires_grad) fail(field, "'requires_grad' is specified twice");
            r.requires_grad = number() != 0;
          } else if (field.text == "strides") {
            strides.emplace();
            parse_list('[', ']', [&] { strides->push_back(number()); });
          } else {
            fail(field, fmt::format("Unexpected specifier '{}'", field.text));
          }
          continue;
        }
        if (r.device || r.requires_grad)
          fail(cur(), "'device' and 'requires_grad' should come after dimensions in the type specification");
        if (next_if('*'))
          dims.push_back(std::nullopt);
        else
          dims.push_back(number());
      } while (next_if(','));
      expect(')');
    }
    if (strides && strides->size() != dims.size())
      fail(cur(), "Strides info is specified for some but not for all dimensions");
    r.sizes = std::move(dims);
    r.strides = strides ? std::move(strides) : TensorType::Dims(r.sizes->size());
    return TensorType::create(std::move(r));
  }

  TypePtr base_type(std::string_view name, const Token& at) {
    static const std::unordered_map<std::string_view, TypePtr> kTypes = {
        {"Generator", GeneratorType::get()},
        {"Dimname", StringType::get()},
        {"ScalarType", ScalarTypeType::get()},
        {"Layout", LayoutType::get()},
        {"MemoryFormat", MemoryFormatType::get()},
        {"Storage", StorageType::get()},
        {"QScheme", QSchemeType::get()},
        {"Quantizer", QuantizerType::get()},
        {"ConstQuantizerPtr", IntType::get()},
        {"Device", DeviceObjType::get()},
        {"Stream", StreamObjType::get()},
        {"Scalar", NumberType::get()},
        {"str", StringType::get()},
        {"float", FloatType::get()},
        {"complex", ComplexType::get()},
        {"int", IntType::get()},
        {"SymInt", SymIntType::get()},
        {"bool", BoolType::get()},
        {"None", NoneType::get()},
        {"NoneType", NoneType::get()},
        {"Capsule", CapsuleType::get()},
        {"Any", AnyType::get()},
        {"AnyClassType", AnyClassType::get()},
        {"AnyEnumType", AnyEnumType::get()},
    };
    if (auto it = kTypes.find(name); it != kTypes.end()) return it->second;
    if (name == "double") fail(at, "Use `float` instead of `double` in an operator's schema string");
    if (name == "int64_t") fail(at, "Use `int` instead of `int64_t` in an operator's schema string");
    // Lower-case names that are no type are type variables: t, t1, tVal.
    if (std::islower(static_cast<unsigned char>(name[0]))) return VarType::create(std::string(name));
    fail(at, "unknown type specifier");
  }

  std::optional<AliasInfo> parse_alias() {
    AliasInfo info;
    if (next_if('(')) {
      auto sets = [&](std::vector<std::string>& out) {
        do {
          if (next_if('*')) {
            out.push_back("*");
          } else {
            std::string set(expect_ident());
            // After a wildcard, other sets say nothing more.
            if (std::find(out.begin(), out.end(), "*") == out.end()) out.push_back(std::move(set));
          }
        } while (next_if('|'));
      };
      sets(info.before_sets);
      if (next_if('!')) info.is_write = true;
      if (next_if(T::Arrow))
        sets(info.after_sets);
      else
        info.after_sets = info.before_sets;
      expect(')');
      return info;
    }
    if (next_if('!')) {
      info.before_sets = info.after_sets = {fmt::format("${}", next_alias_id_++)};
      info.is_write = true;
      return info;
    }
    return std::nullopt;
  }

  // -- default values

  IValue parse_default(const Type& type, std::optional<int32_t> n) {
    switch (type.kind()) {
      case TypeKind::Tensor:
      case TypeKind::Generator:
      case TypeKind::Quantizer:
        return parse_none();
      case TypeKind::String:
      case TypeKind::Optional:
      case TypeKind::Number:
      case TypeKind::Int:
      case TypeKind::Bool:
      case TypeKind::Float:
      case TypeKind::Complex:
        return parse_constant(type.kind());
      case TypeKind::Device: {
        const Token& t = expect(T::String, "a device string");
        auto d = Device::parse(unquote(t));
        if (!d) fail(t, "invalid device");
        return IValue(*d);
      }
      case TypeKind::List: {
        const TypePtr& elem = type.expect<ListType>().elem();
        if (cur().kind == T::Ident) return parse_none();
        if (n && !is('[')) {
          IValue v = parse_constant(elem->kind());
          return to_list(elem->kind(), std::vector<IValue>(static_cast<size_t>(*n), v), cur());
        }
        const Token& open = cur();
        std::vector<IValue> items;
        parse_list('[', ']', [&] { items.push_back(parse_constant(elem->kind())); });
        return to_list(elem->kind(), std::move(items), open);
      }
      default:
        fail(cur(), fmt::format("no default values for type {}", type.str()));
    }
  }

  IValue parse_none() {
    if (!is_ident("None")) fail(cur(), "expected None");
    next();
    return IValue();
  }

  IValue to_list(TypeKind elem, std::vector<IValue> items, const Token& at) {
    auto list = std::make_shared<ListData>();
    for (auto& v : items) {
      switch (elem) {
        case TypeKind::Int: list->items.emplace_back(v.to_int()); break;
        case TypeKind::Float: list->items.emplace_back(v.to_double()); break;
        case TypeKind::Bool: list->items.emplace_back(v.to_bool()); break;
        case TypeKind::Complex: list->items.emplace_back(v.to_complex()); break;
        default: fail(at, "lists are only supported for float, int and complex types");
      }
    }
    list->elem_type = elem == TypeKind::Int ? "int" : elem == TypeKind::Float ? "float" : elem == TypeKind::Bool ? "bool" : "complex";
    return IValue(std::move(list));
  }

  IValue parse_constant(TypeKind kind) {
    const Token& t = cur();
    if (t.kind == T::Ident) {
      next();
      if (t.text == "True") return IValue(true);
      if (t.text == "False") return IValue(false);
      if (t.text == "None") return IValue();
      // Enum spellings native_functions.yaml once used; they stand for c10's enum values.
      if (t.text == "float") return IValue(int64_t{6});            // ScalarType::Float
      if (t.text == "complex") return IValue(int64_t{9});          // ScalarType::ComplexFloat
      if (t.text == "long") return IValue(int64_t{4});             // ScalarType::Long
      if (t.text == "strided") return IValue(int64_t{0});          // Layout::Strided
      if (t.text == "Mean") return IValue(int64_t{1});             // Reduction::Mean
      if (t.text == "contiguous_format") return IValue(int64_t{0});  // MemoryFormat::Contiguous
      fail(t, "invalid numeric default value");
    }
    if (t.kind == T::String) {
      next();
      return IValue(unquote(t));
    }
    std::string n;
    if (next_if('-')) n = "-";
    const Token& num = expect(T::Number, "a default value");
    n += num.text;
    if (kind == TypeKind::Complex || n.find('j') != std::string::npos) {
      const double imag = std::strtod(n.substr(0, n.size() - 1).c_str(), nullptr);
      return IValue(std::complex<double>(0, imag));
    }
    if (kind == TypeKind::Float || n.find_first_of(".eE") != std::string::npos)
      return IValue(std::strtod(n.c_str(), nullptr));
    int64_t v = 0;
    auto [p, ec] = std::from_chars(n.data(), n.data() + n.size(), v);
    if (ec != std::errc() || p != n.data() + n.size()) fail(num, "invalid integer");
    return IValue(v);
  }

  // A string literal token's contents with c10's escapes decoded.
  std::string unquote(const Token& t) {
    std::string out, error;
    size_t at = 0;
    if (!unescape_string(t.text.substr(1, t.text.size() - 2), EscapeRules::Printed, out, error, at))
      fail(t, "ill-formed escape");
    return out;
  }

  std::string_view s_;
  bool refined_tensors_ = false;
  std::vector<Token> toks_;
  size_t pos_ = 0;
  int next_alias_id_ = 0;
};

}  // namespace

FunctionSchema parse_schema(std::string_view text) { return SchemaParser(text).parse(); }

TypePtr parse_schema_type(std::string_view text, bool refined_tensors) {
  return SchemaParser(text, refined_tensors).parse_single_type();
}

}  // namespace jitctl
