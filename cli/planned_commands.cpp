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
  std::vector<std::string> inputs, input_specs, threads, interop, concurrency;
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
  auto* trace = planned(app, "check-trace", "", "Check whether a trace generalizes across inputs");
  trace->add_option("model", p.model, "traced TorchScript archive")->required();
  trace->add_option("--inputs", p.inputs, "input set (repeat)");
  trace->add_option("--rtol", p.rtol, "relative tolerance");
  trace->add_option("--atol", p.atol, "absolute tolerance");
  trace->add_option("--expected", p.output, "expected outputs");
  trace->add_option("--format", p.format, "text, json or junit")->check(CLI::IsMember({"text", "json", "junit"}));
  trace->add_option("--save-trace", p.plot, "write the retraced archive");
}

}  // namespace jitctl::cli
