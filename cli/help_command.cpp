// jitctl help [COMMAND]: the same text as `jitctl [COMMAND] --help`.
#include <fmt/format.h>

#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/conventions.h"
#include "lib/core/error.h"
#include "lib/core/suggest.h"

namespace jitctl::cli {

void add_help_command(CLI::App& app) {
  static std::string command;
  auto* cmd = app.add_subcommand("help", "Show help for jitctl or for one command (as COMMAND --help)");
  cmd->add_option("command", command, "the command to explain");
  cmd->callback([&app] {
    if (command.empty()) {
      // app.help() would describe the subcommand being run (this one).
      fmt::print("{}", app.get_formatter()->make_help(&app, app.get_name(), CLI::AppFormatMode::Normal));
      return;
    }
    std::vector<std::string> names;
    for (const CLI::App* sub : subcommands_of(app)) {
      if (sub->get_name() == command || sub->check_name(command)) {
        fmt::print("{}", sub->help(app.get_name()));
        return;
      }
      names.push_back(sub->get_name());
      for (const auto& a : sub->get_aliases()) names.push_back(a);
    }
    throw InvalidInput(fmt::format("help: unknown command '{}'{}; see 'jitctl --help' for the commands", command,
                                   did_you_mean(command, names)));
  });
}

}  // namespace jitctl::cli
