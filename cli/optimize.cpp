// jitctl optimize M -o OUT [--passes a,b,c | none] [--list-passes]: optimizing passes, then write an archive.
// Not built yet: registers its flags so --help is complete, then exits 3.
#include <fmt/format.h>

#include <string>
#include <vector>

#include "cli/commands.h"
#include "lib/core/error.h"

namespace jitctl::cli {

void add_optimize_command(CLI::App& app) {
  struct Args { std::string model, output, passes; bool list = false; };
  static Args a;
  auto* cmd = app.add_subcommand("optimize", "Run optimizing passes (like torch.jit.optimize_for_inference) [not implemented yet: exits 3]");
  cmd->add_option("model", a.model, "TorchScript archive");
  cmd->add_option("-o,--output", a.output, "output archive");
  cmd->add_option("--passes", a.passes, "comma-separated passes, or none");
  cmd->add_flag("--list-passes", a.list, "list the passes");
  cmd->callback([] { throw Unsupported("`jitctl optimize` is not implemented in this version"); });
}

}  // namespace jitctl::cli
