// jitctl run M [--method N] [--inputs F | --input-spec S...] [-o OUT]: run a method, as
// `m(*inputs)` does in PyTorch, and write or summarize its result.
#include <fmt/format.h>

#include <cstdint>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/model_inputs.h"
#include "lib/core/error.h"
#include "lib/core/output_file.h"
#include "lib/runtime/interpreter.h"
#include "lib/runtime/outputs.h"
#include "lib/runtime/threads.h"

namespace jitctl::cli {

void add_run_command(CLI::App& app) {
  struct Args : ModelInputs {
    std::string output, device = "cpu";
    int threads = 0, interop = 0;
  };
  static Args a;
  auto* cmd = app.add_subcommand("run", "Run a method on inputs, as m(*inputs)");
  add_model_input_options(*cmd, a);
  cmd->add_option("-o,--output", a.output, "write outputs (.pt, .npy, .npz); without it, print a summary");
  cmd->add_option("--threads", a.threads, "intra-op threads");
  cmd->add_option("--interop-threads", a.interop, "inter-op threads");
  cmd->add_option("--device", a.device, "cpu or cuda")->check(CLI::IsMember({"cpu", "cuda"}))->capture_default_str();
  cmd->callback([] {
    if (a.device == "cuda")
      throw InvalidInput("--device cuda: this jitctl was built without CUDA kernels, or no GPU is present");
    if (!a.output.empty()) refuse_overwriting_inputs(a.output, {a.model, a.inputs});
    init_threads(a.threads, a.interop);
    PreparedCall call = prepare_call(a);
    IValue result = call.method(std::move(call.args));
    if (a.output.empty())
      fmt::print("{}", summarize_outputs(result));
    else
      write_outputs(a.output, result);
  });
}

}  // namespace jitctl::cli
