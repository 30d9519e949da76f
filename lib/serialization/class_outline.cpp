#include "lib/serialization/class_outline.h"

#include <fmt/format.h>

#include "lib/core/error.h"
#include "lib/frontend/lexer.h"
#include "lib/frontend/parser.h"

namespace jitctl {

bool ClassOutline::has_method(std::string_view name) const {
  for (const auto& m : methods)
    if (m == name) return true;
  return false;
}

const ClassOutline* CodeOutline::find(std::string_view qualified_name) const {
  auto it = classes.find(qualified_name);
  return it == classes.end() ? nullptr : &it->second;
}

std::string qualifier_of_record(std::string_view record) {
  if (record.substr(0, 5) == "code/") record.remove_prefix(5);
  if (record.size() > 3 && record.substr(record.size() - 3) == ".py") record.remove_suffix(3);
  std::string q(record);
  for (auto& c : q)
    if (c == '/') c = '.';
  return q;
}

namespace {

class Outliner {
 public:
  Outliner(std::vector<Token> toks, std::string qualifier, const std::string& where, CodeOutline& out)
      : t_(std::move(toks)), qualifier_(std::move(qualifier)), where_(where), out_(out) {}

  void run() {
    while (peek().kind != Tok::End) {
      if (is_name("class")) parse_class();
      else if (is_name("def")) {
        ++i_;
        out_.functions.push_back(qualifier_ + "." + std::string(expect(Tok::Name, "function name").text));
        def_rest();
      } else skip_statement();
    }
  }

 private:
  const Token& peek(size_t k = 0) const { return t_[std::min(i_ + k, t_.size() - 1)]; }
  bool is_name(std::string_view s, size_t k = 0) const { return peek(k).kind == Tok::Name && peek(k).text == s; }
  bool is_op(std::string_view s, size_t k = 0) const { return peek(k).kind == Tok::Op && peek(k).text == s; }

  [[noreturn]] void fail(const Token& at, const std::string& what) const {
    throw InvalidInput(fmt::format("{}:{}:{}: {}", where_, at.line, at.col, what));
  }
  const Token& expect(Tok kind, const char* what) {
    if (peek().kind != kind) fail(peek(), fmt::format("expected {}", what));
    return t_[i_++];
  }
  void expect_op(std::string_view op) {
    if (!is_op(op)) fail(peek(), fmt::format("expected '{}'", op));
    ++i_;
  }

  // Skips one statement with any block under it.
  void skip_statement() {
    while (peek().kind != Tok::Newline && peek().kind != Tok::End) ++i_;
    if (peek().kind == Tok::Newline) ++i_;
    if (peek().kind == Tok::Indent) skip_block();
  }
  void skip_block() {
    int depth = 0;
    do {
      if (peek().kind == Tok::Indent) ++depth;
      if (peek().kind == Tok::Dedent) --depth;
      if (peek().kind == Tok::End) return;
      ++i_;
    } while (depth > 0);
  }

  // After `def NAME`: the signature `(...) [-> T]:` and an indented body, which is skipped here
  // (the compiler reads it).
  void def_rest() {
    if (!is_op("(")) fail(peek(), "expected '(' after the function name");
    int depth = 0;
    do {
      if (is_op("(")) ++depth;
      if (is_op(")")) --depth;
      ++i_;
    } while (depth > 0 && peek().kind != Tok::End);
    if (is_op("->")) {
      ++i_;
      if (text_until({":"}).empty()) fail(peek(), "expected a return type");
    }
    expect_op(":");
    if (peek().kind == Tok::Newline) {
      ++i_;
      if (peek().kind != Tok::Indent) fail(peek(), "expected an indented function body");
      skip_block();
    } else {
      skip_statement();  // a one-line body: def f(x): return x
    }
  }

  // Recognizes a __setstate__(self, state) whose body is only `self.NAME = (state)[K]` lines and
  // `return None` (tokens from `start`, the '(' of its signature, to the end of its body).
  void read_setstate(size_t start, ClassOutline& c) const {
    size_t k = start;
    auto at = [&](size_t j) -> const Token& { return t_[std::min(j, i_)]; };
    auto op = [&](size_t j, std::string_view s) { return at(j).kind == Tok::Op && at(j).text == s; };
    auto name = [&](size_t j, std::string_view s) { return at(j).kind == Tok::Name && (s.empty() || at(j).text == s); };
    // (self: T, STATE: T) -> NoneType:
    if (!op(k, "(") || !name(k + 1, "self")) return;
    while (k < i_ && !op(k, ",")) ++k;
    if (!name(k + 1, "")) return;
    const std::string_view state = at(k + 1).text;
    while (k < i_ && at(k).kind != Tok::Indent) ++k;
    ++k;
    std::vector<std::pair<std::string, size_t>> copies;
    while (k < i_ && at(k).kind != Tok::Dedent) {
      if (name(k, "return") && name(k + 1, "None") && at(k + 2).kind == Tok::Newline) {
        k += 3;
        continue;
      }
      // self . NAME = ( STATE ) [ INT ] NEWLINE
      if (!(name(k, "self") && op(k + 1, ".") && name(k + 2, "") && op(k + 3, "=") && op(k + 4, "(") &&
            name(k + 5, state) && op(k + 6, ")") && op(k + 7, "[") && at(k + 8).kind == Tok::Number && op(k + 9, "]") &&
            at(k + 10).kind == Tok::Newline))
        return;
      const std::string_view idx = at(k + 8).text;
      if (idx.empty() || idx.size() > 6 || idx.find_first_not_of("0123456789") != std::string_view::npos) return;
      copies.emplace_back(std::string(at(k + 2).text), std::stoul(std::string(idx)));
      k += 11;
    }
    c.setstate_copies = std::move(copies);
    c.setstate_is_simple = true;
  }

  // Tokens up to (not including) `stop` at bracket depth 0, joined as TorchScript prints types.
  std::string text_until(std::initializer_list<std::string_view> stops) {
    std::string s;
    int depth = 0;
    while (peek().kind != Tok::Newline && peek().kind != Tok::End) {
      if (depth == 0 && peek().kind == Tok::Op)
        for (auto st : stops)
          if (peek().text == st) return s;
      const auto& tk = t_[i_++];
      if (tk.kind == Tok::Op && (tk.text == "[" || tk.text == "(")) ++depth;
      if (tk.kind == Tok::Op && (tk.text == "]" || tk.text == ")")) --depth;
      s += tk.text;
      if (tk.kind == Tok::Op && tk.text == ",") s += ' ';
    }
    return s;
  }

  std::vector<std::string> string_list() {
    std::vector<std::string> names;
    expect_op("[");
    while (!is_op("]")) {
      const auto& s = expect(Tok::String, "a quoted attribute name");
      if (s.text.size() < 2) fail(s, "malformed string");
      names.emplace_back(s.text.substr(1, s.text.size() - 2));
      if (is_op(",")) ++i_;
      else if (!is_op("]")) fail(peek(), "expected ',' or ']'");
    }
    ++i_;
    return names;
  }

  void parse_class() {
    const Token& kw = t_[i_++];
    ClassOutline c;
    c.file = where_;
    c.line = kw.line;
    c.qualified_name = qualifier_ + "." + std::string(expect(Tok::Name, "class name").text);
    c.base = "object";
    if (is_op("(")) {
      ++i_;
      if (!is_op(")")) c.base = text_until({")"});
      expect_op(")");
    }
    expect_op(":");
    expect(Tok::Newline, "end of line after the class header");
    expect(Tok::Indent, "an indented class body");
    while (peek().kind != Tok::Dedent && peek().kind != Tok::End) member(c);
    if (peek().kind == Tok::Dedent) ++i_;
    auto name = c.qualified_name;
    if (!out_.classes.emplace(name, std::move(c)).second) fail(kw, fmt::format("class {} is defined twice", name));
  }

  void member(ClassOutline& c) {
    if (is_name("def")) {
      ++i_;
      c.methods.emplace_back(expect(Tok::Name, "method name").text);
      const size_t start = i_;
      def_rest();
      if (c.methods.back() == "__setstate__") read_setstate(start, c);
      return;
    }
    if (is_op("@")) return skip_statement();  // decorators (e.g. @staticmethod) before a def
    if ((is_name("__parameters__") || is_name("__buffers__")) && is_op("=", 1)) {
      auto& dst = is_name("__parameters__") ? c.parameters : c.buffers;
      i_ += 2;
      dst = string_list();
      return end_of_statement();
    }
    // Attribute names that are not identifiers ("0" in a Sequential) are declared as
    // __annotations__["0"] = T.
    if (is_name("__annotations__") && is_op("[", 1) && peek(2).kind == Tok::String && is_op("]", 3) && is_op("=", 4)) {
      const auto& key = peek(2).text;
      if (key.size() < 2) fail(peek(2), "malformed string");
      std::string name(key.substr(1, key.size() - 2));
      i_ += 5;
      std::string type = text_until({});
      if (type.empty()) fail(peek(), "expected a type");
      c.attributes.emplace_back(name, type);
      return end_of_statement();
    }
    if (peek().kind == Tok::Name && is_op(":", 1)) {
      std::string name(t_[i_].text);
      i_ += 2;
      std::string type = text_until({"="});
      if (type.empty()) fail(peek(), "expected a type annotation");
      if (type.rfind("Final[", 0) == 0) c.constants.emplace_back(name, type.substr(6, type.size() - 7));
      else c.attributes.emplace_back(name, type);
      return skip_statement();  // a constant's value, if any, is read by the compiler
    }
    skip_statement();  // enum members, pass, docstrings
  }

  void end_of_statement() {
    if (peek().kind != Tok::Newline) fail(peek(), "expected end of line");
    ++i_;
  }

  std::vector<Token> t_;
  size_t i_ = 0;
  std::string qualifier_;
  const std::string& where_;
  CodeOutline& out_;
};

}  // namespace

void check_type_references(const CodeOutline& code) {
  for (const auto& [qname, cls] : code.classes) {
    for (const auto& [attr, type] : cls.attributes) {
      for (size_t p = type.find("__torch__"); p != std::string::npos; p = type.find("__torch__", p + 1)) {
        if (p > 0 && (std::isalnum(static_cast<unsigned char>(type[p - 1])) || type[p - 1] == '_' || type[p - 1] == '.'))
          continue;
        size_t e = p;
        while (e < type.size() && (std::isalnum(static_cast<unsigned char>(type[e])) || type[e] == '_' || type[e] == '.')) ++e;
        const std::string_view ref(type.data() + p, e - p);
        if (ref.rfind("__torch__.torch.classes.", 0) == 0 || code.find(ref)) continue;
        throw InvalidInput(fmt::format("{}:{}: class {} declares attribute '{}' of type {}, which no code file defines",
                                       cls.file, cls.line, qname, attr, ref));
      }
    }
  }
}

void outline_code_file(std::string_view source, std::string_view record, const std::string& where, CodeOutline& out) {
  LexOptions lo;
  lo.file = where;
  auto tokens = lex(source, lo);
  // The whole file is parsed (and thrown away) so that a syntax error anywhere, or a hostile
  // nesting depth, is reported even by commands that only need the class headers.
  ParseOptions po;
  po.file = where;
  parse_tokens(tokens, po);
  Outliner(std::move(tokens), qualifier_of_record(record), where, out).run();
}

}  // namespace jitctl
