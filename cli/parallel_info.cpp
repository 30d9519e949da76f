// jitctl parallel-info: thread settings, as `torch.__config__.parallel_info()` prints them.
// Not built yet: registers its flags so --help is complete, then exits 3.
#include <fmt/format.h>

#include <string>
#include <vector>

#include "cli/commands.h"
#include "lib/core/error.h"

namespace jitctl::cli {

void add_parallel_info_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("parallel-info", "Print thread settings (like torch.__config__.parallel_info()) [not implemented yet: exits 3]");
  cmd->callback([] { throw Unsupported("`jitctl parallel-info` is not implemented in this version"); });
}

}  // namespace jitctl::cli
