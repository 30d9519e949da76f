#pragma once
// Every subcommand lives in its own file and registers itself through one of these functions;
// main.cpp calls them in the order `jitctl --help` lists them, then applies the conventions every
// command shares (cli/conventions.h).
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
void add_check_trace_command(CLI::App& app);
void add_diff_command(CLI::App& app);
// `jitctl help [COMMAND]` and `jitctl completion bash|zsh` (generated from the definition).
void add_help_command(CLI::App& app);
void add_completion_command(CLI::App& app);

}  // namespace jitctl::cli
