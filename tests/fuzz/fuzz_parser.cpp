// Fuzz target: the lexer and parser of TorchScript code (lib/frontend/lexer.h, parser.h), on the
// bytes of one code/**.py record; a tree that parses is printed back (the S-expression dump walks
// all of it), and the text is parsed as one expression too (as annotations are).
#include <string>

#include "lib/frontend/lexer.h"
#include "lib/frontend/parser.h"
#include "tests/fuzz/fuzz_support.h"

using namespace jitctl;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text = fuzz::as_text(data, size);
  ParseOptions o;
  o.file = "fuzz.pt: archive/code/__torch__.py";
  fuzz::expect_clean("parser", [&] { lex(text, LexOptions{o.file}); });
  fuzz::expect_clean("parser", [&] { dump(parse_source(text, o)); });
  fuzz::expect_clean("parser", [&] { dump(*parse_expression(text, o)); });
  return 0;
}
