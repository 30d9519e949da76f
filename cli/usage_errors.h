#pragma once
// Usage errors as one line on stderr, each saying what to do: unknown commands and flags get the
// nearest real name ("did you mean"), every other CLI11 complaint is rephrased plainly and points
// at the command's --help. Exit code 2 (DESIGN.md).
#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

namespace jitctl::cli {

// Before parsing: what `jitctl` alone, `jitctl inf x.pt` or `jitctl --bogus` get (CLI11 would say
// "A subcommand is required" to all three). The message, or nullopt when args[0] is a command
// or a top-level flag CLI11 knows.
std::optional<std::string> check_command_word(const CLI::App& app, const std::vector<std::string>& args);

// A CLI11 parse error (not --help/--version) as one line: "jitctl run: unknown option '--input'
// (did you mean '--inputs'?); see 'jitctl run --help'".
std::string usage_error_message(const CLI::App& app, const CLI::ParseError& e);

}  // namespace jitctl::cli
