// jitctl run M [--method N] [--inputs F | --input-spec S...] [-o OUT]: run a method, as `m(*inputs)`.
// Not built yet: registers its flags so --help is complete, then exits 3.
#include <fmt/format.h>

#include <string>
#include <vector>

#include "cli/commands.h"
#include "lib/core/error.h"

namespace jitctl::cli {

void add_run_command(CLI::App& app) {
  struct Args { std::string model, method, inputs, output, device = "cpu"; std::vector<std::string> specs; int threads = 0, interop = 0; };
  static Args a;
  auto* cmd = app.add_subcommand("run", "Run a method on inputs [not implemented yet: exits 3]");
  cmd->add_option("model", a.model, "TorchScript archive")->required();
  cmd->add_option("--method", a.method, "method to run");
  cmd->add_option("--inputs", a.inputs, "torch.save / .npy / .npz inputs");
  cmd->add_option("--input-spec", a.specs, "random input, e.g. 'float32[1,3,224,224]'");
  cmd->add_option("-o,--output", a.output, "write outputs (.pt, .npy, .npz)");
  cmd->add_option("--threads", a.threads, "intra-op threads");
  cmd->add_option("--interop-threads", a.interop, "inter-op threads");
  cmd->add_option("--device", a.device, "cpu or cuda")->check(CLI::IsMember({"cpu", "cuda"}));
  cmd->callback([] { throw Unsupported("`jitctl run` is not implemented in this version"); });
}

}  // namespace jitctl::cli
