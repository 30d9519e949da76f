#pragma once
// What every subcommand gets, applied once over the whole CLI11 tree after all commands are
// registered, so that a subcommand added later gets it too without doing anything:
//   - an option that takes a list takes one value per occurrence (repeat it, or join with commas
//     where the option says so), so `--input-spec S MODEL` or `--threads 1,2 MODEL` never takes
//     the model as one more value;
//   - CLI11's number validators answer with plain messages (cli/validators.h);
//   - a `--help` without examples gets those of cli/help_examples.cpp.
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace jitctl::cli {

void apply_conventions(CLI::App& app);

// jitctl's help layout (set on the top app before subcommands are added, which share it).
class Formatter : public CLI::Formatter {
 public:
  std::string make_option_usage(const CLI::Option* opt) const override;
};

// Every subcommand of `app` (not option groups), in the order `jitctl --help` lists them.
std::vector<CLI::App*> subcommands_of(CLI::App& app);
std::vector<const CLI::App*> subcommands_of(const CLI::App& app);

// Examples for `jitctl NAME --help` and the man page test: "jitctl run model.pt ...", one per line.
const std::vector<std::string>& help_examples(const std::string& command);

}  // namespace jitctl::cli
