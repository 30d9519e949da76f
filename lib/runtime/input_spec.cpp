#include "lib/runtime/input_spec.h"

#include <fmt/format.h>

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>

#include "lib/core/error.h"
#include "lib/core/half.h"

namespace jitctl {
namespace {

constexpr size_t kMaxDepth = 64;          // nesting of tuples, lists and dicts
constexpr int64_t kMaxElements = int64_t(1) << 40;

class SpecParser {
 public:
  explicit SpecParser(std::string_view text) : s_(text) {}

  std::vector<SpecValue> parse_all() {
    std::vector<SpecValue> out;
    skip_ws();
    if (pos_ == s_.size()) fail("empty spec", "a value such as float32[2,3], 3, 2.5, true, none, \"text\", (..), [..] or {..}");
    for (;;) {
      out.push_back(value(0));
      skip_ws();
      if (pos_ == s_.size()) return out;
      if (s_[pos_] != ',') fail(fmt::format("unexpected '{}'", s_[pos_]), "',' between arguments");
      ++pos_;
      skip_ws();
      if (pos_ == s_.size()) fail("a value is missing after ','", "");
    }
  }

 private:
  [[noreturn]] void fail(const std::string& what, const std::string& expected) const {
    std::string at = pos_ < s_.size() ? fmt::format(" at column {}", pos_ + 1) : " at the end";
    throw InvalidInput(fmt::format("--input-spec '{}': {}{}{}", std::string(s_), what, at,
                                   expected.empty() ? "" : " (expected " + expected + ")"));
  }
  void skip_ws() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool at(char c) {
    skip_ws();
    return pos_ < s_.size() && s_[pos_] == c;
  }
  void expect(char c, const char* what) {
    skip_ws();
    if (pos_ >= s_.size() || s_[pos_] != c) fail(pos_ < s_.size() ? fmt::format("unexpected '{}'", s_[pos_]) : "the spec ends early", what);
    ++pos_;
  }

  SpecValue value(size_t depth) {
    if (depth > kMaxDepth) fail(fmt::format("values nest more than {} deep", kMaxDepth), "");
    skip_ws();
    if (pos_ >= s_.size()) fail("a value is missing", "");
    const size_t start = pos_;
    SpecValue v;
    const char c = s_[pos_];
    if (c == '(') {
      v = sequence(SpecValue::Kind::Tuple, '(', ')', depth);
    } else if (c == '[') {
      v = sequence(SpecValue::Kind::List, '[', ']', depth);
    } else if (c == '{') {
      v = dict(depth);
    } else if (c == '"' || c == '\'') {
      v.kind = SpecValue::Kind::String;
      v.s = string_literal();
    } else if (std::isdigit(static_cast<unsigned char>(c)) || c == '-' || c == '+' || c == '.') {
      v = number();
    } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      v = word();
    } else {
      fail(fmt::format("unexpected '{}'", c), "a value");
    }
    v.text = std::string(s_.substr(start, pos_ - start));
    return v;
  }

  SpecValue sequence(SpecValue::Kind kind, char open, char close, size_t depth) {
    SpecValue v;
    v.kind = kind;
    expect(open, "");
    bool trailing_comma = false;
    while (!at(close)) {
      v.items.push_back(value(depth + 1));
      trailing_comma = false;
      if (at(',')) {
        ++pos_;
        trailing_comma = true;
        continue;
      }
      if (!at(close)) fail(pos_ < s_.size() ? fmt::format("unexpected '{}'", s_[pos_]) : "the spec ends early",
                           fmt::format("',' or '{}'", close));
    }
    ++pos_;
    // (x) is x, as in Python; a one-element tuple is written (x,).
    if (kind == SpecValue::Kind::Tuple && v.items.size() == 1 && !trailing_comma) return std::move(v.items[0]);
    return v;
  }

  SpecValue dict(size_t depth) {
    SpecValue v;
    v.kind = SpecValue::Kind::Dict;
    expect('{', "");
    while (!at('}')) {
      SpecValue key = value(depth + 1);
      if (key.kind != SpecValue::Kind::String && key.kind != SpecValue::Kind::Int && key.kind != SpecValue::Kind::Float &&
          key.kind != SpecValue::Kind::Bool)
        fail(fmt::format("dict key {} is not a string, int, float or bool", key.text), "");
      expect(':', "':' after a dict key");
      v.items.push_back(std::move(key));
      v.items.push_back(value(depth + 1));
      if (at(',')) {
        ++pos_;
        continue;
      }
      if (!at('}')) fail(pos_ < s_.size() ? fmt::format("unexpected '{}'", s_[pos_]) : "the spec ends early", "',' or '}'");
    }
    ++pos_;
    return v;
  }

  static int hex(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }

  static void append_utf8(std::string& out, uint32_t cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xc0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3f));
    } else {
      out += static_cast<char>(0xe0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
      out += static_cast<char>(0x80 | (cp & 0x3f));
    }
  }

  std::string string_literal() {
    const char q = s_[pos_++];
    std::string out;
    for (;;) {
      if (pos_ >= s_.size()) fail("unterminated string", fmt::format("a closing {}", q));
      const char c = s_[pos_++];
      if (c == q) return out;
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos_ >= s_.size()) fail("unterminated string", fmt::format("a closing {}", q));
      const char e = s_[pos_++];
      switch (e) {
        case '\\': out += '\\'; break;
        case '"': out += '"'; break;
        case '\'': out += '\''; break;
        case 'n': out += '\n'; break;
        case 't': out += '\t'; break;
        case 'r': out += '\r'; break;
        case '0': out += '\0'; break;
        case 'x':
        case 'u': {
          const size_t n = e == 'x' ? 2 : 4;
          uint32_t cp = 0;
          for (size_t k = 0; k < n; ++k) {
            const int h = pos_ < s_.size() ? hex(s_[pos_]) : -1;
            if (h < 0) fail(fmt::format("\\{} needs {} hex digits", e, n), "");
            cp = cp * 16 + static_cast<uint32_t>(h);
            ++pos_;
          }
          if (cp >= 0xd800 && cp < 0xe000) fail("\\u escape of a surrogate", "");
          append_utf8(out, cp);
          break;
        }
        default: fail(fmt::format("unknown escape \\{}", e), "one of \\\\ \\\" \\' \\n \\t \\r \\0 \\xHH \\uHHHH");
      }
    }
  }

  SpecValue number() {
    const size_t start = pos_;
    if (s_[pos_] == '-' || s_[pos_] == '+') ++pos_;
    // -inf, +nan
    if (pos_ < s_.size() && std::isalpha(static_cast<unsigned char>(s_[pos_]))) {
      const bool negative = s_[start] == '-';
      SpecValue w = word();
      if (w.kind != SpecValue::Kind::Float) fail(fmt::format("'{}' is not a number", std::string(s_.substr(start, pos_ - start))), "");
      w.f = negative ? -w.f : w.f;
      return w;
    }
    bool is_float = false;
    size_t digits = 0;
    while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) ++pos_, ++digits;
    if (pos_ < s_.size() && s_[pos_] == '.') {
      is_float = true;
      ++pos_;
      while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) ++pos_, ++digits;
    }
    if (digits == 0) fail("a number needs digits", "");
    if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
      is_float = true;
      ++pos_;
      if (pos_ < s_.size() && (s_[pos_] == '-' || s_[pos_] == '+')) ++pos_;
      size_t exp_digits = 0;
      while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) ++pos_, ++exp_digits;
      if (exp_digits == 0) fail("an exponent needs digits", "");
    }
    if (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_'))
      fail(fmt::format("'{}' is not a number", std::string(s_.substr(start, pos_ + 1 - start))), "");
    const std::string text(s_.substr(start, pos_ - start));
    SpecValue v;
    errno = 0;
    char* end = nullptr;
    if (is_float) {
      v.kind = SpecValue::Kind::Float;
      v.f = std::strtod(text.c_str(), &end);
      if (errno == ERANGE && std::isinf(v.f)) fail(fmt::format("{} is too large for a float", text), "");
    } else {
      v.kind = SpecValue::Kind::Int;
      v.i = std::strtoll(text.c_str(), &end, 10);
      if (errno == ERANGE) fail(fmt::format("{} does not fit in an int (64 bits)", text), "");
    }
    return v;
  }

  SpecValue word() {
    const size_t start = pos_;
    while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_')) ++pos_;
    const std::string_view w = s_.substr(start, pos_ - start);
    SpecValue v;
    if (w == "none" || w == "None") {
      v.kind = SpecValue::Kind::None;
    } else if (w == "true" || w == "True" || w == "false" || w == "False") {
      v.kind = SpecValue::Kind::Bool;
      v.b = w[0] == 't' || w[0] == 'T';
    } else if (w == "inf" || w == "nan") {
      v.kind = SpecValue::Kind::Float;
      v.f = w == "inf" ? std::numeric_limits<double>::infinity() : std::numeric_limits<double>::quiet_NaN();
    } else if (at('[')) {
      v = tensor(w, start);
    } else if (dtype_from_name(w)) {
      pos_ = start;
      fail(fmt::format("'{}' needs a shape", std::string(w)), fmt::format("{}[2,3], or {}[] for a 0-d tensor", std::string(w), std::string(w)));
    } else {
      pos_ = start;
      fail(fmt::format("'{}' is not a value", std::string(w)),
           "a dtype and a shape such as float32[2,3], a number, true/false, none, or a quoted string");
    }
    return v;
  }

  SpecValue tensor(std::string_view type, size_t start) {
    const auto dtype = dtype_from_name(type);
    if (!dtype) {
      pos_ = start;
      fail(fmt::format("unknown dtype '{}'", std::string(type)), "float32, float64, float16, bfloat16, int64, int32, int16, int8, uint8 or bool");
    }
    switch (*dtype) {
      case DType::Bool: case DType::UInt8: case DType::Int8: case DType::Int16: case DType::Int32: case DType::Int64:
      case DType::Float16: case DType::BFloat16: case DType::Float32: case DType::Float64:
        break;
      default: throw Unsupported(fmt::format("--input-spec '{}': random {} tensors", std::string(s_), dtype_name(*dtype)));
    }
    SpecValue v;
    v.kind = SpecValue::Kind::Tensor;
    v.dtype = *dtype;
    expect('[', "");
    int64_t numel = 1;
    while (!at(']')) {
      skip_ws();
      const size_t d0 = pos_;
      while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) ++pos_;
      if (pos_ == d0 || pos_ - d0 > 12) {
        while (pos_ < s_.size() && s_[pos_] != ',' && s_[pos_] != ']') ++pos_;
        pos_ = d0;
        fail("a dimension must be a whole number, 0 or more", "");
      }
      const int64_t d = std::stoll(std::string(s_.substr(d0, pos_ - d0)));
      if (d != 0 && numel > kMaxElements / d) fail("the tensor is too large (over 2^40 elements)", "");
      numel *= d;
      v.shape.push_back(d);
      if (at(',')) {
        ++pos_;
        if (at(']')) fail("a dimension is missing", "");
        continue;
      }
      if (!at(']')) fail(pos_ < s_.size() ? fmt::format("unexpected '{}'", s_[pos_]) : "the spec ends early", "',' or ']'");
    }
    ++pos_;
    return v;
  }

  std::string_view s_;
  size_t pos_ = 0;
};

template <class T, class Draw>
void fill(void* p, int64_t n, Draw draw) {
  auto* data = static_cast<T*>(p);
  for (int64_t i = 0; i < n; ++i) data[i] = draw();
}

}  // namespace

std::vector<SpecValue> parse_input_spec(std::string_view text) { return SpecParser(text).parse_all(); }

Tensor random_tensor(DType dtype, const std::vector<int64_t>& shape, uint64_t seed) {
  Tensor t = Tensor::empty(dtype, shape);
  const int64_t n = t.numel();
  if (n == 0) return t;
  std::mt19937_64 rng(seed);
  void* p = t.mutable_data();
  std::normal_distribution<double> normal(0.0, 1.0);
  std::uniform_int_distribution<int> small(0, 9), coin(0, 1);
  switch (dtype) {
    case DType::Float32: fill<float>(p, n, [&] { return static_cast<float>(normal(rng)); }); break;
    case DType::Float64: fill<double>(p, n, [&] { return normal(rng); }); break;
    case DType::Float16: fill<uint16_t>(p, n, [&] { return float_to_half(static_cast<float>(normal(rng))); }); break;
    case DType::BFloat16:
      fill<uint16_t>(p, n, [&] {
        const float f = static_cast<float>(normal(rng));
        uint32_t x;
        std::memcpy(&x, &f, 4);
        return static_cast<uint16_t>((x + 0x7fff + ((x >> 16) & 1)) >> 16);
      });
      break;
    case DType::Bool: fill<bool>(p, n, [&] { return coin(rng) == 1; }); break;
    case DType::UInt8: fill<uint8_t>(p, n, [&] { return static_cast<uint8_t>(small(rng)); }); break;
    case DType::Int8: fill<int8_t>(p, n, [&] { return static_cast<int8_t>(small(rng)); }); break;
    case DType::Int16: fill<int16_t>(p, n, [&] { return static_cast<int16_t>(small(rng)); }); break;
    case DType::Int32: fill<int32_t>(p, n, [&] { return static_cast<int32_t>(small(rng)); }); break;
    case DType::Int64: fill<int64_t>(p, n, [&] { return static_cast<int64_t>(small(rng)); }); break;
    default: throw Unsupported(fmt::format("random {} tensors", dtype_name(dtype)));
  }
  return t;
}

IValue spec_to_ivalue(const SpecValue& v, uint64_t seed, uint64_t& next_tensor) {
  using K = SpecValue::Kind;
  switch (v.kind) {
    case K::Tensor: return IValue(random_tensor(v.dtype, v.shape, seed + next_tensor++));
    case K::Int: return IValue(v.i);
    case K::Float: return IValue(v.f);
    case K::Bool: return IValue(v.b);
    case K::None: return IValue();
    case K::String: return IValue(v.s);
    case K::Tuple: {
      auto t = std::make_shared<TupleData>();
      for (const auto& x : v.items) t->items.push_back(spec_to_ivalue(x, seed, next_tensor));
      return IValue(std::move(t));
    }
    case K::List: {
      auto l = std::make_shared<ListData>();
      for (const auto& x : v.items) l->items.push_back(spec_to_ivalue(x, seed, next_tensor));
      return IValue(std::move(l));
    }
    case K::Dict: {
      auto d = std::make_shared<DictData>();
      for (size_t k = 0; k + 1 < v.items.size(); k += 2)
        d->set(spec_to_ivalue(v.items[k], seed, next_tensor), spec_to_ivalue(v.items[k + 1], seed, next_tensor));
      return IValue(std::move(d));
    }
  }
  return IValue();
}

std::vector<IValue> spec_inputs(const std::vector<std::string>& specs, uint64_t seed) {
  std::vector<IValue> args;
  uint64_t next_tensor = 0;
  for (const auto& text : specs)
    for (const auto& v : parse_input_spec(text)) args.push_back(spec_to_ivalue(v, seed, next_tensor));
  return args;
}

}  // namespace jitctl
