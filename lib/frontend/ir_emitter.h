#pragma once
// Compiles one method or function of an imported archive into the graph that PyTorch 1.13's
// `.graph` prints: the AST is emitted the way PyTorch's IR emitter does it (variables through
// prim::Store/prim::Load, literals materialized once at the top, arguments matched against
// schemas with PyTorch's side effects), then converted to SSA and cleaned up by the same passes in
// the same order. Every value id and `.N` name suffix in the result comes from replaying those
// steps (lib/frontend/EMITTER_NOTES.md is the account of them).
#include <memory>

#include "lib/frontend/importer.h"
#include "lib/ops/schema.h"
#include "lib/ir/ir.h"

namespace jitctl {

// The graph of `fn`. Throws InvalidInput for malformed code and Unsupported ("file:line:col:
// <construct> is not supported yet") for constructs jitctl does not compile yet.
std::shared_ptr<Graph> compile_function(CompilationUnit& cu, const CompilationUnit::Function& fn);

// The emitter's raw output, before SSA conversion and clean-up (for tests of the passes).
std::shared_ptr<Graph> emit_function(CompilationUnit& cu, const CompilationUnit::Function& fn);

// The schema a call site matches against: parameters with their annotated types and literal
// defaults, one return.
FunctionSchema schema_of(CompilationUnit& cu, const CompilationUnit::Function& fn);

}  // namespace jitctl
