#pragma once
// String literals, the one place that writes and reads their escapes: quote_string for everything
// jitctl prints (graph constants, schemas, printed code: PyTorch prints them all through
// c10::printQuotedString) and unescape_string for every literal it reads (code files, operator
// schemas, graph text).
#include <cstddef>
#include <string>
#include <string_view>

namespace jitctl {

// c10::printQuotedString: double quotes, C escapes (\n, \t, \", \', \\, ...), and other bytes
// outside printable ASCII as a backslash and three "octal digits" computed on the signed char --
// so a UTF-8 byte 0xC3 prints as `\0)+`, which PyTorch really writes.
std::string quote_string(std::string_view s);

enum class EscapeRules {
  // Python's, for the literals of code files: \xHH, \uHHHH, \UHHHHHHHH, octal of one to three
  // digits, a backslash-newline continues the line; an unknown escape stays as written.
  Python,
  // quote_string's own output (graph text, schema defaults): the C escapes, and three "octal
  // digits" that may lie below '0' (the signed-char arithmetic undone); anything else is an error.
  Printed,
};

// Decodes the escapes of `body`, the text between a literal's quotes, into `out`. On an ill-formed
// escape returns false, with `error` saying what is wrong and `error_at` the offset in `body` of
// its backslash.
bool unescape_string(std::string_view body, EscapeRules rules, std::string& out, std::string& error, size_t& error_at);

// Text for XML attributes and character data (SVG plots, JUnit reports): &, <, >, " and ' as
// entities; control characters XML 1.0 does not allow (all but tab, newline, carriage return) as '?'.
std::string xml_escape(std::string_view s);

}  // namespace jitctl
