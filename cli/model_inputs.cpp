#include "cli/model_inputs.h"

#include <fmt/format.h>

#include <filesystem>

#include "cli/validators.h"
#include "lib/core/error.h"
#include "lib/runtime/arguments.h"
#include "lib/runtime/input_spec.h"
#include "lib/runtime/inputs.h"

namespace jitctl::cli {
namespace {

bool parses_as_spec(const std::string& text) {
  try {
    (void)parse_input_spec(text);
    return true;
  } catch (const Error&) {
    return false;
  }
}

bool names_a_file(const std::string& path) {
  std::error_code ec;
  return path == "-" || std::filesystem::exists(path, ec);
}

}  // namespace

void add_model_input_options(CLI::App& cmd, ModelInputs& a, bool model_required) {
  a.command = &cmd;
  a.model_option = cmd.add_option("model", a.model, "TorchScript archive (- reads standard input)")->required(model_required);
  // One word per value, never split: CLI11 would cut a vector positional's "[1,2]" at its comma,
  // unless it takes a fixed count without "extra args" (64 words at most).
  a.trailing_option = cmd.add_option("more-specs", a.trailing, "more --input-spec values, after the model")
                          ->group("")
                          ->expected(64, 64)
                          ->allow_extra_args(false)
                          ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd.add_option("--method", a.method, "method of the top-level module")->capture_default_str();
  auto* inputs = cmd.add_option("--inputs", a.inputs, "torch.save / .npy / .npz inputs (- reads standard input)");
  a.spec_option = cmd.add_option("--input-spec", a.specs,
                                 "arguments written out: float32[1,3,224,224] (seeded random), 3, 2.5, true, none, "
                                 "\"text\", (a, b), [a, b], {\"k\": v}; one per argument, or several joined by commas")
                      ->excludes(inputs)
                      ->allow_extra_args(false);
  cmd.add_option("--seed", a.seed, "seed for --input-spec tensors (tensor k is drawn with seed + k)")
      ->check(unsigned_number())
      ->capture_default_str();
}

void resolve_model_and_specs(ModelInputs& a) {
  if (!a.command || (a.trailing.empty() && a.model_option->count() <= 1)) return;
  // The words in the order typed: --input-spec values, the model, the words after it.
  std::vector<std::pair<const CLI::Option*, std::string>> words;
  size_t n_spec = 0, n_model = 0, n_trailing = 0;
  for (const CLI::Option* opt : a.command->parse_order()) {
    if (opt == a.spec_option && n_spec < a.specs.size()) words.emplace_back(opt, a.specs[n_spec++]);
    else if (opt == a.model_option && n_model == 0) words.emplace_back(opt, a.model), ++n_model;
    else if (opt == a.trailing_option && n_trailing < a.trailing.size()) words.emplace_back(opt, a.trailing[n_trailing++]);
  }
  // The model is the positional word that is not a spec (or names a file); the others are specs
  // typed after an --input-spec.
  std::vector<size_t> positional;
  for (size_t i = 0; i < words.size(); ++i)
    if (words[i].first != a.spec_option) positional.push_back(i);
  size_t model_at = positional.front();
  if (parses_as_spec(words[model_at].second) && !names_a_file(words[model_at].second))
    for (size_t i : positional)
      if (!parses_as_spec(words[i].second) || names_a_file(words[i].second)) {
        model_at = i;
        break;
      }
  std::vector<std::string> specs;
  for (size_t i = 0; i < words.size(); ++i) {
    if (i == model_at) continue;
    if (words[i].first != a.spec_option && a.specs.empty())
      throw InvalidInput(fmt::format("unexpected argument '{}' after the model (arguments are given with --inputs F or "
                                     "--input-spec S...)",
                                     words[i].second));
    specs.push_back(words[i].second);
  }
  a.model = words[model_at].second;
  a.specs = std::move(specs);
  a.trailing.clear();
}

PreparedCall prepare_call(ModelInputs& a) {
  resolve_model_and_specs(a);
  Runtime rt = Runtime::load(a.model);
  Method m = rt.method(a.method);
  FunctionSchema schema = rt.schema(a.method);
  std::vector<IValue> args = resolve_inputs(a.inputs, a.specs, a.seed);
  try {
    args = check_arguments(schema, std::move(args));
  } catch (const InvalidInput& e) {
    throw InvalidInput(fmt::format("{}: {}", a.model == "-" ? "<stdin>" : a.model, e.what()));
  }
  return {std::move(rt), std::move(m), std::move(schema), std::move(args)};
}

}  // namespace jitctl::cli
