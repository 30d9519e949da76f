#pragma once
// Parsed graphs carry no matched schemas, but alias analysis reads them (which inputs an op
// writes, which outputs alias inputs). This finds, for every aten/prim node, the operator PyTorch
// would: the first overload whose argument and return counts and types fit.
#include "lib/frontend/schema_registry.h"
#include "lib/ir/ir.h"

namespace jitctl::test {

inline const FunctionSchema* find_builtin_schema(const Node* n) {
  for (const FunctionSchema& s : SchemaRegistry::builtin().overloads(n->kind().qual_string())) {
    if (s.is_vararg ? n->inputs().size() < s.arguments.size() : n->inputs().size() != s.arguments.size()) continue;
    if (!s.is_varret && n->outputs().size() != s.returns.size()) continue;
    TypeEnv env;
    bool fits = true;
    for (size_t i = 0; i < s.arguments.size() && fits; ++i) {
      const TypePtr& formal = s.arguments[i].type;
      const TypePtr& actual = n->input(i)->type();
      fits = formal->has_free_variables() ? match_type_variables(formal, actual, env).empty()
                                          : actual->is_subtype_of(formal);
    }
    if (fits) return &s;
  }
  return nullptr;
}

inline void attach_builtin_schemas(Block* b) {
  for (Node* n : b->nodes()) {
    if (!n->schema() && (n->kind().is_aten() || n->kind().is_prim()))
      if (const FunctionSchema* s = find_builtin_schema(n)) n->set_schema(s);
    for (Block* sub : n->blocks()) attach_builtin_schemas(sub);
  }
}

}  // namespace jitctl::test
