#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace jitctl {

// Tokens of TorchScript source as PyTorch's printer writes it into code/**.py: Python's lexical
// structure (indentation, implicit line joining inside brackets, comments, string literals).
enum class Tok : uint8_t { End, Newline, Indent, Dedent, Name, Number, String, Op };

struct Token {
  Tok kind;
  std::string_view text;  // a view into the source (empty for Newline/Indent/Dedent/End)
  uint32_t line;          // 1-based
  uint32_t col;           // 1-based
  uint32_t offset;        // byte offset into the source
};

struct LexOptions {
  std::string file;         // for messages: "model.pt: archive/code/__torch__.py"
  size_t max_nesting = 256;  // brackets; deeper is an error, never a stack overflow later
};

// Whole-file tokenization. Throws InvalidInput "file:line:col: problem" on anything that is not
// well-formed UTF-8 Python-style source.
std::vector<Token> lex(std::string_view source, const LexOptions& options);

}  // namespace jitctl
