#include "passes/registry.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "passes/annotate_warns.h"
#include "passes/canonicalize_outputs.h"
#include "passes/constant_pooling.h"
#include "passes/constant_propagation.h"
#include "passes/control_flow_load_stores.h"
#include "passes/dead_code_elimination.h"
#include "passes/erase_load_stores.h"
#include "passes/exit_transforms.h"
#include "passes/inline_forked_closures.h"
#include "passes/inline_loop_condition.h"
#include "passes/inliner.h"
#include "passes/lift_closures.h"
#include "passes/loop_continuations.h"
#include "passes/lower_simple_tuples.h"
#include "passes/peephole.h"
#include "passes/replace_old_operators.h"

namespace jitctl {
namespace {

// One calling convention for the table: whether a pass reported a change is of no use to a
// pipeline, and most passes need no context.
template <auto Entry>
void adapt(Graph& g, const PassContext& ctx) {
  if constexpr (std::is_invocable_v<decltype(Entry), Graph&, const PassContext&>)
    (void)Entry(g, ctx);
  else
    (void)Entry(g);
}

template <class... Steps>
constexpr PipelineInfo pipeline(std::string_view name, std::string_view description, Steps... steps) {
  static_assert(sizeof...(Steps) <= PipelineInfo::kMaxSteps, "a pipeline with more steps than PipelineInfo holds");
  return PipelineInfo{name, description, {std::string_view(steps)...}, sizeof...(Steps)};
}

constexpr std::array kPasses = {
#define JITCTL_PASS(name, file, entry, description) PassInfo{name, #file, description, &adapt<&entry>, false},
#define JITCTL_EMITTER_PASS(name, file, entry, description) PassInfo{name, #file, description, &adapt<&entry>, true},
#include "passes/registry.def"
};

constexpr std::array kPipelines = {
#define JITCTL_PIPELINE(name, description, ...) pipeline(name, description, __VA_ARGS__),
#include "passes/registry.def"
};

consteval bool is_pass(std::string_view name) {
  for (const PassInfo& p : kPasses)
    if (p.name == name) return true;
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

consteval bool steps_are_passes() {
  for (const PipelineInfo& p : kPipelines)
    for (size_t i = 0; i < p.num_steps; ++i)
      if (!is_pass(p.step_names[i])) return false;
  return true;
}

static_assert(names_unique(), "passes/registry.def: two passes or pipelines share a name");
static_assert(steps_are_passes(), "passes/registry.def: a pipeline step names no pass");

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

bool PipelineInfo::emitter_only() const {
  for (std::string_view step : steps())
    if (find_pass(step)->emitter_only) return true;
  return false;
}

void run_pipeline(std::string_view name, Graph& g, const PassContext& ctx) {
  const PipelineInfo* p = find_pipeline(name);
  if (!p) throw std::logic_error("run_pipeline: no pipeline named '" + std::string(name) + "'");
  for (std::string_view step : p->steps()) find_pass(step)->run(g, ctx);
}

}  // namespace jitctl
