#include "lib/ir/type_text.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <cstdlib>

#include "lib/core/dtype.h"

namespace jitctl {
namespace {

// Names that are a type on their own.
TypePtr leaf_type(std::string_view name) {
  struct Leaf {
    std::string_view name;
    const TypePtr& (*get)();
  };
  static const Leaf leaves[] = {
      {"int", &IntType::get},          {"float", &FloatType::get},       {"complex", &ComplexType::get},
      {"bool", &BoolType::get},        {"str", &StringType::get},        {"NoneType", &NoneType::get},
      {"None", &NoneType::get},        {"Device", &DeviceObjType::get},  {"Any", &AnyType::get},
      {"Scalar", &NumberType::get},    {"number", &NumberType::get},     {"Storage", &StorageType::get},
      {"Generator", &GeneratorType::get}, {"Stream", &StreamObjType::get}, {"Layout", &LayoutType::get},
      {"ScalarType", &ScalarTypeType::get}, {"MemoryFormat", &MemoryFormatType::get},
      {"QScheme", &QSchemeType::get},  {"Capsule", &CapsuleType::get},   {"PyObject", &PyObjectType::get},
      {"Quantizer", &QuantizerType::get}, {"AnyEnumType", &AnyEnumType::get},
      {"AnyClassType", &AnyClassType::get}, {"list", &AnyListType::get}, {"tuple", &AnyTupleType::get},
      {"SymInt", &SymIntType::get},    {"SymFloat", &SymFloatType::get},
  };
  for (const auto& l : leaves)
    if (l.name == name) return l.get();
  return nullptr;
}

std::optional<DType> dtype_from_scalar_name(std::string_view name) {
  if (name.empty()) return std::nullopt;
  return dtype_from_storage_class(std::string(name) + "Storage");
}

class TypeReader {
 public:
  TypeReader(std::string_view text, size_t pos, TypeTextContext& ctx) : s_(text), pos_(pos), ctx_(ctx) {}

  TypePtr type() {
    // Type text also comes from files (the element types a pickle records): bound the recursion.
    if (depth_ >= kMaxDepth) fail(fmt::format("types nest deeper than {}", kMaxDepth));
    ++depth_;
    struct Leave {
      size_t& d;
      ~Leave() { --d; }
    } leave{depth_};
    TypePtr t = primary();
    // Postfix forms bind left to right: `int[]?` is Optional[List[int]].
    while (true) {
      if (peek_str("[]")) {
        pos_ += 2;
        t = ListType::create(t);
      } else if (peek_char('?')) {
        ++pos_;
        t = OptionalType::create(t);
      } else {
        return t;
      }
    }
  }

  size_t pos() const { return pos_; }

 private:
  [[noreturn]] void fail(const std::string& msg) const { throw TextParseError(pos_, msg); }

  void skip_spaces() {
    while (pos_ < s_.size() && s_[pos_] == ' ') ++pos_;
  }
  bool peek_char(char c) const { return pos_ < s_.size() && s_[pos_] == c; }
  bool peek_str(std::string_view w) const { return s_.substr(pos_, w.size()) == w; }
  void expect(char c) {
    skip_spaces();
    if (!peek_char(c)) fail(fmt::format("expected '{}' in a type", c));
    ++pos_;
  }
  bool accept(char c) {
    skip_spaces();
    if (!peek_char(c)) return false;
    ++pos_;
    return true;
  }

  static bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

  // A dotted name: `__torch__.foo.___torch_mangle_3.Bar`.
  std::string name() {
    skip_spaces();
    const size_t start = pos_;
    while (pos_ < s_.size() && (ident_char(s_[pos_]) || (s_[pos_] == '.' && pos_ > start))) ++pos_;
    if (pos_ == start) fail("expected a type");
    if (s_[pos_ - 1] == '.') --pos_;
    return std::string(s_.substr(start, pos_ - start));
  }

  // Elements up to `close`, separated by commas.
  std::vector<TypePtr> type_list(char close) {
    std::vector<TypePtr> out;
    if (accept(close)) return out;
    do {
      skip_spaces();
      out.push_back(type());
    } while (accept(','));
    expect(close);
    return out;
  }

  TypePtr one_arg(char open, char close) {
    expect(open);
    skip_spaces();
    TypePtr t = type();
    expect(close);
    return t;
  }

  TypePtr primary() {
    skip_spaces();
    if (accept('(')) return TupleType::create(type_list(')'));
    const size_t start = pos_;
    const std::string n = name();
    if (n == "List") return ListType::create(one_arg('[', ']'));
    if (n == "Optional") return OptionalType::create(one_arg('[', ']'));
    if (n == "Future" || n == "RRef") {
      const char open = peek_char('(') ? '(' : '[';
      TypePtr e = one_arg(open, open == '(' ? ')' : ']');
      return n == "Future" ? FutureType::create(e) : RRefType::create(e);
    }
    if (n == "Dict") {
      const char open = peek_char('(') ? '(' : '[';
      const auto kv = (expect(open), type_list(open == '(' ? ')' : ']'));
      if (kv.size() != 2) fail("a Dict type has a key and a value type");
      return DictType::create(kv[0], kv[1]);
    }
    if (n == "Tuple" && peek_char('[')) {
      ++pos_;
      if (peek_str("()]")) {
        pos_ += 3;
        return TupleType::create({});
      }
      return TupleType::create(type_list(']'));
    }
    if (n == "Union" && (peek_char('(') || peek_char('['))) {
      const char open = s_[pos_++];
      auto members = type_list(open == '(' ? ')' : ']');
      if (members.empty()) fail("an empty Union");
      return UnionType::create(std::move(members));
    }
    if (n == "NamedTuple" && peek_char('(')) return named_tuple();
    if ((n == "InterfaceType" || n == "Enum") && peek_char('<')) {
      ++pos_;
      const std::string inner = name();
      expect('>');
      return named(n == "Enum" ? TypeTextContext::NameKind::Enum : TypeTextContext::NameKind::Interface, inner);
    }
    if (TypePtr t = tensor(n)) return t;
    if (TypePtr t = leaf_type(n)) return t;
    if (n == "Function") return FunctionType::create("");
    if (n.find('.') == std::string::npos) {
      pos_ = start;
      fail(fmt::format("unknown type '{}'", n));
    }
    return named(TypeTextContext::NameKind::Class, n);
  }

  TypePtr named(TypeTextContext::NameKind kind, const std::string& n) {
    if (ctx_.resolve) {
      if (TypePtr t = ctx_.resolve(kind, n)) return t;
    }
    const std::string key = std::to_string(static_cast<int>(kind)) + n;
    auto it = ctx_.placeholders.find(key);
    if (it != ctx_.placeholders.end()) return it->second;
    TypePtr t;
    switch (kind) {
      case TypeTextContext::NameKind::Class: t = ClassType::create(n, false); break;
      case TypeTextContext::NameKind::Interface: t = InterfaceType::create(n, false); break;
      case TypeTextContext::NameKind::Enum: t = EnumType::create(n, IntType::get(), {}); break;
    }
    ctx_.placeholders.emplace(key, t);
    return t;
  }

  // `NamedTuple(x : int, y : float = 2.5)`: defaults print without quotes, so one that is not a
  // number, bool or None reads back as a string.
  TypePtr named_tuple() {
    expect('(');
    std::vector<std::string> fields;
    std::vector<TypePtr> types;
    std::vector<std::optional<IValue>> defaults;
    bool any_default = false;
    if (!accept(')')) {
      do {
        fields.push_back(name());
        expect(':');
        skip_spaces();
        types.push_back(type());
        skip_spaces();
        if (accept('=')) {
          skip_spaces();
          defaults.emplace_back(default_value());
          any_default = true;
        } else {
          defaults.emplace_back(std::nullopt);
        }
      } while (accept(','));
      expect(')');
    }
    if (!any_default) defaults.clear();
    return TupleType::create_named("", std::move(fields), std::move(types), std::move(defaults));
  }

  IValue default_value() {
    const size_t start = pos_;
    int depth = 0;
    while (pos_ < s_.size()) {
      const char c = s_[pos_];
      if (c == '(' || c == '[') ++depth;
      if (c == ')' || c == ']') {
        if (depth == 0) break;
        --depth;
      }
      if (c == ',' && depth == 0) break;
      ++pos_;
    }
    const std::string text(s_.substr(start, pos_ - start));
    if (text == "None") return IValue();
    if (text == "True") return IValue(true);
    if (text == "False") return IValue(false);
    int64_t i = 0;
    if (auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), i);
        ec == std::errc() && p == text.data() + text.size())
      return IValue(i);
    char* end = nullptr;
    const double d = std::strtod(text.c_str(), &end);
    if (!text.empty() && end == text.c_str() + text.size()) return IValue(d);
    return IValue(text);
  }

  // `Tensor`, `Float(2, *, strides=[...], requires_grad=0, device=cpu)`, `FloatTensor(...)`,
  // `Tensor(requires_grad=1)`, each possibly followed by `[Undefined]`. A bare dtype name says the
  // rank is known (`Float(requires_grad=0)` is 0-dim); `XTensor` and `Tensor` say it is not,
  // unless sizes follow in parentheses.
  TypePtr tensor(const std::string& n) {
    TensorType::Refinement r;
    bool rank_known = false;
    if (n == "Tensor") {
    } else if (auto dt = dtype_from_scalar_name(n)) {
      r.dtype = dt;
      rank_known = true;
    } else if (n.size() > 6 && n.ends_with("Tensor")) {
      auto dt2 = dtype_from_scalar_name(std::string_view(n).substr(0, n.size() - 6));
      if (!dt2) return nullptr;
      r.dtype = dt2;
    } else {
      return nullptr;
    }
    TensorType::Dims dims;
    if (peek_char('(')) {
      ++pos_;
      if (!accept(')')) {
        do {
          skip_spaces();
          if (peek_char('*')) {
            ++pos_;
            dims.emplace_back(std::nullopt);
            rank_known = true;
          } else if (pos_ < s_.size() && (std::isdigit(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '-')) {
            dims.emplace_back(integer());
            rank_known = true;
          } else {
            const std::string key = name();
            expect('=');
            skip_spaces();
            if (key == "strides") {
              expect('[');
              TensorType::Dims strides;
              if (!accept(']')) {
                do {
                  skip_spaces();
                  if (peek_char('*')) {
                    ++pos_;
                    strides.emplace_back(std::nullopt);
                  } else {
                    strides.emplace_back(integer());
                  }
                } while (accept(','));
                expect(']');
              }
              r.strides = std::move(strides);
            } else if (key == "requires_grad") {
              r.requires_grad = integer() != 0;
            } else if (key == "device") {
              const size_t start = pos_;
              while (pos_ < s_.size() && (ident_char(s_[pos_]) || s_[pos_] == ':')) ++pos_;
              auto d = Device::parse(s_.substr(start, pos_ - start));
              if (!d) {
                pos_ = start;
                fail("unknown device in a tensor type");
              }
              r.device = *d;
            } else {
              fail(fmt::format("unknown tensor type property '{}'", key));
            }
          }
        } while (accept(','));
        expect(')');
      }
    }
    if (rank_known) r.sizes = std::move(dims);
    if (peek_str("[Undefined]")) {
      pos_ += 11;
      r.undefined = true;
    }
    return TensorType::create(std::move(r));
  }

  int64_t integer() {
    skip_spaces();
    int64_t v = 0;
    auto [p, ec] = std::from_chars(s_.data() + pos_, s_.data() + s_.size(), v);
    if (ec != std::errc()) fail("expected an integer");
    pos_ = static_cast<size_t>(p - s_.data());
    return v;
  }

  static constexpr size_t kMaxDepth = 256;
  std::string_view s_;
  size_t pos_;
  TypeTextContext& ctx_;
  size_t depth_ = 0;
};

}  // namespace

TypePtr parse_type_at(std::string_view text, size_t& pos, TypeTextContext& ctx) {
  TypeReader r(text, pos, ctx);
  TypePtr t = r.type();
  pos = r.pos();
  return t;
}

TypePtr parse_type_text(std::string_view text, TypeTextContext& ctx) {
  size_t pos = 0;
  try {
    TypePtr t = parse_type_at(text, pos, ctx);
    while (pos < text.size() && text[pos] == ' ') ++pos;
    if (pos != text.size()) throw TextParseError(pos, "unexpected text after the type");
    return t;
  } catch (const TextParseError& e) {
    throw InvalidInput(fmt::format("type '{}', column {}: {}", text, e.offset() + 1, e.what()));
  }
}

TypePtr parse_type_text(std::string_view text) {
  TypeTextContext ctx;
  return parse_type_text(text, ctx);
}

}  // namespace jitctl
