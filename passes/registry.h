#pragma once
// The graph passes and named pipelines of passes/registry.def, by name: what `jitctl optimize
// --passes a,b,c`, `--pipeline NAME` and `--list-passes` use, and how the rest of jitctl runs a
// pipeline (the emitter runs convert-to-ssa and cleanup, GraphFunction::optimized_graph runs
// preoptimize). Pipelines are rows of the table, not code.
#include <array>
#include <cstddef>
#include <span>
#include <string_view>

#include "lib/ir/ir.h"
#include "passes/pass_context.h"

namespace jitctl {

struct PassInfo {
  std::string_view name;         // "dce"
  std::string_view file;         // "dead_code_elimination": passes/dead_code_elimination.{h,cpp}
  std::string_view description;  // one line, for --list-passes
  void (*entry)(Graph&, const PassContext&);
  // Works only on the emitter's output before SSA conversion (JITCTL_EMITTER_PASS), not on the
  // graphs of a loaded module.
  bool emitter_only = false;

  void run(Graph& g, const PassContext& ctx = {}) const { entry(g, ctx); }
};

struct PipelineInfo {
  static constexpr size_t kMaxSteps = 32;
  std::string_view name;
  std::string_view description;
  std::array<std::string_view, kMaxSteps> step_names{};
  size_t num_steps = 0;

  std::span<const std::string_view> steps() const { return {step_names.data(), num_steps}; }
  // Has a step that works only on the emitter's output.
  bool emitter_only() const;
};

// Every pass and every pipeline, in the order of the table.
std::span<const PassInfo> all_passes();
std::span<const PipelineInfo> all_pipelines();
// nullptr when there is none of that name.
const PassInfo* find_pass(std::string_view name);
const PipelineInfo* find_pipeline(std::string_view name);

// Runs the pipeline's passes in order on `g`. An unknown name is a programming error
// (std::logic_error): user-given names are looked up with find_pipeline first.
void run_pipeline(std::string_view name, Graph& g, const PassContext& ctx = {});

}  // namespace jitctl
