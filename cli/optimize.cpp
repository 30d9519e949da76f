// jitctl optimize M -o OUT [--passes a,b,c | none | --pipeline NAME] [--list-passes] [--keep-training]
// [--force] [--format text|json]: runs graph passes (passes/registry.def) on every method and function of the model, then
// writes an archive that torch.jit.load reads. Like torch.jit.optimize_for_inference, the result
// is for inference: modules are put in eval mode unless --keep-training. `--passes none` changes
// nothing else.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "cli/commands.h"
#include "lib/core/error.h"
#include "lib/core/output_file.h"
#include "lib/serialization/export.h"
#include "lib/serialization/module_passes.h"
#include "lib/serialization/load_module.h"

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

std::vector<const PassInfo*> pipeline_passes(const std::string& name) {
  const PipelineInfo* p = find_pipeline(name);
  if (!p) throw InvalidInput(fmt::format("--pipeline: unknown pipeline '{}' (jitctl optimize --list-passes lists them)", name));
  if (p->emitter_only())
    throw InvalidInput(fmt::format("--pipeline: '{}' works only on the compiler's output before SSA conversion, not on a "
                                   "module's graphs",
                                   name));
  std::vector<const PassInfo*> out;
  for (std::string_view step : p->steps()) out.push_back(find_pass(step));
  return out;
}

void list_passes() {
  fmt::print("passes:\n");
  // `*`: for the compiler's output before SSA conversion only; --passes and --pipeline refuse it.
  auto mark = [](bool emitter_only) { return emitter_only ? " *" : ""; };
  for (const auto& p : all_passes()) fmt::print("  {:<32} {}{}\n", p.name, p.description, mark(p.emitter_only));
  fmt::print("pipelines:\n");
  for (const auto& p : all_pipelines())
    fmt::print("  {:<32} {}{}\n  {:<32} = {}\n", p.name, p.description, mark(p.emitter_only()), "",
               fmt::join(p.steps(), ","));
  fmt::print("(*: runs only on the compiler's output before SSA conversion, not on a module's graphs)\n");
}

}  // namespace

void add_optimize_command(CLI::App& app) {
  struct Args {
    std::string model, output, passes, pipeline, format = "text";
    bool list = false, force = false, keep_training = false;
  };
  static Args a;
  auto* cmd = app.add_subcommand("optimize", "Run graph passes on every method, then write the model (torch.jit.load reads it)");
  cmd->add_option("model", a.model, "TorchScript archive");
  cmd->add_option("-o,--output", a.output, "output archive (written atomically)");
  auto* passes = cmd->add_option("--passes", a.passes, "comma-separated passes in order, or none (default: --pipeline optimize)");
  cmd->add_option("--pipeline", a.pipeline, "a named pipeline of passes (--list-passes lists them)")->excludes(passes);
  cmd->add_flag("--list-passes", a.list, "list the passes and pipelines and exit");
  cmd->add_flag("--keep-training", a.keep_training, "keep each module's training flag (default: eval mode, as for inference)");
  cmd->add_flag("--force", a.force, "allow -o to name the input model itself");
  cmd->add_option("--format", a.format, "report format: text or json")->check(CLI::IsMember({"text", "json"}))->capture_default_str();
  cmd->callback([] {
    if (a.list) return list_passes();
    if (a.model.empty()) throw InvalidInput("optimize: no model given (jitctl optimize M -o OUT)");
    if (a.output.empty()) throw InvalidInput(fmt::format("optimize {}: -o OUT is required", a.model));
    if (a.format == "json" && is_stdout(a.output))
      throw InvalidInput("optimize: -o - writes the archive to standard output, where the --format json report would go; use one");
    const auto passes = a.passes.empty() ? pipeline_passes(a.pipeline.empty() ? "optimize" : a.pipeline) : parse_passes(a.passes);
    // A mistyped -o should not replace the user's only copy of the model.
    if (!a.force) refuse_overwriting_inputs(a.output, {a.model}, " (use --force to replace it)");
    LoadedModule m = load_module(a.model);
    if (!a.keep_training) set_eval_mode(m);
    const GraphOverrides changed = run_passes_on_module(m, passes);
    if (is_stdout(a.output))
      write_to_stdout_through_file("model.pt", [&](const std::string& file) { export_module(m, file, changed); });
    else
      export_module(m, a.output, changed);
    if (a.format == "json") {
      nlohmann::ordered_json j{{"model", a.model}, {"output", a.output}, {"passes", nlohmann::ordered_json::array()},
                               {"graphs_changed", changed.size()}, {"eval_mode", !a.keep_training}};
      for (const PassInfo* p : passes) j["passes"].push_back(std::string(p->name));
      fmt::print("{}\n", j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace));
      return;
    }
    // With -o - the archive is on standard output; the report goes to standard error.
    fmt::print(is_stdout(a.output) ? stderr : stdout, "{}: written; {} graph(s) changed by {} pass(es)\n",
               is_stdout(a.output) ? "<stdout>" : a.output, changed.size(), passes.size());
  });
}

}  // namespace jitctl::cli
