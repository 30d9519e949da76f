#include "passes/registry.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "passes/annotate_warns.h"
#include "passes/canonicalize_outputs.h"
#include "passes/common_subexpression_elimination.h"
#include "passes/constant_pooling.h"
#include "passes/constant_propagation.h"
#include "passes/control_flow_load_stores.h"
#include "passes/dead_code_elimination.h"
#include "passes/eliminate_dead_branches.h"
#include "passes/eliminate_no_ops.h"
#include "passes/erase_load_stores.h"
#include "passes/exit_transforms.h"
#include "passes/fold_tensor_queries.h"
#include "passes/frozen_concat_linear.h"
#include "passes/frozen_conv_folding.h"
#include "passes/frozen_linear_folding.h"
#include "passes/frozen_linear_transpose.h"
#include "passes/inline_forked_closures.h"
#include "passes/inline_loop_condition.h"
#include "passes/inliner.h"
#include "passes/lift_closures.h"
#include "passes/loop_continuations.h"
#include "passes/loop_unrolling.h"
#include "passes/lower_simple_tuples.h"
#include "passes/peephole.h"
#include "passes/remove_dropout.h"
#include "passes/remove_list_mutation.h"
#include "passes/remove_no_op_conversions.h"
#include "passes/replace_old_operators.h"
#include "passes/simplify_arithmetic.h"

namespace jitctl {
namespace {

// One calling convention for the table: most passes need no context, and a pass that does not
// say whether it changed anything counts as changing nothing.
template <auto Entry>
constexpr bool invocable_with_context = std::is_invocable_v<decltype(Entry), Graph&, const PassContext&>;

template <auto Entry>
constexpr bool reports_change() {
  if constexpr (invocable_with_context<Entry>)
    return std::is_same_v<std::invoke_result_t<decltype(Entry), Graph&, const PassContext&>, bool>;
  else
    return std::is_same_v<std::invoke_result_t<decltype(Entry), Graph&>, bool>;
}

template <auto Entry>
bool adapt(Graph& g, const PassContext& ctx) {
  if constexpr (reports_change<Entry>()) {
    if constexpr (invocable_with_context<Entry>)
      return Entry(g, ctx);
    else
      return Entry(g);
  } else {
    if constexpr (invocable_with_context<Entry>)
      Entry(g, ctx);
    else
      Entry(g);
    return false;
  }
}

template <class... Steps>
constexpr PipelineInfo pipeline(std::string_view name, PipelineInfo::Mode mode, std::string_view description,
                                Steps... steps) {
  static_assert(sizeof...(Steps) <= PipelineInfo::kMaxSteps, "a pipeline with more steps than PipelineInfo holds");
  return PipelineInfo{name, description, mode, {std::string_view(steps)...}, sizeof...(Steps)};
}

constexpr std::array kPasses = {
#define JITCTL_PASS(name, file, entry, description) \
  PassInfo{name, #file, description, &adapt<&entry>, false, reports_change<&entry>()},
#define JITCTL_EMITTER_PASS(name, file, entry, description) \
  PassInfo{name, #file, description, &adapt<&entry>, true, reports_change<&entry>()},
#include "passes/registry.def"
};

constexpr std::array kPipelines = {
#define JITCTL_PIPELINE(name, description, ...) pipeline(name, PipelineInfo::Mode::Sequence, description, __VA_ARGS__),
#define JITCTL_PIPELINE_REPEAT(name, description, ...) \
  pipeline(name, PipelineInfo::Mode::Repeat, description, __VA_ARGS__),
#define JITCTL_PIPELINE_IF_FIRST(name, description, ...) \
  pipeline(name, PipelineInfo::Mode::IfFirstChanges, description, __VA_ARGS__),
#include "passes/registry.def"
};

consteval const PassInfo* pass_named(std::string_view name) {
  for (const PassInfo& p : kPasses)
    if (p.name == name) return &p;
  return nullptr;
}

consteval bool is_pass(std::string_view name) { return pass_named(name) != nullptr; }

// Index of the pipeline of that name, or kPipelines.size().
consteval size_t pipeline_index(std::string_view name) {
  for (size_t i = 0; i < kPipelines.size(); ++i)
    if (kPipelines[i].name == name) return i;
  return kPipelines.size();
}

// Whether a step (pass or pipeline) can say it changed something.
consteval bool step_reports_change(std::string_view name) {
  if (const PassInfo* p = pass_named(name)) return p->reports_change;
  const PipelineInfo& p = kPipelines[pipeline_index(name)];
  for (size_t i = 0; i < p.num_steps; ++i)
    if (step_reports_change(p.step_names[i])) return true;
  return false;
}

consteval bool names_unique() {
  for (size_t i = 0; i < kPasses.size(); ++i) {
    for (size_t j = i + 1; j < kPasses.size(); ++j)
      if (kPasses[i].name == kPasses[j].name) return false;
    for (const PipelineInfo& p : kPipelines)
      if (p.name == kPasses[i].name) return false;
  }
  for (size_t i = 0; i < kPipelines.size(); ++i)
    for (size_t j = i + 1; j < kPipelines.size(); ++j)
      if (kPipelines[i].name == kPipelines[j].name) return false;
  return true;
}

// A step is a pass or a pipeline defined above its user (so pipelines cannot recurse).
consteval bool steps_are_defined() {
  for (size_t j = 0; j < kPipelines.size(); ++j)
    for (size_t i = 0; i < kPipelines[j].num_steps; ++i)
      if (!is_pass(kPipelines[j].step_names[i]) && pipeline_index(kPipelines[j].step_names[i]) >= j) return false;
  return true;
}

// Repeating, or deciding on the first step, needs steps that say whether they changed anything.
consteval bool conditional_steps_report_change() {
  for (const PipelineInfo& p : kPipelines) {
    if (p.mode == PipelineInfo::Mode::Repeat) {
      for (size_t i = 0; i < p.num_steps; ++i)
        if (!step_reports_change(p.step_names[i])) return false;
    } else if (p.mode == PipelineInfo::Mode::IfFirstChanges) {
      if (p.num_steps == 0 || !step_reports_change(p.step_names[0])) return false;
    }
  }
  return true;
}

static_assert(names_unique(), "passes/registry.def: two passes or pipelines share a name");
static_assert(steps_are_defined(), "passes/registry.def: a pipeline step names no pass and no pipeline above it");
static_assert(conditional_steps_report_change(),
              "passes/registry.def: a REPEAT or IF_FIRST pipeline depends on a step that does not report changes");

bool run_step(std::string_view step, Graph& g, const PassContext& ctx);

bool run_steps(const PipelineInfo& p, Graph& g, const PassContext& ctx) {
  switch (p.mode) {
    case PipelineInfo::Mode::Sequence: {
      bool changed = false;
      for (std::string_view step : p.steps()) changed |= run_step(step, g, ctx);
      return changed;
    }
    case PipelineInfo::Mode::Repeat: {
      bool changed = false;
      for (bool again = true; again;) {
        again = false;
        for (std::string_view step : p.steps()) again |= run_step(step, g, ctx);
        changed |= again;
      }
      return changed;
    }
    case PipelineInfo::Mode::IfFirstChanges: {
      if (!run_step(p.steps()[0], g, ctx)) return false;
      for (std::string_view step : p.steps().subspan(1)) run_step(step, g, ctx);
      return true;
    }
  }
  return false;
}

bool run_step(std::string_view step, Graph& g, const PassContext& ctx) {
  if (const PassInfo* pass = find_pass(step)) return pass->run(g, ctx);
  return run_steps(*find_pipeline(step), g, ctx);
}

}  // namespace

std::span<const PassInfo> all_passes() { return kPasses; }
std::span<const PipelineInfo> all_pipelines() { return kPipelines; }

const PassInfo* find_pass(std::string_view name) {
  auto it = std::find_if(kPasses.begin(), kPasses.end(), [&](const PassInfo& p) { return p.name == name; });
  return it == kPasses.end() ? nullptr : &*it;
}

const PipelineInfo* find_pipeline(std::string_view name) {
  auto it = std::find_if(kPipelines.begin(), kPipelines.end(), [&](const PipelineInfo& p) { return p.name == name; });
  return it == kPipelines.end() ? nullptr : &*it;
}

bool PassInfo::run(Graph& g, const PassContext& ctx) const {
  const bool changed = entry(g, ctx);
  if (ctx.after_each) ctx.after_each(name, g);
  return changed;
}

bool PipelineInfo::emitter_only() const {
  for (std::string_view step : steps()) {
    if (const PassInfo* p = find_pass(step)) {
      if (p->emitter_only) return true;
    } else if (find_pipeline(step)->emitter_only()) {
      return true;
    }
  }
  return false;
}

bool run_pipeline(std::string_view name, Graph& g, const PassContext& ctx) {
  const PipelineInfo* p = find_pipeline(name);
  if (!p) throw std::logic_error("run_pipeline: no pipeline named '" + std::string(name) + "'");
  return run_steps(*p, g, ctx);
}

}  // namespace jitctl
