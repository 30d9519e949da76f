// jitctl bench-threads M ...: latency and throughput across thread settings.
// Not built yet: registers its flags so --help is complete, then exits 3.
#include <fmt/format.h>

#include <string>
#include <vector>

#include "cli/commands.h"
#include "lib/core/error.h"

namespace jitctl::cli {

void add_bench_threads_command(CLI::App& app) {
  struct Args { std::string model, inputs, format = "text", plot; std::vector<std::string> specs, threads, interop, concurrency; int warmup = 3, iters = 20; };
  static Args a;
  auto* cmd = app.add_subcommand("bench-threads", "Measure latency and throughput across thread settings [not implemented yet: exits 3]");
  cmd->alias("bench");
  cmd->add_option("model", a.model, "TorchScript archive")->required();
  cmd->add_option("--inputs", a.inputs, "input set");
  cmd->add_option("--input-spec", a.specs, "random input spec");
  cmd->add_option("--threads", a.threads, "list of intra-op thread counts, or sweep");
  cmd->add_option("--interop-threads", a.interop, "list of inter-op thread counts");
  cmd->add_option("--concurrency", a.concurrency, "list of concurrent callers");
  cmd->add_option("--warmup", a.warmup, "warm-up iterations");
  cmd->add_option("--iters", a.iters, "timed iterations");
  cmd->add_option("--format", a.format, "text, csv or json")->check(CLI::IsMember({"text", "csv", "json"}));
  cmd->add_option("--plot", a.plot, "write an SVG plot");
  cmd->callback([] { throw Unsupported("`jitctl bench-threads` is not implemented in this version"); });
}

}  // namespace jitctl::cli
