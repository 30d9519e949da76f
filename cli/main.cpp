// jitctl: inspect, validate, transform, run and benchmark TorchScript archives without PyTorch.
#include <fmt/format.h>

#include <new>

#include "cli/commands.h"
#include "lib/core/error.h"

namespace {

// Errors are one line on stderr, whatever bytes a hostile file put into a name.
std::string one_line(std::string s) {
  for (auto& c : s)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"jitctl: inspect, validate, transform, run and benchmark TorchScript models (model.pt from "
               "torch.jit.save) without PyTorch.",
               "jitctl"};
  app.set_version_flag("--version", "jitctl " JITCTL_VERSION);
  app.require_subcommand(1);
  app.footer("Exit codes: 0 success, 1 a check found a problem, 2 bad usage or invalid input, 3 unsupported feature.\n"
             "See man jitctl for details.");
  jitctl::cli::add_info_command(app);
  jitctl::cli::add_dump_graph_command(app);
  jitctl::cli::add_dump_code_command(app);
  jitctl::cli::add_run_command(app);
  jitctl::cli::add_planned_commands(app);
  jitctl::cli::add_freeze_command(app);
  jitctl::cli::add_optimize_command(app);
  jitctl::cli::add_bench_threads_command(app);
  jitctl::cli::add_parallel_info_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : static_cast<int>(jitctl::ExitCode::InvalidInput);
  } catch (const jitctl::Error& e) {
    fmt::print(stderr, "jitctl: {}\n", one_line(e.what()));
    return static_cast<int>(e.code());
  } catch (const std::bad_alloc&) {
    fmt::print(stderr, "jitctl: out of memory\n");
    return static_cast<int>(jitctl::ExitCode::InvalidInput);
  } catch (const std::exception& e) {
    fmt::print(stderr, "jitctl: {}\n", one_line(e.what()));
    return static_cast<int>(jitctl::ExitCode::InvalidInput);
  }
  return 0;
}
