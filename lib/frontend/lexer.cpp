#include "lib/frontend/lexer.h"

#include <fmt/format.h>

#include <array>

#include "lib/core/error.h"

namespace jitctl {
namespace {

// Longest first, so that "**=" wins over "**" and "*".
constexpr std::array<std::string_view, 47> kOps = {
    "**=", "//=", ">>=", "<<=", "...", "->", "**", "//", "<<", ">>", "<=", ">=", "==", "!=", "+=", "-=",
    "*=", "/=", "%=", "&=", "|=", "^=", "@=", ":=", "+", "-", "*", "/", "%", "@", "&", "|", "^", "~",
    "<", ">", "(", ")", "[", "]", "{", "}", ",", ":", ".", ";", "=",
};

bool name_start(unsigned char c) { return std::isalpha(c) || c == '_' || c >= 0x80; }
bool name_char(unsigned char c) { return std::isalnum(c) || c == '_' || c >= 0x80; }

class Lexer {
 public:
  Lexer(std::string_view s, const LexOptions& o) : s_(s), o_(o) {}

  std::vector<Token> run() {
    check_utf8();
    indents_.push_back(0);
    bool at_line_start = true;
    while (pos_ < s_.size()) {
      if (at_line_start && depth_ == 0) {
        if (!indentation()) continue;  // blank or comment-only line
        at_line_start = false;
      }
      const char c = s_[pos_];
      if (c == '\n') {
        if (depth_ == 0) {
          emit(Tok::Newline, pos_, 0);
          at_line_start = true;
        }
        newline();
        continue;
      }
      if (c == ' ' || c == '\t' || c == '\r' || c == '\f') {
        ++pos_;
        continue;
      }
      if (c == '#') {
        while (pos_ < s_.size() && s_[pos_] != '\n') ++pos_;
        continue;
      }
      if (c == '\\') {
        if (pos_ + 1 < s_.size() && s_[pos_ + 1] == '\n') {
          ++pos_;
          newline();
          continue;
        }
        fail(pos_, "stray backslash");
      }
      if (std::isdigit(static_cast<unsigned char>(c)) ||
          (c == '.' && pos_ + 1 < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_ + 1])))) {
        number();
        continue;
      }
      if (c == '"' || c == '\'') {
        string(pos_);
        continue;
      }
      if (name_start(static_cast<unsigned char>(c))) {
        // String prefixes: r"..", b'..', rb"..".
        size_t p = pos_;
        while (p < s_.size() && name_char(static_cast<unsigned char>(s_[p]))) ++p;
        const auto word = s_.substr(pos_, p - pos_);
        if (p < s_.size() && (s_[p] == '"' || s_[p] == '\'') && word.size() <= 2 &&
            word.find_first_not_of("rRbBuU") == std::string_view::npos) {
          string(pos_, p);
          continue;
        }
        emit(Tok::Name, pos_, p - pos_);
        pos_ = p;
        continue;
      }
      op();
    }
    if (depth_ != 0) fail(pos_, fmt::format("unclosed '{}'", open_.back()));
    if (!tokens_.empty() && tokens_.back().kind != Tok::Newline && tokens_.back().kind != Tok::Dedent)
      emit(Tok::Newline, pos_, 0);
    while (indents_.size() > 1) {
      indents_.pop_back();
      emit(Tok::Dedent, pos_, 0);
    }
    emit(Tok::End, pos_, 0);
    return std::move(tokens_);
  }

 private:
  [[noreturn]] void fail(size_t at, const std::string& what) const {
    uint32_t line = 1, col = 1;
    for (size_t i = 0; i < at && i < s_.size(); ++i) {
      if (s_[i] == '\n') ++line, col = 1;
      else ++col;
    }
    throw InvalidInput(fmt::format("{}:{}:{}: {}", o_.file, line, col, what));
  }

  void check_utf8() const {
    for (size_t i = 0; i < s_.size();) {
      const auto c = static_cast<unsigned char>(s_[i]);
      if (c == 0) fail(i, "NUL byte in source");
      if (c < 0x80) {
        if (c < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != '\f') fail(i, fmt::format("control character 0x{:02x} in source", c));
        ++i;
        continue;
      }
      const size_t n = c >= 0xf0 && c < 0xf5 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
      if (n == 0 || (n == 3 && c >= 0xf0) || i + n > s_.size()) fail(i, "invalid UTF-8");
      for (size_t k = 1; k < n; ++k)
        if ((static_cast<unsigned char>(s_[i + k]) & 0xc0) != 0x80) fail(i, "invalid UTF-8");
      i += n;
    }
  }

  void newline() {
    ++pos_;
    ++line_;
    line_start_ = pos_;
  }

  // At the start of a logical line: measures indentation and emits Indent/Dedent. Returns false
  // (having consumed the line) for blank and comment-only lines.
  bool indentation() {
    size_t width = 0, p = pos_;
    for (; p < s_.size(); ++p) {
      if (s_[p] == ' ') ++width;
      else if (s_[p] == '\t') width = (width / 8 + 1) * 8;
      else if (s_[p] != '\r' && s_[p] != '\f') break;
    }
    if (p >= s_.size()) {
      pos_ = p;
      return false;
    }
    if (s_[p] == '\n' || s_[p] == '#') {
      while (p < s_.size() && s_[p] != '\n') ++p;
      pos_ = p;
      if (pos_ < s_.size()) newline();
      return false;
    }
    pos_ = p;
    if (width > indents_.back()) {
      if (indents_.size() > o_.max_nesting) fail(pos_, fmt::format("blocks nest deeper than {}", o_.max_nesting));
      indents_.push_back(width);
      emit(Tok::Indent, pos_, 0);
    } else {
      while (width < indents_.back()) {
        indents_.pop_back();
        emit(Tok::Dedent, pos_, 0);
      }
      if (width != indents_.back()) fail(pos_, "dedent does not match any outer indentation level");
    }
    return true;
  }

  void number() {
    const size_t start = pos_;
    auto digits = [&] {
      while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_')) {
        // An exponent sign belongs to the number: 1e-5, 2.5E+3 (not in hex literals).
        const char c = s_[pos_];
        ++pos_;
        if ((c == 'e' || c == 'E') && pos_ < s_.size() && (s_[pos_] == '-' || s_[pos_] == '+') &&
            !(s_.substr(start, 2) == "0x" || s_.substr(start, 2) == "0X"))
          ++pos_;
      }
    };
    digits();
    if (pos_ < s_.size() && s_[pos_] == '.') {
      ++pos_;
      digits();
    }
    emit(Tok::Number, start, pos_ - start);
  }

  void string(size_t start, size_t quote_at = std::string_view::npos) {
    if (quote_at == std::string_view::npos) quote_at = start;
    const char q = s_[quote_at];
    const bool triple = s_.substr(quote_at, 3) == std::string(3, q);
    const auto line0 = static_cast<uint32_t>(line_), col0 = static_cast<uint32_t>(start - line_start_ + 1);
    size_t p = quote_at + (triple ? 3 : 1);
    while (true) {
      if (p >= s_.size()) fail(start, "unterminated string literal");
      const char c = s_[p];
      if (c == '\\') {
        if (p + 1 < s_.size() && s_[p + 1] == '\n') ++line_, line_start_ = p + 2;
        p += 2;
        continue;
      }
      if (c == '\n') {
        if (!triple) fail(start, "unterminated string literal");
        ++line_;
        line_start_ = p + 1;
      }
      if (c == q && (!triple || s_.substr(p, 3) == std::string(3, q))) {
        p += triple ? 3 : 1;
        break;
      }
      ++p;
    }
    tokens_.push_back(Token{Tok::String, s_.substr(start, p - start), line0, col0, static_cast<uint32_t>(start)});
    pos_ = p;
  }

  void op() {
    for (auto o : kOps)
      if (s_.substr(pos_, o.size()) == o) {
        if (o == "(" || o == "[" || o == "{") {
          if (depth_ >= o_.max_nesting) fail(pos_, fmt::format("brackets nest deeper than {}", o_.max_nesting));
          ++depth_;
          open_.push_back(o[0]);
        } else if (o == ")" || o == "]" || o == "}") {
          const char want = o == ")" ? '(' : o == "]" ? '[' : '{';
          if (depth_ == 0 || open_.back() != want) fail(pos_, fmt::format("unmatched '{}'", o));
          --depth_;
          open_.pop_back();
        }
        emit(Tok::Op, pos_, o.size());
        pos_ += o.size();
        return;
      }
    fail(pos_, fmt::format("unexpected character '{}'", s_[pos_] == '\'' ? std::string("'") : std::string(1, s_[pos_])));
  }

  void emit(Tok k, size_t at, size_t len) {
    // Line and column from the running counters; string literals spanning lines adjust line_.
    uint32_t line = 1, col = 1;
    if (at >= line_start_) {
      line = static_cast<uint32_t>(line_);
      col = static_cast<uint32_t>(at - line_start_ + 1);
    }
    tokens_.push_back(Token{k, s_.substr(at, len), line, col, static_cast<uint32_t>(at)});
  }

  std::string_view s_;
  const LexOptions& o_;
  size_t pos_ = 0, line_ = 1, line_start_ = 0, depth_ = 0;
  std::vector<size_t> indents_;
  std::vector<char> open_;
  std::vector<Token> tokens_;
};

}  // namespace

std::vector<Token> lex(std::string_view source, const LexOptions& options) {
  if (source.size() > UINT32_MAX) throw InvalidInput(fmt::format("{}: source file too large", options.file));
  return Lexer(source, options).run();
}

}  // namespace jitctl
