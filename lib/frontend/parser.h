#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "lib/frontend/ast.h"
#include "lib/frontend/lexer.h"

namespace jitctl {

struct ParseOptions {
  std::string file;  // for messages: "model.pt: archive/code/__torch__.py"
  // Bounds the height of every expression tree, the parser's recursion through nested
  // expressions (parentheses, unary operators, `**`), and the nesting of blocks (counting each
  // `elif`). Hostile input gets "expression nests deeper than N" / "blocks nest deeper than N",
  // never a stack overflow here or in the stages that walk the tree. Also the lexer's bracket and
  // indentation limit. Each level costs at most about 1 KiB of stack (under 300 KiB in all at
  // the default), so raise it only where the stack allows.
  size_t max_depth = 256;
};

// Parses one source file. Throws InvalidInput "file:line:col: problem" on a syntax error.
ParsedFile parse_source(std::string_view source, const ParseOptions& options);

// Parses already-lexed tokens (from lex() over the same text; ranges point into that text).
ParsedFile parse_tokens(const std::vector<Token>& tokens, const ParseOptions& options);

// Parses a single expression, e.g. a type annotation "Dict[str, List[Tensor]]".
ExprPtr parse_expression(std::string_view source, const ParseOptions& options);

// Decodes the text of one string-literal token (prefix and quotes included) to its bytes: Python's
// escapes, except that \xNN and octal escapes give one byte each, as in TorchScript's strings
// (PyTorch's printer writes every non-printable byte as an octal escape); \u and \U give UTF-8.
// Returns false with `error` set for a malformed escape.
bool decode_string_literal(std::string_view token, std::string& out, std::string& error);

}  // namespace jitctl
