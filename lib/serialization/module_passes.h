#pragma once
// Passes over a whole loaded module, for `jitctl optimize`: graph passes run on every method of
// every class its code defines and on every free function, and passes on the module itself
// (eval mode; module-level passes such as freezing belong here, beside the module they change).
#include <functional>
#include <span>

#include "lib/serialization/export.h"
#include "passes/registry.h"

namespace jitctl {

// Compiles each graph, runs `passes` on it in order, and returns the graphs the passes changed
// (their printed text differs), ready for export_module(). Empty when nothing changed.
GraphOverrides run_passes_on_module(LoadedModule& m, std::span<const PassInfo* const> passes);

// The same with any rewrite of a graph: `rewrite` gets each fresh graph and `base` with the
// callees of its function filled in (for `inline`).
using GraphRewrite = std::function<void(Graph& g, const PassContext& ctx)>;
GraphOverrides rewrite_module_graphs(LoadedModule& m, const GraphRewrite& rewrite, const PassContext& base = {});

// `module.eval()`: sets `training` to False on the root and every submodule reachable from it (in
// attributes, lists, dicts and tuples), as torch.jit.optimize_for_inference does before it
// optimizes. Returns how many modules were in training mode.
size_t set_eval_mode(LoadedModule& m);

}  // namespace jitctl
