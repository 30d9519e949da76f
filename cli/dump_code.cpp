// jitctl dump-code M [--method N] [--all]: TorchScript code, as `torch.jit.load(M).code` prints it.
// Not built yet: registers its flags so --help is complete, then exits 3.
#include <fmt/format.h>

#include <string>
#include <vector>

#include "cli/commands.h"
#include "lib/core/error.h"

namespace jitctl::cli {

void add_dump_code_command(CLI::App& app) {
  struct Args { std::string model, method; bool all = false; };
  static Args a;
  auto* cmd = app.add_subcommand("dump-code", "Print TorchScript code [not implemented yet: exits 3]");
  cmd->alias("code");
  cmd->add_option("model", a.model, "TorchScript archive")->required();
  cmd->add_option("--method", a.method, "method to print");
  cmd->add_flag("--all", a.all, "every class and function");
  cmd->callback([] { throw Unsupported("`jitctl dump-code` is not implemented in this version"); });
}

}  // namespace jitctl::cli
