// jitctl parallel-info [--threads N] [--interop-threads N] [--format text|json]: thread settings,
// as `torch.__config__.parallel_info()` prints them (lib/runtime/parallel_info.h), then the
// machine: cores, threads per core, instruction set, OpenMP runtime, threading variables in force
// (lib/bench/machine_report.h).
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "lib/bench/machine_report.h"
#include "cli/validators.h"
#include "cli/version.h"
#include "lib/runtime/parallel_info.h"
#include "lib/runtime/threads.h"

namespace jitctl::cli {

void add_parallel_info_command(CLI::App& app) {
  struct Args {
    int threads = 0, interop = 0;
    std::string format = "text";
  };
  static Args a;
  auto* cmd = app.add_subcommand("parallel-info", "Print thread settings (like torch.__config__.parallel_info()) and the machine");
  cmd->add_option("--threads", a.threads, "intra-op threads (default: MKL_NUM_THREADS, OMP_NUM_THREADS, then cores)")
      ->check(whole_number(1, kMaxThreads));
  cmd->add_option("--interop-threads", a.interop, "inter-op threads (default: cores)")->check(whole_number(1, kMaxThreads));
  cmd->add_option("--format", a.format, "text or json")->check(CLI::IsMember({"text", "json"}))->capture_default_str();
  cmd->callback([] {
    init_threads(a.threads, a.interop);
    if (a.format == "json") {
      auto j = parallel_info_json();
      j["cuda"] = cuda_json();
      fmt::print("{}\n", j.dump(1));
    } else {
      fmt::print("{}{}CUDA: {}\n", parallel_info(), machine_text(machine_info()), cuda_summary());
    }
  });
}

}  // namespace jitctl::cli
