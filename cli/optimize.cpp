// jitctl optimize M -o OUT [--passes a,b,c | none] [--list-passes] [--keep-training] [--force]:
// runs graph passes (passes/registry.h) on every method and function of the model, then
// writes an archive that torch.jit.load reads. Like torch.jit.optimize_for_inference, the result
// is for inference: modules are put in eval mode unless --keep-training. `--passes none` changes
// nothing else.
#include <fmt/format.h>

#include <string>
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
    out.push_back(p);
    if (comma == std::string::npos) return out;
    start = comma + 1;
  }
}

std::vector<const PassInfo*> every_pass() {
  std::vector<const PassInfo*> out;
  for (const auto& p : all_passes()) out.push_back(&p);
  return out;
}

}  // namespace

void add_optimize_command(CLI::App& app) {
  struct Args {
    std::string model, output, passes;
    bool list = false, force = false, keep_training = false;
  };
  static Args a;
  auto* cmd = app.add_subcommand("optimize", "Run graph passes on every method, then write the model (torch.jit.load reads it)");
  cmd->add_option("model", a.model, "TorchScript archive");
  cmd->add_option("-o,--output", a.output, "output archive (written atomically)");
  cmd->add_option("--passes", a.passes, "comma-separated passes in order, or none (default: every pass, as --list-passes lists them)");
  cmd->add_flag("--list-passes", a.list, "list the passes and exit");
  cmd->add_flag("--keep-training", a.keep_training, "keep each module's training flag (default: eval mode, as for inference)");
  cmd->add_flag("--force", a.force, "allow -o to name the input model itself");
  cmd->callback([] {
    if (a.list) {
      for (const auto& p : all_passes()) fmt::print("{:<32} {}\n", p.name, p.description);
      return;
    }
    if (a.model.empty()) throw InvalidInput("optimize: no model given (jitctl optimize M -o OUT)");
    if (a.output.empty()) throw InvalidInput(fmt::format("optimize {}: -o OUT is required", a.model));
    const auto passes = a.passes.empty() ? every_pass() : parse_passes(a.passes);
    // A mistyped -o should not replace the user's only copy of the model.
    if (!a.force) refuse_overwriting_inputs(a.output, {a.model}, " (use --force to replace it)");
    LoadedModule m = load_module(a.model);
    if (!a.keep_training) set_eval_mode(m);
    const GraphOverrides changed = run_passes_on_module(m, passes);
    export_module(m, a.output, changed);
    fmt::print("{}: written; {} graph(s) changed by {} pass(es)\n", a.output, changed.size(), passes.size());
  });
}

}  // namespace jitctl::cli
