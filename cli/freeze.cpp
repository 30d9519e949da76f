// jitctl freeze M -o OUT [--preserve NAME]... [--no-optimize-numerics] [--force] [--format text|json]:
// torch.jit.freeze(m.eval()) without PyTorch (lib/serialization/freeze_module.h): attributes the
// code never changes become constants, what nothing reads goes, and the frozen graphs get
// PyTorch's clean-up and frozen optimizations. Writes an archive torch.jit.load reads.
#include <fmt/format.h>

#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/rewrite_model.h"
#include "lib/core/error.h"

namespace jitctl::cli {

void add_freeze_command(CLI::App& app) {
  struct Args {
    std::string model, output, format = "text";
    std::vector<std::string> preserve;
    bool force = false, no_numerics = false;
  };
  static Args a;
  auto* cmd = app.add_subcommand("freeze", "Freeze a module, as torch.jit.freeze(m.eval()) does, and write it");
  cmd->add_option("model", a.model, "TorchScript archive");
  cmd->add_option("-o,--output", a.output, "output archive (written atomically)");
  cmd->add_option("--preserve", a.preserve, "a method or attribute (dotted path) to keep as it is (repeat)");
  cmd->add_flag("--no-optimize-numerics", a.no_numerics,
                "do not fold batch_norm, add/sub, mul/div into convolutions (torch.jit.freeze's optimize_numerics=False)");
  cmd->add_option("--format", a.format, "report: text (stderr) or json (stdout)")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  cmd->add_flag("--force", a.force, "allow -o to name the input model itself");
  cmd->callback([] {
    if (a.model.empty()) throw InvalidInput("freeze: no model given (jitctl freeze M -o OUT)");
    if (a.output.empty()) throw InvalidInput(fmt::format("freeze {}: -o OUT is required", a.model));
    RewriteJob job;
    job.command = "freeze";
    job.input = a.model;
    job.output = a.output;
    job.force = a.force;
    job.format = a.format;
    job.freeze = true;
    job.preserve = a.preserve;
    job.optimize_numerics = !a.no_numerics;
    rewrite_model(job);
  });
}

}  // namespace jitctl::cli
