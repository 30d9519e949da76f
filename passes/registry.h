#pragma once
// The graph passes and named pipelines of passes/registry.def, by name: what `jitctl optimize
// --passes a,b,c`, `--pipeline NAME` and `--list-passes` use, and how the rest of jitctl runs a
// pipeline (the emitter runs convert-to-ssa and cleanup, GraphFunction::optimized_graph runs
// preoptimize). Pipelines are rows of the table, not code.
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "lib/ir/ir.h"
#include "passes/pass_context.h"

namespace jitctl {

struct PassInfo {
  std::string_view name;         // "dce"
  std::string_view file;         // "dead_code_elimination": passes/dead_code_elimination.{h,cpp}
  std::string_view description;  // one line, for --list-passes
  // Returns whether the pass changed the graph; a pass whose entry does not say returns false
  // (`reports_change` tells which).
  bool (*entry)(Graph&, const PassContext&);
  // Works only on the emitter's output before SSA conversion (JITCTL_EMITTER_PASS), not on the
  // graphs of a loaded module.
  bool emitter_only = false;
  bool reports_change = false;

  // Runs it, then ctx.after_each (if set).
  bool run(Graph& g, const PassContext& ctx = {}) const;
};

struct PipelineInfo {
  static constexpr size_t kMaxSteps = 32;
  enum class Mode : uint8_t {
    Sequence,     // JITCTL_PIPELINE: the steps in order, once
    Repeat,       // JITCTL_PIPELINE_REPEAT: the steps in order, again until a round changes nothing
    IfFirstChanges,  // JITCTL_PIPELINE_IF_FIRST: the first step; the others only if it changed the graph
  };
  std::string_view name;
  std::string_view description;
  Mode mode = Mode::Sequence;
  // Passes or pipelines (defined earlier in the table).
  std::array<std::string_view, kMaxSteps> step_names{};
  size_t num_steps = 0;

  std::span<const std::string_view> steps() const { return {step_names.data(), num_steps}; }
  // Has a step (at any depth) that works only on the emitter's output.
  bool emitter_only() const;
};

// Every pass and every pipeline, in the order of the table.
std::span<const PassInfo> all_passes();
std::span<const PipelineInfo> all_pipelines();
// nullptr when there is none of that name.
const PassInfo* find_pass(std::string_view name);
const PipelineInfo* find_pipeline(std::string_view name);

// Runs the pipeline on `g` (its mode says how) and returns whether a step reported a change. An
// unknown name is a programming error (std::logic_error): user-given names are looked up with
// find_pipeline first.
bool run_pipeline(std::string_view name, Graph& g, const PassContext& ctx = {});

}  // namespace jitctl
