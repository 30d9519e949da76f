#include "cli/model_inputs.h"

#include <fmt/format.h>

#include "lib/core/error.h"
#include "lib/runtime/inputs.h"

namespace jitctl::cli {

void add_model_input_options(CLI::App& cmd, ModelInputs& a, bool model_required) {
  cmd.add_option("model", a.model, "TorchScript archive")->required(model_required);
  cmd.add_option("--method", a.method, "method of the top-level module")->capture_default_str();
  auto* inputs = cmd.add_option("--inputs", a.inputs, "torch.save / .npy / .npz inputs");
  cmd.add_option("--input-spec", a.specs, "random input, e.g. 'float32[1,3,224,224]'")->excludes(inputs);
  cmd.add_option("--seed", a.seed, "seed for --input-spec tensors")->capture_default_str();
}

PreparedCall prepare_call(const ModelInputs& a) {
  Runtime rt = Runtime::load(a.model);
  Method m = rt.method(a.method);
  std::vector<IValue> args = resolve_inputs(a.inputs, a.specs, a.seed);
  if (args.size() < m.min_inputs() || args.size() > m.num_inputs())
    throw InvalidInput(fmt::format("{}: method '{}' takes {} argument(s), the inputs give {}", a.model, a.method,
                                   m.min_inputs() == m.num_inputs()
                                       ? std::to_string(m.num_inputs())
                                       : fmt::format("{} to {}", m.min_inputs(), m.num_inputs()),
                                   args.size()));
  return {std::move(rt), std::move(m), std::move(args)};
}

}  // namespace jitctl::cli
