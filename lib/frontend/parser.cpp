#include "lib/frontend/parser.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <set>

#include "lib/core/error.h"
#include "lib/core/string_literal.h"

namespace jitctl {

// ---------------------------------------------------------------------------------------------
// Operator spellings and the S-expression dump.

const char* op_spelling(Op op) {
  switch (op) {
    case Op::None: return "?";
    case Op::Add: return "+";
    case Op::Sub: return "-";
    case Op::Mul: return "*";
    case Op::Div: return "/";
    case Op::FloorDiv: return "//";
    case Op::Mod: return "%";
    case Op::Pow: return "**";
    case Op::MatMul: return "@";
    case Op::BitAnd: return "&";
    case Op::BitOr: return "|";
    case Op::BitXor: return "^";
    case Op::LShift: return "<<";
    case Op::RShift: return ">>";
    case Op::And: return "and";
    case Op::Or: return "or";
    case Op::Not: return "not";
    case Op::Neg: return "-";
    case Op::Pos: return "+";
    case Op::Invert: return "~";
    case Op::Eq: return "==";
    case Op::Ne: return "!=";
    case Op::Lt: return "<";
    case Op::Le: return "<=";
    case Op::Gt: return ">";
    case Op::Ge: return ">=";
    case Op::Is: return "is";
    case Op::IsNot: return "is not";
    case Op::In: return "in";
    case Op::NotIn: return "not in";
  }
  return "?";
}

namespace {

// Ops in the dump are single words: "is not" -> "is-not".
std::string op_word(Op op) {
  std::string s = op_spelling(op);
  std::replace(s.begin(), s.end(), ' ', '-');
  return s;
}

void dump_to(std::string& out, const Expr* e);

void dump_list(std::string& out, const char* head, const std::vector<ExprPtr>& xs, size_t from = 0) {
  out += '(';
  out += head;
  for (size_t i = from; i < xs.size(); ++i) {
    out += ' ';
    dump_to(out, xs[i].get());
  }
  out += ')';
}

void dump_to(std::string& out, const Expr* e) {
  if (!e) {
    out += '_';
    return;
  }
  const auto& c = e->children;
  switch (e->kind) {
    case ExprKind::Name: out += e->text; return;
    case ExprKind::Int: out += std::to_string(e->int_value); return;
    case ExprKind::Float: {
      std::string s = fmt::format("{}", e->float_value);
      if (s.find_first_not_of("-0123456789") == std::string::npos) s += ".0";
      out += s;
      return;
    }
    case ExprKind::String: out += quote_string(e->text); return;
    case ExprKind::None: out += "None"; return;
    case ExprKind::True: out += "True"; return;
    case ExprKind::False: out += "False"; return;
    case ExprKind::Ellipsis: out += "..."; return;
    case ExprKind::Attribute:
      out += "(. ";
      dump_to(out, c[0].get());
      out += ' ' + e->text + ')';
      return;
    case ExprKind::Call: dump_list(out, "call", c); return;
    case ExprKind::Keyword:
      out += "(kw " + e->text + ' ';
      dump_to(out, c[0].get());
      out += ')';
      return;
    case ExprKind::Starred: dump_list(out, "*", c); return;
    case ExprKind::Subscript: dump_list(out, "index", c); return;
    case ExprKind::Slice: dump_list(out, "slice", c); return;
    case ExprKind::Tuple: dump_list(out, "tuple", c); return;
    case ExprKind::List: dump_list(out, "list", c); return;
    case ExprKind::Dict: dump_list(out, "dict", c); return;
    case ExprKind::ListComp: dump_list(out, "listcomp", c); return;
    case ExprKind::DictComp: dump_list(out, "dictcomp", c); return;
    case ExprKind::Comprehension: dump_list(out, "for", c); return;
    case ExprKind::IfExp: dump_list(out, "ifexp", c); return;
    case ExprKind::Unary:
    case ExprKind::Binary: dump_list(out, op_word(e->op).c_str(), c); return;
    case ExprKind::Compare:
      if (c.size() == 2) {
        dump_list(out, op_word(e->cmp_ops[0]).c_str(), c);
        return;
      }
      out += "(cmp ";
      for (size_t i = 0; i < c.size(); ++i) {
        if (i) out += ' ' + op_word(e->cmp_ops[i - 1]) + ' ';
        dump_to(out, c[i].get());
      }
      out += ')';
      return;
  }
}

void dump_to(std::string& out, const Stmt& s);

void dump_block(std::string& out, const char* head, const std::vector<StmtPtr>& body) {
  out += '(';
  out += head;
  for (const auto& st : body) {
    out += ' ';
    dump_to(out, *st);
  }
  out += ')';
}

void dump_to(std::string& out, const Stmt& s) {
  auto expr = [&](const ExprPtr& e) {
    out += ' ';
    dump_to(out, e.get());
  };
  switch (s.kind) {
    case StmtKind::Expr:
      out += "(expr";
      expr(s.value);
      break;
    case StmtKind::Assign:
      out += s.annotation ? "(:" : "(=";
      for (const auto& t : s.targets) expr(t);
      if (s.annotation) expr(s.annotation);
      if (s.value) expr(s.value);
      break;
    case StmtKind::AugAssign:
      out += fmt::format("({}=", op_spelling(s.op));
      expr(s.targets[0]);
      expr(s.value);
      break;
    case StmtKind::If:
    case StmtKind::While:
    case StmtKind::For:
      out += s.kind == StmtKind::If ? "(if" : s.kind == StmtKind::While ? "(while" : "(for";
      if (s.kind == StmtKind::For) expr(s.targets[0]);
      expr(s.value);
      out += ' ';
      dump_block(out, "body", s.body);
      if (!s.orelse.empty()) {
        out += ' ';
        dump_block(out, "else", s.orelse);
      }
      break;
    case StmtKind::With:
      out += "(with";
      for (size_t i = 0; i < s.items.size(); ++i) {
        out += " (as";
        expr(s.items[i]);
        expr(s.targets[i]);
        out += ')';
      }
      out += ' ';
      dump_block(out, "body", s.body);
      break;
    case StmtKind::Break: out += "break"; return;
    case StmtKind::Continue: out += "continue"; return;
    case StmtKind::Pass: out += "pass"; return;
    case StmtKind::Return:
    case StmtKind::Raise:
      out += s.kind == StmtKind::Return ? "(return" : "(raise";
      if (s.value) expr(s.value);
      break;
    case StmtKind::Assert:
      out += "(assert";
      expr(s.value);
      if (s.message) expr(s.message);
      break;
    case StmtKind::Del:
      out += "(del";
      for (const auto& t : s.targets) expr(t);
      break;
    case StmtKind::Global:
    case StmtKind::Nonlocal:
    case StmtKind::Import:
      out += s.kind == StmtKind::Global ? "(global" : s.kind == StmtKind::Nonlocal ? "(nonlocal" : "(import";
      for (const auto& n : s.names) out += ' ' + n;
      break;
    case StmtKind::Def: {
      const auto& d = *s.def;
      out += "(def " + d.name;
      if (!d.decorators.empty()) {
        out += ' ';
        dump_list(out, "decorators", d.decorators);
      }
      out += " (params";
      for (const auto& p : d.params) {
        out += " (" + std::string(p.stars, '*') + p.name;
        if (p.keyword_only) out += " kwonly";
        expr(p.annotation);
        if (p.default_value) expr(p.default_value);
        out += ')';
      }
      out += ')';
      expr(d.returns);
      out += ' ';
      dump_block(out, "body", d.body);
      break;
    }
    case StmtKind::Class: {
      const auto& c = *s.cls;
      out += "(class " + c.name;
      if (!c.decorators.empty()) {
        out += ' ';
        dump_list(out, "decorators", c.decorators);
      }
      out += ' ';
      dump_list(out, "bases", c.bases);
      out += ' ';
      dump_block(out, "body", c.body);
      break;
    }
  }
  out += ')';
}

}  // namespace

std::string dump(const Expr& e) {
  std::string out;
  dump_to(out, &e);
  return out;
}

std::string dump(const Stmt& s) {
  std::string out;
  dump_to(out, s);
  return out;
}

std::string dump(const ParsedFile& f) {
  std::string out;
  for (const auto& s : f.body) {
    dump_to(out, *s);
    out += '\n';
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Literals.

namespace {

bool decode_impl(std::string_view tok, std::string& out, std::string& error, size_t& error_at) {
  size_t q = 0;
  bool raw = false;
  while (q < tok.size() && tok[q] != '"' && tok[q] != '\'') {
    if (tok[q] == 'r' || tok[q] == 'R') raw = true;
    ++q;
  }
  const size_t quote_len = tok.substr(q, 3) == std::string(3, tok[q]) && tok.size() - q >= 6 ? 3 : 1;
  const size_t begin = q + quote_len, end = tok.size() - quote_len;
  if (raw) {
    out.assign(tok.substr(begin, end - begin));
    return true;
  }
  if (!unescape_string(tok.substr(begin, end - begin), EscapeRules::Python, out, error, error_at)) {
    error_at += begin;
    return false;
  }
  return true;
}

constexpr std::array<std::string_view, 35> kKeywords = {
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def",
    "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is",
    "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while", "with", "yield",
};

bool is_keyword(std::string_view s) { return std::find(kKeywords.begin(), kKeywords.end(), s) != kKeywords.end(); }

// Binding levels, loosest first. Unary `not` and `- + ~` are prefix levels; `**` is handled
// with the postfix operand because it binds tighter than a unary minus on its left.
enum Level : int { kOr = 1, kAnd, kNot, kCompare, kBitOr, kBitXor, kBitAnd, kShift, kArith, kTerm, kUnary };

struct BinaryOp {
  Op op = Op::None;
  int level = 0;
  int tokens = 1;  // `not in` and `is not` are two tokens
};

constexpr std::array<std::pair<std::string_view, Op>, 13> kAugOps = {{
    {"+=", Op::Add}, {"-=", Op::Sub}, {"*=", Op::Mul}, {"/=", Op::Div}, {"//=", Op::FloorDiv},
    {"%=", Op::Mod}, {"**=", Op::Pow}, {"@=", Op::MatMul}, {"&=", Op::BitAnd}, {"|=", Op::BitOr},
    {"^=", Op::BitXor}, {"<<=", Op::LShift}, {">>=", Op::RShift},
}};

class Parser {
 public:
  Parser(const std::vector<Token>& t, const ParseOptions& o) : t_(t), o_(o) {
    if (t_.empty() || t_.back().kind != Tok::End) throw InvalidInput(fmt::format("{}: token stream without an end", o_.file));
  }

  ParsedFile file() {
    ParsedFile f;
    f.file = o_.file;
    while (peek().kind != Tok::End) {
      if (peek().kind == Tok::Indent) fail(peek(), "unexpected indent");
      statement(f.body);
    }
    return f;
  }

  ExprPtr expression_only() {
    auto e = testlist();
    if (peek().kind == Tok::Newline) next();
    if (peek().kind != Tok::End) fail(peek(), fmt::format("unexpected {} after the expression", describe(peek())));
    return e;
  }

 private:
  // Counts one level of recursion; the limit is what keeps hostile input off the stack's end.
  class Guard {
   public:
    Guard(Parser& p, size_t& depth, const char* what) : depth_(depth) {
      if (++depth_ > p.o_.max_depth) p.fail(p.peek(), fmt::format("{} deeper than {}", what, p.o_.max_depth));
    }
    ~Guard() { --depth_; }
    Guard(const Guard&) = delete;
    Guard& operator=(const Guard&) = delete;

   private:
    size_t& depth_;
  };

  // ----- tokens

  const Token& peek(size_t k = 0) const { return t_[std::min(i_ + k, t_.size() - 1)]; }
  const Token& next() {
    const Token& t = t_[i_];
    if (i_ + 1 < t_.size()) ++i_;
    if (!t.text.empty()) {
      prev_end_ = t.offset + static_cast<uint32_t>(t.text.size());
      last_ = &t;
    }
    return t;
  }
  bool is_op(std::string_view s, size_t k = 0) const { return peek(k).kind == Tok::Op && peek(k).text == s; }
  bool is_name(std::string_view s, size_t k = 0) const { return peek(k).kind == Tok::Name && peek(k).text == s; }
  bool accept_op(std::string_view s) {
    if (!is_op(s)) return false;
    next();
    return true;
  }
  bool accept_name(std::string_view s) {
    if (!is_name(s)) return false;
    next();
    return true;
  }
  const Token& expect_op(std::string_view s) {
    if (!is_op(s)) fail(peek(), fmt::format("expected '{}' but found {}", s, describe(peek())));
    return next();
  }
  void expect_keyword(std::string_view s) {
    if (!is_name(s)) fail(peek(), fmt::format("expected '{}' but found {}", s, describe(peek())));
    next();
  }
  std::string expect_identifier(const char* what) {
    const Token& t = peek();
    if (t.kind != Tok::Name || is_keyword(t.text)) fail(t, fmt::format("expected {} but found {}", what, describe(t)));
    next();
    return std::string(t.text);
  }
  void expect_newline() {
    if (peek().kind == Tok::End) return;
    if (peek().kind != Tok::Newline) fail(peek(), fmt::format("expected the end of the line but found {}", describe(peek())));
    next();
  }

  static std::string describe(const Token& t) {
    switch (t.kind) {
      case Tok::End: return "the end of the file";
      case Tok::Newline: return "the end of the line";
      case Tok::Indent: return "an indented block";
      case Tok::Dedent: return "the end of the block";
      case Tok::String: return "a string literal";
      case Tok::Number: return fmt::format("number {}", t.text.size() > 40 ? "literal" : t.text);
      case Tok::Name:
      case Tok::Op: return fmt::format("'{}'", t.text.size() > 40 ? std::string(t.text.substr(0, 40)) + "..." : std::string(t.text));
    }
    return "?";
  }

  [[noreturn]] void fail(uint32_t line, uint32_t col, const std::string& what) const {
    throw InvalidInput(fmt::format("{}:{}:{}: {}", o_.file, line, col, what));
  }
  [[noreturn]] void fail(const Token& at, const std::string& what) const { fail(at.line, at.col, what); }
  [[noreturn]] void fail(const SourceRange& at, const std::string& what) const { fail(at.line, at.col, what); }

  SourceRange range_from(const Token& start) const { return {start.offset, std::max(prev_end_, start.offset), start.line, start.col}; }
  static SourceRange span(const SourceRange& a, const SourceRange& b) { return {a.start, b.end, a.line, a.col}; }

  // Whether `t` can begin an expression: decides where optional parts (`return`'s value, a
  // slice bound, the item after a trailing comma) end.
  static bool starts_expr(const Token& t) {
    switch (t.kind) {
      case Tok::Number:
      case Tok::String: return true;
      case Tok::Name:
        return !is_keyword(t.text) || t.text == "None" || t.text == "True" || t.text == "False" || t.text == "not" ||
               t.text == "lambda";
      case Tok::Op:
        return t.text == "(" || t.text == "[" || t.text == "{" || t.text == "-" || t.text == "+" || t.text == "~" ||
               t.text == "...";
      default: return false;
    }
  }

  // ----- nodes

  // Every expression node is made here, so that no tree grows taller than max_depth even when
  // it comes from an iterative loop (`a.b.c...`, `f(x)(y)...`, `a + b + ...`).
  ExprPtr make(ExprKind kind, const SourceRange& range, std::vector<ExprPtr> children = {}) {
    auto e = std::make_unique<Expr>();
    e->kind = kind;
    e->range = range;
    uint32_t h = 0;
    for (const auto& c : children)
      if (c) h = std::max(h, c->height);
    e->height = h + 1;
    if (e->height > o_.max_depth) {
      const Token& at = last_ ? *last_ : peek();
      fail(at, fmt::format("expression nests deeper than {}", o_.max_depth));
    }
    e->children = std::move(children);
    return e;
  }
  template <typename... T>
  static std::vector<ExprPtr> list(T&&... xs) {
    std::vector<ExprPtr> v;
    v.reserve(sizeof...(xs));
    (v.push_back(std::forward<T>(xs)), ...);
    return v;
  }

  // ----- statements

  void statement(std::vector<StmtPtr>& out) {
    const Token& t = peek();
    if (t.kind == Tok::Op && t.text == "@") {
      decorated(out);
      return;
    }
    if (t.kind == Tok::Name) {
      if (t.text == "def") return out.push_back(function_def({}, t));
      if (t.text == "class") return out.push_back(class_def({}, t));
      if (t.text == "if") {
        next();
        return out.push_back(if_rest(t));
      }
      if (t.text == "while" || t.text == "for") return out.push_back(loop());
      if (t.text == "with") return out.push_back(with());
      if (t.text == "try" || t.text == "async" || t.text == "lambda" || t.text == "yield" || t.text == "await")
        fail(t, fmt::format("'{}' is not supported in TorchScript source", t.text));
      if (t.text == "elif" || t.text == "else") fail(t, fmt::format("'{}' without a matching 'if'", t.text));
    }
    simple_line(out);
  }

  // Simple statements separated by ';' up to the end of the line.
  void simple_line(std::vector<StmtPtr>& out) {
    do {
      out.push_back(small_statement());
    } while (accept_op(";") && peek().kind != Tok::Newline && peek().kind != Tok::End);
    expect_newline();
  }

  // After a ':': an indented block, or simple statements on the same line.
  void suite(std::vector<StmtPtr>& body) {
    Guard g(*this, block_depth_, "blocks nest");
    if (peek().kind != Tok::Newline) {
      simple_line(body);
      return;
    }
    next();
    if (peek().kind != Tok::Indent) fail(peek(), fmt::format("expected an indented block but found {}", describe(peek())));
    next();
    while (peek().kind != Tok::Dedent && peek().kind != Tok::End) {
      if (peek().kind == Tok::Indent) fail(peek(), "unexpected indent");
      statement(body);
    }
    if (peek().kind == Tok::Dedent) next();
  }

  StmtPtr stmt(StmtKind kind) {
    auto s = std::make_unique<Stmt>();
    s->kind = kind;
    return s;
  }

  StmtPtr small_statement() {
    const Token& t = peek();
    auto simple = [&](StmtKind k) {
      next();
      auto s = stmt(k);
      s->range = range_from(t);
      return s;
    };
    if (t.kind == Tok::Name) {
      if (t.text == "pass") return simple(StmtKind::Pass);
      if (t.text == "break") return simple(StmtKind::Break);
      if (t.text == "continue") return simple(StmtKind::Continue);
      if (t.text == "return" || t.text == "raise") {
        auto s = simple(t.text == "return" ? StmtKind::Return : StmtKind::Raise);
        if (starts_expr(peek())) s->value = s->kind == StmtKind::Return ? testlist() : test();
        if (is_name("from")) fail(peek(), "'raise ... from' is not supported");
        s->range = range_from(t);
        return s;
      }
      if (t.text == "assert") {
        auto s = simple(StmtKind::Assert);
        s->value = test();
        if (accept_op(",")) s->message = test();
        s->range = range_from(t);
        return s;
      }
      if (t.text == "del") {
        auto s = simple(StmtKind::Del);
        do {
          s->targets.push_back(target_expr());
          check_target(*s->targets.back(), "delete");
        } while (accept_op(",") && starts_expr(peek()));
        s->range = range_from(t);
        return s;
      }
      if (t.text == "global" || t.text == "nonlocal") {
        auto s = simple(t.text == "global" ? StmtKind::Global : StmtKind::Nonlocal);
        do s->names.push_back(expect_identifier("a name"));
        while (accept_op(","));
        s->range = range_from(t);
        return s;
      }
      if (t.text == "import") {
        auto s = simple(StmtKind::Import);
        do {
          std::string name = expect_identifier("a module name");
          while (accept_op(".")) name += "." + expect_identifier("a module name");
          if (is_name("as")) fail(peek(), "'import ... as' is not supported");
          s->names.push_back(std::move(name));
        } while (accept_op(","));
        s->range = range_from(t);
        return s;
      }
      if (t.text == "from") fail(t, "'from ... import' is not supported");
    }
    return expression_statement();
  }

  StmtPtr expression_statement() {
    const Token& start = peek();
    ExprPtr first = testlist();
    if (accept_op(":")) {
      // Annotated: `x : T` (a declaration, as in class bodies) or `x : T = v`.
      if (first->kind != ExprKind::Name && first->kind != ExprKind::Attribute && first->kind != ExprKind::Subscript)
        fail(first->range, "only a name, attribute or subscript can be annotated");
      auto s = stmt(StmtKind::Assign);
      s->targets.push_back(std::move(first));
      s->annotation = test();
      if (accept_op("=")) s->value = testlist();
      s->range = range_from(start);
      return s;
    }
    if (peek().kind == Tok::Op)
      for (const auto& [spelling, op] : kAugOps)
        if (peek().text == spelling) {
          next();
          if (first->kind != ExprKind::Name && first->kind != ExprKind::Attribute && first->kind != ExprKind::Subscript)
            fail(first->range, fmt::format("cannot use '{}' on this target", spelling));
          auto s = stmt(StmtKind::AugAssign);
          s->op = op;
          s->targets.push_back(std::move(first));
          s->value = testlist();
          s->range = range_from(start);
          return s;
        }
    if (is_op("=")) {
      auto s = stmt(StmtKind::Assign);
      ExprPtr last = std::move(first);
      while (accept_op("=")) {
        check_target(*last, "assign to");
        s->targets.push_back(std::move(last));
        last = testlist();
      }
      s->value = std::move(last);
      s->range = range_from(start);
      return s;
    }
    auto s = stmt(StmtKind::Expr);
    s->value = std::move(first);
    s->range = range_from(start);
    return s;
  }

  // Height-bounded, so this recursion is bounded too.
  void check_target(const Expr& e, const char* verb) const {
    switch (e.kind) {
      case ExprKind::Name:
      case ExprKind::Attribute:
      case ExprKind::Subscript: return;
      case ExprKind::Starred: check_target(*e.children[0], verb); return;
      case ExprKind::Tuple:
      case ExprKind::List:
        if (e.children.empty()) fail(e.range, fmt::format("cannot {} an empty {}", verb, e.kind == ExprKind::Tuple ? "tuple" : "list"));
        for (const auto& c : e.children) check_target(*c, verb);
        return;
      default: fail(e.range, fmt::format("cannot {} this expression", verb));
    }
  }

  StmtPtr if_rest(const Token& keyword) {
    auto s = stmt(StmtKind::If);
    s->value = test();
    expect_op(":");
    suite(s->body);
    if (is_name("elif")) {
      // Each elif nests one If deeper, so it counts as a block level.
      Guard g(*this, block_depth_, "blocks nest");
      const Token& k = next();
      s->orelse.push_back(if_rest(k));
    } else if (accept_name("else")) {
      expect_op(":");
      suite(s->orelse);
    }
    s->range = range_from(keyword);
    return s;
  }

  StmtPtr loop() {
    const Token& keyword = next();
    const bool is_for = keyword.text == "for";
    auto s = stmt(is_for ? StmtKind::For : StmtKind::While);
    if (is_for) {
      s->targets.push_back(target_list());
      check_target(*s->targets[0], "assign to");
      expect_keyword("in");
      s->value = testlist();
    } else {
      s->value = test();
    }
    expect_op(":");
    suite(s->body);
    if (accept_name("else")) {
      expect_op(":");
      suite(s->orelse);
    }
    s->range = range_from(keyword);
    return s;
  }

  StmtPtr with() {
    const Token& keyword = next();
    auto s = stmt(StmtKind::With);
    do {
      s->items.push_back(test());
      ExprPtr target;
      if (accept_name("as")) {
        target = target_expr();
        check_target(*target, "assign to");
      }
      s->targets.push_back(std::move(target));
    } while (accept_op(","));
    expect_op(":");
    suite(s->body);
    s->range = range_from(keyword);
    return s;
  }

  void decorated(std::vector<StmtPtr>& out) {
    const Token& start = peek();
    std::vector<ExprPtr> decorators;
    while (accept_op("@")) {
      decorators.push_back(test());
      expect_newline();
    }
    if (is_name("def")) out.push_back(function_def(std::move(decorators), start));
    else if (is_name("class")) out.push_back(class_def(std::move(decorators), start));
    else fail(peek(), fmt::format("expected 'def' or 'class' after a decorator but found {}", describe(peek())));
  }

  StmtPtr function_def(std::vector<ExprPtr> decorators, const Token& start) {
    next();  // def
    auto d = std::make_unique<FunctionDef>();
    d->decorators = std::move(decorators);
    d->name = expect_identifier("a function name");
    expect_op("(");
    bool keyword_only = false;
    std::set<std::string, std::less<>> seen;
    while (!is_op(")")) {
      const Token& pt = peek();
      Param p;
      if (accept_op("**")) p.stars = 2;
      else if (accept_op("*")) {
        keyword_only = true;
        if (is_op(",") || is_op(")")) {  // a bare `*`: what follows is keyword-only
          if (!accept_op(",")) break;
          continue;
        }
        p.stars = 1;
      }
      p.name = expect_identifier("a parameter name");
      if (!seen.insert(p.name).second) fail(pt, fmt::format("duplicate parameter '{}'", p.name));
      p.keyword_only = keyword_only && p.stars == 0;
      if (accept_op(":")) p.annotation = test();
      if (accept_op("=")) p.default_value = test();
      p.range = range_from(pt);
      d->params.push_back(std::move(p));
      if (!accept_op(",")) break;
    }
    expect_op(")");
    if (accept_op("->")) d->returns = test();
    expect_op(":");
    suite(d->body);
    d->range = range_from(start);
    auto s = stmt(StmtKind::Def);
    s->range = d->range;
    s->def = std::move(d);
    return s;
  }

  StmtPtr class_def(std::vector<ExprPtr> decorators, const Token& start) {
    next();  // class
    auto c = std::make_unique<ClassDef>();
    c->decorators = std::move(decorators);
    c->name = expect_identifier("a class name");
    if (accept_op("(")) {
      while (!is_op(")")) {
        if (peek().kind == Tok::Name && is_op("=", 1)) fail(peek(), "class keyword arguments are not supported");
        c->bases.push_back(test());
        if (!accept_op(",")) break;
      }
      expect_op(")");
    }
    expect_op(":");
    suite(c->body);
    c->range = range_from(start);
    auto s = stmt(StmtKind::Class);
    s->range = c->range;
    s->cls = std::move(c);
    return s;
  }

  // ----- expressions

  // testlist: `a` or `a, b` (a Tuple; a trailing comma makes one too).
  ExprPtr testlist() {
    ExprPtr first = test();
    if (!is_op(",")) return first;
    std::vector<ExprPtr> items;
    const SourceRange start = first->range;
    items.push_back(std::move(first));
    while (accept_op(",") && starts_expr(peek())) items.push_back(test());
    return make(ExprKind::Tuple, span(start, {0, prev_end_, 0, 0}), std::move(items));
  }

  // Targets of `for` (and comprehension clauses): bitwise-or expressions, so that `in` ends them.
  ExprPtr target_list() {
    ExprPtr first = target_expr();
    if (!is_op(",")) return first;
    std::vector<ExprPtr> items;
    const SourceRange start = first->range;
    items.push_back(std::move(first));
    while (accept_op(",") && starts_expr(peek())) items.push_back(target_expr());
    return make(ExprKind::Tuple, span(start, {0, prev_end_, 0, 0}), std::move(items));
  }
  ExprPtr target_expr() {
    if (is_op("*")) {
      const Token& star = next();
      auto inner = expr(kBitOr);
      return make(ExprKind::Starred, range_from(star), list(std::move(inner)));
    }
    return expr(kBitOr);
  }

  // test: `a if c else b` chains, built right-nested without recursion.
  ExprPtr test() {
    ExprPtr first = expr(kOr);
    if (!is_name("if")) return first;
    std::vector<ExprPtr> bodies, conds;
    bodies.push_back(std::move(first));
    while (accept_name("if")) {
      conds.push_back(expr(kOr));
      expect_keyword("else");
      bodies.push_back(expr(kOr));
    }
    ExprPtr result = std::move(bodies.back());
    for (size_t i = conds.size(); i-- > 0;) {
      const SourceRange r = span(bodies[i]->range, result->range);
      result = make(ExprKind::IfExp, r, list(std::move(conds[i]), std::move(bodies[i]), std::move(result)));
    }
    return result;
  }

  BinaryOp binary_op() const {
    const Token& t = peek();
    if (t.kind == Tok::Name) {
      if (t.text == "or") return {Op::Or, kOr};
      if (t.text == "and") return {Op::And, kAnd};
      if (t.text == "in") return {Op::In, kCompare};
      if (t.text == "not" && is_name("in", 1)) return {Op::NotIn, kCompare, 2};
      if (t.text == "is") return is_name("not", 1) ? BinaryOp{Op::IsNot, kCompare, 2} : BinaryOp{Op::Is, kCompare};
      return {};
    }
    if (t.kind != Tok::Op) return {};
    static constexpr std::array<std::pair<std::string_view, BinaryOp>, 18> kTable = {{
        {"==", {Op::Eq, kCompare}}, {"!=", {Op::Ne, kCompare}}, {"<", {Op::Lt, kCompare}},
        {"<=", {Op::Le, kCompare}}, {">", {Op::Gt, kCompare}}, {">=", {Op::Ge, kCompare}},
        {"|", {Op::BitOr, kBitOr}}, {"^", {Op::BitXor, kBitXor}}, {"&", {Op::BitAnd, kBitAnd}},
        {"<<", {Op::LShift, kShift}}, {">>", {Op::RShift, kShift}}, {"+", {Op::Add, kArith}},
        {"-", {Op::Sub, kArith}}, {"*", {Op::Mul, kTerm}}, {"/", {Op::Div, kTerm}},
        {"//", {Op::FloorDiv, kTerm}}, {"%", {Op::Mod, kTerm}}, {"@", {Op::MatMul, kTerm}},
    }};
    for (const auto& [s, b] : kTable)
      if (t.text == s) return b;
    return {};
  }

  // Precedence climbing over binary operators at `min_level` or tighter. Left-associative
  // chains loop here; only operands recurse, and every recursion passes this guard.
  ExprPtr expr(int min_level) {
    Guard g(*this, expr_depth_, "expression nests");
    ExprPtr lhs = operand(min_level);
    while (true) {
      const BinaryOp b = binary_op();
      if (b.op == Op::None || b.level < min_level) break;
      if (b.level == kCompare) {
        // a < b <= c is one Compare node (each operand evaluated once), not nested ones.
        std::vector<ExprPtr> operands;
        std::vector<Op> ops;
        const SourceRange start = lhs->range;
        operands.push_back(std::move(lhs));
        for (BinaryOp c = b; c.op != Op::None && c.level == kCompare; c = binary_op()) {
          for (int k = 0; k < c.tokens; ++k) next();
          ops.push_back(c.op);
          operands.push_back(expr(kCompare + 1));
        }
        const SourceRange r = span(start, operands.back()->range);
        lhs = make(ExprKind::Compare, r, std::move(operands));
        lhs->cmp_ops = std::move(ops);
        continue;
      }
      for (int k = 0; k < b.tokens; ++k) next();
      ExprPtr rhs = expr(b.level + 1);
      const SourceRange r = span(lhs->range, rhs->range);
      lhs = make(ExprKind::Binary, r, list(std::move(lhs), std::move(rhs)));
      lhs->op = b.op;
    }
    return lhs;
  }

  // A prefix-operator expression or a power.
  ExprPtr operand(int min_level) {
    const Token& t = peek();
    Op op = Op::None;
    int level = 0;
    if (t.kind == Tok::Name && t.text == "not" && min_level <= kNot) op = Op::Not, level = kNot;
    else if (t.kind == Tok::Op && (t.text == "-" || t.text == "+" || t.text == "~"))
      op = t.text == "-" ? Op::Neg : t.text == "+" ? Op::Pos : Op::Invert, level = kUnary;
    if (op == Op::None) return power();
    next();
    ExprPtr inner = expr(level);
    auto e = make(ExprKind::Unary, range_from(t), list(std::move(inner)));
    e->op = op;
    return e;
  }

  // power: postfix ['**' unary-level]. Right-associative through expr(), which counts depth.
  ExprPtr power() {
    ExprPtr base = postfix();
    if (!is_op("**")) return base;
    next();
    ExprPtr exponent = expr(kUnary);
    const SourceRange r = span(base->range, exponent->range);
    auto e = make(ExprKind::Binary, r, list(std::move(base), std::move(exponent)));
    e->op = Op::Pow;
    return e;
  }

  // atom followed by any number of `.name`, `(args)`, `[index]`, in a loop.
  ExprPtr postfix() {
    ExprPtr e = atom();
    while (true) {
      if (accept_op(".")) {
        const Token& name = peek();
        if (name.kind != Tok::Name) fail(name, fmt::format("expected an attribute name but found {}", describe(name)));
        next();
        const SourceRange r = span(e->range, {0, prev_end_, 0, 0});
        e = make(ExprKind::Attribute, r, list(std::move(e)));
        e->text = std::string(name.text);
      } else if (is_op("(")) {
        e = call(std::move(e));
      } else if (is_op("[")) {
        e = subscript(std::move(e));
      } else {
        return e;
      }
    }
  }

  ExprPtr call(ExprPtr callee) {
    next();  // (
    std::vector<ExprPtr> children;
    children.push_back(std::move(callee));
    bool seen_keyword = false;
    while (!is_op(")")) {
      const Token& at = peek();
      if (accept_op("*")) {
        auto inner = test();
        children.push_back(make(ExprKind::Starred, range_from(at), list(std::move(inner))));
      } else if (is_op("**")) {
        fail(at, "'**' arguments are not supported");
      } else if (at.kind == Tok::Name && is_op("=", 1)) {
        if (is_keyword(at.text)) fail(at, fmt::format("'{}' cannot be a keyword argument", at.text));
        next();
        next();
        auto value = test();
        auto kw = make(ExprKind::Keyword, range_from(at), list(std::move(value)));
        kw->text = std::string(at.text);
        children.push_back(std::move(kw));
        seen_keyword = true;
      } else {
        auto arg = test();
        if (is_name("for")) fail(peek(), "generator expressions are not supported");
        if (seen_keyword) fail(arg->range, "positional argument follows keyword argument");
        children.push_back(std::move(arg));
      }
      if (!accept_op(",")) break;
    }
    expect_op(")");
    const SourceRange r = span(children[0]->range, {0, prev_end_, 0, 0});
    return make(ExprKind::Call, r, std::move(children));
  }

  ExprPtr subscript(ExprPtr value) {
    next();  // [
    std::vector<ExprPtr> children;
    children.push_back(std::move(value));
    bool trailing_comma = false;
    while (!is_op("]")) {
      children.push_back(subscript_item());
      trailing_comma = accept_op(",");
      if (!trailing_comma) break;
    }
    if (children.size() == 1) fail(peek(), "expected an index");
    expect_op("]");
    if (children.size() == 2 && trailing_comma) {
      // `a[x,]` indexes with the tuple (x,), as in Python.
      const SourceRange r = children[1]->range;
      children[1] = make(ExprKind::Tuple, r, list(std::move(children[1])));
    }
    const SourceRange r = span(children[0]->range, {0, prev_end_, 0, 0});
    return make(ExprKind::Subscript, r, std::move(children));
  }

  ExprPtr subscript_item() {
    const Token& start = peek();
    ExprPtr lower;
    if (!is_op(":")) {
      lower = test();
      if (!is_op(":")) return lower;
    }
    next();  // :
    ExprPtr upper, step;
    if (starts_expr(peek())) upper = test();
    if (accept_op(":") && starts_expr(peek())) step = test();
    return make(ExprKind::Slice, range_from(start), list(std::move(lower), std::move(upper), std::move(step)));
  }

  ExprPtr atom() {
    const Token& t = peek();
    switch (t.kind) {
      case Tok::Name: {
        next();
        if (t.text == "None") return make(ExprKind::None, range_from(t));
        if (t.text == "True") return make(ExprKind::True, range_from(t));
        if (t.text == "False") return make(ExprKind::False, range_from(t));
        if (t.text == "lambda") fail(t, "lambda is not supported");
        if (is_keyword(t.text)) fail(t, fmt::format("expected an expression but found '{}'", t.text));
        auto e = make(ExprKind::Name, range_from(t));
        e->text = std::string(t.text);
        return e;
      }
      case Tok::Number: next(); return number(t);
      case Tok::String: return string();
      case Tok::Op:
        if (t.text == "(") return parenthesized();
        if (t.text == "[") return list_display();
        if (t.text == "{") return dict_display();
        if (t.text == "...") {
          next();
          return make(ExprKind::Ellipsis, range_from(t));
        }
        break;
      default: break;
    }
    fail(t, fmt::format("expected an expression but found {}", describe(t)));
  }

  ExprPtr number(const Token& t) {
    std::string s;
    for (size_t i = 0; i < t.text.size(); ++i) {
      // Python allows one underscore between digits: 1_000, 0x_ff.
      if (t.text[i] == '_') {
        if (i + 1 == t.text.size() || t.text[i + 1] == '_' || i == 0) fail(t, fmt::format("invalid number literal '{}'", t.text));
        continue;
      }
      s += t.text[i];
    }
    auto bad = [&] { fail(t, fmt::format("invalid number literal '{}'", t.text)); };
    if (!s.empty() && (s.back() == 'j' || s.back() == 'J')) fail(t, "complex literals are not supported");
    int base = 10;
    std::string_view digits = s;
    if (s.size() > 1 && s[0] == '0' && std::isalpha(static_cast<unsigned char>(s[1]))) {
      const char p = static_cast<char>(std::tolower(static_cast<unsigned char>(s[1])));
      base = p == 'x' ? 16 : p == 'o' ? 8 : p == 'b' ? 2 : 10;
      if (base != 10) digits.remove_prefix(2);
    }
    const bool is_float = base == 10 && s.find_first_of(".eE") != std::string::npos;
    auto e = make(is_float ? ExprKind::Float : ExprKind::Int, range_from(t));
    e->text = std::string(t.text);
    if (is_float) {
      const auto r = std::from_chars(s.data(), s.data() + s.size(), e->float_value);
      if (r.ec == std::errc::invalid_argument || r.ptr != s.data() + s.size()) bad();
      // Out of range: Python gives inf (or 0 on underflow); from_chars leaves the value alone.
      if (r.ec == std::errc::result_out_of_range) e->float_value = std::strtod(s.c_str(), nullptr);
      return e;
    }
    if (digits.empty()) bad();
    // Python 3 has no 0777 octal: a decimal literal starting with 0 must be all zeros.
    if (base == 10 && digits.size() > 1 && digits[0] == '0' && digits.find_first_not_of('0') != std::string_view::npos) bad();
    const auto r = std::from_chars(digits.data(), digits.data() + digits.size(), e->int_value, base);
    if (r.ec == std::errc::result_out_of_range) fail(t, fmt::format("integer literal '{}' is too large", t.text));
    if (r.ec != std::errc() || r.ptr != digits.data() + digits.size()) bad();
    return e;
  }

  // One or more adjacent string literals, concatenated.
  ExprPtr string() {
    const Token& first = peek();
    std::string value, piece, error;
    while (peek().kind == Tok::String) {
      const Token& t = next();
      if (t.text.find_first_of("bB") < t.text.find_first_of("'\"")) fail(t, "bytes literals are not supported");
      size_t at = 0;
      if (!decode_impl(t.text, piece, error, at)) {
        // Point at the offending escape, which may sit on a later line of a triple-quoted string.
        uint32_t line = t.line, col = t.col;
        for (size_t i = 0; i < at; ++i) {
          if (t.text[i] == '\n') ++line, col = 1;
          else ++col;
        }
        fail(line, col, error);
      }
      value += piece;
    }
    auto e = make(ExprKind::String, range_from(first));
    e->text = std::move(value);
    return e;
  }

  ExprPtr parenthesized() {
    const Token& open = next();
    if (accept_op(")")) return make(ExprKind::Tuple, range_from(open));
    ExprPtr first = test();
    if (is_name("for")) fail(peek(), "generator expressions are not supported");
    if (!is_op(",")) {
      // Plain grouping: no node, so the range stays the inner expression's (as in Python's ast).
      expect_op(")");
      return first;
    }
    std::vector<ExprPtr> items;
    items.push_back(std::move(first));
    while (accept_op(",") && !is_op(")")) items.push_back(test());
    expect_op(")");
    return make(ExprKind::Tuple, range_from(open), std::move(items));
  }

  ExprPtr list_display() {
    const Token& open = next();
    std::vector<ExprPtr> items;
    if (!is_op("]")) {
      items.push_back(test());
      if (is_name("for")) {
        std::vector<ExprPtr> children;
        children.push_back(std::move(items[0]));
        comprehension_clauses(children);
        expect_op("]");
        return make(ExprKind::ListComp, range_from(open), std::move(children));
      }
      while (accept_op(",") && !is_op("]")) items.push_back(test());
    }
    expect_op("]");
    return make(ExprKind::List, range_from(open), std::move(items));
  }

  ExprPtr dict_display() {
    const Token& open = next();
    std::vector<ExprPtr> items;
    if (!is_op("}")) {
      if (is_op("**")) fail(peek(), "'**' in a dict literal is not supported");
      items.push_back(test());
      if (!is_op(":")) fail(peek(), "set literals are not supported");
      next();
      items.push_back(test());
      if (is_name("for")) {
        comprehension_clauses(items);
        expect_op("}");
        return make(ExprKind::DictComp, range_from(open), std::move(items));
      }
      while (accept_op(",") && !is_op("}")) {
        items.push_back(test());
        expect_op(":");
        items.push_back(test());
      }
    }
    expect_op("}");
    return make(ExprKind::Dict, range_from(open), std::move(items));
  }

  // `for target in iter [if cond]...`, one or more times.
  void comprehension_clauses(std::vector<ExprPtr>& out) {
    while (is_name("for")) {
      const Token& kw = next();
      std::vector<ExprPtr> parts;
      parts.push_back(target_list());
      check_target(*parts[0], "assign to");
      expect_keyword("in");
      parts.push_back(expr(kOr));
      while (accept_name("if")) parts.push_back(expr(kOr));
      out.push_back(make(ExprKind::Comprehension, range_from(kw), std::move(parts)));
    }
  }

  const std::vector<Token>& t_;
  const ParseOptions& o_;
  size_t i_ = 0;
  uint32_t prev_end_ = 0;       // end offset of the last consumed token with text
  const Token* last_ = nullptr;  // that token
  size_t expr_depth_ = 0, block_depth_ = 0;
};

LexOptions lex_options(const ParseOptions& o) {
  LexOptions l;
  l.file = o.file;
  l.max_nesting = o.max_depth;
  return l;
}

}  // namespace

bool decode_string_literal(std::string_view token, std::string& out, std::string& error) {
  size_t at = 0;
  return decode_impl(token, out, error, at);
}

ParsedFile parse_tokens(const std::vector<Token>& tokens, const ParseOptions& options) {
  return Parser(tokens, options).file();
}

ParsedFile parse_source(std::string_view source, const ParseOptions& options) {
  const auto tokens = lex(source, lex_options(options));
  return parse_tokens(tokens, options);
}

ExprPtr parse_expression(std::string_view source, const ParseOptions& options) {
  const auto tokens = lex(source, lex_options(options));
  return Parser(tokens, options).expression_only();
}

}  // namespace jitctl
