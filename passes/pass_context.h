#pragma once
// What a pass may need besides its graph, filled by whoever runs it (the registry's pipelines pass
// it to every step). Most passes need nothing; `inline` needs the graphs of the functions calls
// name, which only a layer above knows (lib/frontend's GraphFunction supplies them).
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "lib/ir/ir.h"

namespace jitctl {

// The graph a call runs. For prim::CallMethod: the class's qualified name and the method name; for
// prim::CallFunction: the function's qualified name (the FunctionType of its function constant)
// and "". nullptr leaves that call in place. Errors (a callee that does not compile) propagate.
// The graph returned is shared: the inliner copies its nodes and never changes it.
using CalleeGraphFn =
    std::function<std::shared_ptr<Graph>(const std::string& class_or_function_qualified_name, const std::string& method)>;

struct PassContext {
  // For `inline`: the graph each call is replaced by (see passes/inliner.h). Running `inline`
  // without it is a programming error (std::logic_error).
  CalleeGraphFn callees;
  // For `replace-old-operators`: the file-format version of the archive whose code the graph was
  // compiled from (passes/replace_old_operators.h); -1 (not from an archive) leaves it alone.
  int64_t operator_version = -1;
};

}  // namespace jitctl
