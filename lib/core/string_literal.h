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

// Text from a file (a zip entry name, a pickle global, a class or attribute name, a string, a
// line of code) made safe to print in a message on a terminal, one line: printable ASCII and
// well-formed UTF-8 of printable characters stay as they are; control characters (tab and newline
// included), DEL, the C1 controls, bytes that are not well-formed UTF-8, and the characters that
// reorder or hide text (bidirectional overrides and isolates, U+2028/U+2029 separators, zero-width
// joiners, BOM) become \xHH (bytes) or \uHHHH (characters). An ESC of a terminal sequence prints as
// \x1b, so a hostile name can neither colour nor rewrite the terminal.
std::string printable_text(std::string_view s);

// Text for XML attributes and character data (SVG plots, JUnit reports): &, <, >, " and ' as
// entities; control characters XML 1.0 does not allow (all but tab, newline, carriage return) as '?'.
std::string xml_escape(std::string_view s);

}  // namespace jitctl
