// Fuzz target: the two readers of type expressions -- annotations in code (lib/frontend/
// type_parser.h: `Dict[str, List[Tensor]]`, `Final[int]`, `__torch__.M`) and the graph text's
// spelling (lib/ir/type_text.h: `Float(2, 3, strides=[3, 1], ...)`, `Dict(str, Tensor)`). A type
// that reads is printed in every spelling, and an annotation's printed form must read back as
// the same type.
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>

#include "lib/frontend/type_parser.h"
#include "lib/ir/type_text.h"
#include "tests/fuzz/fuzz_support.h"

using namespace jitctl;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text = fuzz::as_text(data, size);
  std::map<std::string, TypePtr> classes;
  TypeParseContext ctx;
  ctx.file = "fuzz.pt: archive/code/__torch__.py";
  // Names under __torch__ are the module's classes, as the importer resolves them. Its classes
  // are named by the code's class statements, so only dotted identifiers ever resolve (a quoted
  // annotation '__torch__.\a' names no class).
  ctx.resolve = [&](const std::string& name) -> TypePtr {
    if (name.rfind("__torch__.", 0) != 0) return nullptr;
    for (size_t i = 0; i < name.size(); ++i) {
      const char c = name[i];
      const bool ok = std::isalpha(static_cast<unsigned char>(c)) || c == '_' ||
                      (i > 0 && name[i - 1] != '.' && std::isdigit(static_cast<unsigned char>(c))) ||
                      (c == '.' && i > 0 && name[i - 1] != '.' && i + 1 < name.size());
      if (!ok) return nullptr;
    }
    auto& t = classes[name];
    if (!t) t = ClassType::create(name, false);
    return t;
  };
  TypePtr t;
  fuzz::expect_clean("type", [&] { t = parse_type(text, ctx); });
  fuzz::expect_clean("type", [&] { parse_annotation(text, ctx); });
  if (t) {
    t->str();
    t->graph_str();
    const std::string spelled = t->annotation_str();
    TypePtr again;
    fuzz::expect_clean("type", [&] { again = parse_type(spelled, ctx); });
    if (!again || !again->equals(*t)) {
      std::fprintf(stderr, "fuzz type: '%s' does not read back as itself\n", spelled.c_str());
      std::abort();
    }
  }
  fuzz::expect_clean("type", [&] {
    const TypePtr g = parse_type_text(text);
    g->str();
    g->graph_str();
    g->annotation_str();
  });
  return 0;
}
