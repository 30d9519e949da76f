#pragma once
// The command line as data, read from the CLI11 definition itself: every subcommand with its
// aliases, options (names, whether they take a value, their choices) and positionals. Shell
// completions are generated from it (cli/completion.cpp) and `jitctl --dump-cli-json` prints it
// for the man-page test (tests/tools/check_man.py), so neither can drift from the real flags.
#include <CLI/CLI.hpp>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace jitctl::cli {

struct CliOption {
  std::vector<std::string> names;  // "-o", "--output"; a positional's name ("model")
  std::string description;
  std::string value_name;          // "TEXT", "INT", ...; empty for a flag
  std::vector<std::string> choices;  // from an IsMember validator: {text, json}
  bool positional = false, required = false, repeatable = false;
};

struct CliCommand {
  std::string name, description;
  std::vector<std::string> aliases;
  std::vector<CliOption> options;  // --help included
  std::vector<std::string> examples;
};

struct CliModel {
  std::string name, description;
  std::vector<CliOption> options;  // top-level: --help, --version
  std::vector<CliCommand> commands;
};

// Hidden commands and options (CLI11 group "") are left out.
CliModel cli_model(const CLI::App& app);
nlohmann::ordered_json cli_model_json(const CliModel& model);

}  // namespace jitctl::cli
