#include "lib/core/string_literal.h"

#include <fmt/format.h>

#include <cstdint>

namespace jitctl {
namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xc0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xe0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  } else {
    out += static_cast<char>(0xf0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  }
}

// The one-character escapes both rule sets share; 0 for any other character.
char simple_escape(char e) {
  switch (e) {
    case '\\': return '\\';
    case '\'': return '\'';
    case '"': return '"';
    case 'a': return '\a';
    case 'b': return '\b';
    case 'f': return '\f';
    case 'n': return '\n';
    case 'r': return '\r';
    case 't': return '\t';
    case 'v': return '\v';
    default: return 0;
  }
}

}  // namespace

std::string quote_string(std::string_view s) {
  std::string out = "\"";
  for (const char ch : s) {
    switch (ch) {
      case '\\': out += "\\\\"; break;
      case '\'': out += "\\'"; break;
      case '"': out += "\\\""; break;
      case '\a': out += "\\a"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\v': out += "\\v"; break;
      default:
        if (ch > 0x1f && ch < 0x7f) {
          out += ch;
        } else {
          // Digits of the signed value, least significant last, each added to '0' -- for
          // negative chars that yields characters below '0', as PyTorch's output does.
          int c = static_cast<signed char>(ch);
          char buf[4] = "000";
          buf[2] = static_cast<char>(buf[2] + c % 8);
          c /= 8;
          buf[1] = static_cast<char>(buf[1] + c % 8);
          c /= 8;
          buf[0] = static_cast<char>(buf[0] + c);
          out += '\\';
          out += buf;
        }
    }
  }
  return out + "\"";
}

bool unescape_string(std::string_view body, EscapeRules rules, std::string& out, std::string& error, size_t& error_at) {
  out.clear();
  const size_t end = body.size();
  for (size_t i = 0; i < end;) {
    const char c = body[i];
    if (c != '\\') {
      out += c;
      ++i;
      continue;
    }
    error_at = i;
    if (i + 1 >= end) {
      error = "a backslash ends the string";
      return false;
    }
    const char e = body[i + 1];
    i += 2;
    if (const char simple = simple_escape(e)) {
      out += simple;
      continue;
    }
    if (rules == EscapeRules::Printed) {
      // Three "digits" relative to '0', possibly below it for negative chars (see quote_string):
      // undo the arithmetic that made them.
      if (i + 1 >= end) {
        error = "bad escape";
        return false;
      }
      const int v = (e - '0') * 64 + (body[i] - '0') * 8 + (body[i + 1] - '0');
      if (v < -128 || v > 255) {
        error = "bad escape";
        return false;
      }
      out += static_cast<char>(v);
      i += 2;
      continue;
    }
    switch (e) {
      case '\n': break;  // line continuation inside the literal
      case 'x': {
        const int h = i + 1 < end ? hex_value(body[i]) : -1, l = i + 1 < end ? hex_value(body[i + 1]) : -1;
        if (h < 0 || l < 0) {
          error = "malformed \\x escape: expected two hex digits";
          return false;
        }
        out += static_cast<char>(h * 16 + l);
        i += 2;
        break;
      }
      case 'u':
      case 'U': {
        const size_t n = e == 'u' ? 4 : 8;
        uint32_t cp = 0;
        for (size_t k = 0; k < n; ++k) {
          const int d = i + k < end ? hex_value(body[i + k]) : -1;
          if (d < 0) {
            error = fmt::format("malformed \\{} escape: expected {} hex digits", e, n);
            return false;
          }
          cp = cp * 16 + static_cast<uint32_t>(d);
        }
        if (cp > 0x10ffff || (cp >= 0xd800 && cp < 0xe000)) {
          error = fmt::format("\\{} escape is not a Unicode scalar value", e);
          return false;
        }
        append_utf8(out, cp);
        i += n;
        break;
      }
      case 'N':
        error = "\\N{...} escapes are not supported";
        return false;
      default:
        if (e >= '0' && e <= '7') {
          unsigned v = static_cast<unsigned>(e - '0');
          for (int k = 0; k < 2 && i < end && body[i] >= '0' && body[i] <= '7'; ++k)
            v = v * 8 + static_cast<unsigned>(body[i++] - '0');
          if (v > 0xff) {
            error = "octal escape above \\377";
            return false;
          }
          out += static_cast<char>(v);
        } else {
          // Python keeps an unknown escape as written.
          out += '\\';
          out += e;
        }
    }
  }
  return true;
}

namespace {

// The length of the well-formed UTF-8 sequence at s[i] (2 to 4) and its code point, or 0 when the
// bytes there are not one (overlong forms, surrogates, beyond U+10FFFF, truncated).
size_t utf8_sequence(std::string_view s, size_t i, uint32_t& cp) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
  const unsigned char c = b(0);
  size_t n = 0;
  if (c >= 0xc2 && c <= 0xdf) n = 2, cp = c & 0x1f;
  else if (c >= 0xe0 && c <= 0xef) n = 3, cp = c & 0x0f;
  else if (c >= 0xf0 && c <= 0xf4) n = 4, cp = c & 0x07;
  else return 0;
  if (i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((b(k) & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (b(k) & 0x3f);
  }
  if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) || (cp >= 0xd800 && cp < 0xe000)) return 0;
  return n;
}

// Characters that are valid but print as nothing, move the cursor, or reorder what follows.
bool hides_or_reorders(uint32_t cp) {
  return (cp >= 0x80 && cp < 0xa0) || cp == 0xad || (cp >= 0x200b && cp <= 0x200f) || (cp >= 0x2028 && cp <= 0x202e) ||
         (cp >= 0x2060 && cp <= 0x2069) || cp == 0xfeff;
}

}  // namespace

std::string printable_text(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
      ++i;
      continue;
    }
    uint32_t cp = 0;
    const size_t n = c >= 0x80 ? utf8_sequence(s, i, cp) : 0;
    if (n == 0) {
      out += fmt::format("\\x{:02x}", c);
      ++i;
    } else if (hides_or_reorders(cp)) {
      out += fmt::format("\\u{:04x}", cp);
      i += n;
    } else {
      out.append(s.substr(i, n));
      i += n;
    }
  }
  return out;
}

std::string xml_escape(std::string_view s) {
  std::string out;
  for (const char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        out += (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r') ? '?' : c;
    }
  }
  return out;
}

}  // namespace jitctl
