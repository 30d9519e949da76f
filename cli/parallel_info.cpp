// jitctl parallel-info [--threads N] [--interop-threads N]: thread settings, as
// `torch.__config__.parallel_info()` prints them (lib/runtime/parallel_info.h).
#include <fmt/format.h>

#include "cli/commands.h"
#include "lib/runtime/parallel_info.h"
#include "lib/runtime/threads.h"

namespace jitctl::cli {

void add_parallel_info_command(CLI::App& app) {
  struct Args { int threads = 0, interop = 0; };
  static Args a;
  auto* cmd = app.add_subcommand("parallel-info", "Print thread settings (like torch.__config__.parallel_info())");
  cmd->add_option("--threads", a.threads, "intra-op threads (default: MKL_NUM_THREADS, OMP_NUM_THREADS, then cores)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--interop-threads", a.interop, "inter-op threads (default: cores)")->check(CLI::PositiveNumber);
  cmd->callback([] {
    init_threads(a.threads, a.interop);
    fmt::print("{}", parallel_info());
  });
}

}  // namespace jitctl::cli
