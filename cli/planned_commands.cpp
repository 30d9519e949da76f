// The rest of the command-line contract (DESIGN.md), registered with its flags so that --help is
// complete and scripts get a precise exit 3 until each command is built. A command that gets built
// moves to a file of its own.
#include <fmt/format.h>

#include <string>
#include <vector>

#include "cli/commands.h"
#include "lib/core/error.h"

namespace jitctl::cli {
namespace {

struct Planned {
  std::string model, method, format, output, inputs_file, device, plot, passes;
  std::vector<std::string> inputs, input_specs, preserve, threads, interop, concurrency;
  bool all = false, list_passes = false;
  double rtol = 1e-5, atol = 1e-5;
  int warmup = 3, iters = 20, n_threads = 0, n_interop = 0;
};

void not_yet(const std::string& name) {
  throw Unsupported(fmt::format("`jitctl {}` is not implemented in this version", name));
}

CLI::App* planned(CLI::App& app, const std::string& name, const std::string& alias, const std::string& what) {
  auto* cmd = app.add_subcommand(name, what + " [not implemented yet: exits 3]");
  if (!alias.empty()) cmd->alias(alias);
  cmd->callback([name] { not_yet(name); });
  return cmd;
}

}  // namespace

void add_planned_commands(CLI::App& app) {
  static Planned p;
  auto* freeze = planned(app, "freeze", "", "Freeze a module (like torch.jit.freeze)");
  freeze->add_option("model", p.model, "TorchScript archive")->required();
  freeze->add_option("-o,--output", p.output, "output archive")->required();
  freeze->add_option("--preserve", p.preserve, "attribute or method to keep");
}

}  // namespace jitctl::cli
