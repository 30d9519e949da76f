// jitctl dump-code M [--method N] [--all]: TorchScript code, as `torch.jit.load(M).code` prints it
// (or one method's `.code`); --all prints every code record torch.jit.save would write for the
// module, each under a `# <record path>` line.
#include <fmt/format.h>

#include <string>
#include <vector>

#include "cli/commands.h"
#include "lib/core/error.h"
#include "lib/serialization/code_files.h"
#include "lib/serialization/load_module.h"

namespace jitctl::cli {

void add_dump_code_command(CLI::App& app) {
  struct Args {
    std::string model, method = "forward";
    bool all = false;
  };
  static Args a;
  auto* cmd = app.add_subcommand("dump-code", "Print TorchScript code, as PyTorch prints it");
  cmd->alias("code");
  cmd->add_option("model", a.model, "TorchScript archive")->required();
  cmd->add_option("--method", a.method, "method of the top-level module")->capture_default_str();
  cmd->add_flag("--all", a.all, "every class and function, as the code records of a saved archive");
  cmd->callback([] {
    LoadedModule m = load_module(a.model);
    if (!a.all) {
      fmt::print("{}", print_method_code(m, a.method));
      return;
    }
    for (const auto& rec : print_code_files(m).records) fmt::print("# {}\n{}", rec.path, rec.text);
  });
}

}  // namespace jitctl::cli
