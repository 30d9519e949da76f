// jitctl run M [--method N] [--inputs F | --input-spec S...] [-o OUT]: run a method, as
// `m(*inputs)` does in PyTorch, and write or summarize its result.
#include <fmt/format.h>

#include <cstdint>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "lib/core/error.h"
#include "lib/runtime/inputs.h"
#include "lib/runtime/interpreter.h"
#include "lib/runtime/outputs.h"
#include "lib/runtime/threads.h"

namespace jitctl::cli {

void add_run_command(CLI::App& app) {
  struct Args {
    std::string model, method = "forward", inputs, output, device = "cpu";
    std::vector<std::string> specs;
    int threads = 0, interop = 0;
    uint64_t seed = 0;
  };
  static Args a;
  auto* cmd = app.add_subcommand("run", "Run a method on inputs, as m(*inputs)");
  cmd->add_option("model", a.model, "TorchScript archive")->required();
  cmd->add_option("--method", a.method, "method of the top-level module")->capture_default_str();
  auto* inputs = cmd->add_option("--inputs", a.inputs, "torch.save / .npy / .npz inputs");
  cmd->add_option("--input-spec", a.specs, "random input, e.g. 'float32[1,3,224,224]'")->excludes(inputs);
  cmd->add_option("--seed", a.seed, "seed for --input-spec tensors")->capture_default_str();
  cmd->add_option("-o,--output", a.output, "write outputs (.pt, .npy, .npz); without it, print a summary");
  cmd->add_option("--threads", a.threads, "intra-op threads");
  cmd->add_option("--interop-threads", a.interop, "inter-op threads");
  cmd->add_option("--device", a.device, "cpu or cuda")->check(CLI::IsMember({"cpu", "cuda"}))->capture_default_str();
  cmd->callback([] {
    if (a.device == "cuda")
      throw InvalidInput("--device cuda: this jitctl was built without CUDA kernels, or no GPU is present");
    init_threads(a.threads, a.interop);
    Runtime rt = Runtime::load(a.model);
    Method m = rt.method(a.method);  // fails here, before reading inputs, on a missing operator
    std::vector<IValue> args = resolve_inputs(a.inputs, a.specs, a.seed);
    if (args.size() < m.min_inputs() || args.size() > m.num_inputs())
      throw InvalidInput(fmt::format("{}: method '{}' takes {} argument(s), the inputs give {}", a.model, a.method,
                                     m.min_inputs() == m.num_inputs()
                                         ? std::to_string(m.num_inputs())
                                         : fmt::format("{} to {}", m.min_inputs(), m.num_inputs()),
                                     args.size()));
    IValue result = m(std::move(args));
    if (a.output.empty())
      fmt::print("{}", summarize_outputs(result));
    else
      write_outputs(a.output, result);
  });
}

}  // namespace jitctl::cli
