#include "lib/ir/graph_parser.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <cstdlib>
#include <span>
#include <unordered_set>

#include "lib/core/string_literal.h"
#include "lib/ir/tensor_text.h"

namespace jitctl {
namespace detail {
namespace {

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool name_char(char c) { return ident_char(c) || c == '.'; }
bool all_digits(std::string_view s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos;
}

// An attribute value as written, before it is decided which attribute kind (or IValue) it is.
struct Lit {
  enum class K {
    Int, Float, Complex, Str, Bool, None, Tensor, TensorList, Graph, GraphList, Type, Device, List, Tuple, Dict,
    Annotated,
  };
  K k = K::None;
  int64_t i = 0;
  double f = 0;
  std::complex<double> c;
  std::string s;
  Tensor t;
  TypePtr type;  // Type, and the annotation of Annotated
  Device device;
  std::vector<Lit> items;  // List, Tuple, Dict (key, value, key, value, ...), Annotated (the value)
};

// What a list's elements are, when the type the list becomes is known.
TypePtr list_hint(const TypePtr& hint) {
  return hint && hint->kind() == TypeKind::List ? hint->expect<ListType>().elem() : nullptr;
}


// What position `i` of an `n`-tuple is, when the type the tuple becomes is known.
TypePtr tuple_hint(const TypePtr& hint, size_t i, size_t n) {
  if (!hint || hint->kind() != TypeKind::Tuple) return nullptr;
  const auto elems = hint->expect<TupleType>().elements();
  return elems.size() == n ? elems[i] : nullptr;
}

}  // namespace

class GraphTextParser {
 public:
  GraphTextParser(std::string_view text, const GraphParseOptions& opts, TypeTextContext& types)
      : s_(text), opts_(opts), types_(types) {}

  void parse(Graph& g, std::unordered_map<std::string, Value*>* names) {
    try {
      std::unordered_map<std::string, Value*> vmap;
      graph_section(g, vmap);
      skip_ws();
      if (pos_ != s_.size()) fail("unexpected text after the graph");
      if (names) *names = std::move(vmap);
    } catch (const TextParseError& e) {
      throw InvalidInput(located(e.offset(), e.what()));
    } catch (const PositionedError&) {
      throw;
    } catch (const InvalidInput& e) {
      throw InvalidInput(located(pos_, e.what()));
    }
  }

  struct PositionedError : InvalidInput {
    using InvalidInput::InvalidInput;
  };

 private:
  // --- positions and errors -------------------------------------------------------------------

  std::string located(size_t offset, const std::string& msg) const {
    size_t line = 1, col = 1;
    for (size_t i = 0; i < offset && i < s_.size(); ++i) {
      if (s_[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    return fmt::format("{}:{}:{}: {}", opts_.source_name, line, col, msg);
  }

  [[noreturn]] void fail_at(size_t offset, const std::string& msg) const {
    throw PositionedError(located(offset, msg));
  }
  [[noreturn]] void fail(const std::string& msg) const { fail_at(pos_, msg); }

  // --- characters -----------------------------------------------------------------------------

  bool eof() const { return pos_ >= s_.size(); }
  char peek() const { return eof() ? '\0' : s_[pos_]; }
  bool at(std::string_view w) const { return s_.substr(pos_, w.size()) == w; }
  bool at_word(std::string_view w) const {
    return at(w) && (pos_ + w.size() >= s_.size() || !ident_char(s_[pos_ + w.size()]));
  }
  void skip_spaces() {
    while (!eof() && (s_[pos_] == ' ' || s_[pos_] == '\t')) ++pos_;
  }
  // Spaces, newlines and comment lines.
  void skip_ws() {
    while (!eof()) {
      const char c = s_[pos_];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        ++pos_;
      } else if (c == '#') {
        while (!eof() && s_[pos_] != '\n') ++pos_;
      } else {
        break;
      }
    }
  }
  void expect(char c) {
    skip_ws();
    if (peek() != c) fail(fmt::format("expected '{}'", c));
    ++pos_;
  }
  bool accept(char c) {
    skip_ws();
    if (peek() != c) return false;
    ++pos_;
    return true;
  }
  void expect_word(std::string_view w) {
    skip_ws();
    if (!at_word(w)) fail(fmt::format("expected '{}'", w));
    pos_ += w.size();
  }
  std::string ident() {
    skip_ws();
    const size_t start = pos_;
    while (!eof() && ident_char(s_[pos_])) ++pos_;
    if (pos_ == start) fail("expected a name");
    return std::string(s_.substr(start, pos_ - start));
  }

  // --- values ---------------------------------------------------------------------------------

  std::string var_name() {
    expect('%');
    const size_t start = pos_;
    while (!eof() && name_char(s_[pos_])) ++pos_;
    if (pos_ == start) fail("expected a value name after '%'");
    return std::string(s_.substr(start, pos_ - start));
  }

  TypePtr type() {
    skip_ws();
    return parse_type_at(s_, pos_, types_);
  }

  // `%name` or `%name : Type` (Tensor when untyped).
  std::pair<std::string, TypePtr> typed_var() {
    std::string name = var_name();
    skip_spaces();
    TypePtr t = accept(':') ? type() : TensorType::get();
    return {std::move(name), std::move(t)};
  }

  void define(Value* v, const std::string& name, TypePtr t, size_t at) {
    if (vmap_->count(name) || !section_->defined.insert(name).second)
      fail_at(at, fmt::format("value %{} is defined twice", name));
    if (!section_->scopes.empty()) section_->scopes.back().push_back(name);
    if (all_digits(name)) {
      // A printed id: give the value that id, which the section's counter stays above. Only as
      // the printer writes ids (largest_printed_id reads the same ones): `%06` beside `%6`, or a
      // number too large to read, would give two values one id.
      if ((name.size() > 1 && name[0] == '0') || name.size() >= 19)
        fail_at(at, fmt::format("value %{} is neither a name nor an id as graphs print them", name));
      size_t id = 0;
      std::from_chars(name.data(), name.data() + name.size(), id);
      v->unique_ = id;
    } else {
      v->set_debug_name(name);
    }
    v->set_type(std::move(t));
    (*vmap_)[name] = v;
  }

  Value* lookup(const std::string& name, size_t at) const {
    auto it = vmap_->find(name);
    if (it == vmap_->end()) fail_at(at, fmt::format("Cannot find a variable with name '{}'", name));
    return it->second;
  }

  std::vector<Value*> value_refs() {
    std::vector<Value*> out;
    expect('(');
    if (accept(')')) return out;
    do {
      skip_ws();
      const size_t where = pos_;
      out.push_back(lookup(var_name(), where));
    } while (accept(','));
    expect(')');
    return out;
  }

  // --- graphs, blocks, nodes ------------------------------------------------------------------

  // The largest `%digits` in this section's own text (up to the first `with` section), so that
  // values the parser names take ids above every printed one.
  size_t largest_printed_id() const {
    size_t end = s_.find("\nwith ", pos_);
    if (end == std::string_view::npos) end = s_.size();
    size_t largest = 0;
    bool any = false;
    for (size_t i = s_.find('%', pos_); i < end; i = s_.find('%', i + 1)) {
      size_t j = i + 1;
      while (j < end && name_char(s_[j])) ++j;
      const auto name = s_.substr(i + 1, j - i - 1);
      if (all_digits(name) && name.size() < 19) {
        size_t id = 0;
        std::from_chars(name.data(), name.data() + name.size(), id);
        largest = std::max(largest, id);
        any = true;
      }
    }
    return any ? largest + 1 : 0;
  }

  struct Section {
    Graph* g;
    // Nodes printed as `kind_N` with N counting up from 0: the candidates for `with` sections.
    std::vector<std::pair<Node*, std::string>> groups;
    // Values are visible in the block that defines them and blocks nested in it, so a block's
    // names leave the map when it ends; `defined` keeps every name, which may not be reused.
    std::vector<std::vector<std::string>> scopes;
    std::unordered_set<std::string> defined;
  };

  void graph_section(Graph& g, std::unordered_map<std::string, Value*>& vmap) {
    if (g.block()->nodes().begin() != g.block()->nodes().end() || !g.inputs().empty())
      throw InvalidInput("parse_graph_into needs an empty graph");
    auto* saved_vmap = vmap_;
    auto* saved_section = section_;
    Section section{&g, {}, {}, {}};
    vmap_ = &vmap;
    section_ = &section;

    expect_word("graph");
    g.next_unique_ = std::max(g.next_unique_, largest_printed_id());
    expect('(');
    if (!accept(')')) {
      do {
        skip_ws();
        const size_t where = pos_;
        auto [name, t] = typed_var();
        define(g.add_input(), name, std::move(t), where);
      } while (accept(','));
      expect(')');
    }
    expect(':');
    nodes(g.block());
    expect_word("return");
    for (Value* v : value_refs()) g.register_output(v);

    // Subgraphs follow in the order their nodes printed.
    for (auto& [node, printed] : section.groups) {
      skip_ws();
      const size_t where = pos_;
      if (!at_word("with")) break;
      pos_ += 4;
      skip_ws();
      if (!at(printed) || (pos_ + printed.size() < s_.size() && ident_char(s_[pos_ + printed.size()]))) {
        pos_ = where;
        break;
      }
      pos_ += printed.size();
      expect('=');
      auto sub = std::make_shared<Graph>();
      std::unordered_map<std::string, Value*> sub_vmap;
      graph_section(*sub, sub_vmap);
      node->kind_ = Symbol::from_qual_string(printed.substr(0, printed.rfind('_')));
      node->g_(attr::Subgraph, std::move(sub));
    }
    vmap_ = saved_vmap;
    section_ = saved_section;
  }

  // Nodes up to a block's `->` or the graph's `return`.
  void nodes(Block* b) {
    while (true) {
      skip_ws();
      if (eof()) fail("expected 'return'");
      if (at_word("return") || at("->")) return;
      node(b);
    }
  }

  void node(Block* b) {
    std::vector<std::pair<std::string, TypePtr>> outs;
    std::vector<size_t> out_at;
    skip_ws();
    if (peek() == '%') {
      do {
        skip_ws();
        out_at.push_back(pos_);
        outs.push_back(typed_var());
      } while (accept(','));
      expect('=');
    } else {
      accept('=');
    }
    skip_ws();
    std::string kind = ident();
    if (!at("::")) fail("expected '::' in a node kind");
    pos_ += 2;
    kind += "::" + ident();
    Graph& g = *section_->g;
    const Symbol sym = Symbol::from_qual_string(kind);
    if (sym == prim::Param || sym == prim::Return) fail(fmt::format("{} cannot appear as a node", kind));
    Node* n = g.create(sym, outs.size());
    b->append_node(n);

    if (peek() == '[') {
      const TypePtr hint = outs.size() == 1 ? outs[0].second : nullptr;
      attributes(n, hint);
    }
    for (Value* v : value_refs()) n->add_input(v);

    skip_spaces();
    if (peek() == '#') n->set_source_location(location());

    // `kind_N`, N the number of such nodes so far, may be a node with a subgraph.
    const auto us = kind.rfind('_');
    if (us != std::string::npos && us > kind.find("::") + 2 &&
        kind.substr(us + 1) == std::to_string(section_->groups.size()))
      section_->groups.emplace_back(n, kind);

    while (true) {
      const size_t save = pos_;
      skip_ws();
      if (at("block") && pos_ + 5 < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_ + 5]))) {
        block(n);
      } else {
        pos_ = save;
        break;
      }
    }
    // Outputs come into scope after the node, blocks included.
    for (size_t i = 0; i < outs.size(); ++i) define(n->outputs()[i], outs[i].first, outs[i].second, out_at[i]);
  }

  SourceLocation location() {
    ++pos_;  // '#'
    skip_spaces();
    const size_t start = pos_;
    while (!eof() && s_[pos_] != '\n' && s_[pos_] != '\r') ++pos_;
    const std::string_view text = s_.substr(start, pos_ - start);
    const auto c2 = text.rfind(':');
    const auto c1 = c2 == std::string_view::npos || c2 == 0 ? std::string_view::npos : text.rfind(':', c2 - 1);
    SourceLocation loc;
    auto number = [&](std::string_view d, uint32_t& out) {
      return all_digits(d) && std::from_chars(d.data(), d.data() + d.size(), out).ec == std::errc();
    };
    if (c1 == std::string_view::npos || !number(text.substr(c1 + 1, c2 - c1 - 1), loc.line) ||
        !number(text.substr(c2 + 1), loc.col))
      fail_at(start, "expected a source location 'file:line:col' after '#'");
    loc.file = std::string(text.substr(0, c1));
    return loc;
  }

  void block(Node* n) {
    pos_ += 5;
    while (!eof() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) ++pos_;
    Block* b = n->add_block();
    section_->scopes.emplace_back();
    expect('(');
    if (!accept(')')) {
      do {
        skip_ws();
        const size_t where = pos_;
        auto [name, t] = typed_var();
        define(b->add_input(), name, std::move(t), where);
      } while (accept(','));
      expect(')');
    }
    expect(':');
    nodes(b);
    skip_ws();
    if (!at("->")) fail("expected '->'");
    pos_ += 2;
    for (Value* v : value_refs()) b->register_output(v);
    for (const auto& name : section_->scopes.back()) vmap_->erase(name);
    section_->scopes.pop_back();
  }

  // --- attributes -----------------------------------------------------------------------------

  void attributes(Node* n, const TypePtr& output_type) {
    expect('[');
    if (accept(']')) return;
    do {
      const std::string name = ident();
      expect('=');
      const bool constant_value = n->kind() == prim::Constant && name == "value";
      const size_t where = pos_;
      Lit lit = value(constant_value ? output_type : nullptr);
      try {
        n->set_attr(Symbol::attr(name),
                    to_attribute(std::move(lit), constant_value, constant_value ? output_type : nullptr));
      } catch (const PositionedError&) {
        throw;
      } catch (const InvalidInput& e) {
        fail_at(where, e.what());
      }
    } while (accept(','));
    expect(']');
  }

  // One value, starting right here: a tensor printout may begin with spaces.
  Lit value(const TypePtr& hint) {
    if (const size_t end = tensor_printout_end(s_, pos_)) {
      Lit l;
      l.k = Lit::K::Tensor;
      const size_t where = pos_;
      try {
        l.t = parse_tensor_printout(s_.substr(pos_, end - pos_));
      } catch (const InvalidInput& e) {
        fail_at(where, e.what());
      }
      pos_ = end;
      return l;
    }
    skip_spaces();
    Lit l;
    const char c = peek();
    if (c == '"') {
      l.k = Lit::K::Str;
      l.s = string_literal();
    } else if (at("[<Tensors>]")) {
      pos_ += 11;
      l.k = Lit::K::TensorList;
    } else if (at("[<Graphs>]")) {
      pos_ += 10;
      l.k = Lit::K::GraphList;
    } else if (c == '[') {
      ++pos_;
      l.k = Lit::K::List;
      const TypePtr elem = list_hint(hint);
      skip_spaces();
      if (peek() != ']') {
        do {
          skip_spaces();
          l.items.push_back(value(elem));
        } while (accept(','));
      }
      expect(']');
    } else if (c == '(') {
      ++pos_;
      l.k = Lit::K::Tuple;
      std::span<const TypePtr> elems;
      if (hint && hint->kind() == TypeKind::Tuple) elems = hint->expect<TupleType>().elements();
      skip_spaces();
      if (peek() != ')') {
        do {
          skip_spaces();
          if (peek() == ')') break;  // the `(x,)` of a 1-tuple
          const size_t i = l.items.size();
          l.items.push_back(value(i < elems.size() ? elems[i] : nullptr));
        } while (accept(','));
      }
      expect(')');
    } else if (c == '{') {
      l = brace(hint);
    } else if (at("<Tensor>")) {
      pos_ += 8;
      l.k = Lit::K::Tensor;  // undefined: contents not printed
    } else if (at("<Graph>")) {
      pos_ += 7;
      l.k = Lit::K::Graph;
    } else if (at("annotate(")) {
      pos_ += 9;
      l.k = Lit::K::Annotated;
      l.type = type();
      expect(',');
      l.items.push_back(value(l.type));
      expect(')');
    } else if (at("torch.device(")) {
      pos_ += 13;
      skip_spaces();
      const size_t at_str = pos_;
      const std::string spec = string_literal();
      auto d = Device::parse(spec);
      if (!d) fail_at(at_str, fmt::format("unknown device '{}'", spec));
      l.k = Lit::K::Device;
      l.device = *d;
      expect(')');
    } else if (at_word("None")) {
      pos_ += 4;
      l.k = Lit::K::None;
    } else if (at_word("True") || at_word("False")) {
      l.k = Lit::K::Bool;
      l.i = at_word("True");
      pos_ += l.i ? 4 : 5;
    } else if (std::isdigit(static_cast<unsigned char>(c)) || c == '-' || at_word("inf") || at_word("nan")) {
      l = number_literal();
    } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      l.k = Lit::K::Type;
      l.type = type();
    } else {
      fail("expected an attribute value");
    }
    return l;
  }

  // `{...}`: a dict, or a one-element tensor (`{2.5}`, `{(1,2)}`).
  Lit brace(const TypePtr& hint) {
    const size_t open = pos_;
    size_t close = open + 1;
    while (close < s_.size() && s_[close] != '}' && s_[close] != '\n') ++close;
    const std::string_view inside = s_.substr(open + 1, close - open - 1);
    Lit l;
    if (!inside.empty() && close < s_.size() && s_[close] == '}' &&
        inside.find_first_not_of("0123456789.eE+-infa(),") == std::string_view::npos) {
      l.k = Lit::K::Tensor;
      try {
        l.t = parse_scalar_tensor_text(inside, hint);
      } catch (const InvalidInput& e) {
        fail_at(open, e.what());
      }
      pos_ = close + 1;
      return l;
    }
    ++pos_;
    l.k = Lit::K::Dict;
    TypePtr key_hint, value_hint;
    if (hint && hint->kind() == TypeKind::Dict) {
      key_hint = hint->expect<DictType>().key();
      value_hint = hint->expect<DictType>().value();
    }
    skip_spaces();
    if (peek() != '}') {
      do {
        skip_spaces();
        l.items.push_back(value(key_hint));
        expect(':');
        skip_spaces();
        l.items.push_back(value(value_hint));
      } while (accept(','));
    }
    expect('}');
    return l;
  }

  Lit number_literal() {
    Lit l;
    const size_t start = pos_;
    double real = number_text(/*allow_plus=*/false);
    const std::string_view text = s_.substr(start, pos_ - start);
    if (peek() == 'j') {
      ++pos_;
      l.k = Lit::K::Complex;
      l.c = {0.0, real};
      return l;
    }
    if (peek() == '+' || peek() == '-') {
      // `re+imj` / `re-imj`
      const size_t save = pos_;
      try {
        const double imag = number_text(/*allow_plus=*/true);
        if (peek() == 'j') {
          ++pos_;
          l.k = Lit::K::Complex;
          l.c = {real, imag};
          return l;
        }
      } catch (const PositionedError&) {
      }
      pos_ = save;
    }
    const bool is_float = text.find_first_of(".eE") != std::string_view::npos ||
                          text.find("inf") != std::string_view::npos || text.find("nan") != std::string_view::npos;
    if (is_float) {
      l.k = Lit::K::Float;
      l.f = real;
    } else {
      l.k = Lit::K::Int;
      if (std::from_chars(text.data(), text.data() + text.size(), l.i).ec != std::errc())
        fail_at(start, fmt::format("integer '{}' out of range", text));
    }
    return l;
  }

  double number_text(bool allow_plus) {
    const size_t start = pos_;
    if (peek() == '-' || (allow_plus && peek() == '+')) ++pos_;
    if (at("inf") || at("nan")) {
      pos_ += 3;
    } else {
      const size_t digits = pos_;
      while (!eof() && std::isdigit(static_cast<unsigned char>(peek()))) ++pos_;
      if (peek() == '.') {
        ++pos_;
        while (!eof() && std::isdigit(static_cast<unsigned char>(peek()))) ++pos_;
      }
      if (pos_ == digits) fail_at(start, "expected a number");
      if (peek() == 'e' || peek() == 'E') {
        const size_t e = pos_++;
        if (peek() == '+' || peek() == '-') ++pos_;
        if (!std::isdigit(static_cast<unsigned char>(peek()))) {
          pos_ = e;
        } else {
          while (!eof() && std::isdigit(static_cast<unsigned char>(peek()))) ++pos_;
        }
      }
    }
    std::string text(s_.substr(start, pos_ - start));
    if (text[0] == '+') text.erase(0, 1);
    return std::strtod(text.c_str(), nullptr);
  }

  // A string as quote_string writes it.
  std::string string_literal() {
    if (peek() != '"') fail("expected '\"'");
    const size_t start = pos_++;
    while (true) {  // to the closing quote; a backslash escapes the character after it
      if (eof() || peek() == '\n') fail_at(start, "unterminated string");
      const char c = s_[pos_++];
      if (c == '"') break;
      if (c == '\\') {
        if (eof()) fail_at(start, "unterminated string");
        ++pos_;
      }
    }
    std::string out, error;
    size_t at = 0;
    if (!unescape_string(s_.substr(start + 1, pos_ - start - 2), EscapeRules::Printed, out, error, at))
      fail_at(start + 1 + at, "bad escape");
    return out;
  }

  // --- from literals to attributes ------------------------------------------------------------

  static bool all_of_kind(const std::vector<Lit>& items, Lit::K k) {
    return !items.empty() && std::all_of(items.begin(), items.end(), [&](const Lit& l) { return l.k == k; });
  }

  AttributeValue to_attribute(Lit l, bool constant_value, const TypePtr& hint) {
    using K = Lit::K;
    switch (l.k) {
      case K::Int: return AttributeValue(std::in_place_index<4>, l.i);
      case K::Float: return AttributeValue(std::in_place_index<0>, l.f);
      case K::Complex: return AttributeValue(std::in_place_index<2>, l.c);
      case K::Str: return AttributeValue(std::in_place_index<6>, std::move(l.s));
      case K::Tensor: return AttributeValue(std::in_place_index<8>, std::move(l.t));
      case K::Type: return AttributeValue(std::in_place_index<12>, std::move(l.type));
      case K::Graph: return AttributeValue(std::in_place_index<10>, std::make_shared<Graph>());
      case K::GraphList: return AttributeValue(std::in_place_index<11>, std::vector<std::shared_ptr<Graph>>{});
      case K::TensorList:
        if (!constant_value) return AttributeValue(std::in_place_index<9>, std::vector<Tensor>{});
        break;
      case K::List:
        if (l.items.empty() || all_of_kind(l.items, K::Type)) {
          std::vector<TypePtr> types;
          for (auto& item : l.items) types.push_back(std::move(item.type));
          return AttributeValue(std::in_place_index<13>, std::move(types));
        }
        if (!constant_value) {
          if (all_of_kind(l.items, K::Int)) {
            std::vector<int64_t> v;
            for (const auto& item : l.items) v.push_back(item.i);
            return AttributeValue(std::in_place_index<5>, std::move(v));
          }
          if (all_of_kind(l.items, K::Float)) {
            std::vector<double> v;
            for (const auto& item : l.items) v.push_back(item.f);
            return AttributeValue(std::in_place_index<1>, std::move(v));
          }
          if (all_of_kind(l.items, K::Str)) {
            std::vector<std::string> v;
            for (auto& item : l.items) v.push_back(std::move(item.s));
            return AttributeValue(std::in_place_index<7>, std::move(v));
          }
          if (all_of_kind(l.items, K::Complex)) {
            std::vector<std::complex<double>> v;
            for (const auto& item : l.items) v.push_back(item.c);
            return AttributeValue(std::in_place_index<3>, std::move(v));
          }
        }
        break;
      case K::Annotated:
        // `annotate(List[int], [])` on an ordinary node is an empty int list attribute.
        if (!constant_value && l.type->kind() == TypeKind::List && l.items[0].k == K::List &&
            l.items[0].items.empty()) {
          switch (l.type->expect<ListType>().elem()->kind()) {
            case TypeKind::Int: return AttributeValue(std::in_place_index<5>, std::vector<int64_t>{});
            case TypeKind::Float: return AttributeValue(std::in_place_index<1>, std::vector<double>{});
            case TypeKind::String: return AttributeValue(std::in_place_index<7>, std::vector<std::string>{});
            case TypeKind::Complex:
              return AttributeValue(std::in_place_index<3>, std::vector<std::complex<double>>{});
            default: break;
          }
        }
        break;
      default: break;
    }
    return AttributeValue(std::in_place_index<14>, to_ivalue(std::move(l), hint));
  }

  IValue to_ivalue(Lit l, const TypePtr& hint) {
    using K = Lit::K;
    switch (l.k) {
      case K::Int: return IValue(l.i);
      case K::Float: return IValue(l.f);
      case K::Complex: return IValue(l.c);
      case K::Str: return IValue(std::move(l.s));
      case K::Bool: return IValue(l.i != 0);
      case K::None: return IValue();
      case K::Tensor: return IValue(std::move(l.t));
      case K::Device: return IValue(l.device);
      case K::TensorList: {
        auto list = std::make_shared<ListData>();
        list->elem_type = "Tensor";
        return IValue(std::move(list));
      }
      case K::List: {
        auto list = std::make_shared<ListData>();
        const TypePtr elem = list_hint(hint);
        if (elem) list->elem_type = elem->annotation_str();
        for (auto& item : l.items) list->items.push_back(to_ivalue(std::move(item), elem));
        return IValue(std::move(list));
      }
      case K::Tuple: {
        auto tuple = std::make_shared<TupleData>();
        const size_t n = l.items.size();
        for (size_t i = 0; i < n; ++i) tuple->items.push_back(to_ivalue(std::move(l.items[i]), tuple_hint(hint, i, n)));
        return IValue(std::move(tuple));
      }
      case K::Dict: {
        auto dict = std::make_shared<DictData>();
        TypePtr kh, vh;
        if (hint && hint->kind() == TypeKind::Dict) {
          kh = hint->expect<DictType>().key();
          vh = hint->expect<DictType>().value();
          dict->key_type = kh->annotation_str();
          dict->value_type = vh->annotation_str();
        }
        for (size_t i = 0; i + 1 < l.items.size(); i += 2)
          dict->set(to_ivalue(std::move(l.items[i]), kh), to_ivalue(std::move(l.items[i + 1]), vh));
        return IValue(std::move(dict));
      }
      case K::Annotated: return to_ivalue(std::move(l.items[0]), l.type);
      case K::Type:
      case K::Graph:
      case K::GraphList: break;
    }
    throw InvalidInput("types and graphs cannot appear inside a value");
  }

  std::string_view s_;
  size_t pos_ = 0;
  const GraphParseOptions& opts_;
  TypeTextContext& types_;
  std::unordered_map<std::string, Value*>* vmap_ = nullptr;
  Section* section_ = nullptr;
};

}  // namespace detail

void parse_graph_into(std::string_view text, Graph& g, std::unordered_map<std::string, Value*>* names,
                      const GraphParseOptions& opts) {
  TypeTextContext local;
  detail::GraphTextParser p(text, opts, opts.types ? *opts.types : local);
  p.parse(g, names);
}

std::shared_ptr<Graph> parse_graph(std::string_view text, const GraphParseOptions& opts) {
  auto g = std::make_shared<Graph>();
  parse_graph_into(text, *g, nullptr, opts);
  return g;
}

}  // namespace jitctl
