#include "lib/ir/graph_json.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "lib/ir/attribute_text.h"

namespace jitctl {
namespace {

// Just enough of a JSON document model to build the graph and print it with indentation.
struct Json {
  using Array = std::vector<Json>;
  using Object = std::vector<std::pair<std::string, Json>>;  // keeps insertion order
  std::variant<std::nullptr_t, bool, int64_t, double, std::string, Array, Object> v;

  Json() : v(nullptr) {}
  Json(std::nullptr_t) : v(nullptr) {}
  Json(const char* s) : v(std::string(s)) {}  // not bool
  Json(std::string_view s) : v(std::string(s)) {}
  Json(bool b) : v(b) {}
  Json(int64_t i) : v(i) {}
  Json(double d) : v(d) {}
  Json(std::string s) : v(std::move(s)) {}
  Json(Array a) : v(std::move(a)) {}
  Json(Object o) : v(std::move(o)) {}
};

// Length of the valid UTF-8 sequence at s[i], or 0 (overlongs, surrogates and values beyond
// U+10FFFF are invalid, as RFC 3629 says).
size_t utf8_sequence(std::string_view s, size_t i) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  size_t n;
  uint32_t cp;
  if (c < 0x80) return 1;
  if ((c & 0xE0) == 0xC0) n = 2, cp = c & 0x1F;
  else if ((c & 0xF0) == 0xE0) n = 3, cp = c & 0x0F;
  else if ((c & 0xF8) == 0xF0) n = 4, cp = c & 0x07;
  else return 0;
  if (i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((b(i + k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b(i + k) & 0x3F);
  }
  static constexpr uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kMin[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}

void quote(std::string& out, std::string_view s) {
  out += '"';
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    switch (c) {
      case '"': out += "\\\""; ++i; continue;
      case '\\': out += "\\\\"; ++i; continue;
      case '\n': out += "\\n"; ++i; continue;
      case '\r': out += "\\r"; ++i; continue;
      case '\t': out += "\\t"; ++i; continue;
      case '\b': out += "\\b"; ++i; continue;
      case '\f': out += "\\f"; ++i; continue;
      default: break;
    }
    if (c < 0x20 || c == 0x7F) {
      out += fmt::format("\\u{:04x}", c);
      ++i;
      continue;
    }
    if (size_t n = utf8_sequence(s, i)) {
      out.append(s.substr(i, n));
      i += n;
    } else {
      out += "\\ufffd";
      ++i;
    }
  }
  out += '"';
}

std::string number_text(double d) {
  std::string s = fmt::format("{}", d);
  // Keep a float a float for readers that tell 3 from 3.0.
  if (s.find_first_of(".eE") == std::string::npos) s += ".0";
  return s;
}

void dump(std::string& out, const Json& j, int indent, int level) {
  auto newline = [&](int lvl) {
    if (indent <= 0) return;
    out += '\n';
    out.append(static_cast<size_t>(indent * lvl), ' ');
  };
  if (std::holds_alternative<std::nullptr_t>(j.v)) {
    out += "null";
  } else if (auto* b = std::get_if<bool>(&j.v)) {
    out += *b ? "true" : "false";
  } else if (auto* i = std::get_if<int64_t>(&j.v)) {
    out += std::to_string(*i);
  } else if (auto* d = std::get_if<double>(&j.v)) {
    out += number_text(*d);
  } else if (auto* s = std::get_if<std::string>(&j.v)) {
    quote(out, *s);
  } else if (auto* a = std::get_if<Json::Array>(&j.v)) {
    if (a->empty()) {
      out += "[]";
      return;
    }
    out += '[';
    for (size_t k = 0; k < a->size(); ++k) {
      if (k > 0) out += indent > 0 ? "," : ", ";
      newline(level + 1);
      dump(out, (*a)[k], indent, level + 1);
    }
    newline(level);
    out += ']';
  } else {
    const auto& o = std::get<Json::Object>(j.v);
    if (o.empty()) {
      out += "{}";
      return;
    }
    out += '{';
    for (size_t k = 0; k < o.size(); ++k) {
      if (k > 0) out += indent > 0 ? "," : ", ";
      newline(level + 1);
      quote(out, o[k].first);
      out += ": ";
      dump(out, o[k].second, indent, level + 1);
    }
    newline(level);
    out += '}';
  }
}

Json number(double d) {
  if (std::isnan(d)) return std::string("nan");
  if (std::isinf(d)) return std::string(d > 0 ? "inf" : "-inf");
  return d;
}

Json ivalue_json(const IValue& v) {
  const ValueDepthGuard level("writing as JSON");
  switch (v.kind()) {
    case IValue::Kind::None: return nullptr;
    case IValue::Kind::Bool: return v.to_bool();
    case IValue::Kind::Int: return v.to_int();
    case IValue::Kind::Double: return number(v.to_double());
    case IValue::Kind::String: return v.to_string();
    case IValue::Kind::Device: return repr_ivalue(v);
    case IValue::Kind::List: {
      Json::Array a;
      for (const IValue& e : v.to_list()->items) a.push_back(ivalue_json(e));
      return a;
    }
    case IValue::Kind::Tuple: {
      Json::Array a;
      for (const IValue& e : v.to_tuple()->items) a.push_back(ivalue_json(e));
      return a;
    }
    default: return repr_ivalue(v);
  }
}

Json graph_json(const Graph& g);

template <class T, class F>
Json array_of(const std::vector<T>& xs, F f) {
  Json::Array a;
  a.reserve(xs.size());
  for (const auto& x : xs) a.push_back(f(x));
  return a;
}

Json attribute_json(const AttributeValue& v) {
  switch (kind_of(v)) {
    case AttributeKind::f: return number(std::get<double>(v));
    case AttributeKind::fs: return array_of(std::get<std::vector<double>>(v), [](double d) { return number(d); });
    case AttributeKind::i: return std::get<int64_t>(v);
    case AttributeKind::is: return array_of(std::get<std::vector<int64_t>>(v), [](int64_t i) { return Json(i); });
    case AttributeKind::s: return std::get<std::string>(v);
    case AttributeKind::ss:
      return array_of(std::get<std::vector<std::string>>(v), [](const std::string& s) { return Json(s); });
    case AttributeKind::g: {
      const auto& sub = std::get<std::shared_ptr<Graph>>(v);
      return sub ? graph_json(*sub) : Json();
    }
    case AttributeKind::gs:
      return array_of(std::get<std::vector<std::shared_ptr<Graph>>>(v),
                      [](const std::shared_ptr<Graph>& sub) { return sub ? graph_json(*sub) : Json(); });
    case AttributeKind::ty: return std::get<TypePtr>(v)->graph_str();
    case AttributeKind::tys:
      return array_of(std::get<std::vector<TypePtr>>(v), [](const TypePtr& t) { return Json(t->graph_str()); });
    case AttributeKind::ival: return ivalue_json(std::get<IValue>(v));
    default: return attribute_value_text(v);  // c, cs, t, ts
  }
}

Json value_def(const Value* v) { return Json::Object{{"name", v->debug_name()}, {"type", v->type()->graph_str()}}; }

Json value_defs(const std::vector<Value*>& vs) { return array_of(vs, [](const Value* v) { return value_def(v); }); }

Json nodes_json(const Block& b);

Json block_json(const Block& b) {
  return Json::Object{{"inputs", value_defs(b.inputs())}, {"nodes", nodes_json(b)}, {"outputs", value_defs(b.outputs())}};
}

Json node_json(const Node& n) {
  Json::Object attrs;
  for (const auto& a : n.attributes()) attrs.emplace_back(std::string(a.name.unqual_string()), attribute_json(a.value));
  Json source;
  if (n.source_location()) source = n.source_location()->str();
  return Json::Object{
      {"kind", n.kind().qual_string()},
      {"inputs", array_of(n.inputs(), [](const Value* v) { return Json(v->debug_name()); })},
      {"outputs", value_defs(n.outputs())},
      {"attributes", std::move(attrs)},
      {"source", std::move(source)},
      {"blocks", array_of(n.blocks(), [](const Block* b) { return block_json(*b); })},
  };
}

Json nodes_json(const Block& b) {
  Json::Array a;
  for (const Node* n : b.nodes()) a.push_back(node_json(*n));
  return a;
}

Json graph_json(const Graph& g) {
  return Json::Object{{"inputs", value_defs(g.inputs())}, {"outputs", value_defs(g.outputs())}, {"nodes", nodes_json(*g.block())}};
}

}  // namespace

std::string graph_to_json(const Graph& g, int indent) {
  std::string out;
  dump(out, graph_json(g), indent, 0);
  return out;
}

}  // namespace jitctl
