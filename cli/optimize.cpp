// jitctl optimize M -o OUT [--passes a,b,c | none | --pipeline NAME] [--freeze] [--list-passes]
// [--print-after-each] [--keep-training] [--format text|json] [--force]: rewrites a model for
// inference and writes an archive that torch.jit.load reads. Without --passes/--pipeline it does
// what torch.jit.optimize_for_inference does with standard ATen operators only: freeze, then the
// pipeline `optimize` on every frozen graph. With them, it runs those graph passes
// (passes/registry.def) on every method and function, unfrozen unless --freeze. Modules are put in
// eval mode unless --keep-training (which freezing does not allow). `--passes none` changes
// nothing else.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <string>
#include <string_view>
#include <vector>

#include "cli/commands.h"
#include "cli/rewrite_model.h"
#include "lib/core/error.h"
#include "passes/registry.h"

namespace jitctl::cli {
namespace {

// "a,b,c" -> the passes, in order; "none" -> no pass. Empty names and unknown passes are errors.
std::vector<const PassInfo*> parse_passes(const std::string& spec) {
  std::vector<const PassInfo*> out;
  if (spec == "none") return out;
  size_t start = 0;
  while (true) {
    const size_t comma = spec.find(',', start);
    const std::string name = spec.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const PassInfo* p = find_pass(name);
    if (!p)
      throw InvalidInput(name.empty() ? fmt::format("--passes '{}': an empty pass name", spec)
                                      : fmt::format("--passes: unknown pass '{}' (jitctl optimize --list-passes lists them)", name));
    if (p->emitter_only)
      throw InvalidInput(fmt::format("--passes: '{}' works only on the compiler's output before SSA conversion, not on a "
                                     "module's graphs",
                                     name));
    out.push_back(p);
    if (comma == std::string::npos) return out;
    start = comma + 1;
  }
}

void check_pipeline(const std::string& name) {
  const PipelineInfo* p = find_pipeline(name);
  if (!p) throw InvalidInput(fmt::format("--pipeline: unknown pipeline '{}' (jitctl optimize --list-passes lists them)", name));
  if (p->emitter_only())
    throw InvalidInput(fmt::format("--pipeline: '{}' works only on the compiler's output before SSA conversion, not on a "
                                   "module's graphs",
                                   name));
}

std::string_view mode_word(PipelineInfo::Mode mode) {
  switch (mode) {
    case PipelineInfo::Mode::Sequence: return "";
    case PipelineInfo::Mode::Repeat: return " (repeated until nothing changes)";
    case PipelineInfo::Mode::IfFirstChanges: return " (the rest only if the first step changed the graph)";
  }
  return "";
}

void list_passes() {
  fmt::print("passes:\n");
  // `*`: for the compiler's output before SSA conversion only; --passes and --pipeline refuse it.
  auto mark = [](bool emitter_only) { return emitter_only ? " *" : ""; };
  for (const auto& p : all_passes()) fmt::print("  {:<32} {}{}\n", p.name, p.description, mark(p.emitter_only));
  fmt::print("pipelines:\n");
  for (const auto& p : all_pipelines())
    fmt::print("  {:<32} {}{}{}\n  {:<32} = {}\n", p.name, p.description, mode_word(p.mode), mark(p.emitter_only()), "",
               fmt::join(p.steps(), ","));
  fmt::print("(*: runs only on the compiler's output before SSA conversion, not on a module's graphs)\n");
}

}  // namespace

void add_optimize_command(CLI::App& app) {
  struct Args {
    std::string model, output, passes, pipeline, format = "text";
    bool list = false, force = false, keep_training = false, freeze = false, print_after_each = false;
  };
  static Args a;
  auto* cmd = app.add_subcommand(
      "optimize", "Optimize for inference (freeze, then pipeline `optimize`), or run graph passes; write the model");
  cmd->add_option("model", a.model, "TorchScript archive");
  cmd->add_option("-o,--output", a.output, "output archive (written atomically)");
  auto* passes = cmd->add_option("--passes", a.passes, "comma-separated passes in order, or none (no freezing unless --freeze)");
  cmd->add_option("--pipeline", a.pipeline, "a named pipeline of passes (--list-passes lists them; no freezing unless --freeze)")
      ->excludes(passes);
  cmd->add_flag("--freeze", a.freeze, "with --passes/--pipeline: freeze first (the default without them)");
  cmd->add_flag("--list-passes", a.list, "list the passes and pipelines and exit");
  cmd->add_flag("--print-after-each", a.print_after_each, "print each graph after every pass (stderr)");
  cmd->add_flag("--keep-training", a.keep_training, "keep each module's training flag (default: eval mode, as for inference)");
  cmd->add_option("--format", a.format, "report: text (stderr) or json (stdout)")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  cmd->add_flag("--force", a.force, "allow -o to name the input model itself");
  cmd->callback([] {
    if (a.list) return list_passes();
    if (a.model.empty()) throw InvalidInput("optimize: no model given (jitctl optimize M -o OUT)");
    if (a.output.empty()) throw InvalidInput(fmt::format("optimize {}: -o OUT is required", a.model));
    RewriteJob job;
    job.command = "optimize";
    job.input = a.model;
    job.output = a.output;
    job.force = a.force;
    job.format = a.format;
    job.print_after_each = a.print_after_each;
    job.eval_mode = !a.keep_training;
    const bool explicit_passes = !a.passes.empty() || !a.pipeline.empty();
    job.freeze = a.freeze || !explicit_passes;
    if (job.freeze && a.keep_training)
      throw InvalidInput("optimize: --keep-training cannot be combined with freezing (freezing needs eval mode)");
    if (!a.passes.empty()) {
      job.passes = parse_passes(a.passes);
    } else {
      job.pipeline = a.pipeline.empty() ? "optimize" : a.pipeline;
      check_pipeline(job.pipeline);
    }
    rewrite_model(job);
  });
}

}  // namespace jitctl::cli
