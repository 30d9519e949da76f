#pragma once
// Type expressions as they are written in code files -- `Optional[Tensor]`, `Dict[str, List[Tensor]]`,
// `Tuple[()]`, `number`, `__torch__.torch.nn.modules.conv.Conv2d` -- read into types with PyTorch
// 1.13's rules (ScriptTypeParser): which names are built in, which constructors take how many
// arguments, and the canonical forms of Optional and Union.
#include <functional>
#include <string>
#include <string_view>

#include "lib/core/types.h"
#include "lib/frontend/ast.h"

namespace jitctl {

// Finds a class, interface, enum or NamedTuple by its qualified name ("__torch__.foo.Bar", or a
// string annotation's text as written); nullptr when it knows no such type. Torch's custom classes
// (`__torch__.torch.classes.ns.Name`) resolve without it.
using TypeResolver = std::function<TypePtr(const std::string& qualified_name)>;

struct TypeParseContext {
  std::string file;      // for messages: "model.pt: archive/code/__torch__/m.py"
  TypeResolver resolve;  // may be empty: then only built-in names resolve
};

// Errors are InvalidInput "file:line:col: problem", with PyTorch's wording for the problem
// ("Unknown type name 'Foo'", "Unknown type constructor Final", ...).
TypePtr type_from_expr(const Expr& e, const TypeParseContext& ctx);

// A class attribute's annotation, where `Final[T]` marks a constant (`x : Final[int] = 3`).
struct Annotation {
  TypePtr type;
  bool is_final = false;
};
Annotation annotation_from_expr(const Expr& e, const TypeParseContext& ctx);

// The same over text, e.g. "Dict[str, List[Tensor]]"; positions in messages count from the
// start of `text`.
TypePtr parse_type(std::string_view text, const TypeParseContext& ctx);
Annotation parse_annotation(std::string_view text, const TypeParseContext& ctx);

}  // namespace jitctl
