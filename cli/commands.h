#pragma once
// Every subcommand lives in its own file and registers itself through one of these functions;
// main.cpp calls them in the order `jitctl --help` lists them.
#include <CLI/CLI.hpp>

namespace jitctl::cli {

void add_info_command(CLI::App& app);
void add_dump_graph_command(CLI::App& app);
void add_dump_code_command(CLI::App& app);
void add_run_command(CLI::App& app);
void add_freeze_command(CLI::App& app);
void add_optimize_command(CLI::App& app);
void add_bench_threads_command(CLI::App& app);
void add_parallel_info_command(CLI::App& app);
// Subcommands of the command-line contract not built yet: they parse their flags and exit 3.
void add_planned_commands(CLI::App& app);

}  // namespace jitctl::cli
