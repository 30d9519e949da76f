// jitctl: inspect, validate, transform, run and benchmark TorchScript archives without PyTorch.
#include <fmt/format.h>

#include <new>
#include <string>
#include <vector>

#include "cli/cli_model.h"
#include "cli/commands.h"
#include "cli/conventions.h"
#include "cli/standard_output.h"
#include "cli/usage_errors.h"
#include "cli/version.h"
#include "cli/wait_policy.h"
#include "lib/core/error.h"
#include "lib/core/string_literal.h"

namespace {

// Errors are one line on stderr, whatever bytes a hostile file put into a name: control
// characters (a terminal's escape sequences, newlines) and bytes that are not UTF-8 are escaped.
std::string one_line(const std::string& s) { return jitctl::printable_text(s); }

constexpr int kUsage = static_cast<int>(jitctl::ExitCode::InvalidInput);

int run(int argc, char** argv) {
  CLI::App app{"jitctl: inspect, validate, transform, run and benchmark TorchScript models (model.pt from "
               "torch.jit.save) without PyTorch.",
               "jitctl"};
  app.formatter(std::make_shared<jitctl::cli::Formatter>());
  app.set_version_flag("--version", [] { return jitctl::cli::version_text(); },
                       "Print the version and build details (compiler, instruction set, OpenMP, CUDA) and exit");
  app.require_subcommand(1);
  app.footer("Run 'jitctl help COMMAND' (or 'jitctl COMMAND --help') for a command's options and examples.\n"
             "Exit codes: 0 success, 1 a check found a problem, 2 bad usage or invalid input, 3 unsupported feature.\n"
             "See man jitctl for details.");
  // For tests and tools: the CLI definition as JSON (cli/cli_model.h).
  bool dump_cli_json = false;
  app.add_flag("--dump-cli-json", dump_cli_json, "print the command-line definition as JSON")->group("");
  jitctl::cli::add_info_command(app);
  jitctl::cli::add_dump_graph_command(app);
  jitctl::cli::add_dump_code_command(app);
  jitctl::cli::add_run_command(app);
  jitctl::cli::add_check_trace_command(app);
  jitctl::cli::add_diff_command(app);
  jitctl::cli::add_freeze_command(app);
  jitctl::cli::add_optimize_command(app);
  jitctl::cli::add_bench_threads_command(app);
  jitctl::cli::add_parallel_info_command(app);
  jitctl::cli::add_help_command(app);
  jitctl::cli::add_completion_command(app);
  jitctl::cli::apply_conventions(app);

  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.size() == 1 && args[0] == "--dump-cli-json") {
    fmt::print("{}\n", jitctl::cli::cli_model_json(jitctl::cli::cli_model(app)).dump(2));
    return 0;
  }
  if (auto problem = jitctl::cli::check_command_word(app, args)) {
    fmt::print(stderr, "jitctl: {}\n", one_line(*problem));
    return kUsage;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    fmt::print(stderr, "{}\n", one_line(jitctl::cli::usage_error_message(app, e)));
    return kUsage;
  } catch (const jitctl::Error& e) {
    if (*e.what()) fmt::print(stderr, "jitctl: {}\n", one_line(e.what()));
    return static_cast<int>(e.code());
  } catch (const std::bad_alloc&) {
    fmt::print(stderr, "jitctl: out of memory\n");
    return kUsage;
  } catch (const std::exception& e) {
    // A limit reached (run_limits.h), standard output that cannot be written, or a library's error.
    if (!jitctl::cli::report_standard_output_error(e)) fmt::print(stderr, "jitctl: {}\n", one_line(e.what()));
    return kUsage;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  jitctl::cli::reexec_with_default_wait_policy(argc, argv);
  jitctl::cli::prepare_standard_output();
  return jitctl::cli::finish_standard_output(run(argc, argv));
}
